package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The assembled app: the API and the admin side by side on one fiber app,
// with the shared middleware and the error handler that sends each path to
// its surface. These tests go through newApp, the function serve uses.

// testApp is newApp on a fresh database of dialect d, logging into log.
func testApp(t *testing.T, db *models.DB, log io.Writer) *fiber.App {
	t.Helper()
	cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.NewJSONHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// do sends a request through app and reads the answer whole.
func do(t *testing.T, app *fiber.App, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, body, err := send(app, req)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// send is do for a goroutine other than the test's: it returns the error.
func send(app *fiber.App, req *http.Request) (*http.Response, string, error) {
	res, err := app.Test(req, -1)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	return res, string(b), err
}

func TestHealthzFollowsTheDatabase(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		res, body := do(t, app, httptest.NewRequest("GET", "/healthz", nil))
		if res.StatusCode != 200 || body != `{"status":"ok"}` || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Errorf("healthz: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		res, body = do(t, app, httptest.NewRequest("GET", "/healthz", nil))
		if res.StatusCode != 503 || body != `{"status":"unavailable"}` {
			t.Errorf("healthz with a closed database: %d %s", res.StatusCode, body)
		}
	})
}

// Each surface renders its own errors: JSON in the WordPress shape under
// the API (with or without a language prefix, whatever the method), an
// HTML page elsewhere; neither leaks internals.
func TestErrorsGoToTheSurfaceThatOwnsThePath(t *testing.T) {
	t.Parallel()
	app := testApp(t, modelstest.Open(t, models.SQLite), io.Discard)
	for _, c := range []struct {
		method, path, wantType, wantCode, lang string
		status                                 int
	}{
		{"GET", "/nowhere", "text/html", "", "en", 404},
		{"GET", "/nowhere/deeper", "text/html", "", "en", 404},
		{"GET", "/cal/events/v1/nowhere", "application/json", "rest_no_route", "en", 404},
		{"GET", "/ja/cal/events/v1/nowhere", "application/json", "rest_no_route", "ja", 404},
		{"BREW", "/cal/events/v1/events", "application/json", "rest_no_route", "en", 404},
		{"DELETE", "/cal/events/v1/events/7", "application/json", "rest_forbidden", "en", 401},
	} {
		res, body := do(t, app, httptest.NewRequest(c.method, c.path, nil))
		if res.StatusCode != c.status || !strings.HasPrefix(res.Header.Get("Content-Type"), c.wantType) {
			t.Errorf("%s %s: %d %s", c.method, c.path, res.StatusCode, res.Header.Get("Content-Type"))
			continue
		}
		if c.wantCode == "" {
			if !strings.Contains(body, `lang="`+c.lang+`"`) || strings.Contains(body, "Cannot GET") {
				t.Errorf("%s %s: not the admin's error page: %.300s", c.method, c.path, body)
			}
			continue
		}
		var m struct {
			Code string `json:"code"`
			Data struct {
				Status int `json:"status"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil || m.Code != c.wantCode || m.Data.Status != c.status ||
			res.Header.Get("Content-Language") != c.lang {
			t.Errorf("%s %s: %s %q", c.method, c.path, body, res.Header.Get("Content-Language"))
		}
	}
}

// The shared middleware runs for both surfaces: security headers and a
// request id on every response.
func TestSharedMiddlewareOnBothSurfaces(t *testing.T) {
	t.Parallel()
	app := testApp(t, modelstest.Open(t, models.SQLite), io.Discard)
	for _, path := range []string{"/admin/", "/cal/events/v1/", "/cal/events/v1/nowhere", "/nowhere", "/healthz"} {
		res, _ := do(t, app, httptest.NewRequest("GET", path, nil))
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
			"Referrer-Policy": "same-origin"} {
			if got := res.Header.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", path, k, got, v)
			}
		}
		if id := res.Header.Get("X-Request-Id"); len(id) != 16 {
			t.Errorf("%s: request id %q", path, id)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAccessLogRequestIDAndPanics(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	app := testApp(t, modelstest.Open(t, models.SQLite), &log)
	// A handler that panics, behind the shared middleware like every route.
	app.Get("/boom", func(*fiber.Ctx) error { panic("secret panic detail") })

	r := httptest.NewRequest("GET", "/cal/events/v1/nope", nil)
	r.Header.Set("X-Request-Id", "abc-123")
	res, _ := do(t, app, r)
	if res.Header.Get("X-Request-Id") != "abc-123" {
		t.Errorf("request id not echoed: %q", res.Header.Get("X-Request-Id"))
	}
	r = httptest.NewRequest("GET", "/boom", nil)
	r.Header.Set("X-Request-Id", "bad id\nwith newline")
	res, body := do(t, app, r)
	id := res.Header.Get("X-Request-Id")
	if id == "" || strings.ContainsAny(id, " \n") {
		t.Errorf("unsafe request id kept: %q", id)
	}
	if res.StatusCode != 500 || strings.Contains(body, "secret") {
		t.Errorf("panic: %d %.300s", res.StatusCode, body)
	}
	var access []map[string]any
	panicLogged := false
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		switch m["msg"] {
		case "http request":
			access = append(access, m)
		case "http: panic":
			panicLogged = strings.Contains(fmt.Sprint(m["panic"]), "secret panic detail") && m["request_id"] == id
		}
	}
	if len(access) != 2 {
		t.Fatalf("%d access lines: %s", len(access), log.String())
	}
	if a := access[0]; a["method"] != "GET" || a["path"] != "/cal/events/v1/nope" || a["status"] != float64(404) ||
		a["request_id"] != "abc-123" || a["duration"] == nil {
		t.Errorf("access line %v", a)
	}
	if access[1]["status"] != float64(500) || access[1]["request_id"] != id {
		t.Errorf("panic access line %v", access[1])
	}
	if !panicLogged {
		t.Errorf("panic cause not logged with its request id: %s", log.String())
	}
}

// listen serves app on a loopback port until the test ends.
func listen(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return ln.Addr().String()
}

// raw sends a raw HTTP/1.1 request and reads the answer.
func raw(t *testing.T, addr, request string) (*http.Response, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	defer func() { _ = res.Body.Close() }()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// The body limit is the app's: 413 on both surfaces, in each one's shape.
func TestBodyLimitOnBothSurfaces(t *testing.T) {
	t.Parallel()
	addr := listen(t, testApp(t, modelstest.Open(t, models.SQLite), io.Discard))
	for _, c := range []struct{ path, code string }{
		{"/cal/events/v1/events", `"code":"rest_payload_too_large"`},
		{"/ja/cal/events/v1/venues", `"code":"rest_payload_too_large"`},
		{"/admin/x", "<html"},
	} {
		// A body over the limit, sent whole before reading (as curl, Go and
		// Python send it): read, then refused.
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+c.path, strings.NewReader(strings.Repeat("x", 2<<20)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v (the client saw no answer)", c.path, err)
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != 413 || !strings.Contains(string(b), c.code) {
			t.Errorf("%s: %d %.200s", c.path, res.StatusCode, b)
		}
		// Over the drain bound, refused on the announced length alone.
		head := "POST " + c.path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa((&Config{}).readLimit()+1) + "\r\n\r\n"
		res, body := raw(t, addr, head)
		if res.StatusCode != 413 || !strings.Contains(body, c.code) {
			t.Errorf("%s over the drain bound: %d %.200s", c.path, res.StatusCode, body)
		}
	}
}

// Requests fasthttp cannot parse never reach a route; they still get the
// WordPress error shape (API clients read it), not the admin's HTML page
// or plain text.
func TestUnparseableRequestsGetAJSONError(t *testing.T) {
	t.Parallel()
	addr := listen(t, testApp(t, modelstest.Open(t, models.SQLite), io.Discard))
	for name, req := range map[string]string{
		"request line over the buffer": "GET /cal/events/v1/events?x=" + strings.Repeat("a", 40<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"negative content length":      "POST /cal/events/v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
	} {
		res, body := raw(t, addr, req)
		var m struct {
			Code string `json:"code"`
			Data struct {
				Status int `json:"status"`
			} `json:"data"`
		}
		if res.StatusCode < 400 || res.StatusCode >= 500 || json.Unmarshal([]byte(body), &m) != nil || m.Code == "" || m.Data.Status != res.StatusCode {
			t.Errorf("%s: %d %s %.200s", name, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
}

// A list argument at its 1,000-item limit fits the app's read buffer.
func TestLongListArgumentFitsTheReadBuffer(t *testing.T) {
	t.Parallel()
	app := testApp(t, modelstest.Open(t, models.SQLite), io.Discard)
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = strconv.Itoa(1_000_000 + i)
	}
	addr := listen(t, app)
	res, body := raw(t, addr, "GET /cal/events/v1/events?include="+strings.Join(ids, ",")+" HTTP/1.1\r\nHost: x\r\n\r\n")
	if res.StatusCode != 200 {
		t.Errorf("include at the limit: %d %.200s", res.StatusCode, body)
	}
}
