-- The change log (issue 34): one row per change of a record a reader of the
-- API can see, written by triggers in the writing transaction, so no write
-- path can forget it. Its number comes from one counter row that the same
-- transaction updates (change_seq): the row stays locked until the
-- transaction ends (MySQL) or there is one writer at a time (SQLite), so
-- numbers are taken in commit order and a reader that has seen number n
-- never meets a smaller one later (an auto-increment id is taken at insert
-- and could commit after a reader passed it). floor is the highest number
-- pruned (--changes-keep). Each row keeps the status and author before and
-- after, which tell each reader whether the record entered, stayed in or
-- left what they may read (models/changes.go).
-- Each statement can run again (the migration is not transactional on MySQL).
;
--bun:split

CREATE TABLE IF NOT EXISTS change_seq (
    id INT NOT NULL PRIMARY KEY,
    seq BIGINT NOT NULL,
    floor BIGINT NOT NULL
) ENGINE=InnoDB;
--bun:split

INSERT IGNORE INTO change_seq (id, seq, floor) VALUES (1, 0, 0);
--bun:split

CREATE TABLE IF NOT EXISTS changes (
    seq BIGINT NOT NULL PRIMARY KEY,
    kind VARCHAR(16) NOT NULL,
    record_id BIGINT NOT NULL,
    old_status VARCHAR(20) NULL,
    new_status VARCHAR(20) NULL,
    old_author BIGINT NULL,
    new_author BIGINT NULL,
    at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
--bun:split

ALTER TABLE changes ADD INDEX changes_at_idx (at);
--bun:split

DROP TRIGGER IF EXISTS events_chg_ins;
--bun:split

CREATE TRIGGER events_chg_ins AFTER INSERT ON events FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'event', NEW.id, NULL, NEW.status, NULL, NEW.author_id, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS events_chg_upd;
--bun:split

CREATE TRIGGER events_chg_upd AFTER UPDATE ON events FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'event', NEW.id, OLD.status, NEW.status, OLD.author_id, NEW.author_id, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS events_chg_del;
--bun:split

CREATE TRIGGER events_chg_del AFTER DELETE ON events FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'event', OLD.id, OLD.status, NULL, OLD.author_id, NULL, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS venues_chg_ins;
--bun:split

CREATE TRIGGER venues_chg_ins AFTER INSERT ON venues FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'venue', NEW.id, NULL, NEW.status, NULL, NEW.author_id, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS venues_chg_upd;
--bun:split

CREATE TRIGGER venues_chg_upd AFTER UPDATE ON venues FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'venue', NEW.id, OLD.status, NEW.status, OLD.author_id, NEW.author_id, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS venues_chg_del;
--bun:split

CREATE TRIGGER venues_chg_del AFTER DELETE ON venues FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'venue', OLD.id, OLD.status, NULL, OLD.author_id, NULL, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS organizers_chg_ins;
--bun:split

CREATE TRIGGER organizers_chg_ins AFTER INSERT ON organizers FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'organizer', NEW.id, NULL, NEW.status, NULL, NEW.author_id, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS organizers_chg_upd;
--bun:split

CREATE TRIGGER organizers_chg_upd AFTER UPDATE ON organizers FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'organizer', NEW.id, OLD.status, NEW.status, OLD.author_id, NEW.author_id, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS organizers_chg_del;
--bun:split

CREATE TRIGGER organizers_chg_del AFTER DELETE ON organizers FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'organizer', OLD.id, OLD.status, NULL, OLD.author_id, NULL, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS terms_chg_ins;
--bun:split

CREATE TRIGGER terms_chg_ins AFTER INSERT ON terms FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, NEW.taxonomy, NEW.id, NULL, 'publish', NULL, 0, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS terms_chg_upd;
--bun:split

CREATE TRIGGER terms_chg_upd AFTER UPDATE ON terms FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, NEW.taxonomy, NEW.id, 'publish', 'publish', 0, 0, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS terms_chg_del;
--bun:split

CREATE TRIGGER terms_chg_del AFTER DELETE ON terms FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, OLD.taxonomy, OLD.id, 'publish', NULL, 0, NULL, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS media_chg_ins;
--bun:split

CREATE TRIGGER media_chg_ins AFTER INSERT ON media FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'media', NEW.id, NULL, 'inherit', NULL, NEW.author_id, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS media_chg_upd;
--bun:split

CREATE TRIGGER media_chg_upd AFTER UPDATE ON media FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'media', NEW.id, 'inherit', 'inherit', OLD.author_id, NEW.author_id, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS media_chg_del;
--bun:split

CREATE TRIGGER media_chg_del AFTER DELETE ON media FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT seq, 'media', OLD.id, 'inherit', NULL, OLD.author_id, NULL, UTC_TIMESTAMP() FROM change_seq WHERE id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS event_translations_chg_ins;
--bun:split

CREATE TRIGGER event_translations_chg_ins AFTER INSERT ON event_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'event', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN events p ON p.id = NEW.event_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS event_translations_chg_upd;
--bun:split

CREATE TRIGGER event_translations_chg_upd AFTER UPDATE ON event_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'event', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN events p ON p.id = NEW.event_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS event_translations_chg_del;
--bun:split

CREATE TRIGGER event_translations_chg_del AFTER DELETE ON event_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'event', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN events p ON p.id = OLD.event_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS venue_translations_chg_ins;
--bun:split

CREATE TRIGGER venue_translations_chg_ins AFTER INSERT ON venue_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'venue', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN venues p ON p.id = NEW.venue_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS venue_translations_chg_upd;
--bun:split

CREATE TRIGGER venue_translations_chg_upd AFTER UPDATE ON venue_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'venue', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN venues p ON p.id = NEW.venue_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS venue_translations_chg_del;
--bun:split

CREATE TRIGGER venue_translations_chg_del AFTER DELETE ON venue_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'venue', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN venues p ON p.id = OLD.venue_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS organizer_translations_chg_ins;
--bun:split

CREATE TRIGGER organizer_translations_chg_ins AFTER INSERT ON organizer_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'organizer', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN organizers p ON p.id = NEW.organizer_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS organizer_translations_chg_upd;
--bun:split

CREATE TRIGGER organizer_translations_chg_upd AFTER UPDATE ON organizer_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'organizer', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN organizers p ON p.id = NEW.organizer_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS organizer_translations_chg_del;
--bun:split

CREATE TRIGGER organizer_translations_chg_del AFTER DELETE ON organizer_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'organizer', p.id, p.status, p.status, p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN organizers p ON p.id = OLD.organizer_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS term_translations_chg_ins;
--bun:split

CREATE TRIGGER term_translations_chg_ins AFTER INSERT ON term_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, p.taxonomy, p.id, 'publish', 'publish', 0, 0, UTC_TIMESTAMP() FROM change_seq c JOIN terms p ON p.id = NEW.term_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS media_translations_chg_ins;
--bun:split

CREATE TRIGGER media_translations_chg_ins AFTER INSERT ON media_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'media', p.id, 'inherit', 'inherit', p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN media p ON p.id = NEW.media_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS term_translations_chg_upd;
--bun:split

CREATE TRIGGER term_translations_chg_upd AFTER UPDATE ON term_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, p.taxonomy, p.id, 'publish', 'publish', 0, 0, UTC_TIMESTAMP() FROM change_seq c JOIN terms p ON p.id = NEW.term_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS media_translations_chg_upd;
--bun:split

CREATE TRIGGER media_translations_chg_upd AFTER UPDATE ON media_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'media', p.id, 'inherit', 'inherit', p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN media p ON p.id = NEW.media_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS term_translations_chg_del;
--bun:split

CREATE TRIGGER term_translations_chg_del AFTER DELETE ON term_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, p.taxonomy, p.id, 'publish', 'publish', 0, 0, UTC_TIMESTAMP() FROM change_seq c JOIN terms p ON p.id = OLD.term_id WHERE c.id = 1; END;
--bun:split

DROP TRIGGER IF EXISTS media_translations_chg_del;
--bun:split

CREATE TRIGGER media_translations_chg_del AFTER DELETE ON media_translations FOR EACH ROW BEGIN UPDATE change_seq SET seq = seq + 1 WHERE id = 1; INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) SELECT c.seq, 'media', p.id, 'inherit', 'inherit', p.author_id, p.author_id, UTC_TIMESTAMP() FROM change_seq c JOIN media p ON p.id = OLD.media_id WHERE c.id = 1; END;
