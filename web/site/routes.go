package site

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/web/ui"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// registerFeeds mounts the feeds; before the public pages, whose
// /event/:slug would otherwise take /event/x.ics.
func (h *handler) registerFeeds(app *fiber.App) {
	mlLanguage := func(c *fiber.Ctx, lang string) (string, error) {
		q := strings.ToLower(c.Query("ml_language"))
		if q == "" {
			return lang, nil
		}
		if !i18n.Valid(q) {
			return "", h.feedError(c, lang, http.StatusBadRequest, "ml_language")
		}
		return q, nil
	}
	h.perLanguage(mlLanguage, func(pre string, with func(langHandler) fiber.Handler) {
		app.Get(pre+"/events.ics", with(h.eventsFeed))
		app.Get(pre+"/event/:slug.ics", with(h.eventFeed))
	})
}

// registerPublic mounts the public pages.
func (h *handler) registerPublic(app *fiber.App) {
	h.perLanguage(nil, func(pre string, with func(langHandler) fiber.Handler) {
		app.Get(pre+"/", h.d.LoadSession, with(h.root))
		app.Get(pre+"/events", h.d.LoadSession, with(h.publicEvents))
		h.registerTECViews(app, pre, with)
		app.Get(pre+"/event/:slug", h.d.LoadSession, with(h.publicEvent))
		app.Get(pre+"/venue/:slug", h.d.LoadSession, with(h.publicLinked(venueKind)))
		app.Get(pre+"/organizer/:slug", h.d.LoadSession, with(h.publicLinked(organizerKind)))
		app.Get(pre+"/events/category/:slug", h.d.LoadSession, with(h.publicTerm(models.TaxCategory)))
		app.Get(pre+"/tag/:slug", h.d.LoadSession, with(h.publicTerm(models.TaxTag)))
	})
	app.Get("/sitemap.xml", h.cached(h.sitemapIndex))
	app.Get("/sitemap-:name", h.cached(h.sitemapChild))
	app.Get("/robots.txt", h.cached(h.robots))
}

// Register mounts the public site on app: the feeds first (their
// /event/:slug.ics before the page's /event/:slug), then the pages, the
// sitemap and robots.txt, each page and feed under every language prefix.
func Register(app *fiber.App, d *ui.Deps) {
	h := &handler{d: d}
	app.Get(stylesheetPath, h.themeStylesheet)
	h.registerEmbeds(app)
	h.registerFeeds(app)
	h.registerPublic(app)
	h.registerPreview(app)
}
