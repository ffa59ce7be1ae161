-- Recurring events (series and occurrences). A series is the event whose
-- recurrence holds its rule (RFC 5545 RRULE/RDATE/EXDATE lines, dates as
-- wall clock of the event's zone); it is also its own first occurrence.
-- Every occurrence, the series row included, has series_id (the series)
-- and recurrence_id (its original start, UTC, as RFC 5545's
-- RECURRENCE-ID); the others have parent_id = series_id. is_exception marks
-- an occurrence edited on its own. series_until (series rows only) is how
-- far the occurrences are materialized.
ALTER TABLE events ADD COLUMN recurrence TEXT NULL;
--bun:split

ALTER TABLE events ADD COLUMN series_id INTEGER NULL;
--bun:split

ALTER TABLE events ADD COLUMN recurrence_id DATETIME NULL;
--bun:split

ALTER TABLE events ADD COLUMN is_exception BOOLEAN NOT NULL DEFAULT 0;
--bun:split

ALTER TABLE events ADD COLUMN series_until DATETIME NULL;
--bun:split

CREATE INDEX IF NOT EXISTS events_series_idx ON events (series_id, recurrence_id);
--bun:split

CREATE INDEX IF NOT EXISTS events_series_until_idx ON events (series_until);
