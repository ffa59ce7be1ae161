-- Month buckets of the totals (models/events_totals.go): the sums of the
-- day buckets (event_day_counts) of each calendar month, per dimension,
-- reference, status and hidden flag, so that a total over a long window
-- (the default list's 24 months) reads about 24 month rows and the days
-- of its two partial months, not 730 day rows. Kept by triggers on the
-- day buckets themselves: every write of a day bucket, whatever trigger
-- or statement makes it, moves its month by the same amount.
CREATE TABLE IF NOT EXISTS event_month_counts (
    dim CHAR(1) NOT NULL,
    ref INTEGER NOT NULL,
    status VARCHAR(20) NOT NULL,
    hidden BOOLEAN NOT NULL,
    month TEXT NOT NULL, -- YYYY-MM-01, the month's first day
    n INTEGER NOT NULL,
    PRIMARY KEY (dim, ref, status, hidden, month)
) WITHOUT ROWID;
--bun:split

DELETE FROM event_month_counts;
--bun:split

INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) SELECT dim, ref, status, hidden, substr(day, 1, 8) || '01', SUM(n) FROM event_day_counts GROUP BY dim, ref, status, hidden, substr(day, 1, 8);
--bun:split

DROP TRIGGER IF EXISTS event_day_counts_month_ins;
--bun:split

CREATE TRIGGER event_day_counts_month_ins AFTER INSERT ON event_day_counts FOR EACH ROW BEGIN INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (NEW.dim, NEW.ref, NEW.status, NEW.hidden, substr(NEW.day, 1, 8) || '01', NEW.n) ON CONFLICT (dim, ref, status, hidden, month) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS event_day_counts_month_upd;
--bun:split

CREATE TRIGGER event_day_counts_month_upd AFTER UPDATE ON event_day_counts FOR EACH ROW WHEN OLD.dim = NEW.dim AND OLD.ref = NEW.ref AND OLD.status = NEW.status AND OLD.hidden = NEW.hidden AND substr(OLD.day, 1, 7) = substr(NEW.day, 1, 7) BEGIN INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (NEW.dim, NEW.ref, NEW.status, NEW.hidden, substr(NEW.day, 1, 8) || '01', NEW.n - OLD.n) ON CONFLICT (dim, ref, status, hidden, month) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS event_day_counts_month_move;
--bun:split

CREATE TRIGGER event_day_counts_month_move AFTER UPDATE ON event_day_counts FOR EACH ROW WHEN NOT (OLD.dim = NEW.dim AND OLD.ref = NEW.ref AND OLD.status = NEW.status AND OLD.hidden = NEW.hidden AND substr(OLD.day, 1, 7) = substr(NEW.day, 1, 7)) BEGIN INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (OLD.dim, OLD.ref, OLD.status, OLD.hidden, substr(OLD.day, 1, 8) || '01', -OLD.n) ON CONFLICT (dim, ref, status, hidden, month) DO UPDATE SET n = n + excluded.n; INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (NEW.dim, NEW.ref, NEW.status, NEW.hidden, substr(NEW.day, 1, 8) || '01', NEW.n) ON CONFLICT (dim, ref, status, hidden, month) DO UPDATE SET n = n + excluded.n; END;
--bun:split

DROP TRIGGER IF EXISTS event_day_counts_month_del;
--bun:split

CREATE TRIGGER event_day_counts_month_del AFTER DELETE ON event_day_counts FOR EACH ROW BEGIN INSERT INTO event_month_counts (dim, ref, status, hidden, month, n) VALUES (OLD.dim, OLD.ref, OLD.status, OLD.hidden, substr(OLD.day, 1, 8) || '01', -OLD.n) ON CONFLICT (dim, ref, status, hidden, month) DO UPDATE SET n = n + excluded.n; END;
