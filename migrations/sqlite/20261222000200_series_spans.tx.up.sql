-- The span of each series: the first and the last start of its events
-- (models/events_totals.go, countSeriesIn). The total of a list with one
-- row per series probes each series for an event in the window; a series
-- whose span misses the window has none, and is not probed. Triggers only
-- widen a span (an insert, a start or a series changed), as event_span
-- only grows: a span wider than its series' events costs a probe, never a
-- wrong total. kalends recount shrinks them to the truth. A span whose
-- series row is gone is never read (the count joins the series rows).
CREATE TABLE IF NOT EXISTS series_spans (
    series_id INTEGER NOT NULL PRIMARY KEY,
    first_at DATETIME NOT NULL,
    last_at DATETIME NOT NULL
);
--bun:split

DELETE FROM series_spans;
--bun:split

INSERT INTO series_spans (series_id, first_at, last_at) SELECT e.series_id, MIN(e.start_at), MAX(e.start_at) FROM events e WHERE e.series_id IS NOT NULL GROUP BY e.series_id;
--bun:split

DROP TRIGGER IF EXISTS events_series_span_ins;
--bun:split

CREATE TRIGGER events_series_span_ins AFTER INSERT ON events FOR EACH ROW WHEN NEW.series_id IS NOT NULL BEGIN INSERT INTO series_spans (series_id, first_at, last_at) VALUES (NEW.series_id, NEW.start_at, NEW.start_at) ON CONFLICT (series_id) DO UPDATE SET first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at); END;
--bun:split

DROP TRIGGER IF EXISTS events_series_span_upd;
--bun:split

CREATE TRIGGER events_series_span_upd AFTER UPDATE OF series_id, start_at ON events FOR EACH ROW WHEN NEW.series_id IS NOT NULL AND (OLD.series_id IS NOT NEW.series_id OR OLD.start_at IS NOT NEW.start_at) BEGIN INSERT INTO series_spans (series_id, first_at, last_at) VALUES (NEW.series_id, NEW.start_at, NEW.start_at) ON CONFLICT (series_id) DO UPDATE SET first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at); END;
