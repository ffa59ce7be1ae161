-- The events that cross a UTC midnight (they end on a later UTC day than
-- they start), in the window index's order: a total from the day buckets
-- (models/events_totals.go) subtracts the events of its days that end
-- after the window, and every one of those starts before a midnight and
-- ends after it. In the seeded calendar a fifth of the events do, so that
-- count reads a fifth of the entries it read from events_window_idx.
-- Stored times are UTC text ("2027-03-01 19:30:00+00:00"), so the first
-- ten characters are the UTC day. The condition is written as the
-- subtraction writes it (windowConds): SQLite uses a partial index only
-- for a query whose WHERE holds its condition.
CREATE INDEX IF NOT EXISTS events_overnight_idx ON events (status, hide_from_listings, start_at, end_at, series_id)
    WHERE substr(end_at, 1, 10) > substr(start_at, 1, 10);
