-- The venue and organizer links keep a copy of their event's status,
-- hidden flag, start and end, as the category and tag links do
-- (models/events_count.go), so that a list filtered by a venue or an
-- organizer and something else (a category) reads the smaller of the two
-- from its window index and probes the other, instead of walking every
-- event of the window. Triggers keep the copies, in the writing statement:
-- a new link written without them copies its event (the store writes them
-- in the insert), a change of the event's fields moves its links.
ALTER TABLE event_venues ADD COLUMN status VARCHAR(20) NOT NULL DEFAULT '', ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT 0,
    ADD COLUMN start_at DATETIME NULL, ADD COLUMN end_at DATETIME NULL;
--bun:split

ALTER TABLE event_organizers ADD COLUMN status VARCHAR(20) NOT NULL DEFAULT '', ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT 0,
    ADD COLUMN start_at DATETIME NULL, ADD COLUMN end_at DATETIME NULL;
--bun:split

UPDATE event_venues x JOIN events e ON e.id = x.event_id
SET x.status = e.status, x.hidden = e.hide_from_listings, x.start_at = e.start_at, x.end_at = e.end_at;
--bun:split

UPDATE event_organizers x JOIN events e ON e.id = x.event_id
SET x.status = e.status, x.hidden = e.hide_from_listings, x.start_at = e.start_at, x.end_at = e.end_at;
--bun:split

ALTER TABLE event_venues ADD INDEX event_venues_window_idx (venue_id, status, hidden, start_at, end_at, event_id);
--bun:split

ALTER TABLE event_organizers ADD INDEX event_organizers_window_idx (organizer_id, status, hidden, start_at, end_at, event_id);
--bun:split

DROP TRIGGER IF EXISTS event_venues_copy_ins;
--bun:split

CREATE TRIGGER event_venues_copy_ins BEFORE INSERT ON event_venues FOR EACH ROW BEGIN IF NEW.start_at IS NULL THEN SET NEW.status = (SELECT e.status FROM events e WHERE e.id = NEW.event_id), NEW.hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = NEW.event_id), NEW.start_at = (SELECT e.start_at FROM events e WHERE e.id = NEW.event_id), NEW.end_at = (SELECT e.end_at FROM events e WHERE e.id = NEW.event_id); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS event_venues_copy_upd;
--bun:split

CREATE TRIGGER event_venues_copy_upd BEFORE UPDATE ON event_venues FOR EACH ROW BEGIN IF NEW.event_id <> OLD.event_id THEN SET NEW.status = (SELECT e.status FROM events e WHERE e.id = NEW.event_id), NEW.hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = NEW.event_id), NEW.start_at = (SELECT e.start_at FROM events e WHERE e.id = NEW.event_id), NEW.end_at = (SELECT e.end_at FROM events e WHERE e.id = NEW.event_id); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS event_organizers_copy_ins;
--bun:split

CREATE TRIGGER event_organizers_copy_ins BEFORE INSERT ON event_organizers FOR EACH ROW BEGIN IF NEW.start_at IS NULL THEN SET NEW.status = (SELECT e.status FROM events e WHERE e.id = NEW.event_id), NEW.hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = NEW.event_id), NEW.start_at = (SELECT e.start_at FROM events e WHERE e.id = NEW.event_id), NEW.end_at = (SELECT e.end_at FROM events e WHERE e.id = NEW.event_id); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS event_organizers_copy_upd;
--bun:split

CREATE TRIGGER event_organizers_copy_upd BEFORE UPDATE ON event_organizers FOR EACH ROW BEGIN IF NEW.event_id <> OLD.event_id THEN SET NEW.status = (SELECT e.status FROM events e WHERE e.id = NEW.event_id), NEW.hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = NEW.event_id), NEW.start_at = (SELECT e.start_at FROM events e WHERE e.id = NEW.event_id), NEW.end_at = (SELECT e.end_at FROM events e WHERE e.id = NEW.event_id); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS events_link_copies_upd;
--bun:split

CREATE TRIGGER events_link_copies_upd AFTER UPDATE ON events FOR EACH ROW BEGIN IF (OLD.status <> NEW.status OR OLD.hide_from_listings <> NEW.hide_from_listings OR OLD.start_at <> NEW.start_at OR OLD.end_at <> NEW.end_at) THEN UPDATE event_venues SET status = NEW.status, hidden = NEW.hide_from_listings, start_at = NEW.start_at, end_at = NEW.end_at WHERE event_id = NEW.id; UPDATE event_organizers SET status = NEW.status, hidden = NEW.hide_from_listings, start_at = NEW.start_at, end_at = NEW.end_at WHERE event_id = NEW.id; END IF; END;
