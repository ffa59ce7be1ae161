-- modified_after, modified_before and orderby=modified (issue 34) read the
-- events in the order of their last change. One DDL statement: applied and
-- marked together.
ALTER TABLE events ADD INDEX events_updated_idx (updated_at, id);
