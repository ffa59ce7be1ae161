package site

import (
	"context"
	"log/slog"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
	"github.com/kalends/kalends/web/ui"
)

// TestRootIsTheEventsList: / sends readers to the public list of events
// (the admin stays at /admin/), or to the view the settings name.
func TestRootIsTheEventsList(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		b, err := i18n.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		site := models.DefaultSite()
		db.UseSite(site)
		app := fiber.New(fiber.Config{Immutable: true})
		Register(app, &ui.Deps{DB: db, I18n: b, Logger: slog.New(slog.DiscardHandler), Site: site})
		resp, _ := do(t, app, "/")
		if resp.StatusCode != 302 || resp.Header.Get("Location") != "/events/" {
			t.Errorf("/ = %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		// The view the settings name, each of them, under a language
		// prefix too.
		admin, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: "chef", Password: "password-chef", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		for _, view := range models.SettingsViews {
			if _, err := db.SaveSettings(context.Background(), admin, models.SettingsInput{DefaultView: view}, i18n.Codes); err != nil {
				t.Fatal(err)
			}
			want := "/ja/events/?view=" + view
			if view == "list" {
				want = "/ja/events/"
			}
			if resp, _ := do(t, app, "/ja/"); resp.StatusCode != 302 || resp.Header.Get("Location") != want {
				t.Errorf("default view %s: /ja/ = %d %q, want %q", view, resp.StatusCode, resp.Header.Get("Location"), want)
			}
			if resp, body := do(t, app, want); resp.StatusCode != 200 {
				t.Errorf("default view %s: %s = %d %.200s", view, want, resp.StatusCode, body)
			}
		}
	})
}
