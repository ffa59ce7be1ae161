-- The dashboard's recent edits are the user's own events, the one changed
-- last first (models.RecentEvents): with only an index on the author, an
-- author of a million events had all of them sorted on every view. This
-- index reads the first few in order, and serves every lookup by author
-- that the old one did (dropped by the next migration).
CREATE INDEX IF NOT EXISTS events_author_updated_idx ON events (author_id, updated_at, id);
