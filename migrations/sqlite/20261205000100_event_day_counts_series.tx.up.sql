-- One row per series (recurrence=series) without counting every row
-- (models/events_totals.go): the day buckets gain dim 'r', the events that
-- belong to a series (series_id set, the series row included), so a total
-- is the events of the window, less its occurrences of series, plus the
-- series with an occurrence in it. The events' triggers are recreated with
-- that dimension; the update trigger also fires when series_id changes.
DELETE FROM event_day_counts WHERE dim = 'r';
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'r', 0, status, hide_from_listings, date(start_at), COUNT(*) FROM events WHERE series_id IS NOT NULL GROUP BY status, hide_from_listings, date(start_at);
--bun:split

DROP TRIGGER IF EXISTS events_days_ins;
--bun:split

CREATE TRIGGER events_days_ins AFTER INSERT ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) VALUES ('e', 0, NEW.status, NEW.hide_from_listings, date(NEW.start_at), 1) ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; UPDATE event_span SET secs = (unixepoch(NEW.end_at) - unixepoch(NEW.start_at)) WHERE id = 1 AND secs < (unixepoch(NEW.end_at) - unixepoch(NEW.start_at)); INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'r', 0, NEW.status, NEW.hide_from_listings, date(NEW.start_at), 1 WHERE NEW.series_id IS NOT NULL ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS events_days_upd;
--bun:split

CREATE TRIGGER events_days_upd AFTER UPDATE OF status, hide_from_listings, start_at, series_id ON events FOR EACH ROW WHEN (OLD.status <> NEW.status OR OLD.hide_from_listings <> NEW.hide_from_listings OR date(OLD.start_at) <> date(NEW.start_at) OR OLD.series_id IS NOT NEW.series_id) BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, date(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id UNION ALL SELECT 'r', 0 WHERE OLD.series_id IS NOT NULL) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, NEW.status, NEW.hide_from_listings, date(NEW.start_at), 1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = NEW.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = NEW.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = NEW.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = NEW.id UNION ALL SELECT 'r', 0 WHERE NEW.series_id IS NOT NULL) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS events_days_del;
--bun:split

CREATE TRIGGER events_days_del BEFORE DELETE ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, date(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id UNION ALL SELECT 'r', 0 WHERE OLD.series_id IS NOT NULL) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
