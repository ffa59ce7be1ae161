package models_test

import (
	"context"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestCacheGenerationMovesWithEveryWrite: every write of a record or a
// translation moves the generation in its transaction; reads do not.
func TestCacheGenerationMovesWithEveryWrite(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		gen := func() int64 {
			t.Helper()
			g, err := db.CacheGeneration(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		moves := func(what string, write func() error) {
			t.Helper()
			before := gen()
			if err := write(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if after := gen(); after <= before {
				t.Errorf("%s did not move the generation (%d then %d)", what, before, after)
			}
		}
		var e *models.Event
		moves("event create", func() (err error) {
			e, err = db.CreateEvent(ctx, admin, baseInput("Gen", "2027-01-01 10:00", "2027-01-01 11:00"))
			return err
		})
		moves("event translation", func() error {
			_, err := db.UpdateEvent(ctx, admin, models.ByID(e.ID), models.EventInput{Title: ptr("世代"), Lang: "ja"})
			return err
		})
		var v *models.Venue
		moves("venue create", func() (err error) {
			v, _, err = db.Venues().Create(ctx, admin, models.VenueInput{Venue: ptr("Hall")}, "en")
			return err
		})
		moves("venue trash", func() error {
			_, err := db.Venues().Trash(ctx, admin, models.ByID(v.ID), "en")
			return err
		})
		var term *models.Term
		moves("term create", func() (err error) {
			term, err = db.CreateTerm(ctx, admin, models.TaxTag, models.TermInput{Name: ptr("gen")}, "en")
			return err
		})
		moves("term translation", func() error {
			_, err := db.UpdateTerm(ctx, admin, models.TaxTag, term.ID, models.TermInput{Name: ptr("世代")}, "ja")
			return err
		})
		moves("event delete", func() error {
			_, err := db.DeleteEvent(ctx, admin, models.ByID(e.ID), "en")
			return err
		})
		before := gen()
		if _, err := db.ListEvents(ctx, nil, models.EventFilter{PerPage: 10, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ListTerms(ctx, nil, models.TermFilter{Taxonomy: models.TaxTag, PerPage: 10, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if after := gen(); after != before {
			t.Errorf("reads moved the generation: %d then %d", before, after)
		}
	})
}
