-- The window index carries series_id too, so a list with one row per
-- recurring series counts its window from the index alone (the distinct
-- series and single events), as the plain count already did. It replaces
-- events_count_idx, of which it is an extension.
CREATE INDEX IF NOT EXISTS events_window_idx ON events (status, hide_from_listings, start_at, end_at, series_id);
--bun:split

DROP INDEX IF EXISTS events_count_idx;
