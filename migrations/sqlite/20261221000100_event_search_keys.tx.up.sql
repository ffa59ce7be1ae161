-- The search index of events, keyed for lists and split by runs
-- (models/event_search.go, event_search_keys.go). Each row's id is its
-- key: the day of its event's start, the event, a listed flag (published
-- and not hidden) and its language's slot (event_search_langs; 0 is the
-- source text), and the rowid of its documents in three contentless
-- indexes: so a search reads the rows of one language pair, of a window
-- and listed, from the indexes alone, in start order, without reading a
-- row. A word (no separator in it) is in a text exactly when it is in one
-- of the text's runs (its longest parts without a separator). Runs of
-- Chinese or Japanese characters, or longer than 64 characters, are
-- indexed by their trigrams with positions (event_search_fts: a word is a
-- phrase of its trigrams, matched exactly); the others, words of spaced
-- languages, are listed once each in event_search_vocab (itself indexed by
-- trigrams), and each row's document in event_search_runs is the ids of
-- its runs: a word is the runs of the vocabulary that hold it, OR-ed.
-- event_search_short keeps the characters and pairs of characters of the
-- whole text. An event's rows are written again when their key changes
-- (its start, status or hidden flag), so the marking trigger of events
-- watches those too.
DROP TRIGGER IF EXISTS event_search_fts_ins;
--bun:split

DROP TRIGGER IF EXISTS event_search_fts_del;
--bun:split

DROP TRIGGER IF EXISTS event_search_fts_upd;
--bun:split

DROP TABLE IF EXISTS event_search_fts;
--bun:split

DROP TABLE IF EXISTS event_search_short;
--bun:split

DELETE FROM event_search;
--bun:split

CREATE TABLE event_search_langs (
    lang TEXT NOT NULL PRIMARY KEY,
    slot INTEGER NOT NULL
) WITHOUT ROWID;
--bun:split

CREATE VIRTUAL TABLE event_search_fts USING fts5(body, content='', contentless_delete=1, tokenize='trigram case_sensitive 1', detail='full');
--bun:split

CREATE VIRTUAL TABLE event_search_runs USING fts5(runs, content='', contentless_delete=1, tokenize='ascii', detail='none');
--bun:split

CREATE TABLE event_search_vocab (
    id INTEGER PRIMARY KEY,
    run TEXT NOT NULL UNIQUE
);
--bun:split

CREATE VIRTUAL TABLE event_search_vocab_fts USING fts5(run, content='event_search_vocab', content_rowid='id', tokenize='trigram case_sensitive 1', detail='none');
--bun:split

CREATE TRIGGER event_search_vocab_ins AFTER INSERT ON event_search_vocab BEGIN INSERT INTO event_search_vocab_fts (rowid, run) VALUES (new.id, new.run); END;
--bun:split

CREATE VIRTUAL TABLE event_search_short USING fts5(grams, content='', contentless_delete=1, tokenize='ascii', detail='none');
--bun:split

-- Pending rows are written to disk past 16 MB, not FTS5's default 1 MB:
-- a bulk refold (a seed, this migration, a reindex) then writes a few big
-- segments instead of many that it must merge.
INSERT INTO event_search_fts (event_search_fts, rank) VALUES ('hashsize', 16777216);
--bun:split

INSERT INTO event_search_runs (event_search_runs, rank) VALUES ('hashsize', 16777216);
--bun:split

INSERT INTO event_search_short (event_search_short, rank) VALUES ('hashsize', 16777216);
--bun:split

DROP TRIGGER IF EXISTS events_search_upd;
--bun:split

CREATE TRIGGER events_search_upd AFTER UPDATE ON events WHEN old.id IS NOT new.id OR old.title IS NOT new.title OR old.description IS NOT new.description OR old.excerpt IS NOT new.excerpt OR old.start_at IS NOT new.start_at OR old.status IS NOT new.status OR old.hide_from_listings IS NOT new.hide_from_listings BEGIN INSERT INTO event_search_dirty (conn, event_id) SELECT 1, new.id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = new.id); INSERT INTO event_search_dirty (conn, event_id) SELECT 1, old.id WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty WHERE conn = 1 AND event_id = old.id); END;
--bun:split

-- Every event is marked: the store folds them when the migration is done
-- (MigrateAndReport), and searches read them by LIKE until then.
INSERT INTO event_search_dirty (conn, event_id) SELECT 0, id FROM events e WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty d WHERE d.conn = 0 AND d.event_id = e.id);
