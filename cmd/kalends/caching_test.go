package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestSignedInAnswersAreNotStoredAndAnonymousOnesVary (issue 28, smaller
// finding 3: signed-in API answers, drafts in them, carried no
// Cache-Control, and no answer carried Vary): every answer to a request
// with credentials (Basic, the session cookie valid or not, a nonce) is
// "private, no-store", on the API, the admin, public pages and feeds;
// every cacheable anonymous answer keeps its caching and varies on
// Authorization, Cookie and X-WP-Nonce. Assets and media files are the
// same for everyone and keep their long caching.
func TestSignedInAnswersAreNotStoredAndAnonymousOnesVary(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := testApp(t, db, io.Discard)
		ed, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "ed", Password: "password-ed", Role: models.RoleEditor})
		if err != nil {
			t.Fatal(err)
		}
		pw, _, err := db.CreateAppPassword(ctx, ed.ID, "script")
		if err != nil {
			t.Fatal(err)
		}
		s := func(v string) *string { return &v }
		in := models.EventInput{Title: s("春の音楽祭"), StartDate: s("2030-05-01 19:00"), EndDate: s("2030-05-01 21:00"), Lang: "ja"}
		in.Status = s(models.StatusPublish)
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		cookies, _ := signInForTest(t, app, "ed", "password-ed")
		session := cookies[models.SessionCookie]
		_, _, page := func() (int, http.Header, string) {
			req := httptest.NewRequest("GET", "/admin/", nil)
			req.AddCookie(&http.Cookie{Name: models.SessionCookie, Value: session})
			res, body := do(t, app, req)
			return res.StatusCode, res.Header, body
		}()
		nonce := nonceMeta.FindStringSubmatch(page)[1]

		event := "/cal/events/v1/events/" + itoa(e.ID)
		pages := []string{"/cal/events/v1/events", event, "/cal/events/v1/", "/events/", "/event/" + e.Slug + "/",
			"/events.ics", "/sitemap.xml"}
		type creds struct {
			name        string
			auth, nonce string
			session     string
		}
		for _, cr := range []creds{
			{name: "Basic", auth: "Basic " + basic("ed", pw)},
			{name: "cookie and nonce", session: session, nonce: nonce},
			{name: "cookie alone", session: session},
			{name: "stale cookie", session: "no-such-session"},
			{name: "nonce alone", nonce: nonce},
		} {
			for _, p := range append(pages, "/admin/", "/admin/events") {
				req := httptest.NewRequest("GET", p, nil)
				if cr.auth != "" {
					req.Header.Set("Authorization", cr.auth)
				}
				if cr.nonce != "" {
					req.Header.Set("X-WP-Nonce", cr.nonce)
				}
				if cr.session != "" {
					req.AddCookie(&http.Cookie{Name: models.SessionCookie, Value: cr.session})
				}
				res, _ := do(t, app, req)
				if got := res.Header.Get("Cache-Control"); got != "private, no-store" {
					t.Errorf("%s, GET %s: %d, Cache-Control %q, want private, no-store", cr.name, p, res.StatusCode, got)
				}
			}
		}
		// Anonymous: today's caching, and Vary on the credentials.
		want := map[string]string{"/events/": "public, max-age=300", "/event/" + e.Slug + "/": "public, max-age=300",
			"/events.ics": "public, max-age=300", "/sitemap.xml": "public, max-age=3600"}
		for _, p := range pages {
			for _, etag := range []bool{false, true} {
				req := httptest.NewRequest("GET", p, nil)
				res, _ := do(t, app, req)
				if etag {
					tag := res.Header.Get("ETag")
					if tag == "" {
						continue
					}
					req = httptest.NewRequest("GET", p, nil)
					req.Header.Set("If-None-Match", tag)
					res, _ = do(t, app, req)
				}
				vary := res.Header.Values("Vary")
				for _, h := range []string{"Authorization", "Cookie", "X-WP-Nonce"} {
					if !strings.Contains(strings.Join(vary, ","), h) {
						t.Errorf("anonymous GET %s (%d): Vary %q lacks %s", p, res.StatusCode, vary, h)
					}
				}
				if w, ok := want[p]; ok && res.Header.Get("Cache-Control") != w {
					t.Errorf("anonymous GET %s (%d): Cache-Control %q, want today's %q", p, res.StatusCode, res.Header.Get("Cache-Control"), w)
				}
			}
		}
		// An asset asked with the session cookie keeps its caching.
		req := httptest.NewRequest("GET", assets.URL("css/admin.css"), nil)
		req.AddCookie(&http.Cookie{Name: models.SessionCookie, Value: session})
		res, _ := do(t, app, req)
		if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("asset with the session cookie: %d %q, want its year-long caching", res.StatusCode, res.Header.Get("Cache-Control"))
		}
	})
}
