-- The events list filters on status, the start/end window and
-- hide_from_listings, and orders by start, publication date, id. With this
-- index the page is read in order (no sort) and the count is answered from
-- the index alone (events branch). One DDL statement: applied and marked
-- together under the migrator's lock.
CREATE INDEX events_list_idx ON events (status, start_at, published_at, id, end_at, hide_from_listings);
