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
			"venue_translations", "organizer_translations", "term_translations"} {
			var n int
			if err := db.Bun.NewSelect().TableExpr(table).ColumnExpr("COUNT(*)").Scan(context.Background(), &n); err != nil {
				t.Errorf("table %s: %v", table, err)
			}
		}
	})
}
