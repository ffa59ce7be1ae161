-- Every category an event is filed under: those it is linked to and all
-- their ancestors, one row each, with the same copy of the event's status,
-- start, end and hide_from_listings as its links (models/event_categories.go).
-- A list filtered by a category (which stands for its subcategories too)
-- counts its matches with a plain COUNT(*) over one index range here,
-- instead of a COUNT(DISTINCT) over the links of the whole subtree. One DDL
-- statement: applied and marked together; the next migration fills it.
CREATE TABLE IF NOT EXISTS event_category_ancestors (
    event_id BIGINT NOT NULL,
    term_id BIGINT NOT NULL,
    status VARCHAR(20) NOT NULL,
    hidden BOOLEAN NOT NULL DEFAULT 0,
    start_at DATETIME NULL,
    end_at DATETIME NULL,
    PRIMARY KEY (event_id, term_id),
    KEY event_category_ancestors_window_idx (term_id, status, hidden, start_at, end_at, event_id),
    CONSTRAINT event_category_ancestors_event_fk FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
    CONSTRAINT event_category_ancestors_term_fk FOREIGN KEY (term_id) REFERENCES terms (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
