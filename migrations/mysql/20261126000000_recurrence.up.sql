-- Recurring events (series and occurrences). A series is the event whose
-- recurrence holds its rule (RFC 5545 RRULE/RDATE/EXDATE lines, dates as
-- wall clock of the event's zone); it is also its own first occurrence.
-- Every occurrence, the series row included, has series_id (the series)
-- and recurrence_id (its original start, UTC, as RFC 5545's
-- RECURRENCE-ID); the others have parent_id = series_id. is_exception marks
-- an occurrence edited on its own. series_until (series rows only) is how
-- far the occurrences are materialized. One DDL statement: applied and
-- marked together.
ALTER TABLE events ADD COLUMN recurrence TEXT NULL, ADD COLUMN series_id BIGINT NULL,
  ADD COLUMN recurrence_id DATETIME NULL, ADD COLUMN is_exception BOOLEAN NOT NULL DEFAULT 0,
  ADD COLUMN series_until DATETIME NULL,
  ADD INDEX events_series_idx (series_id, recurrence_id), ADD INDEX events_series_until_idx (series_until);
