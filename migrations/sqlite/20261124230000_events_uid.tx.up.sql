-- The iCalendar UID of an event imported from another calendar (NULL for
-- events made here, whose UID is <id>@<host>): a re-import of the same file
-- updates the event instead of adding a copy, and the feeds give it back.
ALTER TABLE events ADD COLUMN uid VARCHAR(255) NULL;
--bun:split

CREATE INDEX IF NOT EXISTS events_uid_idx ON events (uid);
