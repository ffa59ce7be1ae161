package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestMonthViewReadsAgreeWithTheDayLists holds the public month grid's two
// reads to the API's list of each day (starts_before its end, ends_after
// its start), for an anonymous reader and an editor, on both dialects:
// MonthDays gives each day's total and its first events,
// the same ids in the same order, their titles in the reader's language. The
// calendar mixes short, multi-day and all-day events, events starting at the
// same minute, a pending one, a hidden one, and days in a zone nine hours
// from UTC, so a day's range, the union's order and the visibility each
// show when wrong.
func TestMonthViewReadsAgreeWithTheDayLists(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		tokyo, err := time.LoadLocation("Asia/Tokyo")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2027, 5, 1, 12, 0, 0, 0, tokyo)
		db.UseSite(&models.Site{Location: tokyo, Clock: func() time.Time { return now }})
		editor := newUser(t, db, "editor", models.RoleEditor)
		contrib := newUser(t, db, "contrib", models.RoleContributor)
		r := rand.New(rand.NewPCG(36, 1))
		titles := []string{"Café Müller", "音楽祭", "한국 재즈", "Ópera Prima", "夜の港"}
		for i := range 60 {
			day := 1 + r.IntN(31)
			hour := []int{0, 9, 9, 18, 23}[r.IntN(5)]
			start := time.Date(2027, 5, day, hour, 0, 0, 0, tokyo)
			length := time.Duration(1+r.IntN(3)) * time.Hour
			if i%7 == 0 {
				length = time.Duration(24+r.IntN(96)) * time.Hour // several days
			}
			in := baseInput(fmt.Sprintf("%s %d", titles[i%len(titles)], i),
				start.Format("2006-01-02 15:04"), start.Add(length).Format("2006-01-02 15:04"))
			in.Timezone = ptr("Asia/Tokyo")
			if i%11 == 0 {
				in.AllDay = ptr(true)
			}
			if i == 13 {
				in.HideFromListings = ptr(true)
			}
			u := editor
			if i%17 == 5 {
				u = contrib // pending: the editor sees it, the anonymous reader does not
			}
			e, err := db.CreateEvent(ctx, u, in)
			if err != nil {
				t.Fatal(err)
			}
			if i%3 == 0 {
				if _, err := db.UpdateEvent(ctx, editor, models.ByID(e.ID),
					models.EventInput{Title: ptr(fmt.Sprintf("イベント %d", i)), Lang: "ja"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		days := make([]time.Time, 32)
		for k := range days {
			days[k] = time.Date(2027, 5, 1+k, 0, 0, 0, 0, tokyo)
		}
		const per = 3
		for _, reader := range []*models.User{nil, editor} {
			f := models.EventFilter{Lang: "ja"}
			counts, firsts, err := db.MonthDays(ctx, reader, f, days, per)
			if err != nil {
				t.Fatal(err)
			}
			busy := 0
			for k := range 31 {
				g := f
				g.EndsAfter, g.StartsBefore = &days[k], &days[k+1]
				g.PerPage = per
				p, err := db.ListEvents(ctx, reader, g)
				if err != nil {
					t.Fatal(err)
				}
				if counts[k] != p.Total {
					t.Errorf("reader %v, May %d: MonthDays counts %d, the day's list %d", reader != nil, k+1, counts[k], p.Total)
				}
				if len(p.Items) == per {
					busy++
				}
				var want, got []string
				for _, e := range p.Items {
					want = append(want, fmt.Sprintf("%d %s", e.ID, e.Title))
				}
				for _, e := range firsts[k] {
					got = append(got, fmt.Sprintf("%d %s", e.ID, e.Title))
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("reader %v, May %d: first events\n got %v\nwant %v", reader != nil, k+1, got, want)
				}
			}
			if busy < 5 {
				t.Fatalf("only %d days hold %d events or more: the fixture does not test the limit", busy, per)
			}
		}
	})
}
