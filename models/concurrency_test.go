package models_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestConcurrentUpdatesOfOneEventNeverInterleave: writers that each set a
// whole different state of one event at once (title, venue, two
// organizers, categories and tags) leave, after every round, exactly one
// writer's state: never the title of one with the links of another, nor
// links of two writers mixed. Term counts stay exact. On both dialects.
func TestConcurrentUpdatesOfOneEventNeverInterleave(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := addAccount(t, db, "ed", models.RoleEditor)
		str := func(s string) *string { return &s }
		const writers, rounds = 8, 5
		venues := make([]int64, writers)
		orgs := make([][2]int64, writers)
		for w := range writers {
			v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: str(fmt.Sprintf("Venue %d", w))}, "en")
			if err != nil {
				t.Fatal(err)
			}
			venues[w] = v.ID
			for k := range 2 {
				o, _, err := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: str(fmt.Sprintf("Organizer %d-%d", w, k))}, "en")
				if err != nil {
					t.Fatal(err)
				}
				orgs[w][k] = o.ID
			}
		}
		in := models.EventInput{Title: str("Start"), StartDate: str("2031-06-01 10:00:00"), EndDate: str("2031-06-01 12:00:00"), Lang: "en"}
		in.Status = str(models.StatusPublish)
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		stateOf := func(w int) models.EventInput {
			return models.EventInput{
				Title:      str(fmt.Sprintf("write %d", w)),
				Lang:       "en",
				Venues:     &[]models.VenueRef{{ID: venues[w]}},
				Organizers: &[]models.OrganizerRef{{ID: orgs[w][0]}, {ID: orgs[w][1]}},
				Categories: &[]models.TermRef{{Name: fmt.Sprintf("cat-%d", w)}},
				Tags:       &[]models.TermRef{{Name: fmt.Sprintf("tag-%d-a", w)}, {Name: fmt.Sprintf("tag-%d-b", w)}},
			}
		}
		for round := range rounds {
			var wg sync.WaitGroup
			errs := make([]error, writers)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[w] = db.UpdateEvent(ctx, ed, models.ByID(e.ID), stateOf(w))
				}()
			}
			wg.Wait()
			for w, err := range errs {
				if err != nil {
					t.Fatalf("round %d, writer %d: %v", round, w, err)
				}
			}
			got, err := db.GetEvent(ctx, ed, models.ByID(e.ID), "en")
			if err != nil {
				t.Fatal(err)
			}
			var w int
			if _, err := fmt.Sscanf(got.Title, "write %d", &w); err != nil {
				t.Fatalf("round %d: title %q", round, got.Title)
			}
			var have []string
			for _, v := range got.Venues {
				have = append(have, fmt.Sprintf("venue %d", v.ID))
			}
			for _, o := range got.Organizers {
				have = append(have, fmt.Sprintf("organizer %d", o.ID))
			}
			for _, c := range got.Categories {
				have = append(have, "category "+c.Name)
			}
			for _, tg := range got.Tags {
				have = append(have, "tag "+tg.Name)
			}
			want := []string{fmt.Sprintf("venue %d", venues[w]), fmt.Sprintf("organizer %d", orgs[w][0]), fmt.Sprintf("organizer %d", orgs[w][1]),
				fmt.Sprintf("category cat-%d", w), fmt.Sprintf("tag tag-%d-a", w), fmt.Sprintf("tag tag-%d-b", w)}
			if !slices.Equal(have, want) {
				t.Errorf("round %d: the event says %q but its links are\n %s\nwant\n %s", round, got.Title, strings.Join(have, ", "), strings.Join(want, ", "))
			}
		}
		// Every term the event is not linked to counts 0, its own count 1.
		cats, err := db.ListTerms(ctx, ed, models.TermFilter{Taxonomy: models.TaxCategory, PerPage: 100, Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		final, _ := db.GetEvent(ctx, ed, models.ByID(e.ID), "en")
		for _, c := range cats.Items {
			want := int64(0)
			if len(final.Categories) == 1 && c.ID == final.Categories[0].ID {
				want = 1
			}
			if c.Count != want {
				t.Errorf("category %s counts %d, want %d", c.Name, c.Count, want)
			}
		}
	})
}
