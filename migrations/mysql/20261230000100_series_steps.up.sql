-- The steps of each series (sqlite/20261230000100_series_steps) have no
-- counterpart here: on MySQL the total of a list with one row per series
-- probes each series whose span meets the window (countSeriesIn). This
-- version keeps the two dialects' schemas at the same version, which
-- exports and rolling upgrades compare.
DO 0;
