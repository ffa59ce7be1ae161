package main

// Scenario 3 of issue 35: an instance is killed while it holds the
// publisher's lease or the migration lock; the others go on within the
// lease's life, and nobody waits for ever. And scheduled publishing: the
// records made "future" during the load are published once each.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The publisher's lease lasts three publishing intervals (cmd/kalends,
// runPublisher; cluster.sh publishes every 5 s) and the others ask for it
// every interval; the migration lock's lease lasts 30 s (models,
// migrationLeaseTTL).
const (
	publishInterval  = 5 * time.Second
	publisherLeaseTL = 3 * publishInterval
	migrationLeaseTL = 30 * time.Second
)

// frontDB opens database name through HAProxy (no database: "").
func frontDB(e env, name string) (*sql.DB, error) {
	u, err := url.Parse(e["KALENDS_CLUSTER_DSN"])
	if err != nil {
		return nil, err
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net, cfg.Addr = "tcp", e["KALENDS_CLUSTER_DB"]
	cfg.DBName = name
	cfg.Params = map[string]string{"wsrep_sync_wait": "1"}
	cfg.Timeout = 5 * time.Second
	cfg.ParseTime = true
	return sql.Open("mysql", cfg.FormatDSN())
}

// scheduler creates, through the API as the writers do, an event with
// status future and a date four seconds ahead, every second and a half.
func scheduler(ctx context.Context, front, auth string, st *stats) {
	for n := 0; ctx.Err() == nil; n++ {
		title := fmt.Sprintf("予定 %d-%d", time.Now().Unix(), n)
		body, _ := json.Marshal(map[string]any{"title": title, "status": "future",
			"date_utc":   time.Now().UTC().Add(4 * time.Second).Format(time.DateTime),
			"start_date": "2027-04-01 10:00:00", "end_date": "2027-04-01 12:00:00"})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front+"/cal/events/v1/events", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", auth)
		res, err := client.Do(req)
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			switch {
			case res.StatusCode == http.StatusCreated:
				var ev struct {
					ID     int64  `json:"id"`
					Status string `json:"status"`
				}
				_ = json.Unmarshal(b, &ev)
				if ev.Status != "future" {
					fail("a scheduled event was created with status %q, want future", ev.Status)
				}
				st.mu.Lock()
				st.acked[ev.ID] = title
				st.writesTo[ev.ID]++
				st.scheduled[ev.ID] = true
				st.mu.Unlock()
			case res.StatusCode >= 500 && res.StatusCode != http.StatusServiceUnavailable:
				st.server500.Add(1)
				fail("a scheduled create answered %d: %.200s", res.StatusCode, b)
			case res.StatusCode != http.StatusServiceUnavailable && res.StatusCode != http.StatusTooManyRequests:
				fail("a scheduled create answered %d: %.200s", res.StatusCode, b)
			}
		}
		sleep(ctx, 1500*time.Millisecond)
	}
}

// checkScheduled waits, 60 s at most, until every scheduled event reads
// back published (an anonymous reader sees it), then counts in the
// changes table (the triggers' log of every write of an events row) the
// writes that left each of them published: a second publication, even one
// that found it published already, would be a second row.
func checkScheduled(ctx context.Context, e env, front string, st *stats) string {
	st.mu.Lock()
	var ids []int64
	for id := range st.scheduled {
		ids = append(ids, id)
	}
	st.mu.Unlock()
	if len(ids) == 0 {
		fail("no scheduled event was acknowledged")
		return "none"
	}
	deadline := time.Now().Add(60 * time.Second)
	pending := ids
	for len(pending) > 0 && time.Now().Before(deadline) {
		var next []int64
		for _, id := range pending {
			res, err := get(fmt.Sprintf("%s/cal/events/v1/events/%d", front, id))
			if err != nil {
				next = append(next, id)
				continue
			}
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode != http.StatusOK {
				next = append(next, id)
			}
		}
		pending = next
		if len(pending) > 0 {
			time.Sleep(500 * time.Millisecond)
		}
	}
	if len(pending) > 0 {
		fail("%d scheduled events not published within 60 s after the load, e.g. %v", len(pending), pending[:min(len(pending), 10)])
	}
	db, err := frontDB(e, "kalends")
	if err != nil {
		fail("open the database: %v", err)
		return ""
	}
	defer func() { _ = db.Close() }()
	counts, err := publishedWrites(ctx, db, ids)
	if err != nil {
		fail("read the changes: %v", err)
		return ""
	}
	hist := map[int]int{}
	for _, id := range ids {
		hist[counts[id]]++
		if counts[id] != 1 {
			fail("scheduled event %d: %d writes left it published, want exactly 1", id, counts[id])
		}
	}
	return fmt.Sprintf("%d scheduled events, %d not published; writes that left each published (changes table): %v (count → events)", len(ids), len(pending), hist)
}

// publishedWrites counts per event the rows of the changes table whose
// write left it published.
func publishedWrites(ctx context.Context, db *sql.DB, ids []int64) (map[int64]int, error) {
	//nolint:gosec // G202: only placeholders are added
	q := "SELECT record_id, COUNT(*) FROM changes WHERE kind = 'event' AND new_status = 'publish' " +
		"AND record_id IN (" + strings.Repeat("?,", len(ids)-1) + "?) GROUP BY record_id"
	rows, err := db.QueryContext(ctx, q, anys(ids)...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	counts := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		counts[id] = n
	}
	return counts, rows.Err()
}

func anys(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// instanceOf finds the instance (1 to 3) whose log says it took the
// publisher lease as holder.
func instanceOf(e env, holder string) int {
	for k := 1; k <= 3; k++ {
		b, _ := os.ReadFile(filepath.Join(e["KALENDS_CLUSTER_DIR"], fmt.Sprintf("k%d.log", k))) //nolint:gosec // the cluster's own log
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "took the publisher lease") && strings.Contains(line, holder) {
				return k
			}
		}
	}
	return 0
}

func publisherHolder(ctx context.Context, db *sql.DB) (string, time.Time, error) {
	var h string
	var exp time.Time
	err := db.QueryRowContext(ctx, "SELECT holder, expires_at FROM leases WHERE name = 'publish-due'").Scan(&h, &exp)
	return h, exp, err
}

// killPublisher finds the instance holding the publisher's lease (the
// leases table names the holder, its log names the instance), waits for it
// to renew the lease (so that it is alive: a lease left by the instance
// killed before is not taken for a live one), kills it with SIGKILL right
// after, and measures until another instance holds the lease: not before
// the lease ran out, and within its life and an interval. Then it starts
// the killed one again.
func killPublisher(ctx context.Context, e env) string {
	db, err := frontDB(e, "kalends")
	if err != nil {
		fail("open the database: %v", err)
		return ""
	}
	defer func() { _ = db.Close() }()
	holder, exp, err := publisherHolder(ctx, db)
	if err != nil {
		fail("the publisher lease: %v", err)
		return ""
	}
	for wait := time.Now().Add(3 * publisherLeaseTL); ; time.Sleep(50 * time.Millisecond) {
		h, x, err := publisherHolder(ctx, db)
		if err == nil && h == holder && x.After(exp) {
			break // renewed: the holder is alive
		}
		if err == nil && h != holder {
			holder, exp = h, x
		}
		if time.Now().After(wait) || ctx.Err() != nil {
			fail("the publisher lease was not renewed for %s", 3*publisherLeaseTL)
			return ""
		}
	}
	k := instanceOf(e, holder)
	if k == 0 {
		fail("no instance's log says it holds the publisher lease %q", holder)
		return ""
	}
	killed := time.Now()
	if out, err := cluster(ctx, "kill-app", fmt.Sprint(k)); err != nil {
		fail("kill k%d: %v %s", k, err, out)
		return ""
	}
	logf("killed k%d, which held the publisher lease", k)
	bound := publisherLeaseTL + publishInterval + 3*time.Second
	var took time.Duration
	var next string
	for {
		h, _, err := publisherHolder(ctx, db)
		if err == nil && h != holder {
			took, next = time.Since(killed), h
			break
		}
		if time.Since(killed) > 2*bound || ctx.Err() != nil {
			fail("the publisher lease not taken over %s after its holder k%d was killed", time.Since(killed).Round(time.Millisecond), k)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if took > bound {
		fail("the publisher lease taken over after %s, more than its life %s and an interval %s (and 3 s)", took.Round(time.Millisecond), publisherLeaseTL, publishInterval)
	}
	// Renewed just before the kill, it lasted its life (less a second:
	// the database keeps whole seconds): taken sooner, two would publish.
	if next != "" && took < publisherLeaseTL-2*time.Second {
		fail("the publisher lease taken over %s after its holder renewed it, before its life %s ran out", took.Round(time.Millisecond), publisherLeaseTL)
	}
	nk := 0
	if next != "" {
		// The new holder logs it in the round that took it.
		for d := time.Now().Add(5 * time.Second); nk == 0 && time.Now().Before(d); time.Sleep(100 * time.Millisecond) {
			nk = instanceOf(e, next)
		}
		logf("k%d took the publisher lease over %s after k%d was killed", nk, took.Round(time.Millisecond), k)
	}
	if out, err := cluster(ctx, "start-app", fmt.Sprint(k)); err != nil {
		fail("restart k%d: %v %s", k, err, out)
	}
	return fmt.Sprintf("k%d renewed it and was killed at once; k%d took it over after %s (bounds: its life %s less 2 s; its life + an interval %s + 3 s)",
		k, nk, took.Round(time.Millisecond), publisherLeaseTL, publishInterval)
}

// migrate runs `kalends migrate` on dsn.
func migrateCmd(ctx context.Context, e env, dsn string) *exec.Cmd {
	bin := *binary
	if bin == "" {
		bin = filepath.Join(e["KALENDS_CLUSTER_DIR"], "kalends")
	}
	cmd := exec.CommandContext(ctx, bin, "--db", dsn, "migrate") //nolint:gosec // the kalends binary under test
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// killMigrator starts `kalends migrate` on an empty database of the
// cluster, SIGKILLs it while it holds the migration lock (bun's row is
// there and the first migration has not been marked applied), then starts
// two more at once: they must both finish, within the lock's lease and
// the migrations' own time, one of them applying the migrations, each
// once.
func killMigrator(ctx context.Context, e env) string {
	admin, err := frontDB(e, "")
	if err != nil {
		fail("open the cluster: %v", err)
		return ""
	}
	defer func() { _ = admin.Close() }()
	var want int
	if err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM kalends.bun_migrations").Scan(&want); err != nil {
		fail("count the migrations: %v", err)
		return ""
	}
	for attempt := 1; attempt <= 3; attempt++ {
		name := fmt.Sprintf("kalends_lock%d", attempt)
		u, _ := url.Parse(e["KALENDS_CLUSTER_DSN"])
		u.Path = "/" + name
		dsn := u.String()
		cmd := migrateCmd(ctx, e, dsn)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			fail("start kalends migrate: %v", err)
			return ""
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		//nolint:gosec // G201: the database is our own, named above
		q := fmt.Sprintf("SELECT (SELECT COUNT(*) FROM `%s`.bun_migration_locks), (SELECT COUNT(*) FROM `%s`.bun_migrations), "+
			"(SELECT COUNT(*) FROM `%s`.kalends_migration_lease)", name, name, name)
		caught := false
	poll:
		for {
			select {
			case <-exited:
				break poll
			default:
			}
			var locks, applied, leases int
			if err := admin.QueryRowContext(ctx, q).Scan(&locks, &applied, &leases); err == nil && locks == 1 && leases == 1 && applied == 0 {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
				caught = true
				break
			}
			if ctx.Err() != nil {
				return ""
			}
			time.Sleep(5 * time.Millisecond)
		}
		killed := time.Now()
		if !caught {
			logf("kalends migrate on %s finished before it could be killed holding the lock (attempt %d)", name, attempt)
			_, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`")
			continue
		}
		var locks int
		_ = admin.QueryRowContext(ctx, fmt.Sprintf("SELECT COUNT(*) FROM `%s`.bun_migration_locks", name)).Scan(&locks)
		logf("killed kalends migrate while it held the migration lock of %s (lock rows left: %d)", name, locks)
		// Two instances start at once on the database the killed one left.
		var wg sync.WaitGroup
		took := make([]time.Duration, 2)
		outs := make([]string, 2)
		errs := make([]error, 2)
		runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		for i := range 2 {
			wg.Go(func() {
				c := migrateCmd(runCtx, e, dsn)
				b, err := c.CombinedOutput()
				took[i], outs[i], errs[i] = time.Since(killed), string(b), err
			})
		}
		wg.Wait()
		cancel()
		applied := 0
		for i := range 2 {
			if errs[i] != nil {
				fail("kalends migrate after the killed one: %v\n%s", errs[i], outs[i])
			}
			if strings.Contains(outs[i], "migrations applied") {
				applied++
			}
			if took[i] > migrationLeaseTL+60*time.Second {
				fail("kalends migrate finished %s after the kill, more than the lock's lease %s and a minute", took[i].Round(time.Millisecond), migrationLeaseTL)
			}
		}
		if applied != 1 {
			fail("%d of the two instances say they applied migrations, want 1", applied)
		}
		var n, distinct int
		if err := admin.QueryRowContext(ctx, fmt.Sprintf("SELECT COUNT(*), COUNT(DISTINCT name) FROM `%s`.bun_migrations", name)).Scan(&n, &distinct); err != nil {
			fail("read %s.bun_migrations: %v", name, err)
		} else if n != want || distinct != want {
			fail("%s: %d migrations (%d distinct) applied, want %d once each", name, n, distinct, want)
		}
		_, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`")
		logf("after the killed migrator, two instances finished %s and %s after the kill", took[0].Round(time.Millisecond), took[1].Round(time.Millisecond))
		return fmt.Sprintf("a migrator killed holding the lock; the two started next finished %s and %s after the kill (the lock's lease: %s), %d migrations applied once",
			took[0].Round(time.Millisecond), took[1].Round(time.Millisecond), migrationLeaseTL, n)
	}
	fail("kalends migrate could not be killed while it held the lock in 3 attempts")
	return ""
}
