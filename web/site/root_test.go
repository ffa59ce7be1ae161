package site

import (
	"log/slog"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
	"github.com/kalends/kalends/web/ui"
)

// TestRootIsTheEventsList: / sends readers to the public list of events
// (the admin stays at /admin/).
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
	})
}
