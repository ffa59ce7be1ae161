-- modified_after, modified_before and orderby=modified (issue 34) read the
-- venues in the order of their last change.
CREATE INDEX IF NOT EXISTS venues_updated_idx ON venues (updated_at, id);
