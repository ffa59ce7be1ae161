package web

import (
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
)

// langCookie remembers the language picked with ?lang=.
const langCookie = "kalends_lang"

// pickLang returns the admin language of a request: ?lang=, then the
// cookie, then Accept-Language, then the site default.
func (h *handler) pickLang(c *fiber.Ctx) string {
	if l := i18n.Normalize(c.Query("lang")); l != "" {
		return l
	}
	if l := i18n.Normalize(c.Cookies(langCookie)); l != "" {
		return l
	}
	def := i18n.OrSource(h.d.Site.Language())
	if al := c.Get(fiber.HeaderAcceptLanguage); al != "" {
		return i18n.Match(al, def)
	}
	return def
}
