-- Each category/tag link carries a copy of its event's status, start, end
-- and hide_from_listings, kept by every event write in its transaction
-- (models/events_count.go). A list filtered by a category or tag then
-- counts its matches from one index range of the links instead of probing
-- the links of every event in the date window.
ALTER TABLE event_terms ADD COLUMN status VARCHAR(20) NOT NULL DEFAULT '';
--bun:split

ALTER TABLE event_terms ADD COLUMN start_at DATETIME NULL;
--bun:split

ALTER TABLE event_terms ADD COLUMN end_at DATETIME NULL;
--bun:split

ALTER TABLE event_terms ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT 0;
--bun:split

UPDATE event_terms SET
    status = (SELECT e.status FROM events e WHERE e.id = event_terms.event_id),
    start_at = (SELECT e.start_at FROM events e WHERE e.id = event_terms.event_id),
    end_at = (SELECT e.end_at FROM events e WHERE e.id = event_terms.event_id),
    hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = event_terms.event_id);
--bun:split

CREATE INDEX IF NOT EXISTS event_terms_window_idx ON event_terms (term_id, status, hidden, start_at, end_at, event_id);
--bun:split

-- The unfiltered count of a window reads this narrower index: status and
-- hide_from_listings as equalities, then the start range, the end checked
-- from the entry.
CREATE INDEX IF NOT EXISTS events_count_idx ON events (status, hide_from_listings, start_at, end_at);
