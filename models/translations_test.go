package models_test

import (
	"context"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestEmptyTranslationFallsBackToTheSource(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		now := models.Now()
		term := &models.Term{Taxonomy: "tag", Name: "Summer", NameKey: "summer", Slug: "summer", Description: "About summer", Lang: "en", CreatedAt: now, UpdatedAt: now}
		if _, err := db.Bun.NewInsert().Model(term).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveTranslation(ctx, models.KindTag, term.ID, "ja", map[string]string{"name": "夏", "description": "夏の説明"}); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveTranslation(ctx, models.KindTag, term.ID, "ja", map[string]string{"description": ""}); err != nil {
			t.Fatal(err)
		}
		read := func() *models.Term {
			t.Helper()
			m, err := db.TermsByIDs(ctx, []int64{term.ID}, "ja")
			if err != nil || m[term.ID] == nil {
				t.Fatalf("read term: %v", err)
			}
			return m[term.ID]
		}
		if got := read(); got.Name != "夏" || got.Description != "About summer" || len(got.Translations) != 1 || got.Translations[0] != "ja" {
			t.Fatalf("after clearing the ja description: %+v, want the ja name, the source description, translations [ja]", got)
		}
		if err := db.SaveTranslation(ctx, models.KindTag, term.ID, "ja", map[string]string{"name": ""}); err != nil {
			t.Fatal(err)
		}
		if got := read(); got.Name != "Summer" || len(got.Translations) != 0 {
			t.Fatalf("with every field cleared: %+v, want the source name and no translations", got)
		}
	})
}
