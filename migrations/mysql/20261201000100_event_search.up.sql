-- Event search through an index (models/event_search.go): per event, one
-- row of its source text (lang '') and one per translation language, each
-- the folded (FoldSearch) title, description and excerpt joined by a line
-- break, which no search word contains, compared byte for byte (utf8mb4_bin).
-- MariaDB has no n-gram parser: grams holds one ASCII token per distinct
-- trigram of body (a hash, with a digit so it is never a stopword), and a
-- FULLTEXT index over it gives the candidates that LOCATE then checks; and
-- one per distinct character and pair of characters (their code points,
-- exact), which answer words of one or two characters alone.
-- Triggers mark the events whose text changed (event_search_dirty, per
-- connection, so concurrent writers never touch each other's marks); the
-- store refolds them before its transaction commits, and a search reads
-- events still marked with the LIKE condition of their stored text.
-- Triggers do not fire on foreign-key cascades in MariaDB: an event's own
-- delete trigger marks it. Each statement can run again.
CREATE TABLE IF NOT EXISTS event_search (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    event_id BIGINT NOT NULL,
    lang VARCHAR(10) NOT NULL,
    body LONGTEXT NOT NULL,
    grams LONGTEXT NOT NULL,
    UNIQUE KEY event_search_event_lang (event_id, lang),
    FULLTEXT KEY event_search_grams (grams)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
--bun:split

CREATE TABLE IF NOT EXISTS event_search_dirty (
    conn BIGINT UNSIGNED NOT NULL,
    event_id BIGINT NOT NULL,
    PRIMARY KEY (conn, event_id)
) ENGINE=InnoDB;
--bun:split

DROP TRIGGER IF EXISTS events_search_ins;
--bun:split

CREATE TRIGGER events_search_ins AFTER INSERT ON events FOR EACH ROW INSERT IGNORE INTO event_search_dirty (conn, event_id) VALUES (CONNECTION_ID(), NEW.id);
--bun:split

DROP TRIGGER IF EXISTS events_search_upd;
--bun:split

CREATE TRIGGER events_search_upd AFTER UPDATE ON events FOR EACH ROW BEGIN IF NOT (BINARY OLD.id <=> BINARY NEW.id AND BINARY OLD.title <=> BINARY NEW.title AND BINARY OLD.description <=> BINARY NEW.description AND BINARY OLD.excerpt <=> BINARY NEW.excerpt) THEN INSERT IGNORE INTO event_search_dirty (conn, event_id) VALUES (CONNECTION_ID(), NEW.id), (CONNECTION_ID(), OLD.id); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS events_search_del;
--bun:split

CREATE TRIGGER events_search_del AFTER DELETE ON events FOR EACH ROW INSERT IGNORE INTO event_search_dirty (conn, event_id) VALUES (CONNECTION_ID(), OLD.id);
--bun:split

DROP TRIGGER IF EXISTS event_translations_search_ins;
--bun:split

CREATE TRIGGER event_translations_search_ins AFTER INSERT ON event_translations FOR EACH ROW INSERT IGNORE INTO event_search_dirty (conn, event_id) VALUES (CONNECTION_ID(), NEW.event_id);
--bun:split

DROP TRIGGER IF EXISTS event_translations_search_upd;
--bun:split

CREATE TRIGGER event_translations_search_upd AFTER UPDATE ON event_translations FOR EACH ROW BEGIN IF NOT (BINARY OLD.event_id <=> BINARY NEW.event_id AND BINARY OLD.lang <=> BINARY NEW.lang AND BINARY OLD.title <=> BINARY NEW.title AND BINARY OLD.description <=> BINARY NEW.description AND BINARY OLD.excerpt <=> BINARY NEW.excerpt) THEN INSERT IGNORE INTO event_search_dirty (conn, event_id) VALUES (CONNECTION_ID(), NEW.event_id), (CONNECTION_ID(), OLD.event_id); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS event_translations_search_del;
--bun:split

CREATE TRIGGER event_translations_search_del AFTER DELETE ON event_translations FOR EACH ROW INSERT IGNORE INTO event_search_dirty (conn, event_id) VALUES (CONNECTION_ID(), OLD.event_id);
--bun:split

-- Every event is marked: the store folds them when the migration is done
-- (MigrateAndReport), and searches read them by LIKE until then.
INSERT IGNORE INTO event_search_dirty (conn, event_id) SELECT 0, id FROM events;
