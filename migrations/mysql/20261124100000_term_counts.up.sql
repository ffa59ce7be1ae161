-- Each term keeps the number of published events linked to it, maintained
-- by every write in the same transaction (models/term_counts.go), so no read
-- counts links. One DDL statement: applied and marked together; the next
-- migration fills it.
ALTER TABLE terms ADD COLUMN event_count INT NOT NULL DEFAULT 0;
