-- The SQLite list index gains series_id
-- (sqlite/20261224000200_events_list_series), so that a page with one row
-- per series reads no table row. MySQL's list index is left as it is:
-- this release measures and budgets SQLite's pages, and a wider index on
-- the events table is built on every site that upgrades. This
-- version keeps the two dialects' schemas at the same version, which
-- exports and rolling upgrades compare.
SELECT 0;
