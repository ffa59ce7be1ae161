package main

import (
	"context"
	"html"
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

// No crawler traps (issue 29): the public month view pages only through the
// months that can hold public events, the lists end at their last page, and
// the pages a search engine should not keep (empty, filtered) say so.

// trapNow is the site clock of these tests: noon of 15 November 2026 in
// Tokyo, the site's zone.
var trapNow = time.Date(2026, 11, 15, 3, 0, 0, 0, time.UTC)

// trapApp is the assembled app on db with the site clock at trapNow, the
// site zone Asia/Tokyo and a series horizon of horizonDays (0: the
// default), behind the response cache as served.
func trapApp(t *testing.T, db *models.DB, horizonDays int) *fiber.App {
	t.Helper()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{BaseURL: "http://example.test", Location: tokyo, DefaultLanguage: "en", MaxPerPage: 500,
		CacheSize: 4 << 20, CacheCheck: time.Millisecond, SeriesHorizonDays: horizonDays}
	site := siteOf(cfg)
	site.Clock = func() time.Time { return trapNow }
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

var (
	relLinkRE = regexp.MustCompile(`<a rel="(prev|next)" href="([^"]*)"`)
	robotsRE  = regexp.MustCompile(`<meta name="robots" content="([^"]*)"`)
)

// publicPage is one answer of a public page: its status, its prev and next
// links (decoded) and its robots meta ("" when it has none).
type publicPage struct {
	status           int
	prev, next, body string
	robots           []string
}

func getPublic(t *testing.T, app *fiber.App, path string) publicPage {
	t.Helper()
	res, body := do(t, app, httptest.NewRequest(http.MethodGet, path, nil))
	p := publicPage{status: res.StatusCode, body: body}
	for _, m := range relLinkRE.FindAllStringSubmatch(body, -1) {
		if m[1] == "prev" {
			p.prev = html.UnescapeString(m[2])
		} else {
			p.next = html.UnescapeString(m[2])
		}
	}
	for _, m := range robotsRE.FindAllStringSubmatch(body, -1) {
		p.robots = append(p.robots, m[1])
	}
	return p
}

// trapEvent creates a published (or draft) event as the console.
func trapEvent(t *testing.T, db *models.DB, title, start, zone, status string, edit func(*models.EventInput)) *models.Event {
	t.Helper()
	s := func(v string) *string { return &v }
	in := models.EventInput{Title: s(title), StartDate: s(start), EndDate: s(start), Timezone: s(zone), Lang: "en"}
	in.Status = s(status)
	if edit != nil {
		edit(&in)
	}
	e, err := db.CreateEvent(context.Background(), models.Console, in)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// monthURL is the month page of m under prefix ("" or "/ja"), with extra
// arguments.
func monthURL(prefix, m, extra string) string {
	u := prefix + "/events/?view=month"
	if m != "" {
		u += "&month=" + m
	}
	return u + extra
}

// monthOf is the month argument a month link names ("" for none).
func monthOf(t *testing.T, link string) string {
	t.Helper()
	if link == "" {
		return ""
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatalf("link %q: %v", link, err)
	}
	return u.Query().Get("month")
}

// checkMonth asks the month page of m (and the Japanese one) and checks its
// status and the months its prev and next links name ("" for no link).
func checkMonth(t *testing.T, app *fiber.App, m, extra string, status int, prev, next string) {
	t.Helper()
	for _, prefix := range []string{"", "/ja"} {
		path := monthURL(prefix, m, extra)
		p := getPublic(t, app, path)
		if p.status != status {
			t.Errorf("%s: %d, want %d", path, p.status, status)
			continue
		}
		if status == http.StatusNotFound {
			lang := "en"
			if prefix == "/ja" {
				lang = "ja"
			}
			if !strings.Contains(p.body, `<html lang="`+lang+`"`) || !strings.Contains(p.body, `class="public"`) {
				t.Errorf("%s: not the public not-found page in %s: %.300s", path, lang, p.body)
			}
			continue
		}
		if got := monthOf(t, p.prev); got != prev {
			t.Errorf("%s: previous month %q (link %q), want %q", path, got, p.prev, prev)
		}
		if got := monthOf(t, p.next); got != next {
			t.Errorf("%s: next month %q (link %q), want %q", path, got, p.next, next)
		}
		for _, l := range []string{p.prev, p.next} {
			if l != "" && !strings.HasPrefix(l, prefix+"/events/?") {
				t.Errorf("%s: link %q leaves the language", path, l)
			}
		}
	}
}

// TestPublicMonthNavigationIsBounded: the month view pages from the month
// of the first public event to the later of the series horizon's month and
// the last public event's month, in the site's zone; the ends link no
// further, a month outside is the public 404 page in the page's language,
// filtered or not; the current month always answers. Drafts and events
// hidden from listings do not widen the range. An empty calendar has the
// current month only. Both dialects, at the root and under /ja/.
func TestPublicMonthNavigationIsBounded(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		t.Run("empty calendar", func(t *testing.T) {
			empty := trapApp(t, modelstest.Open(t, db.Dialect()), 0)
			checkMonth(t, empty, "", "", http.StatusOK, "", "")
			checkMonth(t, empty, "2026-11", "", http.StatusOK, "", "")
			for _, m := range []string{"2026-10", "2026-12", "2035-06"} {
				checkMonth(t, empty, m, "", http.StatusNotFound, "", "")
			}
		})

		// Horizon 100 days: 23 February 2027, before the last event.
		app := trapApp(t, db, 100)
		// 05:00 in Tokyo on 1 September is still 31 August in UTC: the
		// months are the site zone's.
		trapEvent(t, db, "秋の収穫祭", "2026-09-01 05:00", "Asia/Tokyo", models.StatusPublish, nil)
		trapEvent(t, db, "Fe\u0302te de la musique", "2027-06-21 18:00", "Europe/Paris", models.StatusPublish, nil)
		trapEvent(t, db, "여름 밤 축제", "2028-03-01 19:00", "Asia/Seoul", models.StatusDraft, nil)
		trapEvent(t, db, "隠れ家ライブ", "2029-01-10 20:00", "Asia/Tokyo", models.StatusPublish, func(in *models.EventInput) {
			hide := true
			in.HideFromListings = &hide
		})
		t.Run("last event after the horizon", func(t *testing.T) {
			checkMonth(t, app, "", "", http.StatusOK, "2026-10", "2026-12")
			checkMonth(t, app, "2026-11", "", http.StatusOK, "2026-10", "2026-12")
			checkMonth(t, app, "2026-09", "", http.StatusOK, "", "2026-10")
			checkMonth(t, app, "2027-02", "", http.StatusOK, "2027-01", "2027-03")
			checkMonth(t, app, "2027-06", "", http.StatusOK, "2027-05", "")
			checkMonth(t, app, "2027-06", "&search=musique", http.StatusOK, "2027-05", "")
			for _, m := range []string{"2026-08", "2027-07", "2028-03", "2029-01", "1970-01", "9999-12"} {
				checkMonth(t, app, m, "", http.StatusNotFound, "", "")
			}
			checkMonth(t, app, "2027-07", "&search=musique", http.StatusNotFound, "", "")
			if p := getPublic(t, app, monthURL("/ja", "2027-06", "")); !strings.Contains(p.body, "2027年6月") || !strings.Contains(p.body, "de la musique") {
				t.Errorf("the last month does not show its event: %.500s", p.body)
			}
		})

		t.Run("horizon after the last event", func(t *testing.T) {
			// The default horizon: 2*365+31 days, 15 December 2028.
			app := trapApp(t, db, 0)
			checkMonth(t, app, "2027-07", "", http.StatusOK, "2027-06", "2027-08")
			checkMonth(t, app, "2028-12", "", http.StatusOK, "2028-11", "")
			checkMonth(t, app, "2029-01", "", http.StatusNotFound, "", "")
			checkMonth(t, app, "2026-08", "", http.StatusNotFound, "", "")
		})

		t.Run("every event after the current month", func(t *testing.T) {
			db := modelstest.Open(t, db.Dialect())
			app := trapApp(t, db, 100)
			trapEvent(t, db, "桜まつり", "2027-03-28 10:00", "Asia/Tokyo", models.StatusPublish, nil)
			// The current month answers, and leads to the first month.
			checkMonth(t, app, "", "", http.StatusOK, "", "2027-03")
			checkMonth(t, app, "2026-11", "", http.StatusOK, "", "2027-03")
			checkMonth(t, app, "2027-03", "", http.StatusOK, "", "")
			for _, m := range []string{"2026-10", "2026-12", "2027-02", "2027-04"} {
				checkMonth(t, app, m, "", http.StatusNotFound, "", "")
			}
		})
	})
}

// listFixture is a calendar with one page and a bit of events under every
// kind of list, and records whose lists are empty.
type listFixture struct {
	venue, organizer, category, tag string // slugs (as stored)
	venueID, organizerID            int64
	emptyVenue, emptyCategory       string
}

// seedLists: 21 published upcoming events (one more than a page) at one
// venue, by one organizer, in one category and one tag, from 20 November
// 2026; and a past event at another venue in another category.
func seedLists(t *testing.T, db *models.DB) listFixture {
	t.Helper()
	ctx := context.Background()
	s := func(v string) *string { return &v }
	v, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{Venue: s("The\u0301a\u0302tre du Cha\u0302telet"), City: s("Paris")}, "en")
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{Venue: s("旧館"), City: s("東京")}, "en")
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := db.Organizers().Create(ctx, models.Console, models.OrganizerInput{Organizer: s("東京フィル")}, "en")
	if err != nil {
		t.Fatal(err)
	}
	var first *models.Event
	for i := range 21 {
		day := time.Date(2026, 11, 20+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		e := trapEvent(t, db, "演奏会 第"+string(rune('0'+i/10))+string(rune('0'+i%10))+"回", day+" 19:00", "Asia/Tokyo", models.StatusPublish,
			func(in *models.EventInput) {
				in.Venues = &[]models.VenueRef{{ID: v.ID}}
				in.Organizers = &[]models.OrganizerRef{{ID: o.ID}}
				in.Categories = &[]models.TermRef{{Name: "音楽"}}
				in.Tags = &[]models.TermRef{{Name: "라이브"}}
			})
		if first == nil {
			first = e
		}
	}
	past := trapEvent(t, db, "Café-concert d'automne", "2026-10-01 18:00", "Asia/Tokyo", models.StatusPublish, func(in *models.EventInput) {
		in.Venues = &[]models.VenueRef{{ID: old.ID}}
		in.Categories = &[]models.TermRef{{Name: "古典"}}
	})
	return listFixture{venue: v.Slug, organizer: o.Slug, category: first.Categories[0].Slug, tag: first.Tags[0].Slug,
		venueID: v.ID, organizerID: o.ID, emptyVenue: old.Slug, emptyCategory: past.Categories[0].Slug}
}

// withPage is path with ?page=n (or &page=n).
func withPage(path string, n string) string {
	if strings.Contains(path, "?") {
		return path + "&page=" + n
	}
	return path + "?page=" + n
}

// TestPublicListsEndAtTheLastPage: every public list (the events, a venue's,
// an organizer's, a category's, a tag's) links page to page up to its last
// and no further; a page past the last is the public 404 page; the first
// page of an empty list answers, the second does not. Both dialects, at the
// root and under /ja/.
func TestPublicListsEndAtTheLastPage(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := trapApp(t, db, 0)
		fx := seedLists(t, db)
		for _, prefix := range []string{"", "/ja"} {
			for _, list := range []string{"/events/", "/events/?search=" + url.QueryEscape("演奏会"), "/venue/" + fx.venue + "/",
				"/organizer/" + fx.organizer + "/", "/events/category/" + fx.category + "/", "/tag/" + fx.tag + "/"} {
				path := prefix + list
				// Follow the next links from the first page: two pages.
				var pages []string
				for at := path; at != "" && len(pages) < 5; {
					p := getPublic(t, app, at)
					if p.status != http.StatusOK {
						t.Fatalf("%s: %d", at, p.status)
					}
					if (len(pages) == 0) != (p.prev == "") {
						t.Errorf("%s: previous link %q on page %d", at, p.prev, len(pages)+1)
					}
					pages = append(pages, at)
					at = p.next
				}
				if len(pages) != 2 {
					t.Errorf("%s: the next links lead through %d pages %q, want 2", path, len(pages), pages)
				}
				for _, n := range []string{"3", "4", "1000000"} {
					if p := getPublic(t, app, withPage(path, n)); p.status != http.StatusNotFound ||
						!strings.Contains(p.body, `class="public"`) {
						t.Errorf("%s: %d, want the public 404 page", withPage(path, n), p.status)
					}
				}
			}
			for _, list := range []string{"/venue/" + fx.emptyVenue + "/", "/events/category/" + fx.emptyCategory + "/",
				"/events/?search=" + url.QueryEscape("존재하지 않는")} {
				path := prefix + list
				for n, want := range map[string]int{"": http.StatusOK, "1": http.StatusOK, "2": http.StatusNotFound} {
					at := path
					if n != "" {
						at = withPage(path, n)
					}
					if p := getPublic(t, app, at); p.status != want || p.next != "" || p.prev != "" {
						t.Errorf("%s: %d with links %q %q, want %d and none", at, p.status, p.prev, p.next, want)
					}
				}
			}
		}
		empty := trapApp(t, modelstest.Open(t, db.Dialect()), 0)
		for n, want := range map[string]int{"": http.StatusOK, "1": http.StatusOK, "2": http.StatusNotFound} {
			for _, path := range []string{"/events/", "/ja/events/"} {
				if n != "" {
					path = withPage(path, n)
				}
				if p := getPublic(t, empty, path); p.status != want {
					t.Errorf("empty calendar %s: %d, want %d", path, p.status, want)
				}
			}
		}
	})
}

// TestPublicRobotsMeta: a list or month that shows no event, and any page
// asked with a filter (search, categories, tags, venue, organizer), carry
// <meta name="robots" content="noindex"> (links are still followed); pages
// with events and no filter carry no robots meta, whatever their page or
// view. A venue's page stays indexable without upcoming events: the venue
// is its subject. Both dialects, at the root and under /ja/.
func TestPublicRobotsMeta(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := trapApp(t, db, 0)
		fx := seedLists(t, db)
		q := url.QueryEscape
		// The views of /events/ say nofollow too (issue 36); the record
		// pages' lists only noindex.
		check := func(app *fiber.App, path string, noindex bool) {
			t.Helper()
			p := getPublic(t, app, path)
			if p.status != http.StatusOK {
				t.Errorf("%s: %d", path, p.status)
				return
			}
			want := []string(nil)
			if noindex {
				want = []string{"noindex"}
				if strings.Contains(path, "/events/?") || strings.HasSuffix(path, "/events/") {
					want = []string{"noindex, nofollow"}
				}
			}
			if strings.Join(p.robots, "|") != strings.Join(want, "|") {
				t.Errorf("%s: robots meta %q, want %q", path, p.robots, want)
			}
		}
		for _, prefix := range []string{"", "/ja"} {
			for _, path := range []string{"/events/", "/events/?page=2", "/events/?view=month", "/events/?view=month&month=2026-12",
				"/venue/" + fx.venue + "/", "/venue/" + fx.venue + "/?page=2", "/organizer/" + fx.organizer + "/",
				"/events/category/" + fx.category + "/", "/tag/" + fx.tag + "/", "/venue/" + fx.emptyVenue + "/"} {
				check(app, prefix+path, false)
			}
			for _, path := range []string{"/events/?search=" + q("演奏会"), "/events/?search=" + q("존재하지 않는"),
				"/events/?categories=" + q(fx.category), "/events/?tags=" + q(fx.tag), "/events/?venue=" + itoa(fx.venueID),
				"/events/?organizer=" + itoa(fx.organizerID), "/events/?organizer=" + itoa(fx.organizerID) + "&page=2",
				"/events/?view=month&month=2026-12&categories=" + q(fx.category), "/events/?view=month&tags=" + q(fx.tag),
				"/events/?view=month&month=2027-01", "/events/?view=month&month=2026-10&search=" + q("Café"),
				"/events/category/" + fx.emptyCategory + "/"} {
				check(app, prefix+path, true)
			}
		}
		empty := trapApp(t, modelstest.Open(t, db.Dialect()), 0)
		for _, path := range []string{"/events/", "/ja/events/", "/events/?view=month", "/ko/events/?view=month&month=2026-11"} {
			check(empty, path, true)
		}
	})
}
