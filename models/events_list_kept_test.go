package models_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestListLookupsKeptUnderTheGeneration: a list filtered by a category and
// a venue keeps, under the cache generation, its terms' ids, which of its
// venues its reader may read and which link drives it (resolveEventFilter).
// Each must follow the writes that change it, and a reader's answer must
// not serve another reader: a contributor's own draft venue, which the
// anonymous reader may not filter by; a venue made a draft; a category
// deleted; and through it all, totals equal to those of a store that keeps
// nothing.
func TestListLookupsKeptUnderTheGeneration(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		db.KeepSearchLists(1 << 20)
		ed := newUser(t, db, "editor", models.RoleEditor)
		contrib := newUser(t, db, "contrib", models.RoleContributor)
		hall, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: ptr("東京 文化会館")}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		own, _, err := db.Venues().Create(ctx, contrib, models.VenueInput{Venue: ptr("Café Müller"), PostInput: models.PostInput{Status: ptr(models.StatusDraft)}}, "en")
		if err != nil {
			t.Fatal(err)
		}
		for i, day := range []string{"2027-04-03", "2027-04-10", "2027-04-17"} {
			in := baseInput("음악회 Konzert "+day, day+" 19:00", day+" 21:00")
			in.Status = ptr(models.StatusPublish)
			in.Venues = &[]models.VenueRef{{ID: hall.ID}}
			in.Categories = termRefs([]string{"Musique", "Talks"}[i%2 : i%2+1])
			if _, err := db.CreateEvent(ctx, ed, in); err != nil {
				t.Fatal(err)
			}
		}
		list := func(u *models.User, cat string, venue int64) (int64, error) {
			t.Helper()
			p, err := db.ListEvents(ctx, u, models.EventFilter{Categories: refsOf([]string{cat}), VenueIDs: []int64{venue}, PerPage: 1, Lang: "en"})
			if err != nil {
				return 0, err
			}
			return int64(p.Total), nil
		}
		want := func(u *models.User, cat string, venue int64, total int64) {
			t.Helper()
			for range 2 { // read, then kept
				if n, err := list(u, cat, venue); err != nil || n != total {
					t.Fatalf("%s, venue %d, as %v: total %d (%v), want %d", cat, venue, u, n, err, total)
				}
			}
		}
		refused := func(u *models.User, cat string, venue int64, why string) {
			t.Helper()
			for range 2 {
				if n, err := list(u, cat, venue); !errors.Is(err, models.ErrInvalid) {
					t.Fatalf("%s, venue %d, as %v: total %d (%v), want it refused: %s", cat, venue, u, n, err, why)
				}
			}
		}
		want(nil, "musique", hall.ID, 2)
		// The contributor may filter by the own draft venue; the anonymous
		// reader, next, may not: the answer kept is the contributor's.
		want(contrib, "musique", own.ID, 0)
		refused(nil, "musique", own.ID, "a draft venue of someone else")
		// The hall made a draft: no longer a filter the anonymous may use.
		if _, err := db.Venues().Update(ctx, ed, models.ByID(hall.ID), models.VenueInput{PostInput: models.PostInput{Status: ptr(models.StatusDraft)}}, "en"); err != nil {
			t.Fatal(err)
		}
		refused(nil, "musique", hall.ID, "a venue made a draft")
		want(ed, "musique", hall.ID, 2)
		// The category deleted: its name names nothing any more.
		cats, err := db.ListTerms(ctx, ed, models.TermFilter{Taxonomy: models.TaxCategory, Slug: "musique", PerPage: 10, Lang: "en"})
		if err != nil || len(cats.Items) != 1 {
			t.Fatalf("the category musique: %v, %v", cats, err)
		}
		if _, err := db.DeleteTerm(ctx, ed, models.TaxCategory, cats.Items[0].ID, "en"); err != nil {
			t.Fatal(err)
		}
		refused(ed, "musique", hall.ID, "a category deleted")
		want(ed, "talks", hall.ID, 1)
	})
}
