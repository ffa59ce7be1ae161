package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestPublicPagesAndFeedsShareTheResponseCache: an anonymous reader's
// second request of a public page, the feed or the sitemap is answered
// from the cache the API uses (and with 304 when the reader has it); a
// write makes the next answer show it; a signed-in reader is never served
// from the cache; a draft shows nowhere. Both dialects.
func TestPublicPagesAndFeedsShareTheResponseCache(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500,
			CacheSize: 4 << 20, CacheCheck: time.Millisecond}
		site := siteOf(cfg)
		db.UseSite(site)
		app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ed, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "ed", Password: "correct horse battery", Role: models.RoleEditor})
		if err != nil {
			t.Fatal(err)
		}
		s := func(v string) *string { return &v }
		day := time.Now().UTC().AddDate(0, 0, 3).Format(time.DateOnly)
		create := func(title, status string) *models.Event {
			in := models.EventInput{Title: s(title), StartDate: s(day + " 10:00"), EndDate: s(day + " 11:00"), Lang: "en"}
			in.Status = s(status)
			e, err := db.CreateEvent(ctx, ed, in)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		first := create("Lantern walk", models.StatusPublish)
		create("Secret rehearsal", models.StatusDraft)
		type answer struct {
			StatusCode int
			Header     http.Header
		}
		get := func(path string, header ...string) (answer, string) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			res, body := do(t, app, req)
			return answer{res.StatusCode, res.Header}, body
		}
		for _, path := range []string{"/events/", "/ja/events/", "/event/" + first.Slug + "/", "/events.ics", "/sitemap.xml"} {
			res, body := get(path)
			if res.StatusCode != http.StatusOK || strings.Contains(body, "Secret rehearsal") {
				t.Fatalf("%s: %d %.300s", path, res.StatusCode, body)
			}
			res2, body2 := get(path)
			if res2.Header.Get("X-Kalends-Cache") != "hit" || body2 != body {
				t.Errorf("%s again: cache %q, same body %v", path, res2.Header.Get("X-Kalends-Cache"), body2 == body)
			}
			if res3, _ := get(path, "If-None-Match", res.Header.Get("ETag")); res3.StatusCode != http.StatusNotModified {
				t.Errorf("%s with its ETag from the cache: %d", path, res3.StatusCode)
			}
		}
		// A write shows at once (the cache reads the generation every 1 ms here).
		create("Harvest market", models.StatusPublish)
		modelstest.WaitFor(t, 10*time.Second, func() error {
			if _, body := get("/events/"); !strings.Contains(body, "Harvest market") {
				return fmt.Errorf("the new event is not on /events/")
			}
			return nil
		})
		// Signed in: never from the cache.
		token, _, err := db.CreateSession(ctx, ed.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		res, body := get("/events/", "Cookie", models.SessionCookie+"="+token)
		if res.Header.Get("X-Kalends-Cache") != "" || res.Header.Get("Cache-Control") == "public, max-age=300" {
			t.Errorf("a signed-in reader: cache %q, Cache-Control %q", res.Header.Get("X-Kalends-Cache"), res.Header.Get("Cache-Control"))
		}
		_ = body
	})
}
