-- events_start_cover_idx (the migration before) serves every use of this
-- index, its prefix, so it only cost writes.
DROP INDEX IF EXISTS events_start_idx;
