-- Totals without counting every row (models/events_totals.go): the number of
-- events starting on each UTC day, per status and hidden flag, for all
-- events (dim 'e', ref 0), per category filed under (dim 'c', with
-- ancestors, from event_category_ancestors), per term linked (dim 't'), per
-- venue ('v') and per organizer ('o'); and the longest event ever kept
-- (event_span), which bounds the events of a window that end after it.
-- Kept by triggers in the transaction of every write, so no writer can
-- forget them. An event's links are taken off its buckets by the event's
-- BEFORE DELETE trigger; a link's own trigger then finds no event.
CREATE TABLE event_day_counts (
    dim CHAR(1) NOT NULL,
    ref INTEGER NOT NULL,
    status VARCHAR(20) NOT NULL,
    hidden BOOLEAN NOT NULL,
    day TEXT NOT NULL, -- YYYY-MM-DD (TEXT: the driver reads a DATE column as a time)
    n INTEGER NOT NULL,
    PRIMARY KEY (dim, ref, status, hidden, day)
) WITHOUT ROWID;
--bun:split

CREATE TABLE event_span (
    id INTEGER PRIMARY KEY,
    secs INTEGER NOT NULL
);
--bun:split

DELETE FROM event_day_counts;
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'e', 0, status, hide_from_listings, date(start_at), COUNT(*) FROM events GROUP BY status, hide_from_listings, date(start_at);
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'c', l.term_id, e.status, e.hide_from_listings, date(e.start_at), COUNT(*) FROM event_category_ancestors l JOIN events e ON e.id = l.event_id GROUP BY l.term_id, e.status, e.hide_from_listings, date(e.start_at);
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 't', l.term_id, e.status, e.hide_from_listings, date(e.start_at), COUNT(*) FROM event_terms l JOIN events e ON e.id = l.event_id GROUP BY l.term_id, e.status, e.hide_from_listings, date(e.start_at);
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'v', l.venue_id, e.status, e.hide_from_listings, date(e.start_at), COUNT(*) FROM event_venues l JOIN events e ON e.id = l.event_id GROUP BY l.venue_id, e.status, e.hide_from_listings, date(e.start_at);
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'o', l.organizer_id, e.status, e.hide_from_listings, date(e.start_at), COUNT(*) FROM event_organizers l JOIN events e ON e.id = l.event_id GROUP BY l.organizer_id, e.status, e.hide_from_listings, date(e.start_at);
--bun:split

INSERT OR REPLACE INTO event_span (id, secs) SELECT 1, COALESCE(MAX((unixepoch(events.end_at) - unixepoch(events.start_at))), 0) FROM events;
--bun:split

CREATE TRIGGER events_days_ins AFTER INSERT ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) VALUES ('e', 0, NEW.status, NEW.hide_from_listings, date(NEW.start_at), 1) ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; UPDATE event_span SET secs = (unixepoch(NEW.end_at) - unixepoch(NEW.start_at)) WHERE id = 1 AND secs < (unixepoch(NEW.end_at) - unixepoch(NEW.start_at)); END;
--bun:split

CREATE TRIGGER events_days_upd AFTER UPDATE OF status, hide_from_listings, start_at ON events FOR EACH ROW WHEN (OLD.status <> NEW.status OR OLD.hide_from_listings <> NEW.hide_from_listings OR date(OLD.start_at) <> date(NEW.start_at)) BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, date(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, NEW.status, NEW.hide_from_listings, date(NEW.start_at), 1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = NEW.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = NEW.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = NEW.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = NEW.id) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER events_span_upd AFTER UPDATE OF start_at, end_at ON events FOR EACH ROW WHEN (unixepoch(NEW.end_at) - unixepoch(NEW.start_at)) > (unixepoch(OLD.end_at) - unixepoch(OLD.start_at)) BEGIN UPDATE event_span SET secs = (unixepoch(NEW.end_at) - unixepoch(NEW.start_at)) WHERE id = 1 AND secs < (unixepoch(NEW.end_at) - unixepoch(NEW.start_at)); END;
--bun:split

CREATE TRIGGER events_days_del BEFORE DELETE ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, date(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id) l WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER event_category_ancestors_days_ins AFTER INSERT ON event_category_ancestors FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'c', NEW.term_id, e.status, e.hide_from_listings, date(e.start_at), 1 FROM events e WHERE e.id = NEW.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER event_category_ancestors_days_del AFTER DELETE ON event_category_ancestors FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'c', OLD.term_id, e.status, e.hide_from_listings, date(e.start_at), -1 FROM events e WHERE e.id = OLD.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER event_terms_days_ins AFTER INSERT ON event_terms FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 't', NEW.term_id, e.status, e.hide_from_listings, date(e.start_at), 1 FROM events e WHERE e.id = NEW.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER event_terms_days_del AFTER DELETE ON event_terms FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 't', OLD.term_id, e.status, e.hide_from_listings, date(e.start_at), -1 FROM events e WHERE e.id = OLD.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER event_venues_days_ins AFTER INSERT ON event_venues FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'v', NEW.venue_id, e.status, e.hide_from_listings, date(e.start_at), 1 FROM events e WHERE e.id = NEW.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER event_venues_days_del AFTER DELETE ON event_venues FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'v', OLD.venue_id, e.status, e.hide_from_listings, date(e.start_at), -1 FROM events e WHERE e.id = OLD.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER event_organizers_days_ins AFTER INSERT ON event_organizers FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'o', NEW.organizer_id, e.status, e.hide_from_listings, date(e.start_at), 1 FROM events e WHERE e.id = NEW.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
--bun:split

CREATE TRIGGER event_organizers_days_del AFTER DELETE ON event_organizers FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'o', OLD.organizer_id, e.status, e.hide_from_listings, date(e.start_at), -1 FROM events e WHERE e.id = OLD.event_id ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n; END;
