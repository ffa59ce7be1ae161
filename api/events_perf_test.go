package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// eventQueryCounter counts the SQL queries run through a bun.DB.
type eventQueryCounter struct{ n int }

func (c *eventQueryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	c.n++
	return ctx
}

func (c *eventQueryCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

func TestEventListCostsTheSameQueriesWhateverPerPage(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		start := time.Now().UTC().AddDate(0, 0, 2)
		for i := 0; i < 100; i++ {
			s := start.Add(time.Duration(i) * time.Hour)
			e.createEvent(t, map[string]any{"title": fmt.Sprintf("Event %d", i), "start_date": s.Format(time.DateTime),
				"end_date": s.Add(time.Hour).Format(time.DateTime), "venue": map[string]any{"venue": fmt.Sprintf("Hall %d", i%7)},
				"organizer":  []any{map[string]any{"organizer": "A"}, map[string]any{"organizer": fmt.Sprintf("B%d", i%5)}},
				"categories": []any{"Music", fmt.Sprintf("Cat %d", i%3)}, "tags": "jazz"})
		}
		// Series whose first occurrence is before the window: every page
		// holds occurrences whose series row it does not hold.
		for i := 0; i < 5; i++ {
			s := start.AddDate(0, 0, -9).Add(time.Duration(i) * 90 * time.Minute)
			e.createEvent(t, map[string]any{"title": fmt.Sprintf("Series %d", i), "start_date": s.Format(time.DateTime),
				"end_date": s.Add(time.Hour).Format(time.DateTime), "recurrence": "FREQ=WEEKLY;COUNT=20",
				"categories": []any{"Music"}, "venue": map[string]any{"venue": "Hall 1"}, "tags": "jazz",
				"organizer": []any{map[string]any{"organizer": "A"}}})
		}
		counter := &eventQueryCounter{}
		e.DB.AddQueryHook(counter)
		count := func(perPage int) int {
			counter.n = 0
			r := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events?per_page=%d&ml_language=ja", perPage), nil, "")
			mustStatus(t, r, http.StatusOK)
			events := r.Map(t)["events"].([]any)
			if got := len(events); got != perPage {
				t.Fatalf("per_page %d gave %d events", perPage, got)
			}
			if first := events[0].(map[string]any); first["series_id"] == nil || first["series_id"] == first["id"] {
				t.Fatalf("the page does not start with an occurrence: %v", first["title"])
			}
			return counter.n
		}
		one, hundred := count(1), count(100)
		if one != hundred {
			t.Errorf("GET /events ran %d queries for per_page=1 and %d for per_page=100", one, hundred)
		}
		t.Logf("queries per list request: %d", one)
	})
}

// BenchmarkEventsList measures lists through the real app on SQLite with a
// realistic seeded calendar (models.DefaultSeedOptions: every event linked
// to a venue, two organizers, two categories and two tags, 500-character
// descriptions, translations) of 10,000 and 100,000 events: a page of 50
// in a date window, the default list, and a filtered one.
func BenchmarkEventsList(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			app, _ := eventsTestApp(b, benchDB(b, n))
			now := time.Now().UTC()
			window := fmt.Sprintf("start_date=%s&end_date=%s", now.Format(time.DateOnly), now.AddDate(0, 3, 0).Format(time.DateOnly))
			for _, c := range []struct{ name, query string }{
				{"window50", "per_page=50&" + window},
				{"default", ""},
				{"filtered", "categories=music&venue=1&" + window},
				{"search", "search=jazz&" + window},
			} {
				b.Run(c.name, func(b *testing.B) {
					url := "/cal/events/v1/events?" + c.query
					for i := 0; i < b.N; i++ {
						res, err := app.Test(httptest.NewRequest("GET", url, nil), -1)
						if err != nil || res.StatusCode != http.StatusOK {
							b.Fatalf("%s: %v %v", url, err, res)
						}
						_ = res.Body.Close()
					}
				})
			}
		})
	}
}

// benchDB opens a migrated SQLite database seeded with n realistic events
// around today.
func benchDB(b *testing.B, n int) *models.DB {
	b.Helper()
	db := modelstest.Open(b, models.SQLite)
	o := models.DefaultSeedOptions(time.Now())
	o.Events, o.Series, o.SeriesCount = n, n/200, 26 // one weekly series per 200 events, as make bench
	if _, err := db.Seed(context.Background(), o, nil); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkEventGet measures GET /events/{id} of a realistic seeded event
// (a venue, two organizers, two categories, two tags, translations).
func BenchmarkEventGet(b *testing.B) {
	app, _ := eventsTestApp(b, benchDB(b, 10000))
	url := "/cal/events/v1/events/5000"
	res, err := app.Test(httptest.NewRequest("GET", url, nil), -1)
	if err != nil || res.StatusCode != http.StatusOK {
		b.Fatalf("%s: %v %v", url, err, res)
	}
	_ = res.Body.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := app.Test(httptest.NewRequest("GET", url, nil), -1)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("%s: %v %v", url, err, res)
		}
		_ = res.Body.Close()
	}
}
