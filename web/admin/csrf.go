package admin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/web/ui"
)

// CSRF protection (SPEC §10). Signed-in forms carry the session's CSRF
// token in the hidden field _csrf; htmx sends it in X-CSRF-Token (set once
// with hx-headers on <body>). The sign-in form has no session yet: it uses
// a double-submit token, a random value in an HttpOnly cookie that the
// form repeats, and requests a browser marks as cross-site are refused.
const (
	csrfField      = "_csrf"
	csrfHeader     = "X-CSRF-Token"
	loginCSRFName  = "kalends_login_csrf"
	loginCSRFLimit = 64
)

// safeMethod reports whether a method changes nothing.
func safeMethod(m string) bool {
	return m == fiber.MethodGet || m == fiber.MethodHead || m == fiber.MethodOptions
}

// sentCSRF is the token a request carries: the header (htmx) or the form
// field.
func sentCSRF(c *fiber.Ctx) string {
	if t := c.Get(csrfHeader); t != "" {
		return t
	}
	return c.FormValue(csrfField)
}

// sameToken compares two tokens in constant time; empty never matches.
func sameToken(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// checkCSRF refuses (403) a state-changing request of a signed-in user
// whose token is missing or wrong, before any handler runs. The sign-in
// form checks its own token (checkLoginCSRF), and so does the language
// switcher of a signed-out browser.
func (h *handler) checkCSRF(c *fiber.Ctx) error {
	if safeMethod(c.Method()) || c.Path() == loginPath {
		return c.Next()
	}
	sess := ui.SessionOf(c)
	if sess == nil && c.Path() == languagePath {
		// The sign-in page's switcher: its double-submit token.
		if !h.checkLoginCSRF(c) {
			return fiber.ErrForbidden
		}
		return c.Next()
	}
	if sess == nil || !sameToken(sentCSRF(c), sess.CSRFToken) {
		return fiber.ErrForbidden
	}
	// A form post is a write: it counts against the user's writes per
	// minute, as the API's do, and makes the shared response cache read
	// the generation again before its next answer.
	if err := h.d.DB.CountWrite(c.UserContext(), ui.UserOf(c)); err != nil {
		return err
	}
	if h.d.Cache != nil {
		defer h.d.Cache.Wrote()
	}
	return c.Next()
}

// loginCSRF returns the sign-in form's token, setting its cookie when the
// browser has none (or a malformed one).
func (h *handler) loginCSRF(c *fiber.Ctx) string {
	if t := c.Cookies(loginCSRFName); t != "" && len(t) <= loginCSRFLimit {
		return t
	}
	// One token per request: the page's switcher and its form share it.
	if t, ok := c.Locals(loginCSRFName).(string); ok {
		return t
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	t := base64.RawURLEncoding.EncodeToString(b[:])
	c.Locals(loginCSRFName, t)
	// Sent to every admin path: the sign-in page's language switcher posts
	// it to languagePath.
	c.Cookie(&fiber.Cookie{Name: loginCSRFName, Value: t, Path: "/admin/", HTTPOnly: true,
		Secure: h.d.Secure(), SameSite: fiber.CookieSameSiteStrictMode})
	return t
}

// checkLoginCSRF reports whether a sign-in post carries the token of its
// cookie and does not come from another site.
func (h *handler) checkLoginCSRF(c *fiber.Ctx) bool {
	if c.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	return sameToken(c.FormValue(csrfField), c.Cookies(loginCSRFName))
}
