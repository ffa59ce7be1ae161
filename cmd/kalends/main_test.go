package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// binary is the kalends binary built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kalends-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "kalends")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=test-1.2.3 -X main.commit=0123abcd -X main.date=2026-12-17T00:00:00Z", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build kalends:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// cleanEnv is the test process environment without KALENDS_ variables, so
// a developer's settings cannot leak into the binary under test.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envPrefix) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// result is what a finished command left.
type result struct {
	code           int
	stdout, stderr string
}

// kalends runs the binary to completion (bounded to 60 s).
func kalends(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = cleanEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run kalends %v: %v", args, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// lockedBuffer collects a running process's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// server is a running `kalends serve`.
type server struct {
	cmd    *exec.Cmd
	addr   string // host:port
	url    string // http://host:port
	stderr *lockedBuffer
	done   chan struct{}
	err    error // from Wait, valid after done
}

// freeAddr returns a 127.0.0.1 address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// startServer runs `kalends serve` on a free port and waits (up to 30 s) for
// /healthz to answer. The process is killed when the test ends if still up.
func startServer(t *testing.T, db string, args ...string) *server {
	t.Helper()
	addr := freeAddr(t)
	s := &server{addr: addr, url: "http://" + addr, stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(binary, append([]string{"serve", "--addr", addr, "--db", db}, args...)...)
	s.cmd.Env = cleanEnv()
	s.cmd.Stdout, s.cmd.Stderr = s.stderr, s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			_ = s.cmd.Process.Kill()
			<-s.done
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.stderr.String())
		}
	})
	modelstest.WaitFor(t, 30*time.Second, func() error {
		select {
		case <-s.done:
			t.Fatalf("server exited during start-up: %v\n%s", s.err, s.stderr.String())
		default:
		}
		resp, err := http.Get(s.url + "/healthz")
		if err != nil {
			return fmt.Errorf("GET /healthz: %w\n%s", err, s.stderr.String())
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /healthz = %d\n%s", resp.StatusCode, s.stderr.String())
		}
		return nil
	})
	return s
}

// wait waits (bounded) for the server to exit and returns its exit code.
func (s *server) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(limit):
		t.Fatalf("server still running %v after the signal", limit)
	}
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		return ee.ExitCode()
	}
	if s.err != nil {
		t.Fatalf("wait: %v", s.err)
	}
	return 0
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestServeOnAFreshSQLiteFile(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "fresh", "kalends.db")
	s := startServer(t, "sqlite:"+db)

	resp, body := get(t, s.url+"/healthz")
	var health map[string]any
	if err := json.Unmarshal([]byte(body), &health); err != nil || resp.StatusCode != 200 || health["status"] != "ok" {
		t.Errorf("/healthz = %d %s", resp.StatusCode, body)
	}

	resp, body = get(t, s.url+"/admin/", "Accept-Language", "ko-KR,ko;q=0.9")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("/admin/ = %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(body, `<html lang="ko">`) || !regexp.MustCompile(`/assets/vendor/htmx\.min\.[0-9a-f]{12}\.js`).MatchString(body) {
		t.Errorf("/admin/ page lacks the Korean layout or the htmx script:\n%s", body)
	}

	resp, body = get(t, s.url+"/assets/vendor/htmx.min.js")
	if resp.StatusCode != 200 || !strings.Contains(body, "htmx") {
		t.Errorf("htmx asset = %d (%d bytes)", resp.StatusCode, len(body))
	}

	resp, body = get(t, s.url+"/no/such/page")
	if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || strings.Contains(body, "Cannot GET") {
		t.Errorf("unknown page = %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	if _, err := os.Stat(db); err != nil {
		t.Errorf("database file not created: %v", err)
	}
	if log := s.stderr.String(); !strings.Contains(log, "login=admin password=") {
		t.Errorf("no generated administrator password in the log:\n%s", log)
	}
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := s.wait(t, 15*time.Second); code != 0 {
		t.Errorf("exit code after SIGINT = %d, want 0", code)
	}

	// A second start finds users and logs no new password.
	s2 := startServer(t, "sqlite:"+db)
	_ = s2.cmd.Process.Signal(syscall.SIGTERM)
	if code := s2.wait(t, 15*time.Second); code != 0 || strings.Contains(s2.stderr.String(), "login=admin password=") {
		t.Errorf("second start: exit %d, log:\n%s", code, s2.stderr.String())
	}
}

func TestUserAndAppPasswordCommandsAgainstARunningServer(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "kalends.db")
	s := startServer(t, db, "--admin-login", "boss", "--admin-password", "boss-password-1")

	r := kalends(t, "user", "create", "--db", db, "--login", "Ann", "--password", "ann-account-pw", "--role", "editor",
		"--email", "ann@example.org", "--display-name", "Ann Example")
	if r.code != 0 || strings.TrimSpace(r.stdout) == "" || strings.Contains(strings.TrimSpace(r.stdout), "\n") {
		t.Fatalf("user create: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	r2 := kalends(t, "user", "create", "--db", db, "--login", "ann", "--password", "another-pw", "--role", "author")
	if r2.code != 1 || !strings.Contains(r2.stderr, `"ann" already exists`) {
		t.Errorf("duplicate user create: exit %d, stderr %s", r2.code, r2.stderr)
	}
	r = kalends(t, "app-password", "create", "--db", db, "--login", "ann", "--name", "test client")
	password := strings.TrimSpace(r.stdout)
	if r.code != 0 || password == "" || strings.ContainsAny(password, "\n=") {
		t.Fatalf("app-password create: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if r := kalends(t, "app-password", "create", "--db", db, "--login", "nobody"); r.code != 1 || !strings.Contains(r.stderr, `no user has login "nobody"`) {
		t.Errorf("app-password for an unknown login: exit %d, stderr %s", r.code, r.stderr)
	}

	// The API authenticates with the application password (a venue can be
	// created), refuses anonymous writes, and refuses the account password.
	venues := s.url + "/cal/events/v1/venues"
	post := func(auth string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, venues, strings.NewReader(`{"venue":"Main hall"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", "Basic "+auth)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(basic("ann", password)); code != http.StatusCreated {
		t.Errorf("POST venues with the application password = %d %s, want 201", code, body)
	}
	if code, body := post(basic("ANN", password)); code != http.StatusCreated {
		t.Errorf("logins are case-insensitive, yet POST venues as ANN = %d %s", code, body)
	}
	if code, body := post(""); code != http.StatusUnauthorized || !strings.Contains(body, `"rest_forbidden"`) {
		t.Errorf("anonymous POST venues = %d %s, want 401 rest_forbidden", code, body)
	}
	if code, body := post(basic("ann", "ann-account-pw")); code != http.StatusUnauthorized || !strings.Contains(body, `"incorrect_password"`) {
		t.Errorf("POST venues with the account password = %d %s, want 401 incorrect_password", code, body)
	}
	if resp, body := get(t, s.url+"/cal/events/v1/", "Authorization", "Basic "+basic("ann", password)); resp.StatusCode != http.StatusOK {
		t.Errorf("API index with the application password = %d %s", resp.StatusCode, body)
	}
}

func basic(login, password string) string {
	req, _ := http.NewRequest(http.MethodGet, "http://x/", nil)
	req.SetBasicAuth(login, password)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

// TestSIGTERMLetsASlowRequestFinish starts a request, signals the server
// while the server is reading its body, and checks that the server stops
// accepting connections but stays up, that the request still gets its
// whole response once the body is complete, and that the process exits 0.
func TestSIGTERMLetsASlowRequestFinish(t *testing.T) {
	t.Parallel()
	s := startServer(t, "sqlite:"+filepath.Join(t.TempDir(), "kalends.db"))
	conn, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	body := `{"venue":"A slow upload","address":"1 Long Road","city":"Oslo","country":"Norway"}`
	// Expect: 100-continue makes the server say when it has read the head
	// and waits for the body: from then on the request is in flight.
	head := fmt.Sprintf("POST /cal/events/v1/venues HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", s.addr, len(body))
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	cont, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read the interim response: %v", err)
	}
	_ = cont.Body.Close()
	if cont.StatusCode != http.StatusContinue {
		t.Fatalf("server did not ask for the body: %s", cont.Status)
	}
	if _, err := io.WriteString(conn, body[:10]); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	modelstest.WaitFor(t, 10*time.Second, func() error {
		if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
			_ = c.Close()
			return errors.New("server still accepts connections after SIGTERM")
		}
		return nil // the listener is closed
	})
	select {
	case <-s.done:
		t.Fatalf("server exited with a request in flight: %v", s.err)
	default:
	}
	if _, err := io.WriteString(conn, body[10:]); err != nil {
		t.Fatalf("write the rest of the body: %v", err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	got, err := io.ReadAll(resp.Body)
	if err != nil || int64(len(got)) != resp.ContentLength || !json.Valid(got) {
		t.Errorf("response body incomplete: %d of %d bytes, err %v: %s", len(got), resp.ContentLength, err, got)
	}
	if resp.StatusCode != http.StatusUnauthorized { // anonymous write: read in full, validated, refused
		t.Errorf("slow request answered %d, want 401: %s", resp.StatusCode, got)
	}
	if code := s.wait(t, 15*time.Second); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

func TestCommandLineErrorsAreClearAndNonZero(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Close() })
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"address in use", []string{"serve", "--db", "sqlite:" + filepath.Join(dir, "busy.db"), "--addr", busy.Addr().String()}, 1, "address already in use"},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined: -nope"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unsupported database scheme", []string{"migrate", "--db", "postgres://localhost/x"}, 2, "--db must be sqlite:PATH or mysql://"},
		{"bad time zone", []string{"migrate", "--timezone", "Mars/Olympus_Mons"}, 2, "--timezone"},
		{"SQLite file that cannot be created", []string{"migrate", "--db", "sqlite:" + filepath.Join(blocker, "kalends.db")}, 1, "open sqlite"},
		{"MySQL server that does not answer", []string{"migrate", "--db", "mysql://kalends@127.0.0.1:1/kalends"}, 1, "connection refused"},
		{"user create with a bad role", []string{"user", "create", "--db", "sqlite:" + filepath.Join(dir, "a.db"), "--login", "x", "--password", "long-enough", "--role", "king"}, 2, "--role: Must be one of: subscriber, contributor, author, editor, administrator."},
		{"user create with a short password", []string{"user", "create", "--db", "sqlite:" + filepath.Join(dir, "b.db"), "--login", "x", "--password", "short", "--role", "editor"}, 2, "Run 'kalends user create -h' for usage."},
		{"missing flag", []string{"user", "create", "--login", "x"}, 2, "missing --password, --role"},
		{"help", []string{"-h"}, 0, "KALENDS_DEFAULT_LANGUAGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := kalends(t, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d (want %d), stderr:\n%s\nwant it to contain %q", r.code, tt.code, r.stderr, tt.want)
			}
			if strings.Contains(r.stderr, "panic") {
				t.Errorf("panic:\n%s", r.stderr)
			}
			// Errors speak of the problem, not of the Go packages they
			// passed through (issue 15 item 14).
			for _, prefix := range []string{"models: ", "api: ", "invalid input"} {
				if strings.Contains(r.stderr, prefix) {
					t.Errorf("stderr shows %q:\n%s", prefix, r.stderr)
				}
			}
		})
	}
}

// -h prints the usage once, for the program and for a command.
func TestHelpIsPrintedOnce(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"--help"}, {"user", "create", "-h"}, {"seed", "--help"}} {
		r := kalends(t, args...)
		if n := strings.Count(r.stderr, "Usage:"); r.code != 0 || n != 1 {
			t.Errorf("%v: exit %d, usage printed %d times", args, r.code, n)
		}
	}
}

func TestVersionPrintsTheLinkedVersion(t *testing.T) {
	t.Parallel()
	want := "test-1.2.3\ncommit: 0123abcd\nbuilt: 2026-12-17T00:00:00Z\ngo: " + runtime.Version() + " " +
		runtime.GOOS + "/" + runtime.GOARCH + "\nschema: " + models.SchemaLevel() + "\n"
	if r := kalends(t, "version"); r.code != 0 || r.stdout != want {
		t.Errorf("version: exit %d, stdout %q, want %q", r.code, r.stdout, want)
	}
}

func TestMigrateCreatesTheSchema(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "m.db")
	for i := 0; i < 2; i++ { // the second run finds nothing to do
		if r := kalends(t, "migrate", "--db", db, "--log-format", "json"); r.code != 0 {
			t.Fatalf("migrate run %d: exit %d\n%s", i+1, r.code, r.stderr)
		} else if !json.Valid([]byte(strings.SplitN(r.stderr, "\n", 2)[0])) {
			t.Errorf("--log-format json wrote a non-JSON line: %s", r.stderr)
		}
	}
}

func TestRecountRepairsTermCounts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.db")
	if r := kalends(t, "migrate", "--db", "sqlite:"+path); r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s", r.code, r.stderr)
	}
	ctx := context.Background()
	db, err := models.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	music, err := db.CreateTerm(ctx, models.Console, models.TaxCategory, models.TermInput{Name: ptrOf("Music")}, "en")
	if err == nil {
		_, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrOf("Concert"), StartDate: ptrOf("2027-05-01 10:00"),
			EndDate: ptrOf("2027-05-01 11:00"), Categories: &[]models.TermRef{{ID: music.ID}}, Lang: "en"})
	}
	for _, q := range []string{"UPDATE terms SET event_count = 7", "DELETE FROM event_category_ancestors", "UPDATE event_day_counts SET n = n + 5 WHERE dim = 'e'",
		"UPDATE event_search SET body = 'x' WHERE id = (SELECT MIN(id) FROM event_search)"} {
		if err == nil {
			_, err = db.IDB().NewRaw(q).Exec(ctx)
		}
	}
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}
	stale := "search index not in step: 0 rows missing, 1 stale, 0 extra, 0 events marked to refold; run 'kalends reindex'\n"
	for _, want := range []string{
		"1 term counts repaired\n0 category, tag, venue and organizer links repaired\n1 events refiled under their categories\n1 day and month buckets of the list totals repaired\n" + stale,
		"0 term counts repaired\n0 category, tag, venue and organizer links repaired\n0 events refiled under their categories\n0 day and month buckets of the list totals repaired\n" + stale,
	} {
		if r := kalends(t, "recount", "--db", "sqlite:"+path); r.code != 0 || r.stdout != want {
			t.Fatalf("recount: exit %d, stdout %q (want %q)\n%s", r.code, r.stdout, want, r.stderr)
		}
	}
	if r := kalends(t, "reindex", "--db", "sqlite:"+path); r.code != 0 || !strings.HasPrefix(r.stdout, "search index rebuilt: ") {
		t.Fatalf("reindex: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if r := kalends(t, "recount", "--db", "sqlite:"+path); r.code != 0 || !strings.HasSuffix(r.stdout, "search index in step\n") {
		t.Fatalf("recount after reindex: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestSeedWritesDemoDataOnce(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	r := kalends(t, "seed", "--db", db, "--events", "120", "--seed", "3")
	if r.code != 0 || !strings.Contains(r.stdout, "seeded 120 events") || !strings.Contains(r.stdout, "120/120 events") {
		t.Fatalf("seed: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := kalends(t, "seed", "--db", db, "--events", "10"); r.code != 1 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("seeding again: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r := kalends(t, "seed", "--db", db, "--events", "10", "--force"); r.code != 0 {
		t.Errorf("seeding again with --force: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r := kalends(t, "seed", "--db", db, "--drafts", "2"); r.code != 1 || !strings.Contains(r.stderr, "drafts is a share") {
		t.Errorf("a share above 1: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r := kalends(t, "seed", "--db", db, "--from", "yesterday"); r.code != 1 || !strings.Contains(r.stderr, "--from") {
		t.Errorf("a bad date: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

func TestDebugListenerCountsQueriesOnLoopback(t *testing.T) {
	t.Parallel()
	dbg := freeAddr(t)
	s := startServer(t, "sqlite:"+filepath.Join(t.TempDir(), "d.db"), "--debug-addr", dbg)
	counter := func() float64 {
		t.Helper()
		_, body := get(t, "http://"+dbg+"/debug/vars")
		var v struct {
			Kalends map[string]float64 `json:"kalends"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("/debug/vars: %v\n%s", err, body)
		}
		return v.Kalends["sql_queries"]
	}
	before := counter()
	if resp, body := get(t, s.url+"/cal/events/v1/events"); resp.StatusCode != 200 {
		t.Fatalf("list: %d %s", resp.StatusCode, body)
	}
	if after := counter(); after <= before {
		t.Errorf("sql_queries did not grow with a list: %v then %v", before, after)
	}
	if resp, _ := get(t, "http://"+dbg+"/debug/pprof/"); resp.StatusCode != 200 {
		t.Errorf("/debug/pprof/ = %d", resp.StatusCode)
	}
	if r := kalends(t, "migrate", "--db", "sqlite:"+filepath.Join(t.TempDir(), "x.db"), "--debug-addr", "0.0.0.0:6060"); r.code != 2 ||
		!strings.Contains(r.stderr, "--debug-addr") {
		t.Errorf("a debug listener off loopback: exit %d\n%s", r.code, r.stderr)
	}
}

func TestPublisherPublishesWhatIsDueAndStops(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := modelstest.Open(t, models.SQLite)
	now := time.Date(2027, 5, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	db.UseSite(&models.Site{Location: time.UTC, Clock: clock})
	in := models.EventInput{Title: ptrOf("Scheduled"), StartDate: ptrOf("2027-06-01 10:00"), EndDate: ptrOf("2027-06-01 11:00"), Lang: "en",
		PostInput: models.PostInput{Status: ptrOf(models.StatusFuture), DateUTC: ptrOf("2027-05-01 13:00:00")}}
	e, err := db.CreateEvent(ctx, models.Console, in)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	var logs bytes.Buffer // written by the publisher until stopped
	go func() {
		defer close(stopped)
		runPublisher(runCtx, db, 20*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)))
	}()
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	modelstest.WaitFor(t, 10*time.Second, func() error {
		got, err := db.GetEvent(ctx, models.Console, models.ByID(e.ID), "en")
		if err != nil {
			return err
		}
		if got.Status != models.StatusPublish {
			return fmt.Errorf("status %s", got.Status)
		}
		return nil
	})
	stopWithin(t, stop, stopped, "the publisher")
	// It said once that it took the lease, naming itself as the leases
	// table did (make cluster-test finds the holder's instance by it).
	if n := strings.Count(logs.String(), "took the publisher lease"); n != 1 || !strings.Contains(logs.String(), "holder=") {
		t.Errorf("the publisher logged taking the lease %d times, want once with its holder:\n%s", n, logs.String())
	}
	// Released on the way out: another holder gets the lease at once.
	if ok, err := db.TryLease(ctx, publisherLease, "next", time.Minute); err != nil || !ok {
		t.Errorf("the lease was not released: %v %v", ok, err)
	}
}

// TestSearchMergerMergesAndStops: the server's search merger merges the
// segments the writes left (no write merges them) and stops with its
// context.
func TestSearchMergerMergesAndStops(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := modelstest.Open(t, models.SQLite)
	for i := range 12 {
		in := models.EventInput{Title: ptrOf(fmt.Sprintf("音楽祭 %d Fête", i)), StartDate: ptrOf("2027-06-01 10:00"), EndDate: ptrOf("2027-06-01 11:00"), Lang: "en"}
		if _, err := db.CreateEvent(ctx, models.Console, in); err != nil {
			t.Fatal(err)
		}
	}
	segments := func() (n int) {
		modelstest.QueryRows(t, db, "SELECT count(DISTINCT segid) FROM event_search_fts_idx", func(_ []string, vals []any) { n = int(vals[0].(int64)) })
		return n
	}
	if n := segments(); n < 12 {
		t.Fatalf("%d segments after 12 writes: the writes merged, nothing left to try the merger on", n)
	}
	runCtx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	var logs bytes.Buffer // written by the merger until stopped
	go func() {
		defer close(stopped)
		runSearchMerger(runCtx, db, slog.New(slog.NewTextHandler(&logs, nil)))
	}()
	modelstest.WaitFor(t, 10*time.Second, func() error {
		if n := segments(); n > 3 {
			return fmt.Errorf("%d segments", n)
		}
		return nil
	})
	stopWithin(t, stop, stopped, "the merger")
	if logs.Len() > 0 {
		t.Errorf("the merger logged:\n%s", logs.String())
	}
}

// stopWithin cancels a background loop's context (stop) and waits for it
// to end (stopped closed), failing the test after 10 s.
func stopWithin(t *testing.T, stop context.CancelFunc, stopped <-chan struct{}, who string) {
	t.Helper()
	stop()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not stop with its context", who)
	}
}
