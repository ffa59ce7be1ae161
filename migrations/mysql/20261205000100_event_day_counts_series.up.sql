-- One row per series (recurrence=series) without counting every row
-- (models/events_totals.go): the day buckets gain dim 'r', the events that
-- belong to a series (series_id set, the series row included), so a total
-- is the events of the window, less its occurrences of series, plus the
-- series with an occurrence in it. The events' triggers are recreated with
-- that dimension; the update trigger also fires when series_id changes.
DELETE FROM event_day_counts WHERE dim = 'r';
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'r', 0, status, hide_from_listings, DATE(start_at), COUNT(*) FROM events WHERE series_id IS NOT NULL GROUP BY status, hide_from_listings, DATE(start_at);
--bun:split

DROP TRIGGER IF EXISTS events_days_ins;
--bun:split

CREATE TRIGGER events_days_ins AFTER INSERT ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) VALUES ('e', 0, NEW.status, NEW.hide_from_listings, DATE(NEW.start_at), 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n); UPDATE event_span SET secs = TIMESTAMPDIFF(SECOND, NEW.start_at, NEW.end_at) WHERE id = 1 AND secs < TIMESTAMPDIFF(SECOND, NEW.start_at, NEW.end_at); INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'r', 0, NEW.status, NEW.hide_from_listings, DATE(NEW.start_at), 1 FROM DUAL WHERE NEW.series_id IS NOT NULL ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS events_days_upd;
--bun:split

CREATE TRIGGER events_days_upd AFTER UPDATE ON events FOR EACH ROW BEGIN IF (OLD.status <> NEW.status OR OLD.hide_from_listings <> NEW.hide_from_listings OR DATE(OLD.start_at) <> DATE(NEW.start_at) OR NOT (OLD.series_id <=> NEW.series_id)) THEN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, DATE(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id UNION ALL SELECT 'r', 0 FROM DUAL WHERE OLD.series_id IS NOT NULL) l ON DUPLICATE KEY UPDATE n = n + VALUES(n); INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, NEW.status, NEW.hide_from_listings, DATE(NEW.start_at), 1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = NEW.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = NEW.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = NEW.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = NEW.id UNION ALL SELECT 'r', 0 FROM DUAL WHERE NEW.series_id IS NOT NULL) l ON DUPLICATE KEY UPDATE n = n + VALUES(n); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS events_days_del;
--bun:split

CREATE TRIGGER events_days_del BEFORE DELETE ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, DATE(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id UNION ALL SELECT 'r', 0 FROM DUAL WHERE OLD.series_id IS NOT NULL) l ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
