package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestOrganizerLifecycle(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "ed", models.RoleEditor)
		mk := func(name, phone, email, website string) *models.Organizer {
			o, existing, err := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: sp(name), Phone: sp(phone), Email: sp(email), Website: sp(website)}, "en")
			if err != nil || existing {
				t.Fatalf("create %s: %v existing=%v", name, err, existing)
			}
			return o
		}
		one := mk("One", "1111", "one@common.com", "http://one.com")
		two := mk("Two", "1111 22", "two@common.com", "http://two.com")
		three := mk("Three", "333", "three@three.com", "")
		if one.Slug != "one" || one.Status != models.StatusPublish {
			t.Errorf("create: %+v", one)
		}
		dup, existing, err := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: sp("one"), Email: sp("ONE@common.com")}, "en")
		if err != nil || !existing || dup.ID != one.ID {
			t.Errorf("duplicate: %v existing=%v %+v", err, existing, dup)
		}
		if _, existing, _ := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: sp("One"), Phone: sp("2")}, "en"); existing {
			t.Errorf("other phone is not a duplicate")
		}
		search := func(q string) int {
			p, err := db.Organizers().List(ctx, nil, models.LinkedFilter{Words: models.SearchWords(q), Lang: "en", PerPage: 10})
			if err != nil {
				t.Fatal(err)
			}
			return p.Total
		}
		for q, want := range map[string]int{"1111": 2, "three@three.com": 1, "common.com": 2, "http://one.com": 1, "@common.com": 2} {
			if got := search(q); got != want {
				t.Errorf("search %q: %d, want %d", q, got, want)
			}
		}
		u, err := db.Organizers().Update(ctx, ed, models.ByID(two.ID), models.OrganizerInput{Organizer: sp("两号"), Description: sp("说明")}, "zh-hans")
		if err != nil || u.Organizer != "两号" || u.Email != "two@common.com" || u.Phone != "1111 22" {
			t.Fatalf("translated update: %v %+v", err, u)
		}
		if got := search("两号"); got != 0 {
			t.Errorf("an en search found the zh-hans translation")
		}
		p, err := db.Organizers().List(ctx, nil, models.LinkedFilter{Words: []string{"两号"}, Lang: "zh-hans", PerPage: 10})
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 1 {
			t.Errorf("zh-hans search of the translation: %d", p.Total)
		}
		u, _ = db.Organizers().Update(ctx, ed, models.ByID(two.ID), models.OrganizerInput{Website: sp("")}, "en")
		if u.Organizer != "Two" || u.Website != "" || u.Email != "two@common.com" {
			t.Errorf("partial update: %+v", u)
		}
		ev := mkEvent(t, db, models.StatusPublish, time.Now().Add(time.Hour), nil, []int64{three.ID, one.ID})
		if _, err := db.Organizers().Trash(ctx, ed, models.ByID(three.ID), "en"); err != nil {
			t.Fatal(err)
		}
		n, _ := db.IDB().NewSelect().Model((*models.EventOrganizer)(nil)).Where("event_id = ?", ev).Count(ctx)
		if n != 1 {
			t.Errorf("links after trashing one of two organizers: %d, want 1", n)
		}
		if _, err := db.Organizers().Delete(ctx, ed, models.ByID(one.ID), "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Organizers().Get(ctx, ed, models.BySlug("one"), "en"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("deleted organizer by slug: %v", err)
		}
		m, _ := db.Organizers().ByIDs(ctx, []int64{one.ID, two.ID, three.ID}, "zh-hans")
		if len(m) != 2 || m[two.ID].Description != "说明" || m[three.ID].Status != models.StatusTrash {
			t.Errorf("by ids: %+v", m)
		}
	})
}

func TestTrashingByUpdateUnlinks(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "ed", models.RoleEditor)
		v, _, _ := db.Venues().Create(ctx, ed, models.VenueInput{Venue: sp("V")}, "en")
		o, _, _ := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: sp("O")}, "en")
		ev := mkEvent(t, db, models.StatusPublish, time.Now().Add(time.Hour), []int64{v.ID}, []int64{o.ID})
		if _, err := db.Venues().Update(ctx, ed, models.ByID(v.ID), models.VenueInput{PostInput: models.PostInput{Status: sp(models.StatusTrash)}}, "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Organizers().Update(ctx, ed, models.ByID(o.ID), models.OrganizerInput{PostInput: models.PostInput{Status: sp(models.StatusTrash)}}, "en"); err != nil {
			t.Fatal(err)
		}
		nv, _ := db.IDB().NewSelect().Model((*models.EventVenue)(nil)).Where("event_id = ?", ev).Count(ctx)
		no, _ := db.IDB().NewSelect().Model((*models.EventOrganizer)(nil)).Where("event_id = ?", ev).Count(ctx)
		if nv != 0 || no != 0 {
			t.Errorf("links left after status=trash by update: %d venues, %d organizers", nv, no)
		}
	})
}
