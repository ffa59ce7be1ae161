-- The keyed search index of SQLite (sqlite/20261221000100_event_search_keys)
-- has no counterpart here: MySQL's index (event_search with its FULLTEXT
-- grams) is unchanged. This version keeps the two dialects' schemas at the
-- same version, which exports and rolling upgrades compare.
DO 0;
