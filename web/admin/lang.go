package admin

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// langCookie remembers the language chosen in the switcher.
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
	if u := ui.UserOf(c); u != nil {
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

// language picks the language of an admin request. It stores nothing: a
// ?lang= shows that one page in that language (SPEC §10); the switcher
// posts to switchLanguage, which remembers the choice.
func (h *handler) language(c *fiber.Ctx) error {
	c.Locals(localLang, h.pickLang(c))
	return c.Next()
}

// languagePath is where the language switcher posts (CSRF-checked: the
// session's token when signed in, the sign-in form's otherwise).
const languagePath = "/admin/language"

// switchLanguage remembers the language chosen in the switcher: in the
// cookie always (the sign-in page included), and in the profile of a
// signed-in user whose saved language differs (through the same operation
// as the profile page). It then goes back to the page the switcher was
// on (back, a path of this site), without its ?lang=.
func (h *handler) switchLanguage(c *fiber.Ctx) error {
	lang := i18n.Normalize(c.FormValue("lang"))
	if lang == "" {
		return fiber.ErrBadRequest
	}
	c.Cookie(&fiber.Cookie{Name: langCookie, Value: lang, Path: "/admin/", MaxAge: int((365 * 24 * time.Hour).Seconds()),
		HTTPOnly: true, Secure: h.d.Secure(), SameSite: fiber.CookieSameSiteLaxMode})
	if u := ui.UserOf(c); u != nil && i18n.Normalize(u.Locale) != lang {
		if _, err := h.d.DB.UpdateUser(c.UserContext(), u, u.ID, models.UserUpdate{Locale: &lang}); err != nil {
			return err
		}
	}
	back := c.FormValue("back")
	if !safeRedirect(back) {
		back = dashboardPath
		if ui.UserOf(c) == nil {
			back = loginPath
		}
	}
	return c.Redirect(back, fiber.StatusSeeOther)
}

// pageWithoutLang is the current page's path and query without lang, for
// the switcher to come back to. A page that answers a form (a POST, whose
// path may take no GET) comes back to the page the form was on, when the
// browser says it (Referer, of this site), else to the dashboard.
func pageWithoutLang(c *fiber.Ctx) string {
	u := c.Request().URI()
	if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
		ref, err := url.Parse(c.Get(fiber.HeaderReferer))
		if err != nil || ref.Host != c.Hostname() || !safeRedirect(ref.RequestURI()) {
			return dashboardPath
		}
		u = fasthttp.AcquireURI()
		defer fasthttp.ReleaseURI(u)
		if err := u.Parse(nil, []byte(ref.RequestURI())); err != nil {
			return dashboardPath
		}
	}
	return uriWithLang(u, "")
}

// withLang is the current page's URL with lang set to code (other query
// parameters kept): the switcher's links where it cannot post.
func withLang(c *fiber.Ctx, code string) string { return uriWithLang(c.Request().URI(), code) }

// uriWithLang is the path and query of u with lang set to code, or without
// lang when code is "".
func uriWithLang(u *fasthttp.URI, code string) string {
	args := fiber.AcquireArgs()
	defer fiber.ReleaseArgs(args)
	u.QueryArgs().CopyTo(args)
	if code == "" {
		args.Del("lang")
	} else {
		args.Set("lang", code)
	}
	if args.Len() == 0 {
		return string(u.PathOriginal())
	}
	return string(u.PathOriginal()) + "?" + args.String()
}

// localLang is the key of the request's language among its Locals.
const localLang = "kalends.lang"
