package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// embedOrigin is the origin the tests let frame the embeds.
const embedOrigin = "http://127.0.0.1:4321"

// identityApp is testApp with --embed-origins and the response cache on
// (change may alter the configuration further).
func identityApp(t *testing.T, db *models.DB, change func(*Config)) *fiber.App {
	t.Helper()
	cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500,
		EmbedOrigins: []string{embedOrigin}, CacheSize: 8 << 20, CacheCheck: 50 * time.Millisecond}
	if change != nil {
		change(cfg)
	}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

var embedPath = regexp.MustCompile(`^(/[a-z]{2}(-hans)?)?/embed/`)

// Every GET route of the app, as an administrator and anonymously: the
// embeds (and only they) may be framed, by --embed-origins and with no
// X-Frame-Options; every other answer says X-Frame-Options: DENY, and
// every page frame-ancestors 'none'. /admin/login is one of them, asked
// for as the listed origin's frame would.
func TestOnlyEmbedsMayBeFramed(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := identityApp(t, db, nil)
	w := newWalkSite(t, app, db)
	var urls []string
	for _, r := range app.GetRoutes(true) {
		if r.Method != fiber.MethodGet {
			continue
		}
		us, ok := w.urls(r.Path)
		if !ok {
			t.Errorf("GET %s: no URLs for this route in walkSite.urls", r.Path)
		}
		urls = append(urls, us...)
	}
	urls = append(urls, "/admin/login", "/ja/embed/events/?view=month", "/no/such/page")
	embeds := 0
	for _, u := range urls {
		for _, who := range []string{"administrator", ""} {
			req := httptest.NewRequest(http.MethodGet, u, nil)
			req.Header.Set("Sec-Fetch-Dest", "iframe")
			req.Header.Set(fiber.HeaderReferer, embedOrigin+"/page.html")
			if who != "" {
				for k, v := range w.cookies {
					req.AddCookie(&http.Cookie{Name: k, Value: v})
				}
			}
			res, body := do(t, app, req)
			csp, xfo := res.Header.Get(fiber.HeaderContentSecurityPolicy), res.Header.Get(fiber.HeaderXFrameOptions)
			if embedPath.MatchString(u) && res.StatusCode == http.StatusOK {
				embeds++
				// Framed from the listed origin, and showing external
				// images as the public pages do.
				if !strings.Contains(csp, "frame-ancestors "+embedOrigin) || !strings.Contains(csp, "img-src 'self' data: https:") || xfo != "" {
					t.Errorf("embed %s (%q): CSP %q, X-Frame-Options %q", u, who, csp, xfo)
				}
				if strings.Contains(body, `method="post"`) || strings.Contains(body, "site-header") ||
					strings.Contains(body, "preview-banner") {
					t.Errorf("embed %s (%q) holds a posting form or the site header", u, who)
				}
				continue
			}
			if xfo != "DENY" {
				t.Errorf("GET %s (%q): %d with X-Frame-Options %q", u, who, res.StatusCode, xfo)
			}
			html := strings.HasPrefix(res.Header.Get(fiber.HeaderContentType), "text/html")
			if (html || csp != "") && !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("GET %s (%q): %d with CSP %q", u, who, res.StatusCode, csp)
			}
		}
	}
	if embeds < 8 {
		t.Errorf("only %d embed answers were 200", embeds)
	}
	t.Logf("%d URLs walked twice, %d embed answers", len(urls), embeds)
}

// /oembed: the rich type for our events and views, sizes bounded by
// maxwidth and maxheight; 404 for another host's address, one of ours
// that is neither, a draft; 501 for XML; and with no --embed-origins, 404
// for the embeds and oEmbed alike.
func TestOEmbed(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := identityApp(t, db, nil)
	w := newWalkSite(t, app, db)
	ask := func(target string, extra string) (int, string) {
		res, body := do(t, app, httptest.NewRequest(http.MethodGet, "/oembed?url="+url.QueryEscape(target)+extra, nil))
		return res.StatusCode, body
	}
	event := "http://example.test/ja/event/" + w.event.slug + "/"
	status, body := ask(event, "&format=json&maxwidth=400&maxheight=300")
	var o struct {
		Type, HTML, Title, ProviderName string `json:"-"`
		Width, Height                   int
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(body), &raw); err != nil || status != http.StatusOK {
		t.Fatalf("oEmbed of %s: %d %s", event, status, body)
	}
	o.Type, o.HTML, o.Title = raw["type"].(string), raw["html"].(string), raw["title"].(string)
	o.Width, o.Height = int(raw["width"].(float64)), int(raw["height"].(float64))
	if o.Type != "rich" || o.Width != 400 || o.Height != 300 || o.Title != "春の音楽祭" ||
		!strings.HasPrefix(o.HTML, `<iframe src="http://example.test/ja/embed/event/`) || strings.Count(o.HTML, "<") != 2 ||
		strings.Contains(strings.ToLower(o.HTML), "script") {
		t.Errorf("oEmbed answer %s", body)
	}
	if status, body := ask("http://example.test/events/?view=month&categories="+w.category.slug, ""); status != http.StatusOK ||
		!strings.Contains(body, `/embed/events/month/?categories=`) {
		t.Errorf("oEmbed of the month: %d %s", status, body)
	}
	for _, c := range []struct {
		target, extra string
		want          int
	}{
		{"http://evil.example/event/" + w.event.slug + "/", "", http.StatusNotFound},
		{"https://example.test/event/" + w.event.slug + "/", "", http.StatusNotFound},
		{"http://example.test:8080/event/" + w.event.slug + "/", "", http.StatusNotFound},
		{"http://example.test/venue/" + w.venue.slug + "/", "", http.StatusNotFound},
		{"http://example.test/event/" + w.draft.slug + "/", "", http.StatusNotFound},
		{"/event/" + w.event.slug + "/", "", http.StatusNotFound},
		{event, "&format=xml", http.StatusNotImplemented},
	} {
		if status, body := ask(c.target, c.extra); status != c.want {
			t.Errorf("oEmbed of %s%s: %d, want %d: %.200s", c.target, c.extra, status, c.want, body)
		}
	}
	if res, _ := do(t, app, httptest.NewRequest(http.MethodGet, "/event/"+w.event.slug+"/", nil)); res.StatusCode != http.StatusOK {
		t.Fatal(res.Status)
	} else if _, page := do(t, app, httptest.NewRequest(http.MethodGet, "/event/"+w.event.slug+"/", nil)); !strings.Contains(page, `type="application/json+oembed"`) {
		t.Error("the event page has no oEmbed discovery link")
	}
	off := identityApp(t, db, func(c *Config) { c.EmbedOrigins = nil })
	for _, u := range []string{"/embed.js", "/embed/events/", "/ja/embed/event/" + w.event.slug + "/", "/oembed?url=" + url.QueryEscape(event)} {
		if res, _ := do(t, off, httptest.NewRequest(http.MethodGet, u, nil)); res.StatusCode != http.StatusNotFound {
			t.Errorf("without --embed-origins, GET %s: %d", u, res.StatusCode)
		}
	}
}

// A name saved in Japanese on one instance: that instance's /ja/ pages,
// feed and admin header say it at once; another instance on the same
// database, whose cache held the old pages, says it within --cache-check.
func TestSiteNameReachesEveryInstance(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		one := identityApp(t, db, nil)
		two := identityApp(t, db, nil)
		w := newWalkSite(t, one, db)
		get := func(app *fiber.App, path string) string {
			_, body := do(t, app, httptest.NewRequest(http.MethodGet, path, nil))
			return body
		}
		if b := get(two, "/ja/events/"); strings.Contains(b, "川辺のカレンダー") { // cached now
			t.Fatal("the name is there before it is saved")
		}
		admin, err := db.GetUserByLogin(context.Background(), "root")
		if err != nil {
			t.Fatal(err)
		}
		in := models.SettingsInput{Names: map[string]string{"ja": "川辺のカレンダー", "en": "Riverside"}}
		if _, err := db.SaveSettings(context.Background(), admin, in, []string{"en", "ja", "ko", "zh-Hans"}); err != nil {
			t.Fatal(err)
		}
		title := regexp.MustCompile(`<title>[^<]*· 川辺のカレンダー</title>`)
		// A condition with a deadline, not a timing: the page is rendered
		// on each try, which takes seconds on a busy MariaDB (a 2 s
		// deadline failed so in a full run). The time is logged; the
		// cluster test measures it between real instances.
		saved := time.Now()
		modelstest.WaitFor(t, 30*time.Second, func() error {
			if !title.MatchString(get(two, "/ja/events/")) {
				return errors.New("the other instance still shows the old name")
			}
			return nil
		})
		t.Logf("the other instance showed the new name %s after the save (--cache-check 50ms)", time.Since(saved).Round(time.Millisecond))
		if b := get(one, "/ja/events.ics"); !strings.Contains(b, "X-WR-CALNAME:川辺のカレンダー") {
			t.Errorf("feed: %.400s", b)
		}
		req := httptest.NewRequest(http.MethodGet, "/admin/?lang=ja", nil)
		for k, v := range w.cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		if _, b := do(t, one, req); !strings.Contains(b, `data-testid="admin-site-name">川辺のカレンダー<`) {
			t.Errorf("admin page without the name: %.2000s", b)
		}
		if b := get(one, "/ko/events/"); !strings.Contains(b, "· Riverside</title>") {
			t.Error("Korean pages do not fall back to the default language's name")
		}
	})
}
