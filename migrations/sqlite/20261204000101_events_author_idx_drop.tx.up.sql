-- events_author_updated_idx (the migration before) serves every lookup by
-- author, so its old index only cost writes.
DROP INDEX IF EXISTS events_author_idx;
