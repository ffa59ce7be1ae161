package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func sp(s string) *string { return &s }

func mkUser(t *testing.T, db *models.DB, login string, role models.Role) *models.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: login, Password: "password123", Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// mkEvent stores a bare event directly (the events store is another
// helper's), linked to the given venue and organizer ids.
func mkEvent(t *testing.T, db *models.DB, status string, end time.Time, venues, organizers []int64) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := db.NewPostID(ctx, models.KindEvent)
	if err != nil {
		t.Fatal(err)
	}
	now := models.Now()
	e := &models.Event{Post: models.Post{ID: id, Status: status, Slug: "event-" + time.Now().Format("150405.000000000"), Lang: "en",
		PublishedAt: now, CreatedAt: now, UpdatedAt: now}, Title: "E", StartAt: models.Sec(end.Add(-time.Hour)), EndAt: models.Sec(end), Timezone: "UTC"}
	if _, err := db.IDB().NewInsert().Model(e).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for i, v := range venues {
		if _, err := db.IDB().NewInsert().Model(&models.EventVenue{EventID: id, VenueID: v, Position: i}).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i, o := range organizers {
		if _, err := db.IDB().NewInsert().Model(&models.EventOrganizer{EventID: id, OrganizerID: o, Position: i}).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func TestVenueCreateDefaultsAndDuplicates(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := mkUser(t, db, "admin", models.RoleAdministrator)
		v, existing, err := db.Venues().Create(ctx, admin, models.VenueInput{Venue: sp("Grand Arena"), Address: sp("1 Main St"),
			City: sp("Metropolis"), Country: sp("United States"), State: sp("NY"), Zip: sp("10001")}, "en")
		if err != nil || existing {
			t.Fatalf("create: %v existing=%v", err, existing)
		}
		if v.Slug != "grand-arena" || v.StateProvince != "NY" || !v.ShowMap || !v.ShowMapLink || v.Status != models.StatusPublish || v.AuthorID != admin.ID {
			t.Errorf("defaults: %+v", v)
		}
		v2, _, _ := db.Venues().Create(ctx, admin, models.VenueInput{Venue: sp("Louvre"), Country: sp("France"), Province: sp("Ile de France"), State: sp("X")}, "en")
		if v2.StateProvince != "Ile de France" {
			t.Errorf("stateprovince outside the US = %q, want the province", v2.StateProvince)
		}
		for _, c := range []struct {
			name string
			in   models.VenueInput
			dup  bool
		}{
			{"same name other case", models.VenueInput{Venue: sp("GRAND arena")}, true},
			{"address substring", models.VenueInput{Venue: sp("Grand Arena"), Address: sp("main st")}, true},
			{"other city", models.VenueInput{Venue: sp("Grand Arena"), City: sp("Gotham")}, false},
			{"other name", models.VenueInput{Venue: sp("Grand Arena 2")}, false},
			{"non-ASCII capitals, same case", models.VenueInput{Venue: sp("Église Ünïcode")}, false},
			{"non-ASCII capitals again", models.VenueInput{Venue: sp("Église Ünïcode")}, true},
		} {
			got, existing, err := db.Venues().Create(ctx, admin, c.in, "en")
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := v.ID
			if c.name == "non-ASCII capitals again" {
				want = got.ID // the venue of the previous case
			}
			if existing != c.dup || (c.dup && got.ID != want) {
				t.Errorf("%s: existing=%v id=%d, want dup=%v of %d", c.name, existing, got.ID, c.dup, v.ID)
			}
			if !c.dup && got.Slug == v.Slug {
				t.Errorf("%s: slug %q reused", c.name, got.Slug)
			}
		}
		// A contributor's request to publish is scaled back; their draft is
		// not a duplicate target for someone who cannot see it.
		contrib := mkUser(t, db, "contrib", models.RoleContributor)
		c, _, err := db.Venues().Create(ctx, contrib, models.VenueInput{Venue: sp("Secret Room"), PostInput: models.PostInput{Status: sp("publish")}, ShowMap: new(bool)}, "en")
		if err != nil || c.Status != models.StatusPending || c.ShowMap {
			t.Fatalf("contributor create: %v %+v", err, c)
		}
		other := mkUser(t, db, "other", models.RoleContributor)
		d, existing, _ := db.Venues().Create(ctx, other, models.VenueInput{Venue: sp("Secret Room")}, "en")
		if existing || d.ID == c.ID {
			t.Errorf("another contributor got the pending venue of someone else as a duplicate")
		}
		if _, _, err := db.Venues().Create(ctx, admin, models.VenueInput{Venue: sp("  ")}, "en"); !errors.Is(err, models.ErrInvalid) {
			t.Errorf("blank name: %v", err)
		}
	})
}

func TestVenueUpdateTranslationsTrashDelete(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "ed", models.RoleEditor)
		v, _, _ := db.Venues().Create(ctx, ed, models.VenueInput{Venue: sp("Hall"), City: sp("Tokyo"), Phone: sp("123"),
			Country: sp("US"), State: sp("CA"), ShowMap: new(bool)}, "en")
		u, err := db.Venues().Update(ctx, ed, models.ByID(v.ID), models.VenueInput{Venue: sp("ホール"), City: sp("東京"), Zip: sp("100-0001")}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		if u.Venue != "ホール" || u.City != "東京" || u.Zip != "100-0001" || u.Phone != "123" || u.ShowMap {
			t.Errorf("ja read after ja update: %+v", u)
		}
		en, _ := db.Venues().Get(ctx, ed, models.ByID(v.ID), "en")
		if en.Venue != "Hall" || en.City != "Tokyo" || en.Zip != "100-0001" || len(en.Translations) != 1 || en.Translations[0] != "ja" {
			t.Errorf("en read: %+v", en)
		}
		// stateprovince follows the state while it is the derived value.
		u, _ = db.Venues().Update(ctx, ed, models.ByID(v.ID), models.VenueInput{State: sp("NV"), Address: sp("")}, "en")
		if u.StateProvince != "NV" || u.Address != "" {
			t.Errorf("derived stateprovince = %q", u.StateProvince)
		}
		bySlug, err := db.Venues().Get(ctx, nil, models.BySlug("hall"), "ja")
		if err != nil || bySlug.ID != v.ID || bySlug.Venue != "ホール" {
			t.Errorf("by slug: %v %+v", err, bySlug)
		}
		if _, err := db.Venues().Get(ctx, nil, models.BySlug("nope"), "en"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("unknown slug: %v", err)
		}
		ev := mkEvent(t, db, models.StatusPublish, time.Now().Add(48*time.Hour), []int64{v.ID}, nil)
		tr, err := db.Venues().Trash(ctx, ed, models.ByID(v.ID), "en")
		if err != nil || tr.Status != models.StatusTrash {
			t.Fatalf("trash: %v %+v", err, tr)
		}
		n, _ := db.IDB().NewSelect().Model((*models.EventVenue)(nil)).Where("event_id = ?", ev).Count(ctx)
		if n != 0 {
			t.Errorf("trashed venue still linked to its event")
		}
		if _, err := db.Venues().Delete(ctx, ed, models.ByID(v.ID), "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Venues().Get(ctx, ed, models.ByID(v.ID), "en"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("deleted venue: %v", err)
		}
		if _, err := db.Venues().Delete(ctx, ed, models.ByID(v.ID), "en"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		m, err := db.Venues().ByIDs(ctx, []int64{v.ID, 999}, "en")
		if err != nil || len(m) != 0 {
			t.Errorf("by ids after delete: %v %v", err, m)
		}
	})
}

func TestVenueListFilters(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "ed", models.RoleEditor)
		au := mkUser(t, db, "au", models.RoleAuthor)
		mk := func(u *models.User, name, status string, in models.VenueInput) *models.Venue {
			in.Venue, in.Status = sp(name), sp(status)
			v, _, err := db.Venues().Create(ctx, u, in, "en")
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		london := mk(ed, "London Hall", "publish", models.VenueInput{City: sp("London"), Zip: sp("223345")})
		temple := mk(ed, "Temple", "publish", models.VenueInput{Address: sp("100, Avenue du Temple"), Zip: sp("223345")})
		draft := mk(ed, "Draft Place", "draft", models.VenueInput{City: sp("London")})
		mine := mk(au, "Author Draft", "draft", models.VenueInput{})
		empty := mk(ed, "中文场地", "publish", models.VenueInput{})
		past := mkEvent(t, db, models.StatusPublish, time.Now().Add(-48*time.Hour), []int64{london.ID}, nil)
		mkEvent(t, db, models.StatusPublish, time.Now().Add(48*time.Hour), []int64{temple.ID}, nil)
		mkEvent(t, db, models.StatusDraft, time.Now().Add(48*time.Hour), []int64{draft.ID}, nil)
		tru, fal := true, false
		ids := func(u *models.User, f models.LinkedFilter) []int64 {
			t.Helper()
			if f.Lang == "" {
				f.Lang = "en"
			}
			if f.PerPage == 0 {
				f.PerPage = 50
			}
			p, err := db.Venues().List(ctx, u, f)
			if err != nil {
				t.Fatal(err)
			}
			if p.Total < len(p.Items) {
				t.Errorf("total %d < rows %d", p.Total, len(p.Items))
			}
			out := []int64{}
			for _, v := range p.Items {
				out = append(out, v.ID)
			}
			return out
		}
		for _, c := range []struct {
			name string
			as   *models.User
			f    models.LinkedFilter
			want []int64
		}{
			{"anonymous sees published, newest first", nil, models.LinkedFilter{}, []int64{empty.ID, temple.ID, london.ID}},
			{"editor sees drafts", ed, models.LinkedFilter{}, []int64{empty.ID, mine.ID, draft.ID, temple.ID, london.ID}},
			{"author sees own draft", au, models.LinkedFilter{}, []int64{empty.ID, mine.ID, temple.ID, london.ID}},
			{"author status=draft: own only", au, models.LinkedFilter{Statuses: []string{"draft"}}, []int64{mine.ID}},
			{"search city", nil, models.LinkedFilter{Words: models.SearchWords("london")}, []int64{london.ID}},
			{"search zip", nil, models.LinkedFilter{Words: models.SearchWords("223345")}, []int64{temple.ID, london.ID}},
			{"search words any order", nil, models.LinkedFilter{Words: models.SearchWords("temple avenue")}, []int64{temple.ID}},
			{"search CJK substring", nil, models.LinkedFilter{Words: models.SearchWords("场地")}, []int64{empty.ID}},
			{"search nothing", nil, models.LinkedFilter{Words: models.SearchWords("zzz")}, []int64{}},
			{"event", nil, models.LinkedFilter{EventID: past}, []int64{london.ID}},
			{"has_events", ed, models.LinkedFilter{HasEvents: &tru}, []int64{temple.ID, london.ID}},
			{"has_events false", ed, models.LinkedFilter{HasEvents: &fal}, []int64{empty.ID, mine.ID, draft.ID}},
			{"only_with_upcoming", nil, models.LinkedFilter{OnlyWithUpcoming: true}, []int64{temple.ID}},
			{"only_with_upcoming counts drafts the editor sees", ed, models.LinkedFilter{OnlyWithUpcoming: true}, []int64{draft.ID, temple.ID}},
			{"page 2", nil, models.LinkedFilter{Page: 2, PerPage: 2}, []int64{london.ID}},
		} {
			got := ids(c.as, c.f)
			if len(got) != len(c.want) {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				continue
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s: got %v, want %v", c.name, got, c.want)
					break
				}
			}
		}
		p, err := db.Venues().List(ctx, nil, models.LinkedFilter{Words: []string{"zzz"}, Lang: "en", PerPage: 10})
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 0 {
			t.Errorf("total of an empty search = %d", p.Total)
		}
	})
}
