-- The pieces of SQLite's search vocabulary
-- (sqlite/20261222000100_event_search_pieces) have no counterpart here:
-- MySQL's index is unchanged. This version keeps the two dialects'
-- schemas at the same version, which exports and rolling upgrades compare.
DO 0;
