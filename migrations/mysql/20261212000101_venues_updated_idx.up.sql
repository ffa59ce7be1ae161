-- modified_after, modified_before and orderby=modified (issue 34) read the
-- venues in the order of their last change. One DDL statement: applied and
-- marked together.
ALTER TABLE venues ADD INDEX venues_updated_idx (updated_at, id);
