package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestSearchedWordsFollowWritesOnEveryPath: with the searched words'
// lists kept (serve's share of --cache-size), a search through the API,
// the public list page and the iCalendar feed finds an event by a
// Chinese/Japanese word and by accented words sent percent-encoded in
// NFD, and after the event's title changes, and after it is trashed,
// each of the three answers the new text at once, never a kept list's
// old one. Whole answers are not cached here (--cache-answers=false), so
// only the lists could answer from before the write. Both dialects.
func TestSearchedWordsFollowWritesOnEveryPath(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500,
			CacheSize: 4 << 20, CacheAnswersOff: true, CacheCheck: time.Millisecond}
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
		ev, err := db.CreateEvent(ctx, ed, models.EventInput{Title: s("夏祭り Café Müller"), Slug: s("夏祭り-café"),
			StartDate: s(day + " 18:00"), EndDate: s(day + " 21:00"), Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		// found checks the three paths for word (sent in NFD) and title.
		found := func(step, word, title string, want bool) {
			t.Helper()
			q := url.QueryEscape(norm.NFD.String(word))
			for range 2 { // the second time from the kept lists
				res, body := do(t, app, httptest.NewRequest(http.MethodGet, "/cal/events/v1/events?search="+q, nil))
				if total := res.Header.Get("X-WP-Total"); res.StatusCode != http.StatusOK || (total == "1") != want {
					t.Errorf("%s: API search %q: %d, X-WP-Total %q, want found %v", step, word, res.StatusCode, total, want)
				}
				if want && !strings.Contains(body, title) {
					t.Errorf("%s: API search %q: no %q in %.300s", step, word, title, body)
				}
				for _, path := range []string{"/events/?search=" + q, "/ja/events/?search=" + q, "/events.ics?search=" + q} {
					res, body := do(t, app, httptest.NewRequest(http.MethodGet, path, nil))
					if res.StatusCode != http.StatusOK || strings.Contains(body, title) != want {
						t.Errorf("%s: %s: %d, holds %q: %v, want %v", step, path, res.StatusCode, title, !want, want)
					}
				}
			}
		}
		found("created", "夏祭", "夏祭り Café Müller", true)
		found("created", "café", "夏祭り Café Müller", true)
		found("created", "müller", "夏祭り Café Müller", true)
		found("created", "crème", "秋祭り Crème", false)
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(ev.ID), models.EventInput{Title: s("秋祭り Crème"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		found("title changed", "夏祭", "夏祭り Café Müller", false)
		found("title changed", "müller", "夏祭り Café Müller", false)
		found("title changed", "crème", "秋祭り Crème", true)
		found("title changed", "祭", "秋祭り Crème", true)
		if _, err := db.TrashEvent(ctx, ed, models.ByID(ev.ID), "en"); err != nil {
			t.Fatal(err)
		}
		found("trashed", "crème", "秋祭り Crème", false)
		found("trashed", "祭", "秋祭り Crème", false)
		if st := db.SearchListStats(); st.Hits == 0 || st.MaxBytes != cfg.CacheSize/searchListsShare {
			t.Errorf("the searched words' lists: %+v, want some served within %d bytes", st, cfg.CacheSize/searchListsShare)
		}
	})
}
