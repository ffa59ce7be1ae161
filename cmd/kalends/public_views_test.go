package main

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

var (
	monthCellRE = regexp.MustCompile(`(?s)<td[^>]*data-date="([0-9-]+)" data-count="([0-9]+)">(.*?)</td>`)
	moreRE      = regexp.MustCompile(`data-more="([0-9]+)"`)
)

// TestMonthCountsMatchTheAPI is issue 36's acceptance line at a seeded
// scale (thousands of events over two months, dozens a day, multi-day,
// hidden and draft ones among them): for every day of the month, the
// events the grid shows plus N of "+N more" are the API's count of that
// day (starts_before the next midnight, ends_after this one, in the
// site's zone), and no day shows more than 4.
func TestMonthCountsMatchTheAPI(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := trapApp(t, db, 0)
		admin, _, _ := seedAdminVenueOrganizer(t, db)
		o := models.DefaultSeedOptions(trapNow)
		o.Events, o.AuthorID, o.Force = 1800, admin.ID, true
		o.From, o.To = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 5, 0, 0, 0, 0, time.UTC)
		if _, err := db.Seed(context.Background(), o, nil); err != nil {
			t.Fatal(err)
		}
		tokyo, _ := time.LoadLocation("Asia/Tokyo")
		for _, path := range []string{"/events/?view=month&month=2026-12", "/ja/events/?view=month&month=2026-12&categories=1"} {
			p := getPublic(t, app, path)
			if p.status != http.StatusOK {
				t.Fatalf("%s: %d", path, p.status)
			}
			cells := monthCellRE.FindAllStringSubmatch(p.body, -1)
			if len(cells) != 31 {
				t.Fatalf("%s: %d days, want 31", path, len(cells))
			}
			busy := 0
			for _, c := range cells {
				shown := strings.Count(c[3], "<li>")
				more := 0
				if m := moreRE.FindStringSubmatch(c[3]); m != nil {
					more, _ = strconv.Atoi(m[1])
				}
				day, _ := time.ParseInLocation(time.DateOnly, c[1], tokyo)
				q := url.Values{"ends_after": {day.Format(time.RFC3339)}, "starts_before": {day.AddDate(0, 0, 1).Format(time.RFC3339)}, "per_page": {"1"}}
				if strings.Contains(path, "categories=") {
					q.Set("categories", "1")
				}
				res, _ := do(t, app, httptest.NewRequest(http.MethodGet, "/cal/events/v1/events?"+q.Encode(), nil))
				want, err := strconv.Atoi(res.Header.Get("X-WP-Total"))
				if err != nil {
					t.Fatalf("%s: API total %q", c[1], res.Header.Get("X-WP-Total"))
				}
				if shown > 4 || shown+more != want || strconv.Itoa(want) != c[2] {
					t.Errorf("%s %s: shows %d + %d more (count %s), the API counts %d", path, c[1], shown, more, c[2], want)
				}
				if want > 4 {
					busy++
				}
			}
			if busy < 20 {
				t.Errorf("%s: only %d days hold more than 4 events; the seed is too thin to test", path, busy)
			}
		}
	})
}

// TestPublicViews walks the four views in English and Japanese: events
// under day headings with times, chips and featured marks, the filter bar
// keeping its filters, the subscribe links carrying them (featured too,
// which the feed takes), the day view's neighbours, the photo view's
// placeholder, and TEC's view URLs answering 301.
func TestPublicViews(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := trapApp(t, db, 0)
		fx := seedLists(t, db)
		q := url.QueryEscape
		list := getPublic(t, app, "/ja/events/?categories="+q(fx.category))
		if list.status != http.StatusOK {
			t.Fatalf("list: %d", list.status)
		}
		for _, want := range []string{`<h2 class="day-heading"`, "2026年11月20日(金)", `data-testid="row-time">19:00 – 19:00`, `class="chip"`,
			`selected>音楽</option>`, "noindex, nofollow"} {
			if !strings.Contains(list.body, want) {
				t.Errorf("ja list: no %s", want)
			}
		}
		list = getPublic(t, app, "/ja/events/?featured=1&categories="+q(fx.category))
		for _, want := range []string{`name="featured" value="1" checked`, `data-testid="public-empty"`,
			"webcal://example.test/ja/events.ics?categories=" + q(fx.category) + "&amp;featured=1",
			"https://calendar.google.com/calendar/r?cid=webcal", "https://outlook.office.com/calendar/0/addfromweb?url=http"} {
			if !strings.Contains(list.body, want) {
				t.Errorf("ja list: no %s", want)
			}
		}
		en := getPublic(t, app, "/events/")
		for _, want := range []string{"Fri, Nov 20, 2026", "7:00 PM", `href="/events/?past=1"`, `<meta name="robots"`} {
			if strings.Contains(en.body, want) != (want != `<meta name="robots"`) {
				t.Errorf("en list: %s present=%v", want, !strings.Contains(en.body, want))
			}
		}
		if p := getPublic(t, app, "/events/?past=1"); p.status != http.StatusOK || !strings.Contains(p.body, "Past events") {
			t.Errorf("past list: %d", p.status)
		}
		day := getPublic(t, app, "/ja/events/?view=day&date=2026-11-25")
		if !strings.Contains(day.body, "2026年11月25日(水)") || !strings.Contains(html.UnescapeString(day.body), "date=2026-11-24") ||
			!strings.Contains(html.UnescapeString(day.body), "date=2026-11-26") {
			t.Errorf("day view: title or neighbours missing")
		}
		empty := getPublic(t, app, "/events/?view=day&date=2026-11-10")
		if !strings.Contains(html.UnescapeString(empty.body), "date=2026-11-20") || !strings.Contains(empty.body, "noindex, nofollow") {
			t.Errorf("an empty day: no link to the next day with events, or indexable")
		}
		photo := getPublic(t, app, "/events/?view=photo")
		if !strings.Contains(photo.body, `data-testid="placeholder">音楽</span>`) {
			t.Errorf("photo view: no placeholder naming the category")
		}
		month := getPublic(t, app, "/events/?view=month&month=2026-11")
		if !strings.Contains(month.body, `<th scope="col">`) || !strings.Contains(month.body, `<time>7:00 PM</time>`) {
			t.Errorf("month view: no column headers or times")
		}
		for from, to := range map[string]string{
			"/events/list/":             "/events/",
			"/ja/events/month/":         "/ja/events/?view=month",
			"/events/month/2026-12/":    "/events/?month=2026-12&view=month",
			"/events/today/?featured=1": "/events/?featured=1&view=day",
			"/events/photo/":            "/events/?view=photo",
			"/events/2026-11-20/":       "/events/?date=2026-11-20&view=day",
		} {
			res, _ := do(t, app, httptest.NewRequest(http.MethodGet, from, nil))
			if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "http://example.test"+to {
				t.Errorf("%s: %d %s, want 301 %s", from, res.StatusCode, res.Header.Get("Location"), to)
			}
		}
		if res, _ := do(t, app, httptest.NewRequest(http.MethodGet, "/events/month/2026-13/", nil)); res.StatusCode != http.StatusNotFound {
			t.Errorf("a month that is none: %d", res.StatusCode)
		}
		for _, bad := range []string{"/events/?featured=maybe", "/events.ics?featured=maybe"} {
			if res, _ := do(t, app, httptest.NewRequest(http.MethodGet, bad, nil)); res.StatusCode != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400", bad, res.StatusCode)
			}
		}
	})
}
