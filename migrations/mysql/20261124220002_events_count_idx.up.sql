-- The unfiltered count of a window reads this narrower index: status and
-- hide_from_listings as equalities, then the start range, the end checked
-- from the entry.
CREATE INDEX events_count_idx ON events (status, hide_from_listings, start_at, end_at);
