-- The posting lists of MySQL's search index
-- (mysql/20261223000100_event_search_postings) have no counterpart here:
-- SQLite's index is unchanged. This version keeps the two dialects'
-- schemas at the same version, which exports and rolling upgrades compare.
SELECT 0;
