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
		counter := &eventQueryCounter{}
		e.DB.Bun.AddQueryHook(counter)
		count := func(perPage int) int {
			counter.n = 0
			r := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events?per_page=%d&ml_language=ja", perPage), nil, "")
			mustStatus(t, r, http.StatusOK)
			if got := len(r.Map(t)["events"].([]any)); got != perPage {
				t.Fatalf("per_page %d gave %d events", perPage, got)
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

// BenchmarkEventsList measures a default date-window list (per_page 120)
// through the real app on SQLite with 100,000 events, 20,000 of them in the
// window's first two years ahead.
func BenchmarkEventsList(b *testing.B) {
	db := benchDB(b)
	app, _ := eventsTestApp(b, db)
	res, err := app.Test(httptest.NewRequest("GET", "/cal/events/v1/events", nil), -1)
	if err != nil {
		b.Fatal(err)
	}
	if tot := res.Header.Get("X-TEC-Total"); res.StatusCode != http.StatusOK || tot < "19000" || len(tot) != 5 {
		b.Fatalf("default window: status %d, total %s", res.StatusCode, tot)
	}
	_ = res.Body.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := app.Test(httptest.NewRequest("GET", "/cal/events/v1/events", nil), -1)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("list: %v %v", err, res)
		}
		_ = res.Body.Close()
	}
}

// benchDB opens a migrated SQLite database holding 100,000 published
// events spread over ten years from five years ago.
func benchDB(b *testing.B) *models.DB {
	b.Helper()
	db := modelstest.Open(b, models.SQLite)
	ctx := context.Background()
	now := models.Now()
	const total = 100000
	err := db.RunInTx(ctx, func(tx *models.Store) error {
		for batch := 0; batch < total; batch += 1000 {
			posts := make([]models.PostID, 0, 1000)
			events := make([]models.Event, 0, 1000)
			for i := batch; i < batch+1000; i++ {
				id := int64(i + 1)
				posts = append(posts, models.PostID{ID: id, Kind: string(models.KindEvent)})
				// Spread over ten years, from five years ago.
				start := models.Sec(now.AddDate(-5, 0, 0).Add(time.Duration(i) * (10 * 365 * 24 * time.Hour / total)))
				events = append(events, models.Event{Post: models.Post{ID: id, AuthorID: 1, Status: models.StatusPublish,
					Slug: fmt.Sprintf("event-%d", id), Lang: "en", PublishedAt: now, CreatedAt: now, UpdatedAt: now},
					Title: fmt.Sprintf("Event %d", id), StartAt: start, EndAt: start.Add(2 * time.Hour), Timezone: "UTC"})
			}
			if _, err := tx.IDB().NewInsert().Model(&posts).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.IDB().NewInsert().Model(&events).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return db
}
