-- The venue and organizer links keep a copy of their event's status,
-- hidden flag, start and end, as the category and tag links do
-- (models/events_count.go), so that a list filtered by a venue or an
-- organizer and something else (a category) reads the smaller of the two
-- from its window index and probes the other, instead of walking every
-- event of the window. Triggers keep the copies, in the writing statement:
-- a new link written without them copies its event (the store writes them
-- in the insert), a change of the event's fields moves its links.
ALTER TABLE event_venues ADD COLUMN status VARCHAR(20) NOT NULL DEFAULT '';
--bun:split

ALTER TABLE event_venues ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT 0;
--bun:split

ALTER TABLE event_venues ADD COLUMN start_at DATETIME NULL;
--bun:split

ALTER TABLE event_venues ADD COLUMN end_at DATETIME NULL;
--bun:split

ALTER TABLE event_organizers ADD COLUMN status VARCHAR(20) NOT NULL DEFAULT '';
--bun:split

ALTER TABLE event_organizers ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT 0;
--bun:split

ALTER TABLE event_organizers ADD COLUMN start_at DATETIME NULL;
--bun:split

ALTER TABLE event_organizers ADD COLUMN end_at DATETIME NULL;
--bun:split

UPDATE event_venues SET status = e.status, hidden = e.hide_from_listings, start_at = e.start_at, end_at = e.end_at
FROM events e WHERE e.id = event_venues.event_id;
--bun:split

UPDATE event_organizers SET status = e.status, hidden = e.hide_from_listings, start_at = e.start_at, end_at = e.end_at
FROM events e WHERE e.id = event_organizers.event_id;
--bun:split

CREATE INDEX event_venues_window_idx ON event_venues (venue_id, status, hidden, start_at, end_at, event_id);
--bun:split

CREATE INDEX event_organizers_window_idx ON event_organizers (organizer_id, status, hidden, start_at, end_at, event_id);
--bun:split

CREATE TRIGGER event_venues_copy_ins AFTER INSERT ON event_venues FOR EACH ROW WHEN NEW.start_at IS NULL BEGIN UPDATE event_venues SET status = (SELECT e.status FROM events e WHERE e.id = NEW.event_id), hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = NEW.event_id), start_at = (SELECT e.start_at FROM events e WHERE e.id = NEW.event_id), end_at = (SELECT e.end_at FROM events e WHERE e.id = NEW.event_id) WHERE event_id = NEW.event_id AND venue_id = NEW.venue_id; END;
--bun:split

CREATE TRIGGER event_venues_copy_upd AFTER UPDATE OF event_id ON event_venues FOR EACH ROW BEGIN UPDATE event_venues SET status = (SELECT e.status FROM events e WHERE e.id = NEW.event_id), hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = NEW.event_id), start_at = (SELECT e.start_at FROM events e WHERE e.id = NEW.event_id), end_at = (SELECT e.end_at FROM events e WHERE e.id = NEW.event_id) WHERE event_id = NEW.event_id AND venue_id = NEW.venue_id; END;
--bun:split

CREATE TRIGGER event_organizers_copy_ins AFTER INSERT ON event_organizers FOR EACH ROW WHEN NEW.start_at IS NULL BEGIN UPDATE event_organizers SET status = (SELECT e.status FROM events e WHERE e.id = NEW.event_id), hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = NEW.event_id), start_at = (SELECT e.start_at FROM events e WHERE e.id = NEW.event_id), end_at = (SELECT e.end_at FROM events e WHERE e.id = NEW.event_id) WHERE event_id = NEW.event_id AND organizer_id = NEW.organizer_id; END;
--bun:split

CREATE TRIGGER event_organizers_copy_upd AFTER UPDATE OF event_id ON event_organizers FOR EACH ROW BEGIN UPDATE event_organizers SET status = (SELECT e.status FROM events e WHERE e.id = NEW.event_id), hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = NEW.event_id), start_at = (SELECT e.start_at FROM events e WHERE e.id = NEW.event_id), end_at = (SELECT e.end_at FROM events e WHERE e.id = NEW.event_id) WHERE event_id = NEW.event_id AND organizer_id = NEW.organizer_id; END;
--bun:split

CREATE TRIGGER events_link_copies_upd AFTER UPDATE OF status, hide_from_listings, start_at, end_at ON events FOR EACH ROW WHEN OLD.status IS NOT NEW.status OR OLD.hide_from_listings IS NOT NEW.hide_from_listings OR OLD.start_at IS NOT NEW.start_at OR OLD.end_at IS NOT NEW.end_at BEGIN UPDATE event_venues SET status = NEW.status, hidden = NEW.hide_from_listings, start_at = NEW.start_at, end_at = NEW.end_at WHERE event_id = NEW.id; UPDATE event_organizers SET status = NEW.status, hidden = NEW.hide_from_listings, start_at = NEW.start_at, end_at = NEW.end_at WHERE event_id = NEW.id; END;
