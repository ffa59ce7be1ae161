package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The source rows of an import, on both dialects: stored, replaced, read
// back by site and kind; a record's updated_at for the import's "edited
// here since" check; and a slug set as the source made it, refused when
// another record has it.
func TestImportSources(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "imp", Password: "password-imp", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		s := func(v string) *string { return &v }
		mk := func(title string) *models.Event {
			e, err := db.CreateEvent(ctx, u, models.EventInput{Title: s(title), StartDate: s("2026-07-01 18:00"), EndDate: s("2026-07-01 20:00"), Lang: "ja"})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		a, b := mk("夏祭り"), mk("花火大会")
		mod, err := db.ImportedModified(ctx, models.KindEvent, a.ID)
		if err != nil || !mod.Equal(models.Sec(a.UpdatedAt)) {
			t.Fatalf("ImportedModified = %v %v, want %v", mod, err, a.UpdatedAt)
		}
		if _, err := db.ImportedModified(ctx, models.KindEvent, 999999); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("ImportedModified of nothing: %v", err)
		}
		site := "https://例え.example/wp-json"
		for _, hash := range []string{"first", "second"} {
			if err := db.PutImportSource(ctx, &models.ImportSource{Site: site, Kind: "event", SourceID: "42", LocalID: a.ID,
				LocalModified: mod.Add(time.Second), SourceHash: hash}); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := db.ImportSources(ctx, site, "event")
		if err != nil || len(rows) != 1 || rows["42"].SourceHash != "second" || rows["42"].LocalID != a.ID ||
			!rows["42"].LocalModified.Equal(mod.Add(time.Second)) {
			t.Fatalf("ImportSources = %+v %v", rows["42"], err)
		}
		if rows, _ := db.ImportSources(ctx, site, "venue"); len(rows) != 0 {
			t.Errorf("another kind's rows: %v", rows)
		}
		if err := db.SetImportedSlug(ctx, models.KindEvent, a.ID, "%e5%a4%8f-no"); err != nil {
			t.Fatal(err)
		}
		if err := db.SetImportedSlug(ctx, models.KindEvent, b.ID, "%e5%a4%8f-no"); !errors.Is(err, models.ErrSlugTaken) {
			t.Errorf("a slug another event has: %v", err)
		}
		got, err := db.GetEvent(ctx, u, models.BySlug("%e5%a4%8f-no"), "ja")
		if err != nil || got.ID != a.ID {
			t.Errorf("by the slug set: %v %v", got, err)
		}
	})
}
