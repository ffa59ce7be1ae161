package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// newApp mounts the browser pages on a fiber app configured as main
// configures it, without a database (the assets need none).
func newApp(t *testing.T) *fiber.App {
	t.Helper()
	b, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &Deps{I18n: b, Logger: slog.New(slog.DiscardHandler), Site: models.DefaultSite()}
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(d), Immutable: true})
	Mount(app, d)
	return app
}

// do sends a GET for target (with header pairs) through app and returns
// the response and its body.
func do(t *testing.T, app *fiber.App, target string, header ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestAssetsAreCachedByContentHash(t *testing.T) {
	app := newApp(t)
	for _, name := range []string{"vendor/htmx.min.js", "css/admin.css", "js/admin.js"} {
		hash := assets.Hash(name)
		if len(hash) != 12 {
			t.Fatalf("%s: hash %q", name, hash)
		}
		u := assets.URL(name)
		if !strings.Contains(u, "."+hash+".") || strings.Contains(u, "?") {
			t.Errorf("%s: URL %s, want the hash in the file name", name, u)
		}
		resp, _ := do(t, app, u)
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: %d %q", name, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	resp, body := do(t, app, assets.URL("css/admin.css"))
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") || !strings.Contains(body, "prefers-color-scheme") {
		t.Errorf("stylesheet: %q", resp.Header.Get("Content-Type"))
	}
	for _, stale := range []string{"/assets/vendor/htmx.min.js?v=stale", "/assets/vendor/htmx.min.000000000000.js"} {
		resp, _ = do(t, app, stale)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d, cached %q", stale, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	hash := assets.Hash("vendor/htmx.min.js")
	resp, _ = do(t, app, "/assets/vendor/htmx.min.js", "If-None-Match", `"`+hash+`"`)
	if resp.StatusCode != fiber.StatusNotModified {
		t.Errorf("conditional GET = %d, want 304", resp.StatusCode)
	}
	for _, p := range []string{"/assets/../go.mod", "/assets/vendor/../../web/web.go", "/assets/", "/assets/nope.js", "/assets/vendor"} {
		if resp, _ := do(t, app, p); resp.StatusCode != 404 {
			t.Errorf("%s = %d, want 404", p, resp.StatusCode)
		}
	}
}
