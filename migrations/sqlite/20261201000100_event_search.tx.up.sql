-- Event search through an index (models/event_search.go): per event, one
-- row of its source text (lang '') and one per translation language, each
-- the folded (FoldSearch) title, description and excerpt joined by a line
-- break, which no search word contains. An FTS5 trigram index over it
-- answers words of three characters or more, event_search_short shorter
-- ones. Triggers mark the events whose text changed (event_search_dirty,
-- conn 1; conn 0 is the backlog a migration or reindex leaves);
-- the store refolds them before its transaction commits, and a search
-- reads events still marked with the LIKE condition of their stored text.
CREATE TABLE event_search (
    id INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL,
    lang TEXT NOT NULL,
    body TEXT NOT NULL
);
--bun:split

CREATE UNIQUE INDEX event_search_event_lang ON event_search (event_id, lang);
--bun:split

CREATE VIRTUAL TABLE event_search_fts USING fts5(body, content='event_search', content_rowid='id', tokenize='trigram case_sensitive 1', detail='none');
--bun:split

CREATE TRIGGER event_search_fts_ins AFTER INSERT ON event_search BEGIN INSERT INTO event_search_fts (rowid, body) VALUES (new.id, new.body); END;
--bun:split

CREATE TRIGGER event_search_fts_del AFTER DELETE ON event_search BEGIN INSERT INTO event_search_fts (event_search_fts, rowid, body) VALUES ('delete', old.id, old.body); END;
--bun:split

CREATE TRIGGER event_search_fts_upd AFTER UPDATE ON event_search BEGIN INSERT INTO event_search_fts (event_search_fts, rowid, body) VALUES ('delete', old.id, old.body); INSERT INTO event_search_fts (rowid, body) VALUES (new.id, new.body); END;
--bun:split

-- Words of one or two characters: every distinct character and pair of
-- characters of a row's body, written by the store as ASCII tokens (the
-- code points in base 36, so one token is one exact text), rowid = the
-- row's id; contentless, so it stores no text of its own.
CREATE VIRTUAL TABLE event_search_short USING fts5(grams, content='', contentless_delete=1, tokenize='ascii', detail='none');
--bun:split

CREATE TABLE event_search_dirty (
    conn INTEGER NOT NULL,
    event_id INTEGER NOT NULL,
    PRIMARY KEY (conn, event_id)
) WITHOUT ROWID;
--bun:split

CREATE TRIGGER events_search_ins AFTER INSERT ON events BEGIN INSERT INTO event_search_dirty (conn, event_id) SELECT 1, new.id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = new.id); END;
--bun:split

CREATE TRIGGER events_search_upd AFTER UPDATE ON events WHEN old.id IS NOT new.id OR old.title IS NOT new.title OR old.description IS NOT new.description OR old.excerpt IS NOT new.excerpt BEGIN INSERT INTO event_search_dirty (conn, event_id) SELECT 1, new.id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = new.id); INSERT INTO event_search_dirty (conn, event_id) SELECT 1, old.id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = old.id); END;
--bun:split

CREATE TRIGGER events_search_del AFTER DELETE ON events BEGIN INSERT INTO event_search_dirty (conn, event_id) SELECT 1, old.id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = old.id); END;
--bun:split

CREATE TRIGGER event_translations_search_ins AFTER INSERT ON event_translations BEGIN INSERT INTO event_search_dirty (conn, event_id) SELECT 1, new.event_id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = new.event_id); END;
--bun:split

CREATE TRIGGER event_translations_search_upd AFTER UPDATE ON event_translations WHEN old.event_id IS NOT new.event_id OR old.lang IS NOT new.lang OR old.title IS NOT new.title OR old.description IS NOT new.description OR old.excerpt IS NOT new.excerpt BEGIN INSERT INTO event_search_dirty (conn, event_id) SELECT 1, new.event_id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = new.event_id); INSERT INTO event_search_dirty (conn, event_id) SELECT 1, old.event_id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = old.event_id); END;
--bun:split

CREATE TRIGGER event_translations_search_del AFTER DELETE ON event_translations BEGIN INSERT INTO event_search_dirty (conn, event_id) SELECT 1, old.event_id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = old.event_id); END;
--bun:split

-- Every event is marked: the store folds them when the migration is done
-- (MigrateAndReport), and searches read them by LIKE until then.
INSERT INTO event_search_dirty (conn, event_id) SELECT 0, id FROM events;
