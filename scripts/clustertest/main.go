// Command clustertest is `make cluster-test`: it brings up the cluster of
// scripts/cluster.sh (three Galera nodes, HAProxy, three kalends), puts a
// mixed load on it (reads, API writes, sign-in form posts), kills the
// active database node and one kalends instance with SIGKILL and starts
// them again, and then checks what a failover must keep:
//
//   - the migrations ran once although the three instances started at once;
//   - no acknowledged write is lost: every 2xx write reads back;
//   - no request was answered 500 (503 with Retry-After is allowed);
//   - the three nodes hold identical data (CHECKSUM TABLE per table);
//   - a write through one instance is seen through the others within
//     --cache-check (250 ms) and a margin;
//   - a session made on one instance works on the others;
//   - sign-in limits count across instances;
//   - an instance killed while it holds the publisher's lease: another
//     takes the lease over within its life (leases.go);
//   - an instance killed while it holds the migration lock: the next ones
//     take it over within its lease and migrate, once (leases.go);
//   - scheduled publishing ran once per record (leases.go);
//   - the change feed holds every acknowledged write after the cursor taken
//     at the start and its cursor never goes back, and every acknowledged
//     write's change reaches a webhook endpoint, signed (feed.go).
//
// At the end, with the cluster down, the same load runs for the same steady
// window on one instance on one plain MariaDB (KALENDS_TEST_MYSQL_DSN's
// server), so the cluster's throughput has a baseline from the same run
// (single.go).
//
// It prints the numbers (writes acknowledged and lost, failover time seen
// by the writers, rejoin time of the killed node, retries counted,
// throughput beside the single instance's) and exits non-zero when a check
// fails. Everything is bounded
// by -timeout (10 minutes).
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

var (
	repo     = flag.String("repo", ".", "the repository's root")
	load     = flag.Duration("load", 90*time.Second, "how long the mixed load runs")
	timeout  = flag.Duration("timeout", 10*time.Minute, "bound of the whole run")
	keep     = flag.Bool("keep", false, "leave the cluster up at the end")
	binary   = flag.String("bin", "", "kalends binary (default: built by cluster.sh)")
	failures []string
	failMu   sync.Mutex
)

func fail(format string, args ...any) {
	failMu.Lock()
	defer failMu.Unlock()
	msg := fmt.Sprintf(format, args...)
	failures = append(failures, msg)
	fmt.Println("FAIL:", msg)
}

// result is one check's summary line.
type result struct {
	name, detail string
	ok           bool
}

var results []result

// step runs one check and keeps its summary line: ok when it added no
// failure (failures of the load's goroutines meanwhile count as well).
func step(name string, fn func() string) {
	failMu.Lock()
	before := len(failures)
	failMu.Unlock()
	detail := fn()
	failMu.Lock()
	ok := len(failures) == before
	failMu.Unlock()
	results = append(results, result{name: name, detail: detail, ok: ok})
	logf("check %s: %s", name, detail)
}

func logf(format string, args ...any) {
	fmt.Printf("%s  %s\n", time.Now().UTC().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// cluster runs scripts/cluster.sh with args and returns its output.
func cluster(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(*repo, "scripts", "cluster.sh"), args...) //nolint:gosec // the repository's own script
	cmd.Env = os.Environ()
	if *binary != "" {
		cmd.Env = append(cmd.Env, "KALENDS_BIN="+*binary)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

type env map[string]string

func readEnv(ctx context.Context) (env, error) {
	out, err := cluster(ctx, "env")
	if err != nil {
		return nil, fmt.Errorf("cluster.sh env: %w\n%s", err, out)
	}
	e := env{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			e[k] = v
		}
	}
	return e, nil
}

var client = &http.Client{Timeout: 30 * time.Second}

func get(u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	return client.Do(req)
}

// stats counts what the load saw.
type stats struct {
	reads, readErrs, writes, writes503, server500, other atomic.Int64
	mu                                                   sync.Mutex
	acked                                                map[int64]string // id → title of every 2xx create
	maybe                                                map[int64]string // id → title of an update not acknowledged (it may have applied)
	writesTo                                             map[int64]int    // id → acknowledged writes (creates and updates)
	scheduled                                            map[int64]bool   // ids created future
	updates                                              int              // acknowledged updates
	ackTimes                                             []time.Time
	killedAt                                             time.Time
	lastOK, firstFail                                    time.Time
	gaps                                                 []time.Duration // writes' longest gap without a success, per failover
}

func main() {
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	start := time.Now()
	code := run(ctx)
	cancel()
	logf("cluster test done in %s", time.Since(start).Round(time.Second))
	os.Exit(code)
}

func run(ctx context.Context) int {
	_, _ = cluster(ctx, "down") // a cluster left over by a run that was killed
	t0 := time.Now()
	out, err := cluster(ctx, "up")
	fmt.Print(out)
	if err != nil {
		fmt.Println("FAIL: cluster.sh up:", err)
		_, _ = cluster(context.Background(), "down")
		return 1
	}
	logf("cluster up in %s", time.Since(t0).Round(time.Second))
	if !*keep {
		defer func() {
			out, _ := cluster(context.Background(), "down")
			fmt.Print(out)
		}()
	}
	e, err := readEnv(ctx)
	if err != nil {
		fmt.Println("FAIL:", err)
		return 1
	}
	apps := strings.Split(e["KALENDS_CLUSTER_APPS"], ",")
	front := e["KALENDS_CLUSTER_URL"]

	step("migrations ran once", func() string { return checkMigratedOnce(ctx, e) })
	auth, err := appPassword(ctx, e)
	if err != nil {
		fmt.Println("FAIL: app password:", err)
		return 1
	}
	step("sessions across instances", func() string {
		checkSessionsAcrossInstances(apps, e["KALENDS_CLUSTER_ADMIN_PASSWORD"])
		return "a session made on k1 works on k1, k2 and k3"
	})
	step("sign-in limits across instances", func() string {
		checkSignInLimitsAcrossInstances(apps)
		return "five failures spread over three instances: the sixth is refused on each"
	})

	// The webhook endpoint and the feed's cursor, before the load.
	hooks, err := newHookReceiver()
	if err == nil {
		err = hooks.register(ctx, e)
	}
	if err != nil {
		fmt.Println("FAIL: webhook endpoint:", err)
		return 1
	}
	defer func() { _ = hooks.srv.Close() }()
	feed := &feedFollower{front: front, auth: auth}
	if err := feed.start(); err != nil {
		fmt.Println("FAIL: the change feed's start cursor:", err)
		return 1
	}
	logf("webhook endpoint %s registered; the change feed is followed from cursor %d", hooks.url, feed.startSeq)

	st := &stats{acked: map[int64]string{}, maybe: map[int64]string{}, writesTo: map[int64]int{}, scheduled: map[int64]bool{}}
	loadCtx, stopLoad := context.WithCancel(ctx)
	loadStart := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() { scheduler(loadCtx, front, auth, st) })
	feedCtx, stopFeed := context.WithCancel(ctx)
	feedDone := make(chan struct{})
	go func() { defer close(feedDone); feed.run(feedCtx) }()
	for i := range 4 {
		wg.Go(func() { reader(loadCtx, front, i, st) })
	}
	for i := range 3 {
		wg.Go(func() { writer(loadCtx, front, auth, i, st) })
	}
	wg.Go(func() { formPoster(loadCtx, front, st) })
	// The steady throughput, before the first kill (chaos waits 15 s).
	steady := make(chan throughput, 1)
	go func() { steady <- measureSteady(ctx, st, loadStart) }()

	// The failovers, while the load runs; the load goes on for -load, and
	// for ten seconds at least after the last restart.
	var failover, rejoin time.Duration
	step("database node and instance killed", func() string {
		failover, rejoin = chaos(ctx, st)
		return fmt.Sprintf("writes acknowledged again %s after the kill of the active node; it rejoined in %s; k2 killed and restarted",
			failover.Round(time.Millisecond), rejoin.Round(time.Millisecond))
	})
	step("publisher lease holder killed", func() string { return killPublisher(ctx, e) })
	step("migration lock holder killed", func() string { return killMigrator(ctx, e) })
	sleep(ctx, max(10*time.Second, *load-time.Since(loadStart)))
	stopLoad()
	wg.Wait()
	loadSecs := time.Since(loadStart).Seconds()

	// Let the cluster settle, then check.
	waitSynced(ctx, e)
	step("scheduled publishing once per record", func() string { return checkScheduled(ctx, e, front, st) })
	var lost int
	step("no acknowledged write lost", func() string {
		lost = checkAcked(front, st)
		return fmt.Sprintf("%d events read back with their last acknowledged title (creates and updates), %d lost", len(st.acked), lost)
	})
	feedWant, hookWant := map[int64]int{}, map[int64]int{}
	st.mu.Lock()
	for id, n := range st.writesTo {
		feedWant[id] = n
		hookWant[id] = n
		if st.scheduled[id] {
			hookWant[id] = 1 // an anonymous reader sees it once, when it is published
		}
	}
	st.mu.Unlock()
	step("change feed through the failover", func() string { return feed.check(ctx, feedWant) })
	stopFeed()
	<-feedDone
	step("webhooks through the failover", func() string { return hooks.check(hookWant) })
	step("identical nodes", func() string {
		checkChecksums(ctx, e)
		return "a checksum per table, equal on the three nodes"
	})
	var visibility time.Duration
	step("cross-instance visibility", func() string {
		visibility = checkVisibility(apps, auth)
		return fmt.Sprintf("a write through k1 seen through k2 and k3 after %s (--cache-check 250ms)", visibility.Round(time.Millisecond))
	})
	var retries map[string]int64
	step("retries counted in /debug/vars", func() string {
		retries = retriesCounted(e)
		return fmt.Sprintf("%v", retries)
	})
	step("no 500", func() string {
		if st.server500.Load() > 0 {
			fail("%d requests answered 500", st.server500.Load())
		}
		return fmt.Sprintf("%d answered 500; writes answered 503 with Retry-After: %d", st.server500.Load(), st.writes503.Load())
	})

	clusterTP := <-steady
	// The cluster's binary, kept for the baseline (cluster.sh down
	// removes the cluster's directory).
	bin, err := keepBinary(clusterBinary(e))
	if err != nil {
		fmt.Println("FAIL: keep the binary for the single-instance baseline:", err)
		return 1
	}
	defer func() { _ = os.Remove(bin) }()
	if !*keep {
		// The baseline runs alone on the machine: the cluster first goes.
		out, _ := cluster(context.Background(), "down")
		fmt.Print(out)
	}
	step("throughput beside a single instance", func() string { return compareThroughput(ctx, bin, clusterTP) })

	fmt.Println()
	fmt.Println("== cluster test")
	fmt.Printf("reads: %d (%.0f/s through HAProxy), read errors: %d\n", st.reads.Load(), float64(st.reads.Load())/loadSecs, st.readErrs.Load())
	fmt.Printf("events created: %d (%d scheduled), updates acknowledged: %d\n", len(st.acked), len(st.scheduled), st.updates)
	acked := 0
	for _, n := range st.writesTo {
		acked += n
	}
	fmt.Printf("writes acknowledged: %d, lost: %d, answered 503: %d, answered 500: %d, other failures: %d\n",
		acked, lost, st.writes503.Load(), st.server500.Load(), st.other.Load())
	fmt.Printf("failover time seen by the writers: %s; rejoin time of the killed node: %s\n", failover.Round(time.Millisecond), rejoin.Round(time.Millisecond))
	fmt.Printf("longest pause of the acknowledged writes around the kill: %s\n", st.longestPause().Round(time.Millisecond))
	fmt.Printf("load: %s; writes per second: %.1f\n", time.Since(loadStart).Round(time.Second), float64(acked)/loadSecs)
	fmt.Printf("cross-instance visibility: %s\n", visibility.Round(time.Millisecond))
	fmt.Printf("transactions retried: %v\n", retries)
	fmt.Println()
	for _, r := range results {
		state := "ok  "
		if !r.ok {
			state = "FAIL"
		}
		fmt.Printf("check %s %s: %s\n", state, r.name, r.detail)
	}
	if len(failures) > 0 {
		fmt.Printf("%d checks failed\n", len(failures))
		return 1
	}
	fmt.Println("all checks passed")
	return 0
}

// nodeDB opens node i (0-based) directly, as Kalends' user, with causal
// reads.
func nodeDB(e env, i int) (*sql.DB, error) {
	u, err := url.Parse(e["KALENDS_CLUSTER_DSN"])
	if err != nil {
		return nil, err
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net, cfg.Addr = "tcp", strings.Split(e["KALENDS_CLUSTER_NODES"], ",")[i]
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	cfg.Params = map[string]string{"wsrep_sync_wait": "1"}
	cfg.Timeout = 5 * time.Second
	return sql.Open("mysql", cfg.FormatDSN())
}

func checkMigratedOnce(ctx context.Context, e env) string {
	db, err := nodeDB(e, 1)
	if err != nil {
		fail("open db2: %v", err)
		return ""
	}
	defer func() { _ = db.Close() }()
	var n, distinct int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*), COUNT(DISTINCT name) FROM bun_migrations").Scan(&n, &distinct); err != nil {
		fail("read bun_migrations: %v", err)
		return ""
	}
	if n == 0 || n != distinct {
		fail("migrations: %d rows, %d distinct: not applied exactly once", n, distinct)
	}
	applied := 0
	dir := e["KALENDS_CLUSTER_DIR"]
	for k := 1; k <= 3; k++ {
		b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("k%d.log", k))) //nolint:gosec // the cluster's own log
		if bytes.Contains(b, []byte("migrations applied")) {
			applied++
		}
	}
	if applied != 1 {
		fail("%d instances say they applied migrations, want exactly 1", applied)
	}
	return fmt.Sprintf("%d migrations applied once, by %d of the three instances started at once", n, applied)
}

func appPassword(ctx context.Context, e env) (string, error) {
	return appPasswordOf(ctx, clusterBinary(e), e["KALENDS_CLUSTER_DSN"])
}

// appPasswordOf makes an application password for admin with bin on the
// database dsn and returns its Authorization header.
func appPasswordOf(ctx context.Context, bin, dsn string) (string, error) {
	args := []string{"--db", dsn, "app-password", "create", "--login", "admin", "--name", "cluster test"}
	cmd := exec.CommandContext(ctx, bin, args...) //nolint:gosec // the kalends binary under test
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s", err, stderr.String())
	}
	pw := strings.TrimSpace(stdout.String())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://x", nil)
	req.SetBasicAuth("admin", pw)
	return req.Header.Get("Authorization"), nil
}

// signIn posts the sign-in form to base with jar and returns the status.
func signIn(c *http.Client, base, login, password string) (int, error) {
	u, _ := url.Parse(base)
	// The form token of a visitor of our own (cookie and field alike), on
	// loopback over plain HTTP.
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "kalends_login_csrf", Value: "cluster-test-token", Path: "/"}}) //nolint:gosec // a test client
	form := url.Values{"login": {login}, "password": {password}, "_csrf": {"cluster-test-token"}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, base+"/admin/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	return res.StatusCode, nil
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func checkSessionsAcrossInstances(apps []string, adminPassword string) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: noRedirect}
	status, err := signIn(c, apps[0], "admin", adminPassword)
	if err != nil || status != http.StatusSeeOther && status != http.StatusFound {
		fail("sign in on k1: %d %v", status, err)
		return
	}
	from, _ := url.Parse(apps[0])
	for i, app := range apps {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, app+"/admin/", nil)
		for _, ck := range jar.Cookies(from) {
			req.AddCookie(ck)
		}
		res, err := c.Do(req)
		if err != nil {
			fail("admin on k%d with k1's session: %v", i+1, err)
			continue
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			fail("admin on k%d with k1's session: %d (%s), want 200", i+1, res.StatusCode, res.Header.Get("Location"))
		}
	}
	logf("a session made on k1 works on k1, k2 and k3")
}

// checkSignInLimitsAcrossInstances: five wrong passwords for one login
// (--signin-max-per-login) spread over the three instances; the sixth,
// on any instance, is refused 429.
func checkSignInLimitsAcrossInstances(apps []string) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: noRedirect}
	login := fmt.Sprintf("límite-%d", time.Now().UnixNano())
	for i := range 5 {
		if st, err := signIn(c, apps[i%3], login, "wrong"); err != nil || st == http.StatusTooManyRequests || st >= 500 {
			fail("wrong password %d on k%d: %d %v", i+1, i%3+1, st, err)
		}
	}
	for i, app := range apps {
		if st, err := signIn(c, app, login, "wrong"); err != nil || st != http.StatusTooManyRequests {
			fail("sign-in after five failures, on k%d: %d %v, want 429", i+1, st, err)
		}
	}
	logf("sign-in limits count across instances: the sixth attempt is refused on every instance")
}

func reader(ctx context.Context, front string, i int, st *stats) {
	paths := []string{"/cal/events/v1/events", "/events", "/cal/events/v1/venues", "/cal/events/v1/events?search=%E7%A5%AD"}
	for n := 0; ctx.Err() == nil; n++ {
		req, _ := http.NewRequestWithContext(ctx, "GET", front+paths[(n+i)%len(paths)], nil)
		res, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				st.readErrs.Add(1)
			}
			continue
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		st.reads.Add(1)
		switch {
		case res.StatusCode == http.StatusServiceUnavailable:
			if res.Header.Get("Retry-After") == "" {
				fail("503 without Retry-After on %s", req.URL.Path)
			}
		case res.StatusCode >= 500:
			st.server500.Add(1)
			fail("read answered %d: %s", res.StatusCode, req.URL.RequestURI())
		case res.StatusCode != 200:
			st.readErrs.Add(1)
		}
	}
}

var titles = []string{"東京の夜桜", "서울 재즈 축제", "Fête de la Musique", "北京音乐节", "Ærøskøbing marked"}

func writer(ctx context.Context, front, auth string, i int, st *stats) {
	for n := 0; ctx.Err() == nil; n++ {
		title := fmt.Sprintf("%s %d-%d", titles[(n+i)%len(titles)], i, n)
		body, _ := json.Marshal(map[string]any{"title": title, "status": "publish",
			"start_date": "2027-03-01 10:00:00", "end_date": "2027-03-01 12:00:00"})
		req, _ := http.NewRequestWithContext(ctx, "POST", front+"/cal/events/v1/events", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", auth)
		res, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				st.other.Add(1)
				st.noteFail()
			}
			continue
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		st.writes.Add(1)
		switch {
		case res.StatusCode == http.StatusCreated:
			var ev struct {
				ID int64 `json:"id"`
			}
			_ = json.Unmarshal(b, &ev)
			st.mu.Lock()
			st.acked[ev.ID] = title
			st.writesTo[ev.ID]++
			st.ackTimes = append(st.ackTimes, time.Now())
			st.mu.Unlock()
			st.noteOK()
			if n%4 == 0 {
				update(ctx, front, auth, ev.ID, title+" ✎", st)
			}
		case res.StatusCode == http.StatusServiceUnavailable:
			st.writes503.Add(1)
			st.noteFail()
			if res.Header.Get("Retry-After") == "" {
				fail("503 without Retry-After on a write")
			}
			time.Sleep(200 * time.Millisecond)
		case res.StatusCode >= 500:
			st.server500.Add(1)
			st.noteFail()
			fail("write answered %d: %.200s", res.StatusCode, b)
		case res.StatusCode == http.StatusTooManyRequests:
			time.Sleep(time.Second) // the write limit per user
		default:
			st.other.Add(1)
			fail("write answered %d: %.200s", res.StatusCode, b)
		}
	}
}

// update changes the title of event id, as a writer's second write.
func update(ctx context.Context, front, auth string, id int64, title string, st *stats) {
	body, _ := json.Marshal(map[string]any{"title": title})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("%s/cal/events/v1/events/%d", front, id), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", auth)
	res, err := client.Do(req)
	if err != nil {
		st.mu.Lock()
		st.maybe[id] = title
		st.mu.Unlock()
		return
	}
	b, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case res.StatusCode == http.StatusOK:
		st.acked[id] = title
		st.writesTo[id]++
		st.updates++
	case res.StatusCode == http.StatusServiceUnavailable:
		st.maybe[id] = title
	case res.StatusCode >= 500:
		st.server500.Add(1)
		st.maybe[id] = title
		fail("update answered %d: %.200s", res.StatusCode, b)
	default:
		fail("update answered %d: %.200s", res.StatusCode, b)
	}
}

// formPoster posts the admin's sign-in form (wrong passwords of logins
// of its own) through HAProxy: a form post that writes (the attempt
// counters) on every request.
func formPoster(ctx context.Context, front string, st *stats) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: noRedirect}
	for n := 0; ctx.Err() == nil; n++ {
		status, err := signIn(c, front, fmt.Sprintf("form-%d-%d", time.Now().Unix(), n), "wrong")
		switch {
		case err != nil:
			if ctx.Err() == nil {
				st.other.Add(1)
			}
		case status == http.StatusServiceUnavailable:
		case status >= 500:
			st.server500.Add(1)
			fail("sign-in form answered %d", status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (st *stats) noteOK() {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := time.Now()
	if !st.firstFail.IsZero() {
		st.gaps = append(st.gaps, now.Sub(st.lastOK))
		st.firstFail = time.Time{}
	}
	st.lastOK = now
}

func (st *stats) noteFail() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.firstFail.IsZero() {
		st.firstFail = time.Now()
	}
}

// chaos kills the active database node, waits until writes go through
// again (the failover time seen by clients: from the kill to the first
// acknowledged write after it), starts the node again (its rejoin time:
// until it is synced), then kills and restarts a kalends instance.
func chaos(ctx context.Context, st *stats) (failover, rejoin time.Duration) {
	sleep(ctx, 15*time.Second)
	if ctx.Err() != nil {
		return
	}
	out, err := cluster(ctx, "active-db")
	node := strings.TrimPrefix(strings.TrimSpace(out), "db")
	if err != nil || node == "" || node == "none" {
		fail("active database node: %q %v", out, err)
		return
	}
	st.mu.Lock()
	before := len(st.acked)
	st.mu.Unlock()
	killed := time.Now()
	st.mu.Lock()
	st.killedAt = killed
	st.mu.Unlock()
	if out, err := cluster(ctx, "kill-db", node); err != nil {
		fail("kill db%s: %v %s", node, err, out)
		return
	}
	logf("killed db%s (the active node), %d writes acknowledged so far", node, before)
	for ctx.Err() == nil {
		st.mu.Lock()
		ok := st.lastOK.After(killed)
		last := st.lastOK
		st.mu.Unlock()
		if ok {
			failover = last.Sub(killed)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, _ = cluster(ctx, "active-db")
	logf("writes acknowledged again %s after the kill; HAProxy uses %s", failover.Round(time.Millisecond), strings.TrimSpace(out))
	t := time.Now()
	if out, err := cluster(ctx, "start-db", node); err != nil {
		fail("restart db%s: %v %s", node, err, out)
		return
	}
	rejoin = time.Since(t)
	logf("db%s rejoined in %s", node, rejoin.Round(time.Millisecond))
	sleep(ctx, 5*time.Second)
	if out, err := cluster(ctx, "kill-app", "2"); err != nil {
		fail("kill k2: %v %s", err, out)
		return
	}
	logf("killed k2")
	sleep(ctx, 3*time.Second)
	if out, err := cluster(ctx, "start-app", "2"); err != nil {
		fail("restart k2: %v %s", err, out)
		return
	}
	logf("k2 restarted")
	return failover, rejoin
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func waitSynced(ctx context.Context, e env) {
	deadline := time.Now().Add(2 * time.Minute)
	for i := range 3 {
		for {
			args := []string{"--no-defaults", "-S", filepath.Join(e["KALENDS_CLUSTER_DIR"], fmt.Sprintf("db%d", i+1), "mysqld.sock"),
				"-uroot", "-N", "-B", "-e", "SHOW GLOBAL STATUS LIKE 'wsrep_local_state'"}
			out, err := exec.CommandContext(ctx, "mariadb", args...).Output() //nolint:gosec // the cluster's own socket
			if err == nil && strings.HasSuffix(strings.TrimSpace(string(out)), "4") {
				break
			}
			if time.Now().After(deadline) {
				fail("db%d not synced at the end: %s %v", i+1, out, err)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// checkAcked reads every acknowledged write back through HAProxy.
func checkAcked(front string, st *stats) (lost int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for id, title := range st.acked {
		res, err := get(fmt.Sprintf("%s/cal/events/v1/events/%d", front, id))
		if err != nil {
			fail("read back event %d: %v", id, err)
			lost++
			continue
		}
		var ev struct {
			Title string `json:"title"`
		}
		_ = json.NewDecoder(res.Body).Decode(&ev)
		_ = res.Body.Close()
		if res.StatusCode != 200 || ev.Title != title && ev.Title != st.maybe[id] {
			lost++
			fail("acknowledged write lost: event %d %q: %d %q", id, title, res.StatusCode, ev.Title)
		}
	}
	logf("%d acknowledged writes read back, %d lost", len(st.acked), lost)
	return lost
}

// checkChecksums compares CHECKSUM TABLE of every table on the three
// nodes. The instances still run (the publisher renews its lease every few
// seconds), and the nodes are read one after the other: a table that
// changed between two reads is read again, up to ten times; a real
// difference stays.
func checkChecksums(ctx context.Context, e env) {
	for attempt := 1; ; attempt++ {
		differ := checksumsDiffer(ctx, e)
		if differ == "" {
			logf("the three nodes hold identical data (a checksum per table; read %d times)", attempt)
			return
		}
		if attempt == 10 {
			fail("the nodes differ: %s", differ)
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func checksumsDiffer(ctx context.Context, e env) string {
	sums := make([]map[string]int64, 3)
	for i := range 3 {
		db, err := nodeDB(e, i)
		if err != nil {
			return fmt.Sprintf("open db%d: %v", i+1, err)
		}
		tables, err := tableNames(ctx, db)
		if err != nil {
			_ = db.Close()
			return fmt.Sprintf("db%d tables: %v", i+1, err)
		}
		sums[i] = map[string]int64{}
		for _, t := range tables {
			var name string
			var sum sql.NullInt64
			if err := db.QueryRowContext(ctx, "CHECKSUM TABLE `"+t+"`").Scan(&name, &sum); err != nil {
				_ = db.Close()
				return fmt.Sprintf("db%d checksum %s: %v", i+1, t, err)
			}
			sums[i][t] = sum.Int64
		}
		_ = db.Close()
	}
	var differ []string
	for t, s := range sums[0] {
		if sums[1][t] != s || sums[2][t] != s {
			differ = append(differ, t)
		}
	}
	slices.Sort(differ)
	if len(differ) > 0 || len(sums[0]) != len(sums[1]) || len(sums[0]) != len(sums[2]) {
		return fmt.Sprintf("tables %v (%d, %d, %d tables)", differ, len(sums[0]), len(sums[1]), len(sums[2]))
	}
	return ""
}

// checkVisibility: a list read on k2 and k3 (so their caches hold it), an
// event created through k1, then the time until k2 and k3 list it. The
// caches check the generation every --cache-check (250 ms); the bound
// allows a second beside it.
func checkVisibility(apps []string, auth string) time.Duration {
	list := "/cal/events/v1/events?search=" + url.QueryEscape("可視性")
	read := func(app string) (string, error) {
		res, err := get(app + list)
		if err != nil {
			return "", err
		}
		defer func() { _ = res.Body.Close() }()
		b, err := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			return "", fmt.Errorf("%d", res.StatusCode)
		}
		return string(b), err
	}
	for _, app := range apps[1:] {
		if _, err := read(app); err != nil {
			fail("list on %s: %v", app, err)
		}
	}
	title := fmt.Sprintf("可視性 %d", time.Now().UnixNano())
	body, _ := json.Marshal(map[string]any{"title": title, "status": "publish", "start_date": "2027-02-01 10:00:00", "end_date": "2027-02-01 11:00:00"})
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, apps[0]+"/cal/events/v1/events", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", auth)
	res, err := client.Do(req)
	if err != nil || res.StatusCode != http.StatusCreated {
		fail("create through k1: %v %v", res, err)
		return 0
	}
	_ = res.Body.Close()
	created := time.Now()
	var worst time.Duration
	for _, app := range apps[1:] {
		for {
			b, err := read(app)
			if err == nil && strings.Contains(b, title) {
				break
			}
			if time.Since(created) > 1250*time.Millisecond {
				fail("a write through k1 not seen through %s after %s", app, time.Since(created).Round(time.Millisecond))
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		worst = max(worst, time.Since(created))
	}
	logf("a write through k1 is seen through k2 and k3 after %s", worst.Round(time.Millisecond))
	return worst
}

func retriesCounted(e env) map[string]int64 {
	total := map[string]int64{}
	for _, d := range strings.Split(e["KALENDS_CLUSTER_DEBUG"], ",") {
		res, err := get(d + "/debug/vars")
		if err != nil {
			fail("%s/debug/vars: %v", d, err)
			continue
		}
		var vars struct {
			Kalends map[string]any `json:"kalends"`
		}
		err = json.NewDecoder(res.Body).Decode(&vars)
		_ = res.Body.Close()
		if err != nil {
			fail("%s/debug/vars: %v", d, err)
			continue
		}
		for k, v := range vars.Kalends {
			if r, ok := strings.CutPrefix(k, "tx_retries_"); ok {
				if f, ok := v.(float64); ok {
					total[r] += int64(f)
				}
			}
		}
	}
	if len(total) == 0 {
		fail("no tx_retries_* in /debug/vars")
	}
	return total
}

// longestPause is the longest time between two acknowledged writes from
// just before the database node was killed until a minute after.
func (st *stats) longestPause() time.Duration {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.killedAt.IsZero() {
		return 0
	}
	times := slices.Clone(st.ackTimes)
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	var longest time.Duration
	for i := 1; i < len(times); i++ {
		if times[i].Before(st.killedAt) || times[i-1].After(st.killedAt.Add(time.Minute)) {
			continue
		}
		longest = max(longest, times[i].Sub(times[i-1]))
	}
	return longest
}

func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' ORDER BY table_name")
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	return tables, rows.Err()
}
