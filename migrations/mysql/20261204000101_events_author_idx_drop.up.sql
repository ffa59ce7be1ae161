-- events_author_updated_idx (the migration before) serves every lookup by
-- author, so its old index only cost writes. One DDL statement.
ALTER TABLE events DROP INDEX events_author_idx;
