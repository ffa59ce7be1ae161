-- modified_after, modified_before and orderby=modified (issue 34) read the
-- organizers in the order of their last change. One DDL statement: applied and
-- marked together.
ALTER TABLE organizers ADD INDEX organizers_updated_idx (updated_at, id);
