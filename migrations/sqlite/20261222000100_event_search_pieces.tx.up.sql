-- The vocabulary of the search index holds pieces of runs, not whole runs
-- (models/event_search_runs.go). A run is cut before each "<" and after
-- each ">", so "jazz.</p><p>autumn" is the pieces "jazz.", "</p>", "<p>",
-- "autumn": a word without "<" or ">" lies inside one piece, and the
-- pieces that hold "jazz" are a few, where the runs that held it were
-- dozens (one per word it met across the markup). A row's document in
-- event_search_runs is its runs' pieces in order, a run's pieces apart
-- from the next by the token "x", with positions (detail full): a word
-- that holds "<" or ">" is a phrase of pieces. Every row is written
-- again: the index is emptied and every event marked, folded when the
-- migration is done (searches read marked events by LIKE until then).
DROP TABLE IF EXISTS event_search_runs;
--bun:split

CREATE VIRTUAL TABLE event_search_runs USING fts5(runs, content='', contentless_delete=1, tokenize='ascii', detail='full');
--bun:split

DELETE FROM event_search_vocab;
--bun:split

INSERT INTO event_search_vocab_fts (event_search_vocab_fts) VALUES ('delete-all');
--bun:split

DELETE FROM event_search;
--bun:split

INSERT INTO event_search_fts (event_search_fts) VALUES ('delete-all');
--bun:split

INSERT INTO event_search_short (event_search_short) VALUES ('delete-all');
--bun:split

INSERT INTO event_search_dirty (conn, event_id) SELECT 0, id FROM events e WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty d WHERE d.conn = 0 AND d.event_id = e.id);
