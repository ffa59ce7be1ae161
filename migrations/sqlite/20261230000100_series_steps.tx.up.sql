-- The steps of each series: its events in start order, each with the
-- start of the one before it (models/events_totals.go,
-- countSeriesInWindow). The total of a list with one row per series counts
-- the series with an event in the window. For a window from a, the first
-- event of a series that starts at a or later is the one whose previous
-- event started before a (or that has none): one step a series, found in
-- an index of (gap_class, start_at) without probing every series. The gap
-- to the previous start is at most 2^gap_class days (-1: the first event,
-- 12: longer than 2,048 days), so each class is one range of starts from
-- a to a plus its bound. Kept by the triggers of events below, row by row;
-- kalends recount compares them with the events. SQLite only: MySQL counts
-- by probing each series (countSeriesIn). The times are Unix seconds:
-- compared as integers, each row of the count costs less than as the
-- events' text (and a DATETIME column's numeric affinity made every
-- comparison with a text time convert it to a number first).
CREATE TABLE IF NOT EXISTS series_steps (
    event_id INTEGER NOT NULL PRIMARY KEY,
    series_id INTEGER NOT NULL,
    start_at INTEGER NOT NULL,
    end_at INTEGER NOT NULL,
    status VARCHAR(20) NOT NULL,
    hidden BOOLEAN NOT NULL,
    prev_at INTEGER,
    gap_class INTEGER GENERATED ALWAYS AS (CASE WHEN prev_at IS NULL THEN -1 WHEN start_at - prev_at <= 86400 THEN 0 WHEN start_at - prev_at <= 172800 THEN 1 WHEN start_at - prev_at <= 345600 THEN 2 WHEN start_at - prev_at <= 691200 THEN 3 WHEN start_at - prev_at <= 1382400 THEN 4 WHEN start_at - prev_at <= 2764800 THEN 5 WHEN start_at - prev_at <= 5529600 THEN 6 WHEN start_at - prev_at <= 11059200 THEN 7 WHEN start_at - prev_at <= 22118400 THEN 8 WHEN start_at - prev_at <= 44236800 THEN 9 WHEN start_at - prev_at <= 88473600 THEN 10 WHEN start_at - prev_at <= 176947200 THEN 11 ELSE 12 END) STORED
);
--bun:split

CREATE INDEX IF NOT EXISTS series_steps_order_idx ON series_steps (series_id, start_at, event_id);
--bun:split

CREATE INDEX IF NOT EXISTS series_steps_stab_idx ON series_steps (gap_class, start_at, prev_at, end_at, status, hidden, series_id);
--bun:split

DELETE FROM series_steps;
--bun:split

INSERT INTO series_steps (event_id, series_id, start_at, end_at, status, hidden, prev_at) SELECT id, series_id, unixepoch(start_at), unixepoch(end_at), status, hide_from_listings, LAG(unixepoch(start_at)) OVER (PARTITION BY series_id ORDER BY start_at, id) FROM events WHERE series_id IS NOT NULL;
--bun:split

DROP TRIGGER IF EXISTS events_series_steps_ins;
--bun:split

CREATE TRIGGER events_series_steps_ins AFTER INSERT ON events FOR EACH ROW WHEN NEW.series_id IS NOT NULL BEGIN INSERT INTO series_steps (event_id, series_id, start_at, end_at, status, hidden, prev_at) SELECT NEW.id, NEW.series_id, unixepoch(NEW.start_at), unixepoch(NEW.end_at), NEW.status, NEW.hide_from_listings, (SELECT p.start_at FROM series_steps p WHERE p.series_id = NEW.series_id AND (p.start_at, p.event_id) < (unixepoch(NEW.start_at), NEW.id) ORDER BY p.start_at DESC, p.event_id DESC LIMIT 1); UPDATE series_steps SET prev_at = unixepoch(NEW.start_at) WHERE event_id = (SELECT n.event_id FROM series_steps n WHERE n.series_id = NEW.series_id AND (n.start_at, n.event_id) > (unixepoch(NEW.start_at), NEW.id) ORDER BY n.start_at, n.event_id LIMIT 1); END;
--bun:split

DROP TRIGGER IF EXISTS events_series_steps_del;
--bun:split

CREATE TRIGGER events_series_steps_del AFTER DELETE ON events FOR EACH ROW WHEN OLD.series_id IS NOT NULL BEGIN DELETE FROM series_steps WHERE event_id = OLD.id; UPDATE series_steps SET prev_at = (SELECT p.start_at FROM series_steps p WHERE p.series_id = OLD.series_id AND (p.start_at, p.event_id) < (unixepoch(OLD.start_at), OLD.id) ORDER BY p.start_at DESC, p.event_id DESC LIMIT 1) WHERE event_id = (SELECT n.event_id FROM series_steps n WHERE n.series_id = OLD.series_id AND (n.start_at, n.event_id) > (unixepoch(OLD.start_at), OLD.id) ORDER BY n.start_at, n.event_id LIMIT 1); END;
--bun:split

DROP TRIGGER IF EXISTS events_series_steps_move;
--bun:split

CREATE TRIGGER events_series_steps_move AFTER UPDATE OF series_id, start_at ON events FOR EACH ROW WHEN OLD.series_id IS NOT NEW.series_id OR OLD.start_at IS NOT NEW.start_at BEGIN DELETE FROM series_steps WHERE event_id = OLD.id; UPDATE series_steps SET prev_at = (SELECT p.start_at FROM series_steps p WHERE p.series_id = OLD.series_id AND (p.start_at, p.event_id) < (unixepoch(OLD.start_at), OLD.id) ORDER BY p.start_at DESC, p.event_id DESC LIMIT 1) WHERE event_id = (SELECT n.event_id FROM series_steps n WHERE n.series_id = OLD.series_id AND (n.start_at, n.event_id) > (unixepoch(OLD.start_at), OLD.id) ORDER BY n.start_at, n.event_id LIMIT 1); INSERT INTO series_steps (event_id, series_id, start_at, end_at, status, hidden, prev_at) SELECT NEW.id, NEW.series_id, unixepoch(NEW.start_at), unixepoch(NEW.end_at), NEW.status, NEW.hide_from_listings, (SELECT p.start_at FROM series_steps p WHERE p.series_id = NEW.series_id AND (p.start_at, p.event_id) < (unixepoch(NEW.start_at), NEW.id) ORDER BY p.start_at DESC, p.event_id DESC LIMIT 1) WHERE NEW.series_id IS NOT NULL; UPDATE series_steps SET prev_at = unixepoch(NEW.start_at) WHERE event_id = (SELECT n.event_id FROM series_steps n WHERE n.series_id = NEW.series_id AND (n.start_at, n.event_id) > (unixepoch(NEW.start_at), NEW.id) ORDER BY n.start_at, n.event_id LIMIT 1); END;
--bun:split

DROP TRIGGER IF EXISTS events_series_steps_copy;
--bun:split

CREATE TRIGGER events_series_steps_copy AFTER UPDATE OF end_at, status, hide_from_listings ON events FOR EACH ROW WHEN NEW.series_id IS NOT NULL AND (OLD.end_at IS NOT NEW.end_at OR OLD.status IS NOT NEW.status OR OLD.hide_from_listings IS NOT NEW.hide_from_listings) BEGIN UPDATE series_steps SET end_at = unixepoch(NEW.end_at), status = NEW.status, hidden = NEW.hide_from_listings WHERE event_id = NEW.id; END;
