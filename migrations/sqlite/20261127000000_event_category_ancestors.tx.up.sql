-- Every category an event is filed under: those it is linked to and all
-- their ancestors, one row each, with the same copy of the event's status,
-- start, end and hide_from_listings as its links (models/event_categories.go).
-- A list filtered by a category (which stands for its subcategories too)
-- counts its matches with a plain COUNT(*) over one index range here,
-- instead of a COUNT(DISTINCT) over the links of the whole subtree. The next
-- migration fills it (as on MySQL, where it takes two). Without a rowid, a
-- row is written to two b-trees (the table by its key, and the window index),
-- not three.
CREATE TABLE IF NOT EXISTS event_category_ancestors (
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    term_id INTEGER NOT NULL REFERENCES terms (id) ON DELETE CASCADE,
    status VARCHAR(20) NOT NULL,
    hidden BOOLEAN NOT NULL DEFAULT 0,
    start_at DATETIME NULL,
    end_at DATETIME NULL,
    PRIMARY KEY (event_id, term_id)
) WITHOUT ROWID;
--bun:split

CREATE INDEX IF NOT EXISTS event_category_ancestors_window_idx
    ON event_category_ancestors (term_id, status, hidden, start_at, end_at, event_id);
