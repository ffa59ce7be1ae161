package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// A database migrated by a newer Kalends: with only additions (its
// kalends_schema row still allows this schema) this binary works on it and
// names the migrations it does not know; once a newer release says older
// binaries may not use it, Migrate refuses with a NewerSchemaError and
// changes nothing.
func TestNewerDatabaseIsUsedWhenAdditiveAndRefusedWhenNot(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ours := models.SchemaLevel()
		if got, err := db.DatabaseSchema(ctx); err != nil || got != ours {
			t.Fatalf("DatabaseSchema = %q, %v; want this binary's %q", got, err, ours)
		}
		const future = "29991231000100"
		if _, err := db.Bun.NewRaw("INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES (?, 999, ?)",
			future, models.Now()).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		rep, err := db.MigrateAndReport(ctx)
		if err != nil {
			t.Fatalf("a newer but additive schema was refused: %v", err)
		}
		if len(rep.Newer) != 1 || rep.Newer[0] != future || len(rep.Applied) != 0 {
			t.Fatalf("report = %+v, want Newer [%s] and nothing applied", rep, future)
		}

		// The newer release moves readable_from past this binary.
		if _, err := db.Bun.NewRaw("UPDATE kalends_schema SET readable_from = ? WHERE id = 1", future).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = db.MigrateAndReport(ctx)
		var ne *models.NewerSchemaError
		if !errors.As(err, &ne) {
			t.Fatalf("err = %v, want a NewerSchemaError", err)
		}
		if ne.Database != future || ne.ReadableFrom != future || ne.Ours != ours {
			t.Errorf("error = %+v", ne)
		}
		for _, want := range []string{"newer Kalends", future, ours, "restore the backup"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("message %q does not say %q", err, want)
			}
		}
	})
}
