package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestWholeDayListsReadTheirIndexes (SQLite): the two indexes of
// migrations 20261224000100 and 20261224000200 are what the lists of a
// whole-day window read.
//   - The total subtracts the events of its days that end after the
//     window from the partial index of the events that cross a UTC
//     midnight (events_overnight_idx), not from the window index of every
//     event.
//   - A page with one row per series, bun's and windowPageIDs's prepared
//     one alike, walks the list index, which carries series_id
//     (events_list_series_idx), without reading the events' rows, and
//     seeks each series' earlier occurrences from the window's start only.
//   - The total of such a page counts the series from one range of the
//     steps of the series (series_steps_stab_idx, migration
//     20261230000100) a gap class, not from a probe of every series.
//
// The pages with one row per series equal the first occurrence of each
// series among the window's events, counted from the plain list.
func TestWholeDayListsReadTheirIndexes(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	ctx := context.Background()
	admin := newUser(t, db, "admin", models.RoleAdministrator)
	o := seedOptions(400, admin.ID)
	o.Series, o.SeriesCount, o.MultiDay = 12, 20, 0.3
	if _, err := db.Seed(ctx, o, nil); err != nil {
		t.Fatal(err)
	}
	log := &queryLog{}
	db.AddQueryHook(log)
	// A year, then every week of it: a weekly series has one occurrence
	// in a week, which may end after it (the seed's multi-day events).
	windows := [][2]time.Time{{time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 5, 31, 23, 59, 59, 0, time.UTC)}}
	for d := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2027 || d.Month() < 6; d = d.AddDate(0, 0, 7) {
		windows = append(windows, [2]time.Time{d, d.AddDate(0, 0, 7).Add(-time.Second)})
	}
	var rows, cut int
	for _, w := range windows {
		n, c := compareSeriesPages(t, db, w[0], w[1])
		rows, cut = rows+n, cut+c
	}
	if rows < 300 || cut < 3 {
		t.Errorf("the windows held %d rows of one per series, and %d series whose occurrence started in a window "+
			"and ended after it: too few to test", rows, cut)
	}

	var pages, prepared, subtractions, steps int
	for _, q := range log.reset() {
		plan := explain(t, db, q)
		switch {
		case strings.Contains(q, "NOT EXISTS (SELECT 1 FROM events o"):
			pages++
			if strings.HasPrefix(q, "SELECT event.id FROM") { // windowPageIDs's
				prepared++
			}
			if !strings.Contains(plan, "SEARCH event USING COVERING INDEX events_list_series_idx (status=? AND start_at>? AND start_at<?)") {
				t.Errorf("the page does not walk the list index alone:\n%s\n%s", q, plan)
			}
			if !strings.Contains(plan, "SEARCH o USING COVERING INDEX events_series_start_idx (series_id=? AND start_at>? AND start_at<?)") {
				t.Errorf("the earlier occurrences are not sought from the window's start:\n%s\n%s", q, plan)
			}
		case strings.Contains(q, "FROM (VALUES ") && strings.Contains(q, "series_steps"):
			steps++
			if !strings.Contains(plan, "SEARCH st USING COVERING INDEX series_steps_stab_idx (gap_class=? AND start_at>? AND start_at<?)") {
				t.Errorf("the series of the total are not read as one range of steps a gap class:\n%s\n%s", q, plan)
			}
		case strings.Contains(q, "end_at > ") && strings.Contains(q, "COUNT("):
			subtractions++
			if !strings.Contains(plan, "USING COVERING INDEX events_overnight_idx (status=? AND hide_from_listings=? AND start_at>? AND start_at<?)") {
				t.Errorf("the events that end after the window are not read from the overnight index:\n%s\n%s", q, plan)
			}
		}
	}
	if prepared == 0 || prepared == pages || subtractions == 0 || steps == 0 {
		t.Errorf("found %d page queries (%d prepared), %d subtractions and %d counts of series steps in the lists' SQL, "+
			"want pages of both forms, subtractions and counts of steps", pages, prepared, subtractions, steps)
	}
}

// compareSeriesPages fails unless the pages of one row per series of the
// window [from, to] (anonymous reader, pages of nine) and their total equal
// the first occurrence of each series among the window's events, read from
// the plain list. It returns the number of rows, and of series with an
// occurrence that starts in the window and ends after it.
func compareSeriesPages(t *testing.T, db *models.DB, from, to time.Time) (rows, cut int) {
	t.Helper()
	ctx := context.Background()
	all, err := db.ListEvents(ctx, nil, models.EventFilter{StartMin: &from, EndMax: &to, PerPage: 1000, Lang: "fr"})
	if err != nil {
		t.Fatal(err)
	}
	first := map[int64]*models.Event{}
	for _, e := range all.Items {
		if e.SeriesID == nil {
			continue
		}
		if f, ok := first[*e.SeriesID]; !ok || e.StartAt.Before(f.StartAt) || (e.StartAt.Equal(f.StartAt) && e.ID < f.ID) {
			first[*e.SeriesID] = e
		}
	}
	var want []int64
	for _, e := range all.Items {
		if e.SeriesID == nil || first[*e.SeriesID].ID == e.ID {
			want = append(want, e.ID)
		}
	}
	over, err := db.ListEvents(ctx, nil, models.EventFilter{StartMin: &from, StartsBefore: ptr(to.Add(time.Second)),
		EndsAfter: &to, PerPage: 1000, Lang: "fr"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range over.Items {
		if e.SeriesID != nil && first[*e.SeriesID] == nil {
			cut++
		}
	}
	var got []int64
	for page := 1; ; page++ {
		// Bare pages (the API's) are read by windowPageIDs, the others
		// through bun: both forms.
		p, err := db.ListEvents(ctx, nil, models.EventFilter{StartMin: &from, EndMax: &to, PerPage: 9, Page: page,
			Recurrence: models.RecurrenceSeries, Lang: "fr", Bare: page%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != len(want) {
			t.Errorf("%v – %v, page %d: total %d, want %d", from, to, page, p.Total, len(want))
		}
		got = append(got, pageIDs(p)...)
		if len(p.Items) < 9 {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%v – %v, one row per series: %v, want %v", from, to, got, want)
	}
	return len(want), cut
}

// TestPreparedWindowPagesEqualBuiltOnes (SQLite): the bare pages that
// windowPageIDs reads with a prepared statement (a visibility, hidden
// events and a window, in start order, every event or one row per series,
// or one category and one venue) equal those of the query bun builds, over
// random windows, readers, statuses, orders and pages.
func TestPreparedWindowPagesEqualBuiltOnes(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	ctx := context.Background()
	admin := newUser(t, db, "admin", models.RoleAdministrator)
	author := newUser(t, db, "autrice", models.RoleAuthor)
	o := seedOptions(400, admin.ID)
	o.Series, o.SeriesCount, o.MultiDay, o.Drafts, o.Hidden = 12, 20, 0.3, 0.1, 0.05
	o.Venues, o.Categories = 3, 4 // dense pairs of a category and a venue
	if _, err := db.Seed(ctx, o, nil); err != nil {
		t.Fatal(err)
	}
	var catIDs []int64
	var venues []int64
	if err := db.IDB().NewRaw("SELECT id FROM terms WHERE taxonomy = 'category' ORDER BY id").Scan(ctx, &catIDs); err != nil {
		t.Fatal(err)
	}
	// Our users' names: each category renamed, then filtered by its name
	// in NFD (what a Mac keyboard sends), which the store folds to NFC.
	names := []string{"Musique d’été", "夏祭り", "재즈 공연", "Café-théâtre"}
	var cats []string
	for i, id := range catIDs {
		name := names[i%len(names)] + fmt.Sprint(" ", i)
		if _, err := db.UpdateTerm(ctx, admin, models.TaxCategory, id, models.TermInput{Name: ptr(name)}, "en"); err != nil {
			t.Fatal(err)
		}
		cats = append(cats, norm.NFD.String(name))
	}
	if err := db.IDB().NewRaw("SELECT id FROM venues ORDER BY id").Scan(ctx, &venues); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(31, 4))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func() *time.Time {
		t := base.Add(time.Duration(rng.IntN(2*365*24)) * time.Hour)
		if rng.IntN(2) == 0 {
			t = t.Truncate(24 * time.Hour)
		}
		return &t
	}
	var compared int
	for q := range 400 {
		f := models.EventFilter{Bare: true, PerPage: 1 + rng.IntN(12), Page: 1 + rng.IntN(3), Desc: rng.IntN(3) == 0, Lang: "ko"}
		if rng.IntN(4) != 0 {
			f.StartMin = at()
		}
		if rng.IntN(4) != 0 {
			f.EndMax = at()
			if f.StartMin != nil && f.EndMax.Before(*f.StartMin) {
				f.StartMin, f.EndMax = f.EndMax, f.StartMin
			}
		}
		if rng.IntN(3) == 0 {
			// A category and a venue: the link-driven page (pairPageIDs).
			f.Categories = []models.TermRef{{Name: cats[rng.IntN(len(cats))]}}
			f.VenueIDs = []int64{venues[rng.IntN(len(venues))]}
		} else if rng.IntN(2) == 0 {
			f.Recurrence = models.RecurrenceSeries
		}
		var u *models.User
		switch rng.IntN(4) {
		case 1:
			u, f.IncludeHidden = admin, rng.IntN(2) == 0
		case 2:
			u = admin
			f.Statuses = [][]string{{models.StatusDraft}, {models.StatusPublish, models.StatusDraft}}[rng.IntN(2)]
		case 3:
			u = author // the owner's drafts: not a prepared page (the buckets cannot count it)
		}
		got, err := db.ListEvents(ctx, u, f)
		if err != nil {
			t.Fatalf("query %d (%+v): %v", q, f, err)
		}
		want, err := db.ListEvents(ctx, u, models.BuiltPage(f))
		if err != nil {
			t.Fatalf("query %d, built: %v", q, err)
		}
		if g, w := pageIDs(got), pageIDs(want); !slices.Equal(g, w) || got.Total != want.Total {
			t.Errorf("query %d (%+v, reader %v): prepared %v of %d, built %v of %d", q, f, u != nil, g, got.Total, w, want.Total)
		}
		if len(want.Items) > 0 {
			compared++
		}
	}
	if compared < 150 {
		t.Errorf("only %d of 400 pages held events: the windows miss the seed", compared)
	}
}
