-- Fills the copies of the links' event fields (safe to run again).
UPDATE event_terms et JOIN events e ON e.id = et.event_id
SET et.status = e.status, et.start_at = e.start_at, et.end_at = e.end_at, et.hidden = e.hide_from_listings;
