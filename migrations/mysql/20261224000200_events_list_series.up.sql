-- The SQLite list index gains series_id
-- (sqlite/20261224000200_events_list_series) because SQLite reads a row's
-- columns in order, and series_id comes after the events' long text.
-- InnoDB keeps a long TEXT off the row and series_id on it, so its list
-- index stays as it is. This version keeps the two dialects' schemas at
-- the same version, which exports and rolling upgrades compare.
SELECT 0;
