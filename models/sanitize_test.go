package models_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// Description HTML is sanitized on every write that stores it (events,
// their translations, venues, organizers, categories), whoever writes it:
// scripts, handlers and javascript: links go; paragraphs, emphasis, links
// and lists stay; titles are text and stay as written.
func TestDescriptionsAreSanitizedOnSave(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := addAccount(t, db, "ed", models.RoleEditor)
		str := func(s string) *string { return &s }
		const dirty = `<p>Hello <strong>there</strong> <a href="https://example.test/a">link</a></p>` +
			`<script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">x</a><ul><li>one</li></ul>`
		check := func(what, got string) {
			t.Helper()
			for _, bad := range []string{"<script", "onerror", "javascript:"} {
				if strings.Contains(got, bad) {
					t.Errorf("%s keeps %q: %s", what, bad, got)
				}
			}
			for _, good := range []string{"<p>", "<strong>there</strong>", `<a href="https://example.test/a">link</a>`, "<li>one</li>"} {
				if !strings.Contains(got, good) {
					t.Errorf("%s lost %q: %s", what, good, got)
				}
			}
		}
		title := `<b>Title</b> & more`
		e, err := db.CreateEvent(ctx, ed, models.EventInput{Title: str(title), Description: str(dirty), Excerpt: str(dirty),
			StartDate: str("2031-01-01 10:00:00"), EndDate: str("2031-01-01 11:00:00")})
		if err != nil {
			t.Fatal(err)
		}
		check("event description", e.Description)
		check("event excerpt", e.Excerpt)
		if e.Title != title {
			t.Errorf("title %q, want it as written", e.Title)
		}
		ja, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Description: str(dirty), Lang: "ja"})
		if err != nil {
			t.Fatal(err)
		}
		check("ja translation", ja.Description)
		v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: str("Hall"), Description: str(dirty)}, "")
		if err != nil {
			t.Fatal(err)
		}
		check("venue", v.Description)
		o, _, err := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: str("Org"), Description: str(dirty)}, "")
		if err != nil {
			t.Fatal(err)
		}
		check("organizer", o.Description)
		c, err := db.CreateTerm(ctx, ed, models.TaxCategory, models.TermInput{Name: str("Music"), Description: str(dirty)}, "")
		if err != nil {
			t.Fatal(err)
		}
		check("category", c.Description)
	})
}
