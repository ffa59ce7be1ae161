package models_test

import (
	"context"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestMigrationsApplyAndAreIdempotent(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		applied, err := db.Migrate(context.Background())
		if err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		if len(applied) != 0 {
			t.Fatalf("second migrate applied %v, want nothing", applied)
		}
		for _, table := range []string{"post_ids", "users", "app_passwords", "sessions", "events", "venues",
			"organizers", "terms", "event_venues", "event_organizers", "event_terms", "event_translations",
			"venue_translations", "organizer_translations", "term_translations", "signin_attempts"} {
			var n int
			if err := db.Bun.NewSelect().TableExpr(table).ColumnExpr("COUNT(*)").Scan(context.Background(), &n); err != nil {
				t.Errorf("table %s: %v", table, err)
			}
		}
	})
}

func TestPostIDsAreSharedAcrossKinds(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		a, err := db.NewPostID(ctx, models.KindEvent)
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.NewPostID(ctx, models.KindVenue)
		if err != nil {
			t.Fatal(err)
		}
		if b <= a {
			t.Fatalf("ids not increasing across kinds: %d then %d", a, b)
		}
		if _, err := db.PostKind(ctx, a); err == nil {
			t.Fatalf("an id with no record must not be found")
		}
	})
}
