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
		term := &models.Term{Taxonomy: "tag", Name: "Summer", NameKey: "summer", Slug: "summer", Lang: "en", CreatedAt: now, UpdatedAt: now}
		if _, err := db.Bun.NewInsert().Model(term).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveTranslation(ctx, models.KindTag, term.ID, "ja", map[string]string{"name": "夏", "description": "夏の説明"}); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveTranslation(ctx, models.KindTag, term.ID, "ja", map[string]string{"description": ""}); err != nil {
			t.Fatal(err)
		}
		tr, err := db.Translations(ctx, models.KindTag, []int64{term.ID}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		if got := tr[term.ID]; got["name"] != "夏" || len(got) != 1 {
			t.Fatalf("after clearing the description: %v, want only the name translated", got)
		}
		langs, _ := db.TranslationLanguages(ctx, models.KindTag, []int64{term.ID})
		if len(langs[term.ID]) != 1 || langs[term.ID][0] != "ja" {
			t.Fatalf("languages %v, want [ja]", langs[term.ID])
		}
		if err := db.SaveTranslation(ctx, models.KindTag, term.ID, "ja", map[string]string{"name": ""}); err != nil {
			t.Fatal(err)
		}
		langs, _ = db.TranslationLanguages(ctx, models.KindTag, []int64{term.ID})
		if len(langs[term.ID]) != 0 {
			t.Fatalf("with every field cleared, languages = %v, want none", langs[term.ID])
		}
	})
}
