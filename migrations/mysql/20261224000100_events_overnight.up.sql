-- The partial index of the events that cross a UTC midnight
-- (sqlite/20261224000100_events_overnight) has no counterpart here: MySQL
-- and MariaDB have no partial indexes, and a generated column for it
-- would rebuild the events table of every site that upgrades. This
-- version keeps the two dialects' schemas at the same version, which
-- exports and rolling upgrades compare.
SELECT 0;
