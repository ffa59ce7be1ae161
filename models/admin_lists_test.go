package models_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The admin's list asks for hidden events and an order; hidden events are
// shown only to those who may filter by status, whatever they ask.
func TestAdminListsHiddenEventsAndSortOrders(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := addAccount(t, db, "ed", models.RoleEditor)
		sub := addAccount(t, db, "sub", models.RoleSubscriber)
		str, yes := func(s string) *string { return &s }, true
		pub := models.StatusPublish
		mk := func(title, start string, hidden bool) int64 {
			in := models.EventInput{Title: str(title), StartDate: str(start), EndDate: str(start), PostInput: models.PostInput{Status: &pub}}
			if hidden {
				in.HideFromListings = &yes
			}
			e, err := db.CreateEvent(ctx, ed, in)
			if err != nil {
				t.Fatal(err)
			}
			return e.ID
		}
		b := mk("Banana", "2031-01-02 10:00:00", false)
		a := mk("apple", "2031-01-03 10:00:00", true)
		c := mk("Cherry", "2031-01-01 10:00:00", false)
		ids := func(u *models.User, f models.EventFilter) []int64 {
			t.Helper()
			f.PerPage = 10
			p, err := db.ListEvents(ctx, u, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []int64
			for _, e := range p.Items {
				out = append(out, e.ID)
			}
			if p.Total != len(out) {
				t.Errorf("total %d for %d items", p.Total, len(out))
			}
			return out
		}
		for _, tt := range []struct {
			name string
			u    *models.User
			f    models.EventFilter
			want []int64
		}{
			{"default", ed, models.EventFilter{}, []int64{c, b}},
			{"hidden for an editor", ed, models.EventFilter{IncludeHidden: true}, []int64{c, b, a}},
			{"hidden asked by a subscriber", sub, models.EventFilter{IncludeHidden: true}, []int64{c, b}},
			{"hidden asked anonymously", nil, models.EventFilter{IncludeHidden: true}, []int64{c, b}},
			{"start descending", ed, models.EventFilter{IncludeHidden: true, Desc: true}, []int64{a, b, c}},
			{"title, case-insensitive", ed, models.EventFilter{IncludeHidden: true, Order: models.OrderTitle}, []int64{a, b, c}},
		} {
			if got := ids(tt.u, tt.f); !slices.Equal(got, tt.want) {
				t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			}
		}
	})
}

// A duplicate is a draft of the same fields and links, written by the
// duplicating user, with a slug of its own; a user who may not create
// events cannot duplicate.
func TestDuplicateEventCopiesFieldsAndLinksAsADraft(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := addAccount(t, db, "ed", models.RoleEditor)
		au := addAccount(t, db, "au", models.RoleAuthor)
		sub := addAccount(t, db, "sub", models.RoleSubscriber)
		str, yes := func(s string) *string { return &s }, true
		pub := models.StatusPublish
		venue := "Harbour Hall"
		src, err := db.CreateEvent(ctx, ed, models.EventInput{Title: str("Jazz"), Description: str("Three bands."),
			StartDate: str("2031-05-01 19:00:00"), EndDate: str("2031-05-01 22:00:00"), Timezone: str("Asia/Tokyo"),
			Cost: str(models.EncodeCost("¥1,000")), Featured: &yes, PostInput: models.PostInput{Status: &pub},
			Categories: &[]models.TermRef{{Name: "Music"}}, Tags: &[]models.TermRef{{Name: "live"}},
			Venues: &[]models.VenueRef{{New: &models.VenueInput{Venue: &venue}}}})
		if err != nil {
			t.Fatal(err)
		}
		cp, err := db.DuplicateEvent(ctx, au, models.ByID(src.ID))
		if err != nil {
			t.Fatal(err)
		}
		if cp.ID == src.ID || cp.Slug == src.Slug || cp.Status != models.StatusDraft || cp.AuthorID != au.ID {
			t.Errorf("copy: id %d slug %q status %q author %d", cp.ID, cp.Slug, cp.Status, cp.AuthorID)
		}
		if cp.Title != src.Title || cp.Description != src.Description || !cp.StartAt.Equal(src.StartAt) ||
			!cp.EndAt.Equal(src.EndAt) || cp.Timezone != src.Timezone || cp.Cost != src.Cost || !cp.Featured {
			t.Errorf("copy fields differ: %+v", cp)
		}
		if len(cp.Venues) != 1 || cp.Venues[0].ID != src.Venues[0].ID || len(cp.Categories) != 1 || len(cp.Tags) != 1 {
			t.Errorf("copy links: venues %d, categories %d, tags %d", len(cp.Venues), len(cp.Categories), len(cp.Tags))
		}
		if _, err := db.DuplicateEvent(ctx, sub, models.ByID(src.ID)); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("a subscriber duplicating: %v, want forbidden", err)
		}
	})
}

// The statuses a form offers follow the publish capability.
func TestStatusChoicesFollowThePublishCapability(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		role models.Role
		want []string
	}{
		{models.RoleAdministrator, []string{"draft", "pending", "publish", "future", "private"}},
		{models.RoleEditor, []string{"draft", "pending", "publish", "future", "private"}},
		{models.RoleAuthor, []string{"draft", "pending", "publish", "future", "private"}},
		{models.RoleContributor, []string{"draft", "pending"}},
		{models.RoleSubscriber, nil},
	} {
		u := &models.User{ID: 7, Role: tt.role}
		if got := models.StatusChoices(u, models.KindEvent); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.role, got, tt.want)
		}
	}
	if got := models.StatusChoices(nil, models.KindEvent); got != nil {
		t.Errorf("anonymous: %v", got)
	}
}

// Every change records who made it, which the admin's conflict message
// names.
func TestChangesRecordWhoMadeThem(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ann := addAccount(t, db, "ann", models.RoleEditor)
		bob := addAccount(t, db, "bob", models.RoleEditor)
		str := func(s string) *string { return &s }
		e, err := db.CreateEvent(ctx, ann, models.EventInput{Title: str("Jazz"), StartDate: str("2031-01-01 10:00:00"), EndDate: str("2031-01-01 11:00:00")})
		if err != nil {
			t.Fatal(err)
		}
		if e.ModifiedBy != ann.ID {
			t.Errorf("created by ann: modified_by %d", e.ModifiedBy)
		}
		if e, err = db.UpdateEvent(ctx, bob, models.ByID(e.ID), models.EventInput{Title: str("Jazz night")}); err != nil || e.ModifiedBy != bob.ID {
			t.Errorf("updated by bob: %v, modified_by %d", err, e.ModifiedBy)
		}
		v, _, err := db.Venues().Create(ctx, ann, models.VenueInput{Venue: str("Hall")}, "")
		if err != nil {
			t.Fatal(err)
		}
		if v, err = db.Venues().Trash(ctx, bob, models.ByID(v.ID), ""); err != nil || v.ModifiedBy != bob.ID {
			t.Errorf("venue trashed by bob: %v, modified_by %d", err, v.ModifiedBy)
		}
		if name, err := db.DisplayName(ctx, bob.ID); err != nil || name != bob.DisplayName {
			t.Errorf("display name %q, %v; want %q", name, err, bob.DisplayName)
		}
		if name, err := db.DisplayName(ctx, 0); err != nil || name != "" {
			t.Errorf("display name of 0: %q, %v", name, err)
		}
	})
}

// EditScope agrees with Can for every role.
func TestEditScopeFollowsTheEditRule(t *testing.T) {
	t.Parallel()
	for role, want := range map[models.Role]string{
		models.RoleAdministrator: models.EditAll, models.RoleEditor: models.EditAll, models.RoleAuthor: models.EditOwn,
		models.RoleContributor: models.EditOwnUnpublished, models.RoleSubscriber: "",
	} {
		if got := models.EditScope(&models.User{ID: 5, Role: role}, models.KindEvent); got != want {
			t.Errorf("%s: %q, want %q", role, got, want)
		}
	}
	if got := models.EditScope(nil, models.KindEvent); got != "" {
		t.Errorf("anonymous: %q", got)
	}
}
