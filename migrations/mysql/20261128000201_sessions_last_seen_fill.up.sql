-- Sessions open before their last use was recorded were last seen, as far
-- as anyone knows, when they were signed in.
UPDATE sessions SET last_seen_at = created_at WHERE last_seen_at IS NULL;
