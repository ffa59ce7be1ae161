package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// langCookie remembers the language picked with ?lang=.
const langCookie = "kalends_lang"

// pickLang returns the admin language of a request (SPEC §10): ?lang=,
// then the signed-in user's saved language, then the cookie, then
// Accept-Language, then the site default. The language middleware stores
// its choice; error pages of other paths pick the same way.
func (h *handler) pickLang(c *fiber.Ctx) string {
	if l, ok := c.Locals(localLang).(string); ok && l != "" {
		return l
	}
	if l := i18n.Normalize(c.Query("lang")); l != "" {
		return l
	}
	if u := userOf(c); u != nil {
		if l := i18n.Normalize(u.Locale); l != "" {
			return l
		}
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

// language picks the language of an admin request and remembers a ?lang=
// choice: in the cookie, and in the profile of a signed-in user whose
// saved language differs (through the same operation as the profile page).
func (h *handler) language(c *fiber.Ctx) error {
	lang := h.pickLang(c)
	c.Locals(localLang, lang)
	if i18n.Normalize(c.Query("lang")) == lang {
		c.Cookie(&fiber.Cookie{Name: langCookie, Value: lang, Path: "/admin/", MaxAge: int((365 * 24 * time.Hour).Seconds()),
			HTTPOnly: true, Secure: h.secure(), SameSite: fiber.CookieSameSiteLaxMode})
		if u := userOf(c); u != nil && i18n.Normalize(u.Locale) != lang {
			saved, err := h.d.DB.UpdateUser(c.UserContext(), u, u.ID, models.UserUpdate{Locale: &lang})
			if err != nil {
				return err
			}
			c.Locals(localUser, saved)
		}
	}
	return c.Next()
}
