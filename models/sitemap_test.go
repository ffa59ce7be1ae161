package models_test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestSitemapChildrenListEveryPublicRecordOnce (issue 29, item 5): the
// children of each kind's sitemap, runs of size ids, together give every
// record an anonymous reader may read (published: an event hidden from
// listings too; any category and tag) exactly once, each child at most size
// of them, none of the others; a child past the end or of nothing gives
// none; the modified time is the record's (none for terms).
func TestSitemapChildrenListEveryPublicRecordOnce(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		want := map[models.Kind]map[int64]string{}
		add := func(k models.Kind, id int64, slug string) {
			if want[k] == nil {
				want[k] = map[int64]string{}
			}
			want[k][id] = slug
		}
		for i, status := range []string{models.StatusPublish, models.StatusDraft, models.StatusPublish, models.StatusPrivate,
			models.StatusPublish, models.StatusPending, models.StatusPublish} {
			post := models.PostInput{Status: ptr(status)}
			v, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{PostInput: post, Venue: ptr(fmt.Sprint("東京会場 ", i))}, "ja")
			if err != nil {
				t.Fatal(err)
			}
			o, _, err := db.Organizers().Create(ctx, models.Console, models.OrganizerInput{PostInput: post, Organizer: ptr(fmt.Sprint("Fête ", i))}, "fr")
			if err != nil {
				t.Fatal(err)
			}
			in := models.EventInput{Title: ptr(fmt.Sprint("여름 축제 ", i)), StartDate: ptr("2030-07-01 10:00"), EndDate: ptr("2030-07-01 12:00"),
				Lang: "ko", HideFromListings: ptr(i == 2), Tags: &[]models.TermRef{{Name: fmt.Sprint("タグ", i)}}}
			in.Status = ptr(status)
			e, err := db.CreateEvent(ctx, models.Console, in)
			if err != nil {
				t.Fatal(err)
			}
			if status == models.StatusPublish {
				add(models.KindVenue, v.ID, v.Slug)
				add(models.KindOrganizer, o.ID, o.Slug)
				add(models.KindEvent, e.ID, e.Slug)
			}
			add(models.KindTag, e.Tags[0].ID, e.Tags[0].Slug) // terms have no status: each has its page
		}
		cat, err := db.CreateTerm(ctx, models.Console, models.TaxCategory, models.TermInput{Name: ptr("音楽")}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		add(models.KindCategory, cat.ID, cat.Slug)
		trashed := addEvent(t, db, models.StatusTrash)

		const size = 2
		for _, k := range []models.Kind{models.KindEvent, models.KindVenue, models.KindOrganizer, models.KindCategory, models.KindTag} {
			children, err := db.SitemapChildren(ctx, k, size)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int64]string{}
			last := 0
			for _, n := range children {
				if n <= last {
					t.Errorf("%s: children %v out of order", k, children)
				}
				last = n
				entries, err := db.SitemapEntries(ctx, k, size, n)
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) == 0 || len(entries) > size {
					t.Errorf("%s child %d: %d entries, want 1 to %d", k, n, len(entries), size)
				}
				for _, e := range entries {
					if e.ID <= int64((n-1)*size) || e.ID > int64(n*size) {
						t.Errorf("%s child %d lists id %d", k, n, e.ID)
					}
					if _, dup := got[e.ID]; dup {
						t.Errorf("%s %d listed twice", k, e.ID)
					}
					got[e.ID] = e.Slug
					if termKind := k == models.KindCategory || k == models.KindTag; termKind != e.Modified.IsZero() {
						t.Errorf("%s %d: modified %v", k, e.ID, e.Modified)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want[k]) {
				t.Errorf("%s: listed %v, want %v", k, got, want[k])
			}
			for _, n := range []int{0, -1, last + 1, math.MaxInt} {
				if entries, err := db.SitemapEntries(ctx, k, size, n); err != nil || len(entries) != 0 {
					t.Errorf("%s child %d: %v %v, want none", k, n, entries, err)
				}
			}
		}
		if entries, err := db.SitemapEntries(ctx, models.KindEvent, 1, int(trashed)); err != nil || len(entries) != 0 {
			t.Errorf("the trashed event's child: %v %v, want none", entries, err)
		}
		e, err := db.GetEvent(ctx, models.Console, models.ByID(firstKey(want[models.KindEvent])), "en")
		if err != nil {
			t.Fatal(err)
		}
		entries, err := db.SitemapEntries(ctx, models.KindEvent, 1, int(e.ID))
		if err != nil || len(entries) != 1 || !entries[0].Modified.Equal(e.UpdatedAt) {
			t.Errorf("event %d: %v %v, want modified %v", e.ID, entries, err, e.UpdatedAt)
		}
		if _, err := db.SitemapChildren(ctx, models.KindUser, size); err == nil {
			t.Error("a sitemap of users was given")
		}
		if _, err := db.SitemapChildren(ctx, models.KindEvent, 0); err == nil {
			t.Error("children of 0 ids were given")
		}
	})
}

func firstKey(m map[int64]string) int64 {
	first := int64(math.MaxInt64)
	for id := range m {
		first = min(first, id)
	}
	return first
}

// TestSitemapQueriesSeekAnIndex: on both dialects, the seek of a kind's
// next child reads its sitemap index (status or taxonomy, then id), so
// records without a page in between cost nothing, and the read of a child
// is one range, of that index or of the primary key, never a scan of the
// table or of a whole index: the sitemap index costs one seek per child, a
// child one range.
func TestSitemapQueriesSeekAnIndex(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		statuses := []string{models.StatusPublish, models.StatusPublish, models.StatusDraft, models.StatusPublish, models.StatusTrash}
		for i := range 400 {
			addEvent(t, db, statuses[i%len(statuses)])
		}
		for i := range 30 {
			if _, err := db.CreateTerm(ctx, models.Console, []string{models.TaxCategory, models.TaxTag}[i%2],
				models.TermInput{Name: ptr(fmt.Sprint("用語 ", i))}, "ja"); err != nil {
				t.Fatal(err)
			}
			post := models.PostInput{Status: ptr(statuses[i%len(statuses)])}
			if _, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{PostInput: post, Venue: ptr(fmt.Sprint("会場 ", i))}, "ja"); err != nil {
				t.Fatal(err)
			}
			if _, _, err := db.Organizers().Create(ctx, models.Console, models.OrganizerInput{PostInput: post, Organizer: ptr(fmt.Sprint("주최 ", i))}, "ko"); err != nil {
				t.Fatal(err)
			}
		}
		analyze := "ANALYZE"
		if db.Dialect() == models.MySQL {
			analyze = "ANALYZE TABLE events, venues, organizers, terms"
		}
		if _, err := db.IDB().ExecContext(ctx, analyze); err != nil {
			t.Fatal(err)
		}
		for _, k := range []models.Kind{models.KindEvent, models.KindVenue, models.KindOrganizer, models.KindCategory, models.KindTag} {
			index := map[models.Kind]string{models.KindEvent: "events", models.KindVenue: "venues", models.KindOrganizer: "organizers"}[k]
			if index == "" {
				index = "terms"
			}
			index += "_sitemap_idx"
			seek := regexp.MustCompile(`^SEARCH r USING COVERING INDEX ` + index + ` \((status|taxonomy)=\? AND id>\?\)$|Extra=(Select tables optimized away|No matching min/max row)`)
			rng := regexp.MustCompile(`^SEARCH r USING (INDEX ` + index + ` \((status|taxonomy)=\? AND id>\? AND id<\?\)|INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\))$|` +
				`table=r type=(range|ref) possible_keys=\S+ key=(PRIMARY|` + index + `) `)
			first, entries := models.SitemapQueries(t, db.Store, k, 100, 101, 200)
			for _, c := range []struct {
				q  string
				re *regexp.Regexp
			}{{first, seek}, {entries, rng}} {
				plan := strings.TrimSpace(explain(t, db, c.q))
				if db.Dialect() == models.SQLite {
					plan = strings.TrimSpace(plan[strings.Index(plan, "detail=")+len("detail="):])
				}
				if strings.Contains(plan, "\n") || !c.re.MatchString(plan) {
					t.Errorf("%s: plan\n%s\nis not one read of %s", c.q, plan, c.re)
				}
			}
		}
	})
}
