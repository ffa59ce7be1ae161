-- Month buckets of the totals (models/events_totals.go): the sums of the
-- day buckets (event_day_counts) of each calendar month, per dimension,
-- reference, status and hidden flag, so that a total over a long window
-- (the default list's 24 months) reads about 24 month rows and the days
-- of its two partial months, not 730 day rows. Kept by triggers on the
-- day buckets themselves: every write of a day bucket, whatever trigger
-- or statement makes it, moves its month by the same amount (MariaDB fires
-- them for the rows other triggers write, and for the update of
-- INSERT … ON DUPLICATE KEY UPDATE). Each statement can run again (not
-- transactional on MySQL).
CREATE TABLE IF NOT EXISTS event_month_counts (
    dim CHAR(1) NOT NULL,
    ref BIGINT NOT NULL,
    status VARCHAR(20) NOT NULL,
    hidden BOOLEAN NOT NULL,
    month DATE NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (dim, ref, status, hidden, month)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
--bun:split

DELETE FROM event_month_counts;
--bun:split

INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) SELECT dim, ref, status, hidden, DATE_FORMAT(day, '%Y-%m-01'), SUM(n) FROM event_day_counts GROUP BY dim, ref, status, hidden, DATE_FORMAT(day, '%Y-%m-01');
--bun:split

DROP TRIGGER IF EXISTS event_day_counts_month_ins;
--bun:split

CREATE TRIGGER event_day_counts_month_ins AFTER INSERT ON event_day_counts FOR EACH ROW INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (NEW.dim, NEW.ref, NEW.status, NEW.hidden, DATE_FORMAT(NEW.day, '%Y-%m-01'), NEW.n) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
--bun:split

DROP TRIGGER IF EXISTS event_day_counts_month_upd;
--bun:split

CREATE TRIGGER event_day_counts_month_upd AFTER UPDATE ON event_day_counts FOR EACH ROW BEGIN IF OLD.dim = NEW.dim AND OLD.ref = NEW.ref AND OLD.status = NEW.status AND OLD.hidden = NEW.hidden AND DATE_FORMAT(OLD.day, '%Y-%m') = DATE_FORMAT(NEW.day, '%Y-%m') THEN INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (NEW.dim, NEW.ref, NEW.status, NEW.hidden, DATE_FORMAT(NEW.day, '%Y-%m-01'), NEW.n - OLD.n) ON DUPLICATE KEY UPDATE n = n + VALUES(n); ELSE INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (OLD.dim, OLD.ref, OLD.status, OLD.hidden, DATE_FORMAT(OLD.day, '%Y-%m-01'), -OLD.n) ON DUPLICATE KEY UPDATE n = n + VALUES(n); INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (NEW.dim, NEW.ref, NEW.status, NEW.hidden, DATE_FORMAT(NEW.day, '%Y-%m-01'), NEW.n) ON DUPLICATE KEY UPDATE n = n + VALUES(n); END IF; END;
--bun:split

DROP TRIGGER IF EXISTS event_day_counts_month_del;
--bun:split

CREATE TRIGGER event_day_counts_month_del AFTER DELETE ON event_day_counts FOR EACH ROW INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (OLD.dim, OLD.ref, OLD.status, OLD.hidden, DATE_FORMAT(OLD.day, '%Y-%m-01'), -OLD.n) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
