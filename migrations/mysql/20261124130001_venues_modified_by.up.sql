-- Who changed the record last (a user id; 0 when unknown or the system),
-- shown when a form would save over someone else's newer version. One DDL
-- statement: applied and marked together.
ALTER TABLE venues ADD COLUMN modified_by BIGINT NOT NULL DEFAULT 0;
