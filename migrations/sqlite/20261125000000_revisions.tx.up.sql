-- Revisions: the state of an event, venue or organizer before each update
-- (its row, translations and links as JSON, see models/revisions.go), who
-- made the update and which fields it changed.
CREATE TABLE revisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind VARCHAR(20) NOT NULL,
  record_id INTEGER NOT NULL,
  author_id INTEGER NOT NULL DEFAULT 0,
  created_at DATETIME NOT NULL,
  fields TEXT NOT NULL,
  snapshot TEXT NOT NULL
);
--bun:split

CREATE INDEX revisions_record_idx ON revisions (kind, record_id, id);
