package browsertest

import (
	"bytes"
	"context"
	"encoding/json"

	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// Server is a running `kalends serve` on a fresh SQLite file, with the
// same file open through models for the test's own writes.
type Server struct {
	URL string     // http://127.0.0.1:PORT
	DB  *models.DB // the server's database, for setting up data

	log      *lockedBuffer
	mu       sync.Mutex
	users    int
	apiPassw map[int64]string // application passwords by user id
}

// Account is a user made by Server.User, with its account password.
type Account struct {
	ID       int64
	Login    string
	Password string
	Role     models.Role
	User     *models.User
}

// StartServer runs the binary Main built on a free
// 127.0.0.1 port and a new SQLite file (a copy of the migrated
// template: serve's migrations find nothing to do), with extra serve options; it
// returns once /healthz answers. The server stops when the test ends, and
// its log is printed when the test failed.
func StartServer(t testing.TB, args ...string) *Server {
	t.Helper()
	bin := binary(t)
	var lc net.ListenConfig
	ln, err := lc.Listen(suite.ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	dsn := modelstest.MigratedDSN(t, models.SQLite)
	s := &Server{URL: "http://" + addr, log: &lockedBuffer{}, apiPassw: map[int64]string{}}
	ctx, cancel := context.WithCancel(suite.ctx)
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", addr, "--db", dsn}, args...)...) //nolint:gosec // G204: the binary Main built, with test arguments.
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("kalends serve log:\n%s", s.log.String())
		}
	})
	modelstest.WaitFor(t, 30*time.Second, func() error {
		select {
		case <-done:
			return fmt.Errorf("kalends serve exited:\n%s", s.log.String())
		default:
		}
		hctx, hcancel := context.WithTimeout(suite.ctx, 2*time.Second)
		defer hcancel()
		req, err := http.NewRequestWithContext(hctx, http.MethodGet, s.URL+"/healthz", nil)
		if err != nil {
			return err
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("healthz: %d", res.StatusCode)
		}
		return nil
	})
	// serve migrated the file before listening; open it for the test.
	octx, ocancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ocancel()
	db, err := models.Open(octx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.UseSite(models.DefaultSite())
	t.Cleanup(func() { _ = db.Close() })
	s.DB = db
	return s
}

// User creates a user of role through models (models.Console acting): login
// <role><n>, password derived from the login, display name "Tester <n>".
func (s *Server) User(t testing.TB, role models.Role) Account {
	t.Helper()
	s.mu.Lock()
	s.users++
	n := s.users
	s.mu.Unlock()
	login := fmt.Sprintf("%s%d", role, n)
	password := "pw-" + login + "-long-enough"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, err := s.DB.CreateUser(ctx, models.Console, models.NewUser{
		Login: login, Password: password, Role: role,
		Email: login + "@example.test", DisplayName: "Tester " + fmt.Sprint(n),
	})
	if err != nil {
		t.Fatalf("create %s user: %v", role, err)
	}
	return Account{ID: u.ID, Login: login, Password: password, Role: role, User: u}
}

// AppPassword returns an application password of a (made on first use).
func (s *Server) AppPassword(t testing.TB, a Account) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.apiPassw[a.ID]; ok {
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, _, err := s.DB.CreateAppPassword(ctx, a.ID, "browser tests")
	if err != nil {
		t.Fatal(err)
	}
	s.apiPassw[a.ID] = p
	return p
}

// API sends a JSON request to the API as a (HTTP Basic with an application
// password; no auth when a.ID is 0) and returns the status and the body.
// path is below the API namespace, e.g. "/events".
func (s *Server) API(t testing.TB, a Account, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.URL+"/cal/events/v1"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.ID != 0 {
		req.SetBasicAuth(a.Login, s.AppPassword(t, a))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

// CreateEvent creates an event through the API as a and returns its id.
// fields are the API's arguments; start_date and end_date default to
// tomorrow 10:00 to 11:00 UTC and status to publish.
func (s *Server) CreateEvent(t testing.TB, a Account, fields map[string]any) int64 {
	t.Helper()
	f := map[string]any{}
	day := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	f["start_date"], f["end_date"], f["status"] = day+" 10:00:00", day+" 11:00:00", "publish"
	for k, v := range fields {
		f[k] = v
	}
	status, body := s.API(t, a, http.MethodPost, "/events", f)
	if status != http.StatusCreated && status != http.StatusOK {
		t.Fatalf("create event: %d %s", status, body)
	}
	var ev struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == 0 {
		t.Fatalf("create event: %v %s", err, body)
	}
	return ev.ID
}

// Log is what the server wrote so far.
func (s *Server) Log() string { return s.log.String() }

// cleanEnv is the environment without KALENDS_ variables, so a developer's
// settings cannot reach the server under test.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KALENDS_") {
			env = append(env, kv)
		}
	}
	return env
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
