-- The list index carries series_id too, so a page with one row per
-- recurring series (recurrence=series) walks its window from the index
-- alone; without it, each candidate of such a page was looked up in the
-- events table for its series_id. In the sqlite3 shell, on the seeded
-- 100,000 events, 500 runs of such a page query took 20–40 ms with it and
-- 30–70 ms without. It replaces events_list_idx, of which it is an
-- extension.
CREATE INDEX IF NOT EXISTS events_list_series_idx ON events (status, start_at, published_at, id, end_at, hide_from_listings, series_id);
--bun:split

DROP INDEX IF EXISTS events_list_idx;
