-- The FTS5 merge settings of SQLite (sqlite/20261229000100_event_search_merging)
-- have no counterpart here: MySQL's search index is posting lists in
-- tables, which no merge rewrites. This version keeps the two dialects'
-- schemas at the same version, which exports and rolling upgrades compare.
DO 0;
