-- Event pages walk this index in start order and stop at the page's end
-- (models.ListEvents). With the end, status and hidden flag in its
-- entries, the rows a page skips are skipped from the index: the upcoming
-- events of the admin (ends after now), at a million events, were found
-- by reading every row started in the longest event's length before now
-- (25-70 ms; 0.1 ms from this index). It replaces events_start_idx, its
-- prefix (dropped by the next migration).
-- One DDL statement: applied and marked together.
ALTER TABLE events ADD INDEX events_start_cover_idx (start_at, published_at, id, end_at, status, hide_from_listings);
