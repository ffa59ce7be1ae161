-- The span of each series: the first and the last start of its events
-- (models/events_totals.go, countSeriesIn). The total of a list with one
-- row per series probes each series for an event in the window; a series
-- whose span misses the window has none, and is not probed. Triggers only
-- widen a span (an insert, a start or a series changed), as event_span
-- only grows: a span wider than its series' events costs a probe, never a
-- wrong total. kalends recount shrinks them to the truth. A span whose
-- series row is gone is never read (the count joins the series rows).
CREATE TABLE IF NOT EXISTS series_spans (
    series_id BIGINT NOT NULL PRIMARY KEY,
    first_at DATETIME NOT NULL,
    last_at DATETIME NOT NULL
) ENGINE=InnoDB;
--bun:split

DELETE FROM series_spans;
--bun:split

INSERT INTO series_spans (series_id, first_at, last_at) SELECT series_id, MIN(start_at), MAX(start_at) FROM events WHERE series_id IS NOT NULL GROUP BY series_id;
--bun:split

DROP TRIGGER IF EXISTS events_series_span_ins;
--bun:split

CREATE TRIGGER events_series_span_ins AFTER INSERT ON events FOR EACH ROW BEGIN IF NEW.series_id IS NOT NULL THEN INSERT INTO series_spans (series_id, first_at, last_at) VALUES (NEW.series_id, NEW.start_at, NEW.start_at) ON DUPLICATE KEY UPDATE first_at = LEAST(first_at, VALUES(first_at)), last_at = GREATEST(last_at, VALUES(last_at)); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS events_series_span_upd;
--bun:split

CREATE TRIGGER events_series_span_upd AFTER UPDATE ON events FOR EACH ROW BEGIN IF NEW.series_id IS NOT NULL AND (NOT (OLD.series_id <=> NEW.series_id) OR OLD.start_at <> NEW.start_at) THEN INSERT INTO series_spans (series_id, first_at, last_at) VALUES (NEW.series_id, NEW.start_at, NEW.start_at) ON DUPLICATE KEY UPDATE first_at = LEAST(first_at, VALUES(first_at)), last_at = GREATEST(last_at, VALUES(last_at)); END IF; END;
