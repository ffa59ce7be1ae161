package models_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestCategoryFilterFollowsTheTree: a category filter finds the events of
// the category and of every subcategory below it, with an exact total,
// through every write that changes an event's categories, its fields or
// the tree (links replaced, a category moved, a middle category deleted,
// a series and its edits, a revision restored), on both dialects; after
// each, the stored filing equals what the links and the tree say
// (RepairEventCategories finds nothing to refile).
func TestCategoryFilterFollowsTheTree(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "editor", models.RoleEditor)
		cat := func(name string, parent int64) int64 {
			t.Helper()
			c, err := db.CreateTerm(ctx, ed, models.TaxCategory, models.TermInput{Name: ptr(name), ParentID: ptr(parent)}, "en")
			if err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		arts := cat("Arts", 0)
		cinema := cat("Cinema", arts)
		shorts := cat("Shorts", cinema)
		music := cat("Music", 0)
		mk := func(title string, cats ...int64) int64 {
			t.Helper()
			in := baseInput(title, "2027-05-01 10:00", "2027-05-01 11:00")
			refs := make([]models.TermRef, len(cats))
			for i, c := range cats {
				refs[i] = models.TermRef{ID: c}
			}
			in.Categories = &refs
			e, err := db.CreateEvent(ctx, ed, in)
			if err != nil {
				t.Fatal(err)
			}
			return e.ID
		}
		// want checks the titles a filter on cats lists, and its total with a
		// page small enough that the total is counted, not inferred.
		want := func(step string, titles []string, cats ...int64) {
			t.Helper()
			refs := make([]models.TermRef, len(cats))
			for i, c := range cats {
				refs[i] = models.TermRef{ID: c}
			}
			var got []string
			total := -1
			for page := 1; ; page++ {
				p, err := db.ListEvents(ctx, nil, models.EventFilter{Categories: refs, PerPage: 1, Page: page, Lang: "en"})
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				if total < 0 {
					total = p.Total
				}
				if len(p.Items) == 0 {
					break
				}
				for _, e := range p.Items {
					got = append(got, e.Title)
				}
			}
			slices.Sort(got)
			titles = slices.Clone(titles)
			slices.Sort(titles)
			if !slices.Equal(got, titles) || total != len(titles) {
				t.Errorf("%s: categories %v list %q (total %d), want %q", step, cats, got, total, titles)
			}
			if n, err := db.RepairEventCategories(ctx); err != nil || n != 0 {
				t.Errorf("%s: %d events were filed under the wrong categories (%v)", step, n, err)
			}
		}

		mk("Both", cinema, shorts) // filed under Arts once, though linked twice below it
		mk("Short film", shorts)
		mk("Concert", music)
		mk("Gallery", arts)
		want("created", []string{"Both", "Short film", "Gallery"}, arts)
		want("created", []string{"Both", "Short film"}, cinema)
		want("two categories", []string{"Both", "Short film", "Gallery", "Concert"}, arts, music)
		want("a category and its subcategory", []string{"Both", "Short film"}, cinema, shorts)

		if _, err := db.UpdateTerm(ctx, ed, models.TaxCategory, shorts, models.TermInput{ParentID: ptr(music)}, "en"); err != nil {
			t.Fatal(err)
		}
		want("Shorts moved under Music", []string{"Both", "Gallery"}, arts)
		want("Shorts moved under Music", []string{"Both", "Short film", "Concert"}, music)

		if _, err := db.UpdateTerm(ctx, ed, models.TaxCategory, shorts, models.TermInput{ParentID: ptr(cinema)}, "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.DeleteTerm(ctx, ed, models.TaxCategory, cinema, "en"); err != nil {
			t.Fatal(err)
		}
		// Shorts moves up to Arts; Both keeps Arts through Shorts.
		want("Cinema deleted", []string{"Both", "Short film", "Gallery"}, arts)
		want("Cinema deleted", []string{"Both", "Short film"}, shorts)

		gallery := mk("Moved", arts)
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(gallery), models.EventInput{Categories: &[]models.TermRef{{ID: music}}, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		want("categories replaced", []string{"Concert", "Moved"}, music)
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(gallery), models.EventInput{PostInput: models.PostInput{Status: ptr(models.StatusDraft)}, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		want("to draft", []string{"Concert"}, music)
		_, revs, err := db.Revisions(ctx, ed, models.KindEvent, models.ByID(gallery))
		if err != nil || len(revs) < 2 {
			t.Fatalf("revisions: %d, %v", len(revs), err)
		}
		// The oldest revision: published, filed under Arts.
		if _, err := db.RestoreEventRevision(ctx, ed, models.ByID(gallery), revs[len(revs)-1].ID, "en"); err != nil {
			t.Fatal(err)
		}
		want("revision restored", []string{"Both", "Short film", "Gallery", "Moved"}, arts)
		want("revision restored", []string{"Concert"}, music)

		in := baseInput("Weekly", "2027-06-01 10:00", "2027-06-01 11:00")
		in.Categories = &[]models.TermRef{{ID: shorts}}
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=3")
		series, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		weekly := []string{"Weekly", "Weekly", "Weekly"}
		want("series", append([]string{"Both", "Short film"}, weekly...), shorts)
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(series.ID), models.EventInput{Categories: &[]models.TermRef{{ID: music}},
			Scope: models.ScopeAll, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		want("series moved to Music", append([]string{"Concert"}, weekly...), music)
		want("series moved to Music", []string{"Both", "Short film"}, shorts)
		occ, err := db.ListEvents(ctx, ed, models.EventFilter{ParentID: &series.ID, PerPage: 10, Lang: "en"})
		if err != nil || len(occ.Items) != 3 {
			t.Fatalf("occurrences: %v, %v", occ, err)
		}
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(occ.Items[1].ID), models.EventInput{Title: ptr("Weekly, moved"),
			Scope: models.ScopeThis, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		weekly = []string{"Weekly", "Weekly, moved", "Weekly"}
		want("an exception", append([]string{"Concert"}, weekly...), music)
		if _, err := db.TrashEvent(ctx, ed, models.ByID(series.ID), "en"); err != nil {
			t.Fatal(err)
		}
		want("series trashed", []string{"Concert"}, music)
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(series.ID), models.EventInput{PostInput: models.PostInput{Status: ptr(models.StatusPublish)},
			Scope: models.ScopeAll, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		want("series restored with its exception", append([]string{"Concert"}, weekly...), music)
		if _, err := db.TrashEvent(ctx, ed, models.ByID(series.ID), "en"); err != nil {
			t.Fatal(err)
		}
		want("series trashed again", []string{"Concert"}, music)
		if _, err := db.DeleteTerm(ctx, ed, models.TaxCategory, music, "en"); err != nil {
			t.Fatal(err)
		}
		want("Music deleted", []string{"Both", "Short film", "Gallery", "Moved"}, arts)
	})
}

// TestSeedFilesEventsUnderTheirCategories: the seed writes the filing of
// its events with their links, series and their occurrences included, as
// a refiling from the links and the tree would, on both dialects.
func TestSeedFilesEventsUnderTheirCategories(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		o := seedOptions(120, admin.ID)
		o.Series = 4
		if _, err := db.Seed(ctx, o, nil); err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := db.IDB().NewRaw("SELECT COUNT(*) FROM event_category_ancestors").Scan(ctx, &rows); err != nil || rows < 240 {
			t.Fatalf("%d rows filed for 120 events of two categories each (%v)", rows, err)
		}
		if n, err := db.RepairEventCategories(ctx); err != nil || n != 0 {
			t.Errorf("%d events filed under the wrong categories after seeding (%v)", n, err)
		}
	})
}

// TestTermFilterReadsBesideAWrite: a list filtered by a category's (in
// NFD) and a tag's names is answered while another transaction is writing, on both
// dialects. Resolving the names reads without a transaction of its own:
// on SQLite a transaction takes the write lock at BEGIN, and every list
// filtered by a term's name used to queue behind each write (up to the
// busy timeout) and behind the other filtered lists.
func TestTermFilterReadsBesideAWrite(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "editor", models.RoleEditor)
		in := baseInput("Concert à l’auditorium 音楽堂", "2027-05-01 10:00", "2027-05-01 11:00")
		in.Categories, in.Tags = termRefs([]string{"Musique d’été"}), termRefs([]string{"夜の部"})
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		tags, err := db.ListTerms(ctx, nil, models.TermFilter{Taxonomy: models.TaxTag, Search: "夜の部", PerPage: 10, Lang: "en"})
		if err != nil || len(tags.Items) != 1 {
			t.Fatalf("the tag: %v", err)
		}
		release := modelstest.HoldWrite(t, db, func(ctx context.Context, tx *models.Store) error {
			_, err := tx.UpdateTerm(ctx, ed, models.TaxTag, tags.Items[0].ID, models.TermInput{Description: ptr("公演の夜")}, "en")
			return err
		})
		listed := make(chan error, 1)
		go func() {
			p, err := db.ListEvents(ctx, nil, models.EventFilter{PerPage: 10, Lang: "en",
				// The category's name as a Mac keyboard sends it (NFD).
				Categories: []models.TermRef{{Name: "Musique d’e\u0301te\u0301"}}, Tags: []models.TermRef{{Name: "夜の部"}}})
			if err == nil && (p.Total != 1 || len(p.Items) != 1 || p.Items[0].ID != e.ID) {
				err = fmt.Errorf("total %d, %d items, want event %d", p.Total, len(p.Items), e.ID)
			}
			listed <- err
		}()
		// A deadline on the answer, far under SQLite's busy timeout (5 s).
		select {
		case err := <-listed:
			if err != nil {
				t.Errorf("the filtered list: %v", err)
			}
		case <-time.After(2 * time.Second):
			t.Error("the list filtered by term names waited for the writer's transaction")
		}
		release()
	})
}
