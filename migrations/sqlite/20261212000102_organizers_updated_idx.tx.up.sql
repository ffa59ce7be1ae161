-- modified_after, modified_before and orderby=modified (issue 34) read the
-- organizers in the order of their last change.
CREATE INDEX IF NOT EXISTS organizers_updated_idx ON organizers (updated_at, id);
