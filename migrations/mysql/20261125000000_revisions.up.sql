-- Revisions: the state of an event, venue or organizer before each update
-- (its row, translations and links as JSON, see models/revisions.go), who
-- made the update and which fields it changed.
CREATE TABLE revisions (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  kind VARCHAR(20) NOT NULL,
  record_id BIGINT NOT NULL,
  author_id BIGINT NOT NULL DEFAULT 0,
  created_at DATETIME NOT NULL,
  fields TEXT NOT NULL,
  snapshot LONGTEXT NOT NULL,
  KEY revisions_record_idx (kind, record_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
