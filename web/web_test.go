package web

import (
	"errors"
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

// newApp builds the admin on a bare fiber app with the web error handler,
// as main does (the API is not needed for these pages).
func newApp(t *testing.T) *fiber.App {
	t.Helper()
	b, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &Deps{I18n: b, Logger: slog.New(slog.DiscardHandler), Site: models.DefaultSite()}
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(d)})
	Mount(app, d)
	app.Get("/admin/boom", func(_ *fiber.Ctx) error {
		return errors.New("secret database detail")
	})
	return app
}

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

func TestAdminHomeIsLocalized(t *testing.T) {
	app := newApp(t)
	tests := []struct {
		name   string
		target string
		header []string
		lang   string // <html lang>
		title  string // in <title>
	}{
		{"site default", "/admin/", nil, "en", "Dashboard"},
		{"browser language", "/admin/", []string{"Accept-Language", "zh-CN,zh;q=0.9"}, "zh-Hans", "仪表盘"},
		{"query wins over the browser", "/admin/?lang=ja", []string{"Accept-Language", "ko"}, "ja", "ダッシュボード"},
		{"cookie remembers", "/admin/", []string{"Cookie", langCookie + "=ko"}, "ko", "대시보드"},
		{"unknown language falls back", "/admin/?lang=fr", []string{"Accept-Language", "fr"}, "en", "Dashboard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, app, tt.target, tt.header...)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != fiber.MIMETextHTMLCharsetUTF8 {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if !strings.Contains(body, `<html lang="`+tt.lang+`">`) || !strings.Contains(body, "<title>"+tt.title) {
				t.Errorf("want lang %s and title %s in:\n%s", tt.lang, tt.title, body)
			}
			if !strings.Contains(body, `src="`+assets.URL("vendor/htmx.min.js")+`"`) {
				t.Errorf("htmx script missing:\n%s", body)
			}
		})
	}
	resp, _ := do(t, app, "/admin/?lang=ko")
	if c := resp.Header.Get("Set-Cookie"); !strings.Contains(c, langCookie+"=ko") {
		t.Errorf("?lang= not remembered: Set-Cookie %q", c)
	}
	resp, _ = do(t, app, "/admin")
	if resp.StatusCode != fiber.StatusMovedPermanently || resp.Header.Get("Location") != "/admin/" {
		t.Errorf("/admin = %d to %q, want a redirect to /admin/", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestErrorPagesAreHTMLWithoutDetail(t *testing.T) {
	app := newApp(t)
	resp, body := do(t, app, "/admin/boom", "Accept-Language", "ja")
	if resp.StatusCode != 500 || resp.Header.Get("Content-Type") != fiber.MIMETextHTMLCharsetUTF8 {
		t.Errorf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(body, "secret") || !strings.Contains(body, `<html lang="ja">`) {
		t.Errorf("500 page leaks or is not localized:\n%s", body)
	}
	resp, body = do(t, app, "/nothing/here")
	if resp.StatusCode != 404 || !strings.Contains(body, "Page not found") || strings.Contains(body, "Cannot GET") {
		t.Errorf("404 page = %d:\n%s", resp.StatusCode, body)
	}
}

func TestAssetsAreCachedByContentHash(t *testing.T) {
	app := newApp(t)
	hash := assets.Hash("vendor/htmx.min.js")
	if len(hash) != 12 {
		t.Fatalf("hash %q", hash)
	}
	resp, body := do(t, app, assets.URL("vendor/htmx.min.js"))
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(body, "htmx") {
		t.Errorf("hashed URL: %d %q %q", resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("Content-Type"))
	}
	resp, _ = do(t, app, "/assets/vendor/htmx.min.js?v=stale")
	if resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("stale hash cached: %q", resp.Header.Get("Cache-Control"))
	}
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
