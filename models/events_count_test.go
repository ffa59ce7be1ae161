package models_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestTermFilteredTotalsAgreeWithThePage: a list filtered by categories or
// tags counts its total from the links' copies of their events; that total
// equals the number of events the page query itself finds (read here as one
// page big enough to hold them all, which needs no count), for every caller,
// status filter, window and hidden flag, after writes that move the copies.
func TestTermFilteredTotalsAgreeWithThePage(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		author := newUser(t, db, "author", models.RoleAuthor)
		parent, err := db.CreateTerm(ctx, editor, models.TaxCategory, models.TermInput{Name: ptr("Music")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateTerm(ctx, editor, models.TaxCategory, models.TermInput{Name: ptr("Jazz"), ParentID: &parent.ID}, "en"); err != nil {
			t.Fatal(err)
		}
		for _, tm := range []struct{ tax, name string }{{models.TaxCategory, "Talks"}, {models.TaxTag, "live"}, {models.TaxTag, "free"}} {
			if _, err := db.CreateTerm(ctx, editor, tm.tax, models.TermInput{Name: ptr(tm.name)}, "en"); err != nil {
				t.Fatal(err)
			}
		}
		var venues, orgs []int64
		for _, name := range []string{"Hall", "Club"} {
			v, _, err := db.Venues().Create(ctx, editor, models.VenueInput{Venue: ptr(name)}, "en")
			if err != nil {
				t.Fatal(err)
			}
			venues = append(venues, v.ID)
			o, _, err := db.Organizers().Create(ctx, editor, models.OrganizerInput{Organizer: ptr(name + " Society")}, "en")
			if err != nil {
				t.Fatal(err)
			}
			orgs = append(orgs, o.ID)
		}
		statuses := []string{models.StatusPublish, models.StatusDraft, models.StatusPending, models.StatusPrivate}
		var events []*models.Event
		for i := range 40 {
			day := time.Date(2027, 3, 1+i%28, 10, 0, 0, 0, time.UTC)
			in := baseInput(fmt.Sprint("Event ", i), day.Format("2006-01-02 15:04"), day.Add(time.Duration(1+i%3)*24*time.Hour).Format("2006-01-02 15:04"))
			in.Status = ptr(statuses[i%len(statuses)])
			in.HideFromListings = ptr(i%7 == 0)
			// Some events in both the parent and its subcategory: counted once.
			in.Categories = termRefs([][]string{{"Music"}, {"Jazz"}, {"Music", "Jazz"}, {"Talks"}, nil}[i%5])
			in.Tags = termRefs([][]string{{"live"}, {"live", "free"}, nil}[i%3])
			in.Venues = &[]models.VenueRef{{ID: venues[i%2]}}
			if i%3 > 0 {
				in.Organizers = &[]models.OrganizerRef{{ID: orgs[i%3-1]}}
			}
			in.Featured = ptr(i%3 == 1)
			u := editor
			if i%4 == 1 {
				u = author
			}
			e, err := db.CreateEvent(ctx, u, in)
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, e)
		}
		// A weekly series: its occurrences' links are copied by the
		// series, not written by the event's own insert.
		series := baseInput("Weekly", "2027-03-03 18:00", "2027-03-03 20:00")
		series.Recurrence = ptr("FREQ=WEEKLY;COUNT=4")
		series.Categories, series.Tags = termRefs([]string{"Music"}), termRefs([]string{"live"})
		series.Venues, series.Organizers = &[]models.VenueRef{{ID: venues[0]}}, &[]models.OrganizerRef{{ID: orgs[1]}}
		weekly, err := db.CreateEvent(ctx, editor, series)
		if err != nil {
			t.Fatal(err)
		}
		// The whole series moved and made a draft, one occurrence trashed.
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(weekly.ID), models.EventInput{StartDate: ptr("2027-03-04 18:00"),
			EndDate: ptr("2027-03-04 21:00"), PostInput: models.PostInput{Status: ptr(models.StatusDraft)}, Scope: models.ScopeAll, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		occ, err := db.ListEvents(ctx, editor, models.EventFilter{ParentID: &weekly.ID, PerPage: 10, Lang: "en", IncludeHidden: true})
		if err != nil || len(occ.Items) < 3 {
			t.Fatalf("occurrences of the series: %v, %v", occ, err)
		}
		if _, err := db.TrashEvent(ctx, editor, models.ByID(occ.Items[2].ID), "en"); err != nil {
			t.Fatal(err)
		}
		// An event with a venue and an organizer but no category or tag,
		// moved and made private.
		bare := baseInput("No terms", "2027-03-06 10:00", "2027-03-06 11:00")
		bare.Venues, bare.Organizers = &[]models.VenueRef{{ID: venues[0]}}, &[]models.OrganizerRef{{ID: orgs[1]}}
		lone, err := db.CreateEvent(ctx, editor, bare)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(lone.ID), models.EventInput{StartDate: ptr("2027-03-16 10:00"),
			EndDate: ptr("2027-03-16 12:00"), PostInput: models.PostInput{Status: ptr(models.StatusPrivate)}, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		// Writes that move the copies: dates, status, hidden, trash.
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(events[2].ID), models.EventInput{
			StartDate: ptr("2027-04-20 10:00"), EndDate: ptr("2027-04-21 10:00"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(events[5].ID), models.EventInput{
			PostInput: models.PostInput{Status: ptr(models.StatusPublish)}, HideFromListings: ptr(true), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TrashEvent(ctx, editor, models.ByID(events[10].ID), "en"); err != nil {
			t.Fatal(err)
		}
		// and writes that move the venue and organizer links' copies:
		// dates and status with new links, links alone.
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(events[4].ID), models.EventInput{
			StartDate: ptr("2027-03-12 10:00"), EndDate: ptr("2027-03-12 12:00"), Venues: &[]models.VenueRef{{ID: venues[1]}},
			Organizers: &[]models.OrganizerRef{{ID: orgs[0]}}, PostInput: models.PostInput{Status: ptr(models.StatusPublish)}, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(events[7].ID), models.EventInput{
			Venues: &[]models.VenueRef{{ID: venues[0]}}, Organizers: &[]models.OrganizerRef{{ID: orgs[1]}}, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(events[9].ID), models.EventInput{
			StartDate: ptr("2027-03-02 09:00"), EndDate: ptr("2027-03-25 09:00"), HideFromListings: ptr(false), Lang: "en"}); err != nil {
			t.Fatal(err)
		}

		at := func(s string) *time.Time { v, _ := time.Parse(time.DateOnly, s); return &v }
		windows := []models.EventFilter{{}, {StartMin: at("2027-03-05"), EndMax: at("2027-03-20")},
			{StartsAfter: at("2027-03-10"), EndsBefore: at("2027-04-30")}, {EndsAfter: at("2027-03-15"), StartsBefore: at("2027-03-25")}}
		terms := []struct {
			cats, tags []string
			venue, org bool
			featured   *bool
		}{{cats: []string{"music"}}, {cats: []string{"jazz"}},
			{tags: []string{"live"}}, {tags: []string{"live", "free"}}, {cats: []string{"talks"}},
			{cats: []string{"music"}, tags: []string{"free"}}, {cats: []string{"music"}, venue: true},
			{tags: []string{"live"}, venue: true, featured: ptr(true)}, {cats: []string{"jazz"}, featured: ptr(false)},
			{cats: []string{"music"}, org: true}, {venue: true, org: true}, {tags: []string{"free"}, org: true},
			{cats: []string{"music", "talks"}, tags: []string{"live"}, venue: true, org: true}, {venue: true}, {org: true}}
		callers := []*models.User{nil, editor, author}
		checked := 0
		for _, u := range callers {
			for _, w := range windows {
				for _, tm := range terms {
					for _, st := range [][]string{nil, {models.StatusPublish}, {models.StatusDraft, models.StatusPrivate}} {
						for _, hidden := range []bool{false, true} {
							if st != nil && u == nil && (len(st) > 1 || st[0] != models.StatusPublish) {
								continue // refused to anonymous callers
							}
							f := w
							f.Lang, f.Statuses, f.IncludeHidden = "en", st, hidden
							f.Categories, f.Tags, f.Featured = refsOf(tm.cats), refsOf(tm.tags), tm.featured
							if tm.venue {
								f.VenueIDs = venues[:1]
							}
							if tm.org {
								f.OrganizerIDs = orgs[1:]
							}
							f.PerPage = 100
							all, err := db.ListEvents(ctx, u, f)
							if err != nil {
								t.Fatal(err)
							}
							// The truth: the events read and every link
							// probed, never a link's copies.
							plain, err := db.ListEvents(ctx, u, models.PlainLinks(f))
							if err != nil {
								t.Fatal(err)
							}
							if got, want := eventIDs(all.Items), eventIDs(plain.Items); !slices.Equal(got, want) {
								t.Errorf("window %d, categories %v tags %v venue %v organizer %v, statuses %v, hidden %v: page %v, from the events %v",
									checked, tm.cats, tm.tags, tm.venue, tm.org, st, hidden, got, want)
							}
							f.PerPage = 1
							one, err := db.ListEvents(ctx, u, f)
							if err != nil {
								t.Fatal(err)
							}
							plainOne, err := db.ListEvents(ctx, u, models.PlainLinks(f))
							if err != nil {
								t.Fatal(err)
							}
							if one.Total != plainOne.Total || one.Total != len(plain.Items) {
								t.Errorf("window %d, categories %v tags %v venue %v organizer %v, statuses %v, hidden %v: total %d, from the events %d (%d listed)",
									checked, tm.cats, tm.tags, tm.venue, tm.org, st, hidden, one.Total, plainOne.Total, len(plain.Items))
							}
							if one.Total != len(all.Items) {
								name := "anonymous"
								if u != nil {
									name = string(u.Role)
								}
								t.Errorf("%s, window %d, categories %v tags %v, statuses %v, hidden %v: total %d, the page finds %d",
									name, checked, tm.cats, tm.tags, st, hidden, one.Total, len(all.Items))
							}
							checked++
						}
					}
				}
			}
		}
		if checked < 200 {
			t.Fatalf("only %d combinations checked", checked)
		}
	})
}

// TestTermFilteredCountReadsTheLinksIndex: the count of rows of a window
// filtered by a category (a window within a day, or the edge days of a
// total from the day buckets) is one plain COUNT(*) over the events filed under it (its
// subcategories included, without a DISTINCT), and by a tag one over its
// links, each through its window index, not a probe per event.
func TestTermFilteredCountReadsTheLinksIndex(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		music, err := db.CreateTerm(ctx, editor, models.TaxCategory, models.TermInput{Name: ptr("Music")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateTerm(ctx, editor, models.TaxCategory, models.TermInput{Name: ptr("Jazz"), ParentID: ptr(music.ID)}, "en"); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			in := baseInput(fmt.Sprint("Event ", i), "2027-05-01 10:00", "2027-05-01 11:00")
			in.Categories, in.Tags = termRefs([]string{"Music", "Jazz"}), termRefs([]string{"live"})
			if _, err := db.CreateEvent(ctx, editor, in); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			f           models.EventFilter
			from, index string
		}{
			{models.EventFilter{Categories: refsOf([]string{"music"})}, "FROM event_category_ancestors AS l", "event_category_ancestors_window_idx"},
			{models.EventFilter{Tags: refsOf([]string{"live"})}, "FROM event_terms AS l", "event_terms_window_idx"},
		} {
			log := &queryLog{}
			db.AddQueryHook(log)
			c.f.PerPage, c.f.Lang = 2, "en"
			// Within one day: counted from rows, as the edge days of a
			// total from the day buckets are (events_totals.go).
			from, to := time.Date(2027, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 5, 1, 23, 59, 59, 0, time.UTC)
			c.f.StartMin, c.f.EndMax = &from, &to
			p, err := db.ListEvents(ctx, nil, c.f)
			if err != nil || p.Total != 3 {
				t.Fatalf("list: total %v, %v; want 3", p, err)
			}
			var counts []string
			for _, q := range log.reset() {
				if strings.Contains(q, "COUNT(") {
					counts = append(counts, q)
				}
			}
			if len(counts) != 1 || !strings.Contains(counts[0], c.from) || !strings.Contains(counts[0], "COUNT(*)") || strings.Contains(counts[0], "DISTINCT") {
				t.Fatalf("want one COUNT(*) %s, got:\n%s", c.from, strings.Join(counts, "\n"))
			}
			re := regexp.MustCompile(`SEARCH l USING COVERING INDEX ` + c.index + `|table=l type=\w+ possible_keys=\S* key=` + c.index)
			if plan := explain(t, db, counts[0]); !re.MatchString(plan) {
				t.Errorf("the count does not read %s:\n%s\n%s", c.index, counts[0], plan)
			}
		}
	})
}

func refsOf(slugs []string) []models.TermRef {
	refs := make([]models.TermRef, len(slugs))
	for i, s := range slugs {
		refs[i] = models.TermRef{Name: s}
	}
	return refs
}

// eventIDs is the ids of events, in order.
func eventIDs(events []*models.Event) []int64 {
	ids := make([]int64, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	return ids
}

// TestTwoKindsOfLinksReadTheSmaller: a list filtered by a category and an
// organizer counts its total from the window index of whichever of the two
// has fewer events in the window (the day buckets tell), probing the
// other; a category and a venue count from the buckets of their pair. On
// SQLite the page walks the window index of the smaller link; the total
// and the page stay those of the events.
func TestTwoKindsOfLinksReadTheSmaller(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		var venues, orgs []int64
		for i, name := range []string{"Big hall", "Small room"} {
			v, _, err := db.Venues().Create(ctx, editor, models.VenueInput{Venue: ptr(name)}, "en")
			if err != nil {
				t.Fatal(err)
			}
			venues = append(venues, v.ID)
			o, _, err := db.Organizers().Create(ctx, editor, models.OrganizerInput{Organizer: ptr([]string{"Théâtre du Châtelet", "서울 재즈 협회"}[i])}, "en")
			if err != nil {
				t.Fatal(err)
			}
			orgs = append(orgs, o.ID)
		}
		// Music: 12 events, 10 of them in the big hall, 2 in the small
		// room; talks: 2 events in the big hall, which holds 3 more.
		for i := range 17 {
			day := time.Date(2027, 5, 2+i, 10, 0, 0, 0, time.UTC)
			in := baseInput(fmt.Sprint("Event ", i), day.Format("2006-01-02 15:04"), day.Add(time.Hour).Format("2006-01-02 15:04"))
			in.Categories = termRefs([]string{"Music"})
			in.Venues = &[]models.VenueRef{{ID: venues[0]}}
			in.Organizers = &[]models.OrganizerRef{{ID: orgs[0]}}
			switch {
			case i >= 14:
				in.Categories = nil
			case i >= 12:
				in.Categories = termRefs([]string{"Talks"})
			case i >= 10:
				in.Venues = &[]models.VenueRef{{ID: venues[1]}}
				in.Organizers = &[]models.OrganizerRef{{ID: orgs[1]}}
			}
			if _, err := db.CreateEvent(ctx, editor, in); err != nil {
				t.Fatal(err)
			}
		}
		from, to := time.Date(2027, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
		type kase struct {
			cat    string
			link   int
			total  int
			driver string
		}
		for _, c := range []kase{{"music", 1, 2, "event_venues"}, {"talks", 0, 2, "event_category_ancestors"}, {"music", 0, 10, "event_category_ancestors"}} {
			for _, byVenue := range []bool{false, true} {
				log := &queryLog{}
				db.AddQueryHook(log)
				f := models.EventFilter{Categories: refsOf([]string{c.cat}), StartMin: &from, EndMax: &to, PerPage: 1, Lang: "en"}
				driver, what := strings.Replace(c.driver, "event_venues", "event_organizers", 1), "organizer"
				if byVenue {
					f.VenueIDs, driver, what = []int64{venues[c.link]}, c.driver, "venue"
				} else {
					f.OrganizerIDs = []int64{orgs[c.link]}
				}
				p, err := db.ListEvents(ctx, nil, f)
				if err != nil || p.Total != c.total {
					t.Fatalf("%s, %s %d: total %v, %v; want %d", c.cat, what, c.link, p, err, c.total)
				}
				qs := log.reset()
				all := strings.Join(qs, "\n")
				if byVenue {
					// The pair's buckets; rows are counted on the edge days only.
					if !strings.Contains(all, "event_day_counts") || !strings.Contains(all, "dim = 'p'") {
						t.Errorf("%s, venue %d: the total does not read the pair's buckets:\n%s", c.cat, c.link, all)
					}
				} else {
					counted := false
					for _, q := range qs {
						if strings.Contains(q, "COUNT(") {
							counted = true
							if !strings.Contains(q, "COUNT(*) FROM "+driver+" AS l") {
								t.Errorf("%s, organizer %d: the total does not read %s:\n%s", c.cat, c.link, driver, q)
							}
						}
					}
					if !counted {
						t.Errorf("%s, organizer %d: no count:\n%s", c.cat, c.link, all)
					}
				}
				if db.Dialect() == models.SQLite && !strings.Contains(all, "FROM "+driver+" AS d CROSS JOIN events") {
					t.Errorf("%s, %s %d: the page does not walk %s:\n%s", c.cat, what, c.link, driver, all)
				}
			}
		}
	})
}
