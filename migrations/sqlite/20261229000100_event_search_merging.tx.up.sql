-- The search's FTS5 indexes merge their segments only when asked
-- (models.MergeSearch, which the server runs in the background), never in
-- the write that adds a segment: automerge 0, and crisismerge 256 (a
-- write merges the small segments of level 0 only when 256 have piled up
-- unmerged; FTS5 refuses writes past 2,000 segments). With FTS5's
-- defaults a write could merge the segment of a whole calendar as it
-- committed (11 s at 1,000,000 events, past the API's deadline, so rolled
-- back and done again by the next write). See
-- models/event_search.go (searchSettings).
INSERT INTO event_search_fts (event_search_fts, rank) VALUES ('automerge', 0);
--bun:split

INSERT INTO event_search_fts (event_search_fts, rank) VALUES ('crisismerge', 256);
--bun:split

INSERT INTO event_search_runs (event_search_runs, rank) VALUES ('automerge', 0);
--bun:split

INSERT INTO event_search_runs (event_search_runs, rank) VALUES ('crisismerge', 256);
--bun:split

INSERT INTO event_search_short (event_search_short, rank) VALUES ('automerge', 0);
--bun:split

INSERT INTO event_search_short (event_search_short, rank) VALUES ('crisismerge', 256);
--bun:split

INSERT INTO event_search_vocab_fts (event_search_vocab_fts, rank) VALUES ('automerge', 0);
--bun:split

INSERT INTO event_search_vocab_fts (event_search_vocab_fts, rank) VALUES ('crisismerge', 256);
