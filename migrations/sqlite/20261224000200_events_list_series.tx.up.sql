-- The list index carries series_id too, so a page with one row per
-- recurring series (recurrence=series) walks its window from the index
-- alone. series_id was added to events after the text columns, so reading
-- it from a row walks past the row's description, to its overflow pages
-- when the description is long: at 100,000 seeded events that was most of
-- the time of such a page. It replaces events_list_idx, of which it is an
-- extension.
CREATE INDEX IF NOT EXISTS events_list_series_idx ON events (status, start_at, published_at, id, end_at, hide_from_listings, series_id);
--bun:split

DROP INDEX IF EXISTS events_list_idx;
