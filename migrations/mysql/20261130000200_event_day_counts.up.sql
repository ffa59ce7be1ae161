-- Totals without counting every row (models/events_totals.go): the number of
-- events starting on each UTC day, per status and hidden flag, for all
-- events (dim 'e', ref 0), per category filed under (dim 'c', with
-- ancestors, from event_category_ancestors), per term linked (dim 't'), per
-- venue ('v') and per organizer ('o'); and the longest event ever kept
-- (event_span), which bounds the events of a window that end after it.
-- Kept by triggers in the transaction of every write, so no writer can
-- forget them. Triggers do not fire on foreign-key cascades in MariaDB:
-- an event's links are taken off its buckets by the event's own BEFORE
-- DELETE trigger, a term's, venue's or organizer's buckets are dropped
-- with it. Each statement can run again (not transactional on MySQL).
CREATE TABLE IF NOT EXISTS event_day_counts (
    dim CHAR(1) NOT NULL,
    ref BIGINT NOT NULL,
    status VARCHAR(20) NOT NULL,
    hidden BOOLEAN NOT NULL,
    day DATE NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (dim, ref, status, hidden, day)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
--bun:split

CREATE TABLE IF NOT EXISTS event_span (
    id INT NOT NULL PRIMARY KEY,
    secs BIGINT NOT NULL
) ENGINE=InnoDB;
--bun:split

DELETE FROM event_day_counts;
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'e', 0, status, hide_from_listings, DATE(start_at), COUNT(*) FROM events GROUP BY status, hide_from_listings, DATE(start_at);
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'c', l.term_id, e.status, e.hide_from_listings, DATE(e.start_at), COUNT(*) FROM event_category_ancestors l JOIN events e ON e.id = l.event_id GROUP BY l.term_id, e.status, e.hide_from_listings, DATE(e.start_at);
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 't', l.term_id, e.status, e.hide_from_listings, DATE(e.start_at), COUNT(*) FROM event_terms l JOIN events e ON e.id = l.event_id GROUP BY l.term_id, e.status, e.hide_from_listings, DATE(e.start_at);
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'v', l.venue_id, e.status, e.hide_from_listings, DATE(e.start_at), COUNT(*) FROM event_venues l JOIN events e ON e.id = l.event_id GROUP BY l.venue_id, e.status, e.hide_from_listings, DATE(e.start_at);
--bun:split

INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'o', l.organizer_id, e.status, e.hide_from_listings, DATE(e.start_at), COUNT(*) FROM event_organizers l JOIN events e ON e.id = l.event_id GROUP BY l.organizer_id, e.status, e.hide_from_listings, DATE(e.start_at);
--bun:split

REPLACE INTO event_span (id, secs) SELECT 1, COALESCE(MAX(TIMESTAMPDIFF(SECOND, events.start_at, events.end_at)), 0) FROM events;
--bun:split

DROP TRIGGER IF EXISTS events_days_ins;
--bun:split

CREATE TRIGGER events_days_ins AFTER INSERT ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) VALUES ('e', 0, NEW.status, NEW.hide_from_listings, DATE(NEW.start_at), 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n); UPDATE event_span SET secs = TIMESTAMPDIFF(SECOND, NEW.start_at, NEW.end_at) WHERE id = 1 AND secs < TIMESTAMPDIFF(SECOND, NEW.start_at, NEW.end_at); END;
--bun:split

DROP TRIGGER IF EXISTS events_days_upd;
--bun:split

CREATE TRIGGER events_days_upd AFTER UPDATE ON events FOR EACH ROW BEGIN IF (OLD.status <> NEW.status OR OLD.hide_from_listings <> NEW.hide_from_listings OR DATE(OLD.start_at) <> DATE(NEW.start_at)) THEN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, DATE(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id) l ON DUPLICATE KEY UPDATE n = n + VALUES(n); INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, NEW.status, NEW.hide_from_listings, DATE(NEW.start_at), 1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = NEW.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = NEW.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = NEW.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = NEW.id) l ON DUPLICATE KEY UPDATE n = n + VALUES(n); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS events_span_upd;
--bun:split

CREATE TRIGGER events_span_upd AFTER UPDATE ON events FOR EACH ROW BEGIN IF TIMESTAMPDIFF(SECOND, NEW.start_at, NEW.end_at) > TIMESTAMPDIFF(SECOND, OLD.start_at, OLD.end_at) THEN UPDATE event_span SET secs = TIMESTAMPDIFF(SECOND, NEW.start_at, NEW.end_at) WHERE id = 1 AND secs < TIMESTAMPDIFF(SECOND, NEW.start_at, NEW.end_at); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS events_days_del;
--bun:split

CREATE TRIGGER events_days_del BEFORE DELETE ON events FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT l.dim, l.ref, OLD.status, OLD.hide_from_listings, DATE(OLD.start_at), -1 FROM (SELECT 'e' AS dim, 0 AS ref UNION ALL SELECT 'c', term_id FROM event_category_ancestors WHERE event_id = OLD.id UNION ALL SELECT 't', term_id FROM event_terms WHERE event_id = OLD.id UNION ALL SELECT 'v', venue_id FROM event_venues WHERE event_id = OLD.id UNION ALL SELECT 'o', organizer_id FROM event_organizers WHERE event_id = OLD.id) l ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS event_category_ancestors_days_ins;
--bun:split

CREATE TRIGGER event_category_ancestors_days_ins AFTER INSERT ON event_category_ancestors FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'c', NEW.term_id, e.status, e.hide_from_listings, DATE(e.start_at), 1 FROM events e WHERE e.id = NEW.event_id ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS event_category_ancestors_days_del;
--bun:split

CREATE TRIGGER event_category_ancestors_days_del AFTER DELETE ON event_category_ancestors FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'c', OLD.term_id, e.status, e.hide_from_listings, DATE(e.start_at), -1 FROM events e WHERE e.id = OLD.event_id ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS event_terms_days_ins;
--bun:split

CREATE TRIGGER event_terms_days_ins AFTER INSERT ON event_terms FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 't', NEW.term_id, e.status, e.hide_from_listings, DATE(e.start_at), 1 FROM events e WHERE e.id = NEW.event_id ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS event_terms_days_del;
--bun:split

CREATE TRIGGER event_terms_days_del AFTER DELETE ON event_terms FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 't', OLD.term_id, e.status, e.hide_from_listings, DATE(e.start_at), -1 FROM events e WHERE e.id = OLD.event_id ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS event_venues_days_ins;
--bun:split

CREATE TRIGGER event_venues_days_ins AFTER INSERT ON event_venues FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'v', NEW.venue_id, e.status, e.hide_from_listings, DATE(e.start_at), 1 FROM events e WHERE e.id = NEW.event_id ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS event_venues_days_del;
--bun:split

CREATE TRIGGER event_venues_days_del AFTER DELETE ON event_venues FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'v', OLD.venue_id, e.status, e.hide_from_listings, DATE(e.start_at), -1 FROM events e WHERE e.id = OLD.event_id ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS event_organizers_days_ins;
--bun:split

CREATE TRIGGER event_organizers_days_ins AFTER INSERT ON event_organizers FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'o', NEW.organizer_id, e.status, e.hide_from_listings, DATE(e.start_at), 1 FROM events e WHERE e.id = NEW.event_id ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS event_organizers_days_del;
--bun:split

CREATE TRIGGER event_organizers_days_del AFTER DELETE ON event_organizers FOR EACH ROW BEGIN INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT 'o', OLD.organizer_id, e.status, e.hide_from_listings, DATE(e.start_at), -1 FROM events e WHERE e.id = OLD.event_id ON DUPLICATE KEY UPDATE n = n + VALUES(n); END;
--bun:split

DROP TRIGGER IF EXISTS terms_days_del;
--bun:split

CREATE TRIGGER terms_days_del BEFORE DELETE ON terms FOR EACH ROW BEGIN DELETE FROM event_day_counts WHERE dim IN ('c', 't') AND ref = OLD.id; END;
--bun:split

DROP TRIGGER IF EXISTS venues_days_del;
--bun:split

CREATE TRIGGER venues_days_del BEFORE DELETE ON venues FOR EACH ROW BEGIN DELETE FROM event_day_counts WHERE dim = 'v' AND ref = OLD.id; END;
--bun:split

DROP TRIGGER IF EXISTS organizers_days_del;
--bun:split

CREATE TRIGGER organizers_days_del BEFORE DELETE ON organizers FOR EACH ROW BEGIN DELETE FROM event_day_counts WHERE dim = 'o' AND ref = OLD.id; END;
