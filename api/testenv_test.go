package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// testEnv is a real API server on a real database, with one user per role
// (login = role name) and an application password each.
type testEnv struct {
	DB    *models.DB
	App   *fiber.App
	Deps  *Deps
	Users map[models.Role]*models.User

	passwords map[models.Role]string
}

// newTestApp is the API on a fiber app configured as main configures the
// real one (cmd/kalends tests the assembled app, admin and middleware
// included).
func newTestApp(d *Deps, routes []Route) *fiber.App {
	app := fiber.New(fiber.Config{
		BodyLimit: BodyLimit, ReadBufferSize: ReadBufferSize, Immutable: true,
		DisableStartupMessage: true, DisablePreParseMultipartForm: true,
		ErrorHandler: ErrorHandler(d),
	})
	mount(app, d, routes)
	RejectUnknownMethods(app, d)
	return app
}

// eachEnv runs fn on a fresh test environment per database dialect.
func eachEnv(t *testing.T, fn func(t *testing.T, e *testEnv)) {
	t.Helper()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		fn(t, newTestEnv(t, db))
	})
}

// newTestEnv builds the real app (NewServer) on db.
func newTestEnv(t *testing.T, db *models.DB) *testEnv {
	t.Helper()
	return newTestEnvWithRoutes(t, db, nil)
}

// newTestEnvWithRoutes is newTestEnv with a synthetic route table (nil:
// the real one).
func newTestEnvWithRoutes(t testing.TB, db *models.DB, routes []Route) *testEnv {
	t.Helper()
	b, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := &models.Site{
		BaseURL:          "http://example.test",
		MaxPerPage:       500,
		Location:         time.UTC,
		DefaultLanguage:  "en",
		CurrencySymbol:   "$",
		CurrencyPosition: "prefix",
		CurrencyCode:     "USD",
	}
	db.UseSite(site)
	// Lists come from the parts cache, which reads the generation at every
	// request: every test of the package checks its answers through it
	// (TestPartsCacheBodies compares them with fresh ones).
	d := &Deps{DB: db, I18n: b, Site: site, Logger: slog.New(slog.DiscardHandler), Parts: NewPartCache(cachegen.New(db, time.Nanosecond), 8<<20)}
	e := &testEnv{DB: db, Deps: d, Users: map[models.Role]*models.User{}, passwords: map[models.Role]string{}}
	if routes == nil {
		routes = Routes()
	}
	e.App = newTestApp(d, routes)
	ctx := context.Background()
	for _, role := range models.Roles {
		u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: string(role), Password: "password-" + string(role),
			Email: string(role) + "@example.test", DisplayName: string(role), Role: role})
		if err != nil {
			t.Fatalf("create user %s: %v", role, err)
		}
		pw, _, err := db.CreateAppPassword(ctx, u.ID, "tests")
		if err != nil {
			t.Fatalf("create app password %s: %v", role, err)
		}
		e.Users[role] = u
		e.passwords[role] = pw
	}
	return e
}

// testResp is a response read whole.
type testResp struct {
	Status int
	Header http.Header
	Body   []byte
}

// do sends a request through the app. as "" is anonymous, else Basic auth
// with the role's application password. body: nil (none), a string (sent
// raw as application/json), url.Values (a form), anything else
// JSON-encoded.
func (e *testEnv) do(t *testing.T, method, target string, body any, as models.Role) *testResp {
	t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ct = strings.NewReader(b), "application/json"
	case url.Values:
		rd, ct = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encode body: %v", err)
		}
		rd, ct = bytes.NewReader(j), "application/json"
	}
	req := httptest.NewRequest(method, target, rd)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if as != "" {
		pw, ok := e.passwords[as]
		if !ok {
			t.Fatalf("no user with role %q", as)
		}
		req.SetBasicAuth(string(as), pw)
	}
	return e.send(t, req)
}

// send runs a prepared request through the app.
func (e *testEnv) send(t *testing.T, req *http.Request) *testResp {
	t.Helper()
	res, err := e.App.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return &testResp{Status: res.StatusCode, Header: res.Header, Body: b}
}

// JSON decodes the body (numbers as float64).
func (r *testResp) JSON(t *testing.T) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not JSON (%v): %.300s", err, r.Body)
	}
	return v
}

// Map decodes the body as a JSON object.
func (r *testResp) Map(t *testing.T) map[string]any {
	t.Helper()
	m, ok := r.JSON(t).(map[string]any)
	if !ok {
		t.Fatalf("body is not a JSON object: %.300s", r.Body)
	}
	return m
}

// Keys returns the top-level keys of the body object in wire order.
func (r *testResp) Keys(t *testing.T) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("body is not a JSON object: %.300s", r.Body)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("read key: %v", err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("read value: %v", err)
		}
	}
	return keys
}

// Code returns the error code of a WordPress error body ("" if none).
func (r *testResp) Code(t *testing.T) string {
	t.Helper()
	s, _ := r.Map(t)["code"].(string)
	return s
}
