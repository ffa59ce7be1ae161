-- Each category/tag link carries a copy of its event's status, start, end
-- and hide_from_listings, kept by every event write in its transaction
-- (models/events_count.go). A list filtered by a category or tag then
-- counts its matches from one index range of the links instead of probing
-- the links of every event in the date window. One DDL statement: applied
-- and marked together; the next migration fills it.
ALTER TABLE event_terms
    ADD COLUMN status VARCHAR(20) NOT NULL DEFAULT '',
    ADD COLUMN start_at DATETIME NULL,
    ADD COLUMN end_at DATETIME NULL,
    ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT 0,
    ADD INDEX event_terms_window_idx (term_id, status, hidden, start_at, end_at, event_id);
