package models_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestPreparedUpdateStoresWhatBunStores: an event's row written through
// the prepared UPDATE (updateByPK, with its arguments bound) or INSERT
// (insertRow) holds exactly what bun's model update or insert writes from
// the same struct, column by column,
// type included: times in other zones and with fractions of a second,
// NULL and set pointers, booleans both ways, text in four scripts. On
// MySQL both are bun's update; on SQLite the test waits until the
// statement is prepared, so the bound path is the one compared.
func TestPreparedUpdateStoresWhatBunStores(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		a, err := db.CreateEvent(ctx, editor, baseInput("Café Müller", "2027-06-01 19:00:00", "2027-06-01 21:00:00"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.CreateEvent(ctx, editor, baseInput("音楽祭", "2027-06-02 19:00:00", "2027-06-02 21:00:00"))
		if err != nil {
			t.Fatal(err)
		}
		seoul, err := time.LoadLocation("Asia/Seoul")
		if err != nil {
			t.Fatal(err)
		}
		web, series := "https://例え.jp/イベント?x=1&y='2'", int64(0)
		rid := time.Date(2027, 7, 1, 9, 30, 0, 0, seoul)
		variants := []func(e *models.Event){
			func(e *models.Event) {
				e.Title, e.Description = "서울 재즈 'live' \"night\"", "<p>Ópera — 東京</p>"
				e.StartAt = time.Date(2027, 7, 1, 9, 30, 0, 0, seoul)
				e.EndAt = time.Date(2027, 7, 1, 23, 59, 59, 500_000_000, seoul)
				e.AllDay, e.Featured, e.HideFromListings = true, true, false
				e.Website, e.RecurrenceID, e.SeriesUntil = &web, &rid, nil
				e.Timezone, e.Cost = "Asia/Seoul", `["10","20"]`
			},
			func(e *models.Event) {
				e.Title, e.Excerpt = "", "ß"
				e.Website, e.RecurrenceID, e.ParentID = nil, nil, nil
				e.AllDay, e.Featured, e.HideFromListings = false, false, true
				e.UpdatedAt = time.Date(2028, 2, 29, 0, 0, 0, 123456789, time.UTC)
				e.SeriesID = &series
			},
		}
		row := func(id int64) string {
			t.Helper()
			var cols []string
			rows, err := db.Bun.QueryContext(ctx, "SELECT * FROM events WHERE id = ?", id)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = rows.Close() }()
			names, _ := rows.Columns()
			vals := make([]any, len(names))
			ptrs := make([]any, len(names))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if !rows.Next() {
				t.Fatalf("event %d: no row", id)
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, n := range names {
				switch n {
				case "id", "slug", "created_at":
					continue
				}
				v := vals[i]
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				cols = append(cols, fmt.Sprintf("%s=%T:%v", n, v, v))
			}
			return strings.Join(cols, "\n")
		}
		for k, change := range variants {
			ea, err := db.RawEvent(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			change(ea)
			if _, err := db.WriteEventRow(ctx, ea, true); err != nil {
				t.Fatal(err)
			}
			want := row(a.ID)
			modelstest.WaitFor(t, 10*time.Second, func() error {
				eb := *ea
				eb.ID, eb.Slug = b.ID, b.Slug
				prepared, err := db.WriteEventRow(ctx, &eb, false)
				if err != nil {
					t.Fatal(err)
				}
				if db.Dialect() == models.SQLite && !prepared {
					return fmt.Errorf("variant %d: the statement is not prepared yet", k)
				}
				return nil
			})
			if got := row(b.ID); got != want {
				t.Errorf("variant %d: the prepared update stored\n%s\nbun's\n%s", k, got, want)
			}
			// The same struct inserted as a new event both ways.
			viaBun := *ea
			if _, err := db.InsertEventRow(ctx, &viaBun, fmt.Sprint("bun-", k), true); err != nil {
				t.Fatal(err)
			}
			want = row(viaBun.ID)
			n := 0
			var bound models.Event
			modelstest.WaitFor(t, 10*time.Second, func() error {
				bound = *ea
				n++
				prepared, err := db.InsertEventRow(ctx, &bound, fmt.Sprint("bound-", k, "-", n), false)
				if err != nil {
					t.Fatal(err)
				}
				if db.Dialect() == models.SQLite && !prepared {
					return fmt.Errorf("variant %d: the insert is not prepared yet", k)
				}
				return nil
			})
			if got := row(bound.ID); got != want {
				t.Errorf("variant %d: the prepared insert stored\n%s\nbun's\n%s", k, got, want)
			}
		}
	})
}
