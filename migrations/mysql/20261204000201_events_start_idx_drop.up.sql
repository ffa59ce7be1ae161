-- events_start_cover_idx (the migration before) serves every use of this
-- index, its prefix, so it only cost writes. One DDL statement.
ALTER TABLE events DROP INDEX events_start_idx;
