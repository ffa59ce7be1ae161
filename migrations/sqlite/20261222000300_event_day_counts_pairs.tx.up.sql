-- Totals of a list filtered by one category and one venue without
-- counting its rows (models/events_totals.go): the day buckets gain dim
-- 'p', the events filed under a category (with its ancestors,
-- event_category_ancestors) and linked to a venue, per pair, ref =
-- category id * 2^32 + venue id. Before, such a total probed the category
-- links of every event of the venue in the window. The events' update and
-- delete triggers are recreated with that dimension, and each of the two
-- link tables gets triggers that add or take off its pairs with the other.
DELETE FROM event_day_counts WHERE dim = 'p';
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'p', c.term_id * 4294967296 + v.venue_id, e.status, e.hide_from_listings, date(e.start_at), COUNT(*) FROM event_category_ancestors c JOIN event_venues v ON v.event_id = c.event_id JOIN events e ON e.id = c.event_id GROUP BY c.term_id, v.venue_id, e.status, e.hide_from_listings, date(e.start_at);
--bun:split

DROP TRIGGER IF EXISTS events_days_upd;
--bun:split

CREATE TRIGGER events_days_upd AFTER UPDATE OF status, hide_from_listings, start_at, series_id ON events FOR EACH ROW WHEN (OLD.status <> NEW.status OR OLD.hide_from_listings <> NEW.hide_from_listings OR date(OLD.start_at) <> date(NEW.start_at) OR OLD.series_id IS NOT NEW.series_id) BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, date(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id UNION ALL SELECT 'p', c.term_id * 4294967296 + v.venue_id FROM event_category_ancestors c JOIN event_venues v ON v.event_id = c.event_id WHERE c.event_id = OLD.id UNION ALL SELECT 'r', 0 WHERE OLD.series_id IS NOT NULL) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, NEW.status, NEW.hide_from_listings, date(NEW.start_at), 1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = NEW.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = NEW.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = NEW.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = NEW.id UNION ALL SELECT 'p', c.term_id * 4294967296 + v.venue_id FROM event_category_ancestors c JOIN event_venues v ON v.event_id = c.event_id WHERE c.event_id = NEW.id UNION ALL SELECT 'r', 0 WHERE NEW.series_id IS NOT NULL) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS events_days_del;
--bun:split

CREATE TRIGGER events_days_del BEFORE DELETE ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, date(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id UNION ALL SELECT 'p', c.term_id * 4294967296 + v.venue_id FROM event_category_ancestors c JOIN event_venues v ON v.event_id = c.event_id WHERE c.event_id = OLD.id UNION ALL SELECT 'r', 0 WHERE OLD.series_id IS NOT NULL) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS event_category_ancestors_pairs_ins;
--bun:split

CREATE TRIGGER event_category_ancestors_pairs_ins AFTER INSERT ON event_category_ancestors FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'p', NEW.term_id * 4294967296 + v.venue_id, e.status, e.hide_from_listings, date(e.start_at), 1 FROM events e JOIN event_venues v ON v.event_id = e.id WHERE e.id = NEW.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS event_category_ancestors_pairs_del;
--bun:split

CREATE TRIGGER event_category_ancestors_pairs_del AFTER DELETE ON event_category_ancestors FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'p', OLD.term_id * 4294967296 + v.venue_id, e.status, e.hide_from_listings, date(e.start_at), -1 FROM events e JOIN event_venues v ON v.event_id = e.id WHERE e.id = OLD.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS event_venues_pairs_ins;
--bun:split

CREATE TRIGGER event_venues_pairs_ins AFTER INSERT ON event_venues FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'p', c.term_id * 4294967296 + NEW.venue_id, e.status, e.hide_from_listings, date(e.start_at), 1 FROM events e JOIN event_category_ancestors c ON c.event_id = e.id WHERE e.id = NEW.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS event_venues_pairs_del;
--bun:split

CREATE TRIGGER event_venues_pairs_del AFTER DELETE ON event_venues FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'p', c.term_id * 4294967296 + OLD.venue_id, e.status, e.hide_from_listings, date(e.start_at), -1 FROM events e JOIN event_category_ancestors c ON c.event_id = e.id WHERE e.id = OLD.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
