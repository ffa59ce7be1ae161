package models_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestListTotalsStayExactThroughEveryWrite: after every kind of write that
// can move an event in or out of a total (create, dates, status, hidden
// flag, categories, tags, venues, organizers, trash, restore, delete,
// series and their sync, scheduled publishing, a term, venue or organizer
// deleted, a category moved, seed, a site loaded), the day buckets of the
// totals equal a count from the events (RepairDayCounts finds nothing),
// and the totals of a few lists equal a count of their rows, on both
// dialects.
func TestListTotalsStayExactThroughEveryWrite(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		now := time.Date(2027, 5, 1, 12, 0, 0, 0, time.UTC)
		db.UseSite(&models.Site{Location: time.UTC, Clock: func() time.Time { return now }})
		editor := newUser(t, db, "editor", models.RoleEditor)
		contrib := newUser(t, db, "contrib", models.RoleContributor)
		venue, _, err := db.Venues().Create(ctx, editor, models.VenueInput{Venue: ptr("Salle Pleyel à Paris")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		org, _, err := db.Organizers().Create(ctx, editor, models.OrganizerInput{Organizer: ptr("東京音楽協会")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		exact(t, db, "fixtures")
		step := func(name string) {
			t.Helper()
			exact(t, db, name)
			checkTotals(t, db, editor, name)
		}
		mk := func(u *models.User, title, start, end string, cats, tags []string) *models.Event {
			t.Helper()
			in := baseInput(title, start, end)
			in.Categories, in.Tags = termRefs(cats), termRefs(tags)
			in.Venues = &[]models.VenueRef{{ID: venue.ID}}
			in.Organizers = &[]models.OrganizerRef{{ID: org.ID}}
			e, err := db.CreateEvent(ctx, u, in)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		update := func(e *models.Event, in models.EventInput) {
			t.Helper()
			in.Lang = "en"
			if _, err := db.UpdateEvent(ctx, editor, models.ByID(e.ID), in); err != nil {
				t.Fatal(err)
			}
		}
		a := mk(editor, "Café Müller", "2027-05-01 10:00", "2027-05-01 11:00", []string{"Musique", "Jazz"}, []string{"entrée libre"})
		step("create")
		b := mk(editor, "音楽祭", "2027-05-02 22:00", "2027-05-05 01:00", []string{"Jazz"}, []string{"라이브"})
		mk(contrib, "한국 재즈", "2027-05-03 09:00", "2027-05-03 10:00", []string{"Musique"}, nil) // pending
		step("create several days long, and pending")
		update(b, models.EventInput{StartDate: ptr("2027-05-10 09:00"), EndDate: ptr("2027-05-20 18:00")})
		step("dates moved, longer")
		update(a, models.EventInput{PostInput: models.PostInput{Status: ptr(models.StatusDraft)}})
		step("publish to draft")
		update(a, models.EventInput{PostInput: models.PostInput{Status: ptr(models.StatusPublish)}})
		step("draft to publish")
		update(a, models.EventInput{HideFromListings: ptr(true)})
		step("hidden from listings")
		update(a, models.EventInput{HideFromListings: ptr(false), Categories: termRefs([]string{"Théâtre"}), Tags: termRefs(nil)})
		step("categories replaced, tags cleared")
		update(b, models.EventInput{Venues: &[]models.VenueRef{}, Organizers: &[]models.OrganizerRef{}})
		step("venue and organizer cleared")
		if _, err := db.TrashEvent(ctx, editor, models.ByID(a.ID), "en"); err != nil {
			t.Fatal(err)
		}
		step("trash")
		update(a, models.EventInput{PostInput: models.PostInput{Status: ptr(models.StatusPublish)}})
		step("restore")
		if _, err := db.DeleteEvent(ctx, editor, models.ByID(b.ID), "en"); err != nil {
			t.Fatal(err)
		}
		step("delete")

		in := baseInput("Séance hebdomadaire", "2027-05-04 19:00", "2027-05-04 21:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=6")
		in.Categories = termRefs([]string{"Jazz"})
		in.Venues = &[]models.VenueRef{{ID: venue.ID}}
		series, err := db.CreateEvent(ctx, editor, in)
		if err != nil {
			t.Fatal(err)
		}
		step("series created")
		update(series, models.EventInput{Recurrence: ptr("FREQ=WEEKLY;COUNT=3"), Scope: models.ScopeAll, StartDate: ptr("2027-05-05 19:00"), EndDate: ptr("2027-05-05 21:00")})
		step("series synced")
		occ, err := db.ListEvents(ctx, editor, models.EventFilter{ParentID: &series.ID, PerPage: 50, Lang: "en"})
		if err != nil || len(occ.Items) != 3 {
			t.Fatalf("series synced: %v occurrences, %v", occ, err)
		}
		update(occ.Items[1], models.EventInput{StartDate: ptr("2027-05-26 19:00"), EndDate: ptr("2027-05-26 21:00")})
		step("an occurrence moved past the next")
		update(occ.Items[0], models.EventInput{PostInput: models.PostInput{Status: ptr(models.StatusDraft)}, HideFromListings: ptr(true)})
		step("the series' first event a draft, hidden")
		if _, err := db.DeleteEvent(ctx, editor, models.ByID(occ.Items[2].ID), "en"); err != nil {
			t.Fatal(err)
		}
		step("an occurrence deleted")
		if _, err := db.TrashScoped(ctx, editor, models.ByID(series.ID), models.ScopeAll, "en"); err != nil {
			t.Fatal(err)
		}
		step("series trashed")

		sched := baseInput("予定", "2027-06-01 10:00", "2027-06-01 11:00")
		sched.PostInput = models.PostInput{Status: ptr(models.StatusFuture), DateUTC: ptr(now.Add(time.Hour).Format(time.DateTime))}
		sched.Categories = termRefs([]string{"Musique"})
		if _, err := db.CreateEvent(ctx, editor, sched); err != nil {
			t.Fatal(err)
		}
		step("scheduled")
		now = now.Add(2 * time.Hour)
		if n, err := db.PublishDue(ctx); err != nil || n != 1 {
			t.Fatalf("published %d, %v", n, err)
		}
		step("scheduled publish")

		terms, err := db.ListTerms(ctx, nil, models.TermFilter{Taxonomy: models.TaxCategory, PerPage: 50, Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int64{}
		for _, tm := range terms.Items {
			ids[tm.Name] = tm.ID
		}
		if _, err := db.UpdateTerm(ctx, editor, models.TaxCategory, ids["Jazz"], models.TermInput{ParentID: ptr(ids["Musique"])}, "en"); err != nil {
			t.Fatal(err)
		}
		step("category moved under another")
		if _, err := db.DeleteTerm(ctx, editor, models.TaxCategory, ids["Jazz"], "en"); err != nil {
			t.Fatal(err)
		}
		step("category deleted")
		if _, err := db.Venues().Delete(ctx, editor, models.ByID(venue.ID), "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Organizers().Delete(ctx, editor, models.ByID(org.ID), "en"); err != nil {
			t.Fatal(err)
		}
		step("venue and organizer deleted")
	})
}

// TestListTotalsStayExactThroughSeedAndSiteLoad: the bulk writers (a
// seeded calendar, series included, and a site loaded from its export)
// keep the buckets exact.
func TestListTotalsStayExactThroughSeedAndSiteLoad(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, src *models.DB) {
		ctx := context.Background()
		admin := newUser(t, src, "admin", models.RoleAdministrator)
		o := seedOptions(80, admin.ID)
		o.Series = 3
		if _, err := src.Seed(ctx, o, nil); err != nil {
			t.Fatal(err)
		}
		exact(t, src, "seed")
		checkTotals(t, src, admin, "seed")
		var dump bytes.Buffer
		if err := src.DumpSite(ctx, &dump); err != nil {
			t.Fatal(err)
		}
		dst := modelstest.Open(t, src.Dialect())
		if _, err := dst.LoadSite(ctx, &dump); err != nil {
			t.Fatal(err)
		}
		exact(t, dst, "site loaded")
		checkTotals(t, dst, nil, "site loaded")
	})
}

// exact fails unless the day buckets equal a count from the events.
func exact(t *testing.T, db *models.DB, step string) {
	t.Helper()
	if n, err := db.RepairDayCounts(context.Background()); err != nil || n != 0 {
		t.Errorf("%s: %d day buckets, series spans or steps of the totals were wrong (%v)", step, n, err)
	}
}

// checkTotals compares the totals of a few lists with a count of their
// rows.
func checkTotals(t *testing.T, db *models.DB, u *models.User, step string) {
	t.Helper()
	at := func(s string) *time.Time { v, _ := time.Parse(time.DateTime, s); return &v }
	for _, f := range []models.EventFilter{
		{StartMin: at("2027-04-01 00:00:00"), EndMax: at("2027-07-01 00:00:00")},
		{StartMin: at("2027-05-01 10:30:00"), EndMax: at("2027-05-15 00:00:00")},
		{EndMax: at("2027-05-12 00:00:00")},
		{StartMin: at("2027-04-01 00:00:00"), EndMax: at("2027-07-01 00:00:00"), Recurrence: models.RecurrenceSeries},
		{StartMin: at("2027-05-06 00:00:00"), Recurrence: models.RecurrenceSeries},
		{StartMin: at("2027-05-02 00:00:00")},
		{},
	} {
		for _, who := range []*models.User{nil, u} {
			f.Lang = "en"
			days, ok, rows, err := db.ListTotals(context.Background(), who, f)
			if err != nil || !ok || days != rows {
				t.Errorf("%s: total %d (served %v), %d rows (%v)", step, days, ok, rows, err)
			}
		}
	}
}

// TestListTotalsEqualCountsOverRandomWindows: the totals from the day
// buckets equal a count of the rows, over random windows, filters and
// readers, on both dialects.
func TestListTotalsEqualCountsOverRandomWindows(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		rng := rand.New(rand.NewPCG(31, 2))
		base := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
		cats := []string{"Musique", "Jazz", "Théâtre", "美術"}
		tags := []string{"entrée libre", "라이브", "家族"}
		var venues, orgs []int64
		for i := range 3 {
			v, _, err := db.Venues().Create(ctx, editor, models.VenueInput{Venue: ptr(fmt.Sprint("Salle ", i, " à Montréal"))}, "en")
			if err != nil {
				t.Fatal(err)
			}
			o, _, err := db.Organizers().Create(ctx, editor, models.OrganizerInput{Organizer: ptr(fmt.Sprint("主催者 ", i))}, "en")
			if err != nil {
				t.Fatal(err)
			}
			venues, orgs = append(venues, v.ID), append(orgs, o.ID)
		}
		pick := func(names []string) []string {
			var out []string
			for _, n := range names {
				if rng.IntN(3) == 0 {
					out = append(out, n)
				}
			}
			return out
		}
		durations := []time.Duration{0, 30 * time.Minute, 2 * time.Hour, 20 * time.Hour, 50 * time.Hour, 9 * 24 * time.Hour}
		statuses := []string{models.StatusPublish, models.StatusPublish, models.StatusDraft, models.StatusPending, models.StatusPrivate}
		var ends []time.Time // instants an event ends at, for the bounds on the end
		for i := range 160 {
			start := base.Add(time.Duration(rng.IntN(60*24*4)) * 15 * time.Minute)
			end := start.Add(durations[rng.IntN(len(durations))])
			ends = append(ends, end)
			in := baseInput(fmt.Sprint("Événement ", i), start.Format(time.DateTime), end.Format(time.DateTime))
			in.Status = ptr(statuses[rng.IntN(len(statuses))])
			in.HideFromListings = ptr(rng.IntN(6) == 0)
			in.Categories, in.Tags = termRefs(pick(cats)), termRefs(pick(tags))
			if rng.IntN(2) == 0 {
				in.Venues = &[]models.VenueRef{{ID: venues[rng.IntN(len(venues))]}}
			}
			if rng.IntN(2) == 0 {
				in.Organizers = &[]models.OrganizerRef{{ID: orgs[rng.IntN(len(orgs))]}}
			}
			e, err := db.CreateEvent(ctx, editor, in)
			if err != nil {
				t.Fatal(err)
			}
			switch i % 16 {
			case 3: // some deleted,
				if _, err := db.DeleteEvent(ctx, editor, models.ByID(e.ID), "en"); err != nil {
					t.Fatal(err)
				}
				continue
			case 5: // some trashed,
				if _, err := db.TrashEvent(ctx, editor, models.ByID(e.ID), "en"); err != nil {
					t.Fatal(err)
				}
			}
			if i%8 == 0 { // and some moved afterwards
				s := start.Add(time.Duration(rng.IntN(200)-100) * time.Hour)
				if _, err := db.UpdateEvent(ctx, editor, models.ByID(e.ID), models.EventInput{StartDate: ptr(s.Format(time.DateTime)),
					EndDate: ptr(s.Add(durations[rng.IntN(len(durations))]).Format(time.DateTime)), Lang: "en"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Weekly series, some of their occurrences trashed, moved or
		// drafts, and one series ended (a single event again), for the
		// totals of one row per series.
		for i := range 6 {
			s := base.AddDate(0, 0, 3+9*i).Add(time.Duration(18+i%3) * time.Hour)
			in := baseInput(fmt.Sprint("Répétition ", i), s.Format(time.DateTime), s.Add(2*time.Hour).Format(time.DateTime))
			in.Recurrence = ptr(fmt.Sprint("FREQ=WEEKLY;COUNT=", 3+i))
			in.Categories = termRefs(cats[i%2 : i%2+1])
			if i == 4 {
				in.Status = ptr(models.StatusDraft)
			}
			e, err := db.CreateEvent(ctx, editor, in)
			if err != nil {
				t.Fatal(err)
			}
			occ, err := db.ListEvents(ctx, editor, models.EventFilter{ParentID: &e.ID, PerPage: 50, Lang: "en", StartMin: &base})
			if err != nil || len(occ.Items) < 3 {
				t.Fatalf("series %d: %v occurrences, %v", i, occ, err)
			}
			switch i {
			case 1:
				if _, err := db.TrashEvent(ctx, editor, models.ByID(occ.Items[1].ID), "en"); err != nil {
					t.Fatal(err)
				}
			case 2:
				moved := s.AddDate(0, 0, 9)
				if _, err := db.UpdateEvent(ctx, editor, models.ByID(occ.Items[2].ID), models.EventInput{StartDate: ptr(moved.Format(time.DateTime)),
					EndDate: ptr(moved.Add(time.Hour).Format(time.DateTime)), Lang: "en"}); err != nil {
					t.Fatal(err)
				}
			case 3:
				if _, err := db.UpdateEvent(ctx, editor, models.ByID(occ.Items[0].ID), models.EventInput{
					PostInput: models.PostInput{Status: ptr(models.StatusPrivate)}, Lang: "en"}); err != nil {
					t.Fatal(err)
				}
			case 5:
				if _, err := db.UpdateEvent(ctx, editor, models.ByID(e.ID), models.EventInput{Recurrence: ptr(""), Scope: models.ScopeAll, Lang: "en"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		// The longest events become longer than any created.
		for i, days := range []int{12, 20} {
			s := base.AddDate(0, 0, 10+20*i).Add(7 * time.Hour)
			in := baseInput(fmt.Sprint("Exposition ", i), s.Format(time.DateTime), s.Add(time.Hour).Format(time.DateTime))
			in.Categories, in.Venues = termRefs(cats[:1]), &[]models.VenueRef{{ID: venues[0]}}
			e, err := db.CreateEvent(ctx, editor, in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.UpdateEvent(ctx, editor, models.ByID(e.ID), models.EventInput{
				EndDate: ptr(s.AddDate(0, 0, days).Format(time.DateTime)), Lang: "en"}); err != nil {
				t.Fatal(err)
			}
		}
		exact(t, db, "fixtures")
		served, series, past, pairs, whole := 0, 0, 0, 0, 0
		for q := range 500 {
			f := models.EventFilter{Lang: "en"}
			// Instants on and off day boundaries, before, inside and after
			// the events, some a day's first or last second (what a
			// date-only start_date or end_date becomes in a site on UTC:
			// the buckets count that edge day).
			instant := func() *time.Time {
				v := base.Add(time.Duration(rng.IntN(80*24)-10*24) * time.Hour)
				switch rng.IntN(6) {
				case 0, 1, 2:
					v = v.Add(time.Duration(rng.IntN(60)) * time.Minute)
				case 3:
					v = v.Truncate(24 * time.Hour)
				case 4:
					v = v.Truncate(24 * time.Hour).Add(24*time.Hour - time.Second)
				}
				return &v
			}
			if rng.IntN(5) > 0 {
				f.StartMin = instant()
			}
			if rng.IntN(5) > 0 {
				f.EndMax = instant()
				if f.StartMin != nil && f.EndMax.Before(*f.StartMin) && rng.IntN(4) > 0 {
					f.StartMin, f.EndMax = f.EndMax, f.StartMin
				}
			}
			switch rng.IntN(8) {
			case 0, 1: // the admin's upcoming events (ends_after)
				f.EndsAfter = instant()
			case 2: // the public past events (ends_before), at times right at an event's end
				f.EndsBefore = instant()
				if rng.IntN(2) == 0 {
					f.EndsBefore = &ends[rng.IntN(len(ends))]
				}
			}
			switch rng.IntN(8) {
			case 5: // one category and one venue: their pair's buckets
				f.Categories = []models.TermRef{{Name: cats[rng.IntN(len(cats))]}}
				f.VenueIDs = []int64{venues[rng.IntN(len(venues))]}
			case 1:
				f.Categories = []models.TermRef{{Name: cats[rng.IntN(len(cats))]}}
			case 2:
				f.Tags = []models.TermRef{{Name: tags[rng.IntN(len(tags))]}}
			case 3:
				f.VenueIDs = []int64{venues[rng.IntN(len(venues))]}
			case 4:
				f.OrganizerIDs = []int64{orgs[rng.IntN(len(orgs))]}
			}
			if rng.IntN(3) == 0 {
				f.Recurrence = models.RecurrenceSeries
			}
			var u *models.User
			if rng.IntN(2) == 0 {
				u = editor
				f.IncludeHidden = rng.IntN(3) == 0
				if rng.IntN(3) == 0 {
					f.Statuses = []string{statuses[rng.IntN(len(statuses))], models.StatusTrash}[:1+rng.IntN(2)]
				}
			}
			days, ok, rows, err := db.ListTotals(ctx, u, f)
			if err != nil {
				if ve := (*models.ValidationError)(nil); errors.As(err, &ve) { // a category no event was filed under yet
					continue
				}
				t.Fatalf("query %d: %v", q, err)
			}
			if ok {
				served++
				if f.Recurrence == models.RecurrenceSeries {
					series++
				}
				if f.EndsBefore != nil {
					past++
				}
				if len(f.Categories) == 1 && len(f.VenueIDs) == 1 {
					pairs++
				}
				if (f.StartMin != nil && f.StartMin.Equal(f.StartMin.Truncate(24*time.Hour))) ||
					(f.EndMax != nil && f.EndMax.Add(time.Second).Equal(f.EndMax.Add(time.Second).Truncate(24*time.Hour))) {
					whole++
				}
				if days != rows {
					t.Errorf("query %d (%+v, editor %v): total %d from the buckets, %d rows", q, f, u != nil, days, rows)
				}
			}
		}
		if served < 300 || series < 35 || past < 20 || pairs < 30 || whole < 60 {
			t.Errorf("the buckets served %d of 500 totals, %d of one row per series, %d of past events; %d of a category and a venue; %d with a whole edge day",
				served, series, past, pairs, whole)
		}
	})
}

// TestListTotalReadsTheDayBuckets: the total of a default list (a window
// of two years, full pages) reads the month buckets of its whole months and
// the day buckets of the rest, and its counts of rows
// are bounded by the edge days and the longest event, not the window.
func TestListTotalReadsTheDayBuckets(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		for i := range 6 {
			day := time.Date(2027, time.Month(1+i), 3, 10, 0, 0, 0, time.UTC)
			if _, err := db.CreateEvent(ctx, editor, baseInput(fmt.Sprint("Fête ", i), day.Format(time.DateTime), day.Add(time.Hour).Format(time.DateTime))); err != nil {
				t.Fatal(err)
			}
		}
		log := &queryLog{}
		db.AddQueryHook(log)
		from, to := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(2028, 12, 31, 23, 59, 59, 0, time.UTC)
		p, err := db.ListEvents(ctx, nil, models.EventFilter{PerPage: 2, StartMin: &from, EndMax: &to, Lang: "en"})
		if err != nil || p.Total != 6 {
			t.Fatalf("total %v, %v; want 6", p, err)
		}
		buckets, months := false, false
		for _, q := range log.reset() {
			buckets = buckets || strings.Contains(q, "FROM event_day_counts")
			months = months || strings.Contains(q, "FROM event_month_counts")
			if strings.Contains(q, "COUNT(") && strings.Contains(q, "'2026-12-31 00:00:00") && !strings.Contains(q, "'2027-01-01 00:00:00") {
				t.Errorf("a count reads the window from its start to past its first day:\n%s", q)
			}
		}
		if !buckets || !months {
			t.Errorf("the total reads the day buckets: %v, the month buckets of the 24 whole months between: %v", buckets, months)
		}
		// The past events (the public list's ?past=1: ends before now,
		// newest first).
		now := time.Date(2027, 4, 20, 12, 0, 0, 0, time.UTC)
		p, err = db.ListEvents(ctx, nil, models.EventFilter{PerPage: 2, EndsBefore: &now, Desc: true, Lang: "en"})
		if err != nil || p.Total != 4 {
			t.Fatalf("total of the past events %v, %v; want 4", p, err)
		}
		buckets = false
		for _, q := range log.reset() {
			buckets = buckets || strings.Contains(q, "FROM event_day_counts")
			if strings.Contains(q, "COUNT(") && !strings.Contains(q, "'2027-04-") {
				t.Errorf("a count of the past events reads every past day:\n%s", q)
			}
		}
		if !buckets {
			t.Error("the total of the past events does not read the day buckets")
		}
		// One row per series: the buckets and one probe per series, not
		// the distinct series of every event of the window.
		in := baseInput("Atelier hebdomadaire", "2027-01-05 18:00:00", "2027-01-05 20:00:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=8")
		if _, err := db.CreateEvent(ctx, editor, in); err != nil {
			t.Fatal(err)
		}
		log.reset()
		p, err = db.ListEvents(ctx, nil, models.EventFilter{PerPage: 2, StartMin: &from, EndMax: &to, Recurrence: models.RecurrenceSeries, Lang: "en"})
		if err != nil || p.Total != 7 {
			t.Fatalf("total of one row per series %v, %v; want 7", p, err)
		}
		buckets = false
		for _, q := range log.reset() {
			buckets = buckets || strings.Contains(q, "FROM event_day_counts")
			if strings.Contains(q, "COUNT(DISTINCT") {
				t.Errorf("the total of one row per series counts distinct series over the window:\n%s", q)
			}
		}
		if !buckets {
			t.Error("the total of one row per series does not read the day buckets")
		}
	})
}
