-- The window index carries series_id too, so a list with one row per
-- recurring series counts its window from the index alone (the distinct
-- series and single events), as the plain count already did. It replaces
-- events_count_idx, of which it is an extension. One DDL statement: applied
-- and marked together.
ALTER TABLE events ADD INDEX events_window_idx (status, hide_from_listings, start_at, end_at, series_id), DROP INDEX events_count_idx;
