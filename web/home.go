package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/i18n"
)

// layoutFor builds the frame of a page in lang with the localized title.
func (h *handler) layoutFor(lang, titleID string) layoutView {
	return layoutView{
		Lang:    i18n.Tag(lang).String(),
		Title:   h.d.I18n.T(lang, titleID, nil),
		Product: productName,
		HTMXURL: assets.URL("vendor/htmx.min.js"),
	}
}

// home renders the placeholder dashboard. A valid ?lang= is remembered in a
// cookie for the next pages.
func (h *handler) home(c *fiber.Ctx) error {
	if c.Path() == "/admin" {
		return c.Redirect("/admin/", fiber.StatusMovedPermanently)
	}
	lang := h.pickLang(c)
	if i18n.Normalize(c.Query("lang")) == lang {
		c.Cookie(&fiber.Cookie{Name: langCookie, Value: lang, Path: "/admin/", MaxAge: int((365 * 24 * time.Hour).Seconds()),
			HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode})
	}
	apiPath := h.d.APIPath
	if apiPath == "" {
		apiPath = "/cal/events/v1/"
	}
	return render(c, fiber.StatusOK, homePage(homeView{
		Layout:  h.layoutFor(lang, "admin.home.title"),
		Heading: h.d.I18n.T(lang, "admin.home.heading", nil),
		Intro:   h.d.I18n.T(lang, "admin.home.intro", nil),
		APIText: h.d.I18n.T(lang, "admin.home.api_link", nil),
		APIPath: apiPath,
	}))
}

// productName is the product's name, the same in every language.
const productName = "Kalends"
