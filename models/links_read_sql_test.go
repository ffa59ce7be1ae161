package models_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestLinkedVenuesAreNoOracleForGeography: the geoloc filter and the
// distance order see only the venues the reader may read, so a hidden
// venue's coordinates neither admit an event nor move it up.
func TestLinkedVenuesAreNoOracleForGeography(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "editor", models.RoleEditor)
		co := mkUser(t, db, "contributor", models.RoleContributor)
		f := func(v float64) *float64 { return &v }
		venue := func(name, status string, lat, lng float64) int64 {
			t.Helper()
			v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: sp(name), GeoLat: f(lat), GeoLng: f(lng),
				PostInput: models.PostInput{Status: sp(status)}}, "en")
			if err != nil {
				t.Fatal(err)
			}
			return v.ID
		}
		hiddenNear := venue("Geheimer Keller", models.StatusDraft, 35.0, 135.0)
		hiddenClose := venue("秘密の蔵", models.StatusPrivate, 35.1, 135.1)
		farPublic := venue("Sydney Hall", models.StatusPublish, -33.9, 151.2)
		midPublic := venue("京都会館", models.StatusPublish, 35.5, 135.5)
		event := func(title string, venues ...int64) int64 {
			t.Helper()
			refs := []models.VenueRef{}
			for _, id := range venues {
				refs = append(refs, models.VenueRef{ID: id})
			}
			e, err := db.CreateEvent(ctx, ed, models.EventInput{Title: sp(title), StartDate: sp("2031-06-01 10:00"),
				EndDate: sp("2031-06-01 11:00"), Venues: &refs, Lang: "en"})
			if err != nil {
				t.Fatal(err)
			}
			return e.ID
		}
		g1 := event("Near and far", hiddenNear, farPublic)
		g2 := event("Middle", midPublic)
		g3 := event("Only hidden", hiddenClose)
		ids := []int64{g1, g2, g3}
		list := func(u *models.User, f models.EventFilter) []int64 {
			t.Helper()
			f.Include, f.PerPage = ids, 10
			p, err := db.ListEvents(ctx, u, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []int64
			for _, e := range p.Items {
				out = append(out, e.ID)
			}
			if p.Total != len(out) {
				t.Errorf("total %d for %d events", p.Total, len(out))
			}
			return out
		}
		near := &models.GeoPoint{Lat: 35, Lng: 135}
		yes, no := true, false
		for _, c := range []struct {
			name string
			u    *models.User
			f    models.EventFilter
			want []int64
		}{
			{"anonymous by distance", nil, models.EventFilter{Near: near}, []int64{g2, g1}},
			{"contributor by distance", co, models.EventFilter{Near: near}, []int64{g2, g1}},
			{"editor by distance", ed, models.EventFilter{Near: near}, []int64{g1, g3, g2}},
			{"anonymous with coordinates", nil, models.EventFilter{Geoloc: &yes}, []int64{g1, g2}},
			{"anonymous without coordinates", nil, models.EventFilter{Geoloc: &no}, []int64{g3}},
			{"editor without coordinates", ed, models.EventFilter{Geoloc: &no}, nil},
			{"editor with coordinates", ed, models.EventFilter{Geoloc: &yes}, []int64{g1, g2, g3}},
		} {
			if got := list(c.u, c.f); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
			}
		}
	})
}

// TestReadRuleInSQLAgreesWithCan: the read rule written as SQL (for the
// geography filters) selects exactly the records Can lets each reader
// read, for every role, status and ownership, on venues and organizers.
func TestReadRuleInSQLAgreesWithCan(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		readers := []*models.User{nil}
		for _, r := range models.Roles {
			readers = append(readers, mkUser(t, db, string(r), r))
		}
		statuses := []string{models.StatusPublish, models.StatusFuture, models.StatusDraft, models.StatusPending,
			models.StatusPrivate, models.StatusTrash}
		type rec struct {
			kind models.Kind
			id   int64
			subj models.Subject
		}
		var recs []rec
		for _, owner := range readers[1:] {
			for _, st := range statuses {
				v, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{Venue: sp("Venue " + string(owner.Role) + " " + st),
					PostInput: models.PostInput{AuthorID: &owner.ID}}, "en")
				if err != nil {
					t.Fatal(err)
				}
				o, _, err := db.Organizers().Create(ctx, models.Console, models.OrganizerInput{Organizer: sp("Organizer " + string(owner.Role) + " " + st),
					PostInput: models.PostInput{AuthorID: &owner.ID}}, "en")
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range []rec{{models.KindVenue, v.ID, models.Subject{}}, {models.KindOrganizer, o.ID, models.Subject{}}} {
					table := "venues"
					if r.kind == models.KindOrganizer {
						table = "organizers"
					}
					if _, err := db.IDB().NewUpdate().Table(table).Set("status = ?", st).Where("id = ?", r.id).Exec(ctx); err != nil {
						t.Fatal(err)
					}
					r.subj = models.Subject{Kind: r.kind, AuthorID: owner.ID, Status: st}
					recs = append(recs, r)
				}
			}
		}
		m := modelstest.NewMatrix(t)
		for _, u := range readers {
			who := "anonymous"
			if u != nil {
				who = string(u.Role)
			}
			for _, k := range []models.Kind{models.KindVenue, models.KindOrganizer} {
				got, err := db.ReadableIDs(ctx, u, k)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					if r.kind != k {
						continue
					}
					own := u != nil && r.subj.AuthorID == u.ID
					m.Check(fmt.Sprintf("%s reads %s %s own=%v", who, k, r.subj.Status, own),
						models.Can(u, models.ActRead, r.subj), slices.Contains(got, r.id), "SQL vs Can")
				}
			}
		}
	})
}
