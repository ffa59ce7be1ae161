-- modified_after, modified_before and orderby=modified (issue 34) read the
-- events in the order of their last change.
CREATE INDEX IF NOT EXISTS events_updated_idx ON events (updated_at, id);
