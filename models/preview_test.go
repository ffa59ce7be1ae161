package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// A preview is the record a save would make, with its links, terms and
// slug, while nothing is stored; it is refused to who may not save it.
func TestPreviewStoresNothing(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "ed", models.RoleEditor)
		au := mkUser(t, db, "au", models.RoleAuthor)
		day := time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly)
		ev, err := db.CreateEvent(ctx, ed, models.EventInput{Title: sp("Lantern walk"), StartDate: sp(day + " 18:00"),
			EndDate: sp(day + " 19:00"), Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		tags := []models.TermRef{{Name: "夜市"}}
		venues := []models.VenueRef{{New: &models.VenueInput{Venue: sp("河原 Riverside")}}}
		ref := models.ByID(ev.ID)
		got, err := db.PreviewEvent(ctx, ed, &ref, models.EventInput{Title: sp("灯籠流し Lanterns on the river"), Tags: &tags, Venues: &venues})
		if err != nil || got.Title != "灯籠流し Lanterns on the river" || len(got.Tags) != 1 || got.Tags[0].Name != "夜市" ||
			len(got.Venues) != 1 || got.Venues[0].Venue != "河原 Riverside" {
			t.Fatalf("preview of an edit: %+v, %v", got, err)
		}
		fresh, err := db.PreviewEvent(ctx, au, nil, models.EventInput{Title: sp("Nouvelle fête"), StartDate: sp(day + " 10:00"),
			EndDate: sp(day + " 11:00")})
		if err != nil || fresh.Title != "Nouvelle fête" || fresh.Slug == "" {
			t.Fatalf("preview of a new event: %+v, %v", fresh, err)
		}
		org, err := db.Organizers().Preview(ctx, au, nil, models.OrganizerInput{Organizer: sp("주최자")}, "")
		if err != nil || org.Organizer != "주최자" {
			t.Fatalf("preview of a new organizer: %+v, %v", org, err)
		}
		// Refused as the save would be.
		var fe *models.ForbiddenError
		if _, err := db.PreviewEvent(ctx, au, &ref, models.EventInput{Title: sp("Mine now")}); !errors.As(err, &fe) {
			t.Errorf("an author's preview of an editor's event: %v", err)
		}
		// Nothing stored.
		stored, err := db.GetEvent(ctx, ed, ref, "")
		if err != nil || stored.Title != "Lantern walk" || len(stored.Tags) != 0 || len(stored.Venues) != 0 {
			t.Errorf("the event after its preview: %+v, %v", stored, err)
		}
		page, err := db.ListEvents(ctx, ed, models.EventFilter{PerPage: 10, Statuses: []string{models.StatusPublish, models.StatusDraft, models.StatusPending}})
		if err != nil || page.Total != 1 {
			t.Errorf("events after the previews: %d, %v", page.Total, err)
		}
		for _, n := range []func() (int, error){
			func() (int, error) {
				p, err := db.Venues().List(ctx, ed, models.LinkedFilter{PerPage: 10})
				return p.Total, err
			},
			func() (int, error) {
				p, err := db.Organizers().List(ctx, ed, models.LinkedFilter{PerPage: 10})
				return p.Total, err
			},
			func() (int, error) {
				p, err := db.ListTerms(ctx, ed, models.TermFilter{Taxonomy: models.TaxTag, PerPage: 10})
				return len(p.Items), err
			},
		} {
			if total, err := n(); err != nil || total != 0 {
				t.Errorf("records after the previews: %d, %v", total, err)
			}
		}
	})
}
