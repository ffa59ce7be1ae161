package api

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The database outage behaviour of SPEC §2: a database that does not
// answer is 503 service_unavailable within 5 seconds, and the server
// recovers by itself when the database is back. MariaDB is reached through
// a TCP proxy the test controls; SQLite is blocked by another connection
// holding the write lock.

// proxyMode says what the proxy does with connections.
type proxyMode int32

const (
	proxyUp     proxyMode = iota // forward both ways
	proxyRefuse                  // no listener: connections are refused
	proxyDrop                    // accept, then close at once
	proxyStall                   // accept and hold, forwarding nothing
)

// dbProxy is a TCP proxy in front of the MariaDB server.
type dbProxy struct {
	t        *testing.T
	addr     string // 127.0.0.1:port, stable across refuse/up
	upstream string
	mode     atomic.Int32
	gen      atomic.Int64 // bumped when leaving proxyUp: older links close

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
	moved chan struct{} // closed (and replaced) when the mode changes
	wg    sync.WaitGroup
}

func startProxy(t *testing.T, upstream string) *dbProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dbProxy{t: t, addr: ln.Addr().String(), upstream: upstream, conns: map[net.Conn]bool{}, moved: make(chan struct{})}
	p.serve(ln)
	t.Cleanup(p.close)
	return p
}

func (p *dbProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.handle(c)
		}
	}()
}

// set switches the mode: leaving proxyUp cuts every open link (refuse
// and drop close them, stall freezes them until the mode changes and then
// closes them), refuse closes the listener, up reopens it on the same port.
func (p *dbProxy) set(m proxyMode) {
	old := proxyMode(p.mode.Swap(int32(m)))
	if old == m {
		return
	}
	p.gen.Add(1)
	p.announce()
	if m == proxyRefuse || m == proxyDrop {
		p.closeConns()
	}
	if m == proxyRefuse {
		p.mu.Lock()
		_ = p.ln.Close()
		p.mu.Unlock()
	}
	if old == proxyRefuse {
		var ln net.Listener
		modelstest.WaitFor(p.t, time.Second, func() error { // the port may linger a moment
			var err error
			ln, err = net.Listen("tcp", p.addr)
			if err != nil {
				return fmt.Errorf("proxy: listen again on %s: %w", p.addr, err)
			}
			return nil
		})
		p.serve(ln)
	}
	if old == proxyStall {
		p.closeConns()
	}
}

// announce wakes the links frozen by a stall: the mode has changed.
func (p *dbProxy) announce() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.moved)
	p.moved = make(chan struct{})
}

// thaw returns once a link of generation gen is no longer frozen: the
// proxy left the stall that began after the link was made.
func (p *dbProxy) thaw(gen int64) {
	for {
		p.mu.Lock()
		moved := p.moved
		p.mu.Unlock()
		if proxyMode(p.mode.Load()) != proxyStall || p.gen.Load() == gen {
			return
		}
		<-moved // set swaps the mode before it announces, so no change is missed
	}
}

func (p *dbProxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
}

func (p *dbProxy) closeConns() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

func (p *dbProxy) handle(c net.Conn) {
	switch proxyMode(p.mode.Load()) {
	case proxyDrop, proxyRefuse:
		_ = c.Close()
		return
	case proxyStall:
		p.track(c, true)
		p.wg.Add(1)
		go func() { // hold it, read and forget, until closed
			defer p.wg.Done()
			defer p.track(c, false)
			_, _ = io.Copy(io.Discard, c)
			_ = c.Close()
		}()
		return
	}
	up, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
	if err != nil {
		_ = c.Close()
		return
	}
	p.track(c, true)
	p.track(up, true)
	gen := p.gen.Load()
	pipe := func(dst, src net.Conn) {
		defer p.wg.Done()
		defer func() { _ = dst.Close(); _ = src.Close(); p.track(dst, false); p.track(src, false) }()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			p.thaw(gen) // frozen by a stall: forward nothing
			if p.gen.Load() != gen || n == 0 && err != nil {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil || err != nil {
				return
			}
		}
	}
	p.wg.Add(2)
	go pipe(up, c)
	go pipe(c, up)
}

func (p *dbProxy) close() {
	p.mode.Store(int32(proxyRefuse))
	p.gen.Add(1)
	p.announce()
	p.mu.Lock()
	_ = p.ln.Close()
	p.mu.Unlock()
	p.closeConns()
	p.wg.Wait()
}

// proxiedEnv builds the test environment on a fresh MariaDB database
// reached through a new proxy.
func proxiedEnv(t *testing.T) (*testEnv, *dbProxy) {
	t.Helper()
	base := modelstest.MySQLDSN(t)
	direct := modelstest.Open(t, models.MySQL) // creates, migrates, drops at the end
	var name string
	if err := direct.IDB().NewRaw("SELECT DATABASE()").Scan(context.Background(), &name); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	upstream := u.Host
	if !strings.Contains(upstream, ":") {
		upstream += ":3306"
	}
	p := startProxy(t, upstream)
	u.Host, u.Path = p.addr, "/"+name
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := models.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return newTestEnv(t, db), p
}

// timed sends GET target and returns the status, the error code and the time.
func timed(t *testing.T, e *testEnv, target string) (int, string, time.Duration) {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	if strings.HasSuffix(target, "as=editor") {
		req.SetBasicAuth(string(models.RoleEditor), e.passwords[models.RoleEditor])
	}
	start := time.Now()
	res := e.send(t, req)
	took := time.Since(start)
	code := ""
	if strings.HasPrefix(target, "/"+Namespace) && res.Status >= 400 {
		code = res.Code(t)
	}
	return res.Status, code, took
}

// expectDown checks that the API lists (anonymous, and signed
// in, which needs the database to authenticate) answer 503 within 5 s. The
// three go out together, so a stall costs one deadline, not three.
func expectDown(t *testing.T, e *testEnv, phase string) {
	t.Helper()
	targets := []string{"/" + Namespace + "/venues", "/" + Namespace + "/organizers?as=editor"}
	type result struct {
		status int
		code   string
		took   time.Duration
	}
	results := make([]result, len(targets))
	var wg sync.WaitGroup
	for i, target := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, code, took := timed(t, e, target)
			results[i] = result{status, code, took}
		}()
	}
	wg.Wait()
	for i, target := range targets {
		r := results[i]
		t.Logf("%s: GET %s → %d %s in %v", phase, target, r.status, r.code, r.took.Round(time.Millisecond))
		if r.status != 503 || (r.code != "" && r.code != "service_unavailable") {
			t.Errorf("%s: GET %s → %d %s, want 503 service_unavailable", phase, target, r.status, r.code)
		}
		if r.took > 5*time.Second {
			t.Errorf("%s: GET %s took %v, want at most 5 s", phase, target, r.took)
		}
	}
}

// expectRecovery polls the lists until both answer 200 (/healthz is
// checked with the assembled app in cmd/kalends).
func expectRecovery(t *testing.T, e *testEnv, phase string) {
	t.Helper()
	start := time.Now()
	for _, target := range []string{"/" + Namespace + "/venues", "/" + Namespace + "/organizers"} {
		modelstest.WaitFor(t, 10*time.Second, func() error {
			if status, _, _ := timed(t, e, target); status != 200 {
				return fmt.Errorf("%s: GET %s is %d, want 200", phase, target, status)
			}
			return nil
		})
	}
	t.Logf("%s: both 200 again after %v", phase, time.Since(start).Round(time.Millisecond))
}

// TestDatabaseOutageMySQL is not parallel: its timings and goroutine counts
// must not depend on the other tests.
func TestDatabaseOutageMySQL(t *testing.T) {
	e, p := proxiedEnv(t)
	expectRecovery(t, e, "start")
	baseline := runtime.NumGoroutine()

	for _, phase := range []struct {
		name string
		mode proxyMode
	}{{"refused", proxyRefuse}, {"dropped", proxyDrop}, {"stalled", proxyStall}} {
		p.set(phase.mode)
		expectDown(t, e, phase.name)
		// No query may still hold a connection once the 503s are out.
		if err := modelstest.Await(2*time.Second, func() error {
			if n := e.DB.Bun.Stats().InUse; n > 0 {
				return fmt.Errorf("%s: %d connections still in use 2 s after the 503s", phase.name, n)
			}
			return nil
		}); err != nil {
			t.Error(err)
		}
		p.set(proxyUp)
		expectRecovery(t, e, phase.name+" → up")
	}

	// Nothing left hanging: the goroutine count comes back to where it was
	// (database/sql and the proxy keep one pair per pooled connection).
	if err := modelstest.Await(5*time.Second, func() error {
		if n := runtime.NumGoroutine(); n > baseline+4 {
			return fmt.Errorf("%d goroutines 5 s after the outages, %d before", n, baseline)
		}
		return nil
	}); err != nil {
		buf := make([]byte, 1<<20)
		t.Errorf("%v:\n%s", err, buf[:runtime.Stack(buf, true)])
	}
}

// TestSQLiteWriteLockIs503 holds SQLite's write lock from another
// connection while the API writes: the write is 503 (or succeeds), never
// 500, and answers within the request deadline; once the lock is released,
// writes succeed again. As in production (a 5 s busy timeout, a 4.5 s
// request deadline) the deadline ends the wait for the lock, here after
// lockedDeadline instead of 4.5 s.
func TestSQLiteWriteLockIs503(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "kalends.db")
	ctx := context.Background()
	db, err := models.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, db)
	const lockedDeadline = 500 * time.Millisecond
	e.Deps.RequestTimeout = lockedDeadline

	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(100)")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	for _, as := range []models.Role{models.RoleAdministrator, ""} {
		start := time.Now()
		res := e.do(t, "POST", "/"+Namespace+"/venues", map[string]any{"venue": "Locked out " + string(as)}, as)
		took := time.Since(start)
		t.Logf("POST /venues as %q under a held write lock → %d in %v: %.80s", as, res.Status, took.Round(time.Millisecond), res.Body)
		switch {
		case res.Status >= 500 && (res.Status != 503 || res.Code(t) != "service_unavailable"):
			t.Errorf("as %q: %d %s, want 503 service_unavailable or success", as, res.Status, res.Body)
		case took > lockedDeadline+time.Second:
			t.Errorf("as %q: took %v, the deadline is %v", as, took, lockedDeadline)
		}
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	e.Deps.RequestTimeout = 0 // the write below must not race a short deadline
	res := e.do(t, "POST", "/"+Namespace+"/venues", map[string]any{"venue": "After the lock"}, models.RoleAdministrator)
	if res.Status != 201 {
		t.Errorf("after the lock: %d %.300s", res.Status, res.Body)
	}
}
