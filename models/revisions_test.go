package models_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestRevisionRetention: a record keeps the site's number of revisions,
// the newest; with 0 it keeps none; an update that changes nothing keeps
// none either.
func TestRevisionRetention(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := addAccount(t, db, "ed", models.RoleEditor)
		site := models.DefaultSite()
		keep := 2
		site.RevisionsKeep = &keep
		db.UseSite(site)
		s := func(v string) *string { return &v }
		in := models.EventInput{Title: s("v0"), StartDate: s("2031-05-01 07:00"), EndDate: s("2031-05-01 08:00"), Lang: "en"}
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 4; i++ {
			if _, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Title: s(fmt.Sprintf("v%d", i)), Lang: "en"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Title: s("v4"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		_, revs, err := db.Revisions(ctx, ed, models.KindEvent, models.ByID(e.ID))
		if err != nil {
			t.Fatal(err)
		}
		if len(revs) != 2 {
			t.Fatalf("%d revisions kept, want 2", len(revs))
		}
		for i, want := range []string{"v3", "v2"} {
			old, _, err := db.EventAtRevision(ctx, ed, models.ByID(e.ID), revs[i].ID, "en")
			if err != nil || old.Title != want {
				t.Errorf("revision %d: %v %v, want the title %s", i, old, err, want)
			}
		}
		keep = 0
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Title: s("v5"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, revs, _ := db.Revisions(ctx, ed, models.KindEvent, models.ByID(e.ID)); len(revs) != 2 {
			t.Errorf("with retention 0 an update kept a revision: %d", len(revs))
		}
	})
}
