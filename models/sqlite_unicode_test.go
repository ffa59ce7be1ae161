package models_test

import (
	"context"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestSearchFoldsNonASCIICaseOnBothDialects(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "ed", models.RoleEditor)
		if _, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: sp("Église Saint-Paul"), City: sp("ПАРИЖ")}, "en"); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"église", "Église", "ÉGLISE", "париж", "saint"} {
			p, err := db.Venues().List(ctx, nil, models.LinkedFilter{Words: []string{q}, Lang: "en", PerPage: 5})
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != 1 {
				t.Errorf("search %q: %d, want 1", q, p.Total)
			}
		}
		if _, existing, _ := db.Venues().Create(ctx, ed, models.VenueInput{Venue: sp("ÉGLISE saint-paul")}, "en"); !existing {
			t.Errorf("duplicate with other non-ASCII case not found")
		}
		var null *string
		if err := db.IDB().NewRaw("SELECT LOWER(NULL)").Scan(ctx, &null); err != nil || null != nil {
			t.Errorf("LOWER(NULL) = %v, %v", null, err)
		}
	})
}
