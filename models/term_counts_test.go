package models_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestTermCountsStayExactThroughEveryWrite: after every kind of write that
// can change a term's count, the stored counts equal a recount from the
// links (RecountTerms finds nothing to repair), on both dialects.
func TestTermCountsStayExactThroughEveryWrite(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		contrib := newUser(t, db, "contrib", models.RoleContributor)
		exact := func(step string) {
			t.Helper()
			n, err := db.RecountTerms(ctx)
			if err != nil {
				t.Fatalf("%s: recount: %v", step, err)
			}
			if n != 0 {
				t.Errorf("%s: %d term counts were wrong", step, n)
			}
			if n, err := db.RepairEventTermCopies(ctx); err != nil || n != 0 {
				t.Errorf("%s: %d links' copies of their event were wrong (%v)", step, n, err)
			}
			if n, err := db.RepairEventCategories(ctx); err != nil || n != 0 {
				t.Errorf("%s: %d events were filed under the wrong categories (%v)", step, n, err)
			}
		}
		count := func(taxonomy, name string) int64 {
			t.Helper()
			p, err := db.ListTerms(ctx, nil, models.TermFilter{Taxonomy: taxonomy, Search: name, PerPage: 10, Lang: "en"})
			if err != nil || len(p.Items) == 0 {
				t.Fatalf("term %s: %v", name, err)
			}
			return p.Items[0].Count
		}
		mk := func(u *models.User, status string, cats, tags []string) *models.Event {
			t.Helper()
			in := baseInput("Event", "2027-05-01 10:00", "2027-05-01 11:00")
			in.Status = ptr(status)
			in.Categories, in.Tags = termRefs(cats), termRefs(tags)
			e, err := db.CreateEvent(ctx, u, in)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		setStatus := func(e *models.Event, status string) {
			t.Helper()
			if _, err := db.UpdateEvent(ctx, editor, models.ByID(e.ID), models.EventInput{PostInput: models.PostInput{Status: ptr(status)}, Lang: "en"}); err != nil {
				t.Fatal(err)
			}
		}

		a := mk(editor, models.StatusPublish, []string{"Music", "Jazz"}, []string{"live", "free"})
		exact("create published with new terms")
		mk(editor, models.StatusDraft, []string{"Music"}, []string{"live"})
		exact("create draft")
		mk(contrib, models.StatusPublish, []string{"Music"}, nil) // stored pending
		exact("contributor's publish stored as pending")
		hidden := mk(editor, models.StatusPublish, []string{"Music"}, nil)
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(hidden.ID), models.EventInput{HideFromListings: ptr(true), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		exact("hidden from listings")
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(hidden.ID), models.EventInput{
			StartDate: ptr("2027-05-03 09:00"), EndDate: ptr("2027-05-04 18:00"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		exact("dates moved")
		if got := count(models.TaxCategory, "Music"); got != 2 {
			t.Errorf("Music counts %d published events, want 2", got)
		}
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(a.ID), models.EventInput{Categories: termRefs([]string{"Jazz", "Talks"}), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		exact("categories replaced")
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(a.ID), models.EventInput{Tags: termRefs(nil), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		exact("tags cleared")
		setStatus(a, models.StatusDraft)
		exact("publish to draft")
		setStatus(a, models.StatusPublish)
		exact("draft to publish")
		if _, err := db.TrashEvent(ctx, editor, models.ByID(a.ID), "en"); err != nil {
			t.Fatal(err)
		}
		exact("trash")
		setStatus(a, models.StatusPublish)
		exact("restore")
		if got := count(models.TaxCategory, "Talks"); got != 1 {
			t.Errorf("Talks counts %d after the restore, want 1", got)
		}
		if _, err := db.DeleteEvent(ctx, editor, models.ByID(hidden.ID), "en"); err != nil {
			t.Fatal(err)
		}
		exact("force delete")
		jazz, err := db.ListTerms(ctx, nil, models.TermFilter{Taxonomy: models.TaxCategory, Search: "Jazz", PerPage: 1, Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.DeleteTerm(ctx, editor, models.TaxCategory, jazz.Items[0].ID, "en"); err != nil {
			t.Fatal(err)
		}
		exact("term deleted")

		// Concurrent creates on the same terms end with the exact count.
		const n = 16
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in := baseInput(fmt.Sprint("Concurrent ", i), "2027-06-01 10:00", "2027-06-01 11:00")
				in.Categories, in.Tags = termRefs([]string{"Music", "Crowd"}), termRefs([]string{"live"})
				_, errs[i] = db.CreateEvent(ctx, editor, in)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("concurrent create %d: %v", i, err)
			}
		}
		exact("concurrent creates")
		if got := count(models.TaxCategory, "Crowd"); got != n {
			t.Errorf("Crowd counts %d, want %d", got, n)
		}
	})
}

// TestReadsDoNotCountLinks: lists of events and of terms read the stored
// counts; no read runs a COUNT over event_terms.
func TestReadsDoNotCountLinks(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		in := baseInput("Event", "2027-05-01 10:00", "2027-05-01 11:00")
		in.Categories, in.Tags = termRefs([]string{"Music"}), termRefs([]string{"live"})
		if _, err := db.CreateEvent(ctx, admin, in); err != nil {
			t.Fatal(err)
		}
		log := &queryLog{}
		db.AddQueryHook(log)
		if _, err := db.ListEvents(ctx, nil, models.EventFilter{PerPage: 50, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		for _, tax := range []string{models.TaxCategory, models.TaxTag} {
			if _, err := db.ListTerms(ctx, nil, models.TermFilter{Taxonomy: tax, PerPage: 50, OrderBy: "count", Lang: "en"}); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range log.reset() {
			if strings.Contains(q, "COUNT(*) FROM event_terms") {
				t.Errorf("a read counts links:\n%s", q)
			}
		}
	})
}

// TestRecountRepairsCounts: a count changed behind the store's back is
// found and repaired.
func TestRecountRepairsCounts(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		v, _, err := db.Venues().Create(ctx, admin, models.VenueInput{Venue: ptr("Hall")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		in := baseInput("Event", "2027-05-01 10:00", "2027-05-01 11:00")
		in.Categories = termRefs([]string{"Music"})
		in.Venues = &[]models.VenueRef{{ID: v.ID}}
		if _, err := db.CreateEvent(ctx, admin, in); err != nil {
			t.Fatal(err)
		}
		if _, err := db.IDB().NewRaw("UPDATE terms SET event_count = 42").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 1 {
			t.Fatalf("recount: %d, %v; want 1 repaired", n, err)
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 0 {
			t.Fatalf("second recount: %d, %v; want nothing", n, err)
		}
		if _, err := db.IDB().NewRaw("UPDATE event_terms SET status = 'draft', start_at = NULL").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := db.RepairEventTermCopies(ctx); err != nil || n != 1 {
			t.Fatalf("repair copies: %d, %v; want 1 repaired", n, err)
		}
		if _, err := db.IDB().NewRaw("UPDATE event_venues SET hidden = NOT hidden").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := db.RepairEventTermCopies(ctx); err != nil || n != 1 {
			t.Fatalf("repair copies: %d, %v; want 1 repaired", n, err)
		}
		if n, err := db.RepairEventTermCopies(ctx); err != nil || n != 0 {
			t.Fatalf("second repair of copies: %d, %v; want nothing", n, err)
		}
	})
}

func termRefs(names []string) *[]models.TermRef {
	refs := make([]models.TermRef, len(names))
	for i, n := range names {
		refs[i] = models.TermRef{Name: n}
	}
	return &refs
}
