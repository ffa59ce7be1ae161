-- Search on MySQL and MariaDB through posting lists of our own
-- (models/event_search_mysql.go), in place of InnoDB's FULLTEXT index of
-- gram tokens, which cost about 60 µs for every row a token matched
-- (3 searches a second at 100,000 events). event_search keeps each row's
-- folded text. A word of a spaced language is found
-- in the vocabulary of pieces (as on SQLite: event_search_runs.go) by the
-- suffixes of its entries (event_search_vocab_sfx, a prefix range), and
-- the rows that hold one of them in event_search_post; a word of Chinese
-- or Japanese, or inside a piece too long for the vocabulary, by the
-- trigrams of those runs and the last two characters and last character
-- of each, exact (the code points in one number); LOCATE checks the rows
-- of a word of four characters or more. The
-- postings are written for every row: every event is marked, folded when
-- the migration is done (searches read marked events by LIKE until then).
-- Additive, so that instances still on the older release keep working
-- beside the new ones (README, "Upgrading"): event_search keeps its grams
-- and their FULLTEXT index, which this release no longer reads, and writes
-- empty for new rows; a later release that moves readable_from drops them.
-- Each statement can run again.
CREATE TABLE IF NOT EXISTS event_search_vocab (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    run VARCHAR(128) NOT NULL,
    UNIQUE KEY event_search_vocab_run (run)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
--bun:split

CREATE TABLE IF NOT EXISTS event_search_vocab_sfx (
    sfx VARCHAR(128) NOT NULL,
    vocab_id BIGINT NOT NULL,
    PRIMARY KEY (sfx, vocab_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
--bun:split

CREATE TABLE IF NOT EXISTS event_search_post (
    tok BIGINT NOT NULL,
    event_id BIGINT NOT NULL,
    lang VARCHAR(10) NOT NULL,
    PRIMARY KEY (tok, event_id, lang),
    KEY event_search_post_row (event_id, lang)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
--bun:split

DELETE FROM event_search_post;
--bun:split

DELETE FROM event_search_vocab_sfx;
--bun:split

DELETE FROM event_search_vocab;
--bun:split

INSERT IGNORE INTO event_search_dirty (conn, event_id) SELECT 0, id FROM events;
