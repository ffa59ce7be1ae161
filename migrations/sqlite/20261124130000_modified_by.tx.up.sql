-- Who changed each event, venue and organizer last (a user id; 0 when
-- unknown or the system), shown when a form would save over someone else's
-- newer version.
ALTER TABLE events ADD COLUMN modified_by INTEGER NOT NULL DEFAULT 0;
--bun:split

ALTER TABLE venues ADD COLUMN modified_by INTEGER NOT NULL DEFAULT 0;
--bun:split

ALTER TABLE organizers ADD COLUMN modified_by INTEGER NOT NULL DEFAULT 0;
