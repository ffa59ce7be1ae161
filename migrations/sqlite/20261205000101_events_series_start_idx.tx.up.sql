-- The events of each series in start order, with what a window and the
-- visibility test, so the total of a list with one row per series probes
-- each series once (models/events_totals.go, countSeriesIn).
CREATE INDEX IF NOT EXISTS events_series_start_idx ON events (series_id, start_at, end_at, status, hide_from_listings);
