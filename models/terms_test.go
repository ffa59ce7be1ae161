package models_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// addEvent writes a bare event with status and links it to terms; it
// stands in for the events store in these tests.
func addEvent(t *testing.T, db *models.DB, status string, termIDs ...int64) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := db.NewPostID(ctx, models.KindEvent)
	if err != nil {
		t.Fatal(err)
	}
	now := models.Now()
	e := &models.Event{Post: models.Post{ID: id, Status: status, Slug: fmt.Sprint("e", id), Lang: "en", PublishedAt: now, CreatedAt: now, UpdatedAt: now}, Title: "E", StartAt: now, EndAt: now, Timezone: "UTC"}
	if _, err := db.IDB().NewInsert().Model(e).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tid := range termIDs {
		if _, err := db.IDB().NewInsert().Model(&models.EventTerm{EventID: id, TermID: tid}).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func TestResolveTermsMatchesCreatesAndDeduplicates(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ids, err := db.ResolveTerms(ctx, models.TaxTag, []models.TermRef{{Name: "Jazz Night"}, {Name: "夏祭り"}, {Name: "jazz night"}}, true, "ja")
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 2 {
			t.Fatalf("ids = %v, want two (the same name twice is one tag)", ids)
		}
		terms, err := db.TermsByIDs(ctx, ids, "ja")
		if err != nil {
			t.Fatal(err)
		}
		if got := terms[ids[0]]; got.Slug != "jazz-night" || got.Name != "Jazz Night" || got.Lang != "ja" || got.Taxonomy != "tag" {
			t.Errorf("first tag = %+v", got)
		}
		if got := terms[ids[1]]; got.Slug != "夏祭り" {
			t.Errorf("second tag slug = %q", got.Slug)
		}
		// By slug, by name (any case), by id; order kept, duplicates removed.
		again, err := db.ResolveTerms(ctx, models.TaxTag, []models.TermRef{{Name: "夏祭り"}, {ID: ids[0]}, {Name: "JAZZ-NIGHT"}, {Name: " jazz NIGHT "}}, false, "en")
		if err != nil || !reflect.DeepEqual(again, []int64{ids[1], ids[0]}) {
			t.Errorf("resolve existing = %v, %v; want [%d %d]", again, err, ids[1], ids[0])
		}
		// Categories are another taxonomy: the tag names are unknown there.
		_, err = db.ResolveTerms(ctx, models.TaxCategory, []models.TermRef{{Name: "Jazz Night"}}, false, "en")
		var ue *models.UnknownTermError
		if !errors.As(err, &ue) || !errors.Is(err, models.ErrNotFound) || ue.Ref.Name != "Jazz Night" {
			t.Errorf("unknown name without create: %v", err)
		}
		_, err = db.ResolveTerms(ctx, models.TaxCategory, []models.TermRef{{ID: ids[0]}}, true, "en")
		if !errors.As(err, &ue) || ue.Ref.ID != ids[0] {
			t.Errorf("tag id as category: %v", err)
		}
		if _, err := db.ResolveTerms(ctx, models.TaxTag, []models.TermRef{{Name: "  "}}, true, "en"); !errors.Is(err, models.ErrBadTermName) {
			t.Errorf("blank name: %v", err)
		}
		// Nothing was created by the failed calls.
		if missing, _ := db.MissingTerms(ctx, models.TaxTag, []int64{ids[1] + 1}); len(missing) != 1 {
			t.Errorf("a failed resolve created a term")
		}
		if got, err := db.ResolveTerms(ctx, models.TaxTag, nil, true, "en"); err != nil || len(got) != 0 {
			t.Errorf("no refs: %v %v", got, err)
		}
	})
}

func TestResolveTermsConcurrentCreatesMakeOneTerm(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		const n = 12
		got := make([][]int64, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				got[i], errs[i] = db.ResolveTerms(ctx, models.TaxTag, []models.TermRef{{Name: "Brand New"}, {Name: "Other"}}, true, "en")
			}(i)
		}
		wg.Wait()
		for i := 0; i < n; i++ {
			if errs[i] != nil {
				t.Fatalf("caller %d: %v", i, errs[i])
			}
			if !reflect.DeepEqual(got[i], got[0]) {
				t.Errorf("caller %d got %v, caller 0 got %v", i, got[i], got[0])
			}
		}
		var count int
		if err := db.IDB().NewRaw("SELECT COUNT(*) FROM terms").Scan(ctx, &count); err != nil || count != 2 {
			t.Errorf("terms = %d (%v), want 2", count, err)
		}
	})
}

func TestTermsByIDsCountsPublishedEventsAndOverlaysTranslations(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ids, err := db.ResolveTerms(ctx, models.TaxCategory, []models.TermRef{{Name: "Music"}, {Name: "Talks"}}, true, "en")
		if err != nil {
			t.Fatal(err)
		}
		music, talks := ids[0], ids[1]
		addEvent(t, db, models.StatusPublish, music, talks)
		addEvent(t, db, models.StatusPublish, music)
		addEvent(t, db, models.StatusDraft, music)
		addEvent(t, db, models.StatusTrash, talks)
		// The events were stored behind the store's back: recount repairs
		// the two counts that are now wrong.
		if n, err := db.RecountTerms(ctx); err != nil || n != 2 {
			t.Fatalf("recount: %d changed, %v; want 2", n, err)
		}
		if err := db.SaveTranslation(ctx, models.KindCategory, music, "ja", map[string]string{"name": "音楽"}); err != nil {
			t.Fatal(err)
		}
		terms, err := db.TermsByIDs(ctx, []int64{music, talks, 999999}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		if len(terms) != 2 {
			t.Fatalf("got %d terms, want 2", len(terms))
		}
		if m := terms[music]; m.Count != 2 || m.Name != "音楽" || m.Description != "" || !reflect.DeepEqual(m.Translations, []string{"ja"}) {
			t.Errorf("music = %+v", m)
		}
		if tk := terms[talks]; tk.Count != 1 || tk.Name != "Talks" || len(tk.Translations) != 0 || tk.Translations == nil {
			t.Errorf("talks = %+v", tk)
		}
		en, _ := db.TermsByIDs(ctx, []int64{music}, "en")
		if en[music].Name != "Music" {
			t.Errorf("source language read = %q", en[music].Name)
		}
	})
}

// Events resolve their tags inside their own transaction; concurrent event
// creates naming the same new tags all succeed and share the tags.
func TestResolveTermsInsideConcurrentEventTransactions(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		const n = 10
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				errs[i] = db.RunInTx(ctx, func(tx *models.Store) error {
					id, err := tx.NewPostID(ctx, models.KindEvent)
					if err != nil {
						return err
					}
					now := models.Now()
					e := &models.Event{Post: models.Post{ID: id, Status: models.StatusPublish, Slug: fmt.Sprint("ev-", id), Lang: "en", PublishedAt: now, CreatedAt: now, UpdatedAt: now}, Title: "E", StartAt: now, EndAt: now, Timezone: "UTC"}
					if _, err := tx.IDB().NewInsert().Model(e).Exec(ctx); err != nil {
						return err
					}
					ids, err := tx.ResolveTerms(ctx, models.TaxTag, []models.TermRef{{Name: "Shared New"}, {Name: fmt.Sprint("Own ", i)}, {Name: "Also Shared"}}, true, "en")
					if err != nil {
						return err
					}
					for _, tid := range ids {
						if _, err := tx.IDB().NewInsert().Model(&models.EventTerm{EventID: id, TermID: tid}).Exec(ctx); err != nil {
							return err
						}
					}
					return nil
				})
			}(i)
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
		}
		var tags, links int
		_ = db.IDB().NewRaw("SELECT COUNT(*) FROM terms").Scan(ctx, &tags)
		_ = db.IDB().NewRaw("SELECT COUNT(*) FROM event_terms").Scan(ctx, &links)
		if tags != n+2 || links != 3*n {
			t.Errorf("tags = %d (want %d), links = %d (want %d)", tags, n+2, links, 3*n)
		}
		if _, err := db.RecountTerms(ctx); err != nil { // the events were stored behind the store's back
			t.Fatal(err)
		}
		ids, _ := db.ResolveTerms(ctx, models.TaxTag, []models.TermRef{{Name: "shared new"}}, false, "en")
		terms, _ := db.TermsByIDs(ctx, ids, "en")
		if len(ids) != 1 || terms[ids[0]].Count != n {
			t.Errorf("shared tag count = %+v", terms)
		}
	})
}
