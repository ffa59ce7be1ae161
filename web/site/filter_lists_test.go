package site

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/internal/partcache"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
	"github.com/kalends/kalends/web/ui"
)

// TestFilterBarFollowsEveryWrite: the filter bar's lists are kept in the
// parts cache, so every view of every visitor reads them once per
// generation. A write to a term, a venue or an organizer must show in the
// next page (the generation moves in the write's transaction), in the
// language asked, and what one request selected must not stay selected in
// the next one's copy.
func TestFilterBarFollowsEveryWrite(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		b, err := i18n.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		site := models.DefaultSite()
		db.UseSite(site)
		parts := partcache.New(cachegen.New(db, time.Nanosecond), 8<<20)
		app := fiber.New(fiber.Config{Immutable: true})
		Register(app, &ui.Deps{DB: db, I18n: b, Logger: slog.New(slog.DiscardHandler), Site: site, Parts: parts})
		admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "chef", Password: "password-chef", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		s := func(v string) *string { return &v }
		cat, err := db.CreateTerm(ctx, admin, models.TaxCategory, models.TermInput{Name: s("Music"), Slug: s("音楽")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now().Add(48 * time.Hour).Format("2006-01-02 15:04")
		end := time.Now().Add(50 * time.Hour).Format("2006-01-02 15:04")
		if _, err := db.CreateEvent(ctx, admin, models.EventInput{PostInput: models.PostInput{Status: s(models.StatusPublish)},
			Title: s("Café Müller"), StartDate: s(start), EndDate: s(end), Categories: &[]models.TermRef{{ID: cat.ID}}}); err != nil {
			t.Fatal(err)
		}
		page := func(target string) string {
			t.Helper()
			resp, body := do(t, app, target)
			if resp.StatusCode != 200 {
				t.Fatalf("%s: %d\n%.2000s", target, resp.StatusCode, body)
			}
			return body
		}
		has := func(target, want string, yes bool) {
			t.Helper()
			if body := page(target); strings.Contains(body, want) != yes {
				t.Errorf("%s: holds %q: %v, want %v", target, want, !yes, yes)
			}
		}
		has("/ja/events/", `<option value="音楽">`, true)
		has("/ja/events/?view=month", "東京ホール", false)
		if parts.Len() == 0 {
			t.Fatal("the filter lists were not kept in the parts cache")
		}

		venue, _, err := db.Venues().Create(ctx, admin, models.VenueInput{Venue: s("東京ホール"), City: s("東京")}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		has("/ja/events/?view=month", "東京ホール", true)
		has("/ja/events/?view=day", "東京ホール", true)

		if _, err := db.UpdateTerm(ctx, admin, models.TaxCategory, cat.ID, models.TermInput{Name: s("音楽祭")}, "ja"); err != nil {
			t.Fatal(err)
		}
		has("/ja/events/", "音楽祭", true)
		has("/events/", "音楽祭", false) // the translation is Japanese only

		org, _, err := db.Organizers().Create(ctx, admin, models.OrganizerInput{Organizer: s("서울 재즈 협회")}, "ko")
		if err != nil {
			t.Fatal(err)
		}
		has("/ko/events/?view=photo", "서울 재즈 협회", true)

		// A selection is the request's own.
		has("/ja/events/?categories=%E9%9F%B3%E6%A5%BD", `<option value="音楽" selected>`, true)
		has("/ja/events/", `<option value="音楽" selected>`, false)
		// by id too (a filter names a term by either)
		has(fmt.Sprintf("/ja/events/?categories=%d", cat.ID), `<option value="音楽" selected>`, true)

		if _, err := db.Venues().Trash(ctx, admin, models.ByID(venue.ID), "ja"); err != nil {
			t.Fatal(err)
		}
		has("/ja/events/?view=month", "東京ホール", false)
		if _, err := db.Organizers().Trash(ctx, admin, models.ByID(org.ID), "ko"); err != nil {
			t.Fatal(err)
		}
		has("/ko/events/", "서울 재즈 협회", false)
	})
}
