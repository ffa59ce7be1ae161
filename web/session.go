package web

import (
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// Sessions last sessionTTL from their last use (sliding), and never longer
// than the site's SessionLifetime after sign-in (models enforces both). The
// use is recorded, and the expiry moved, at most once per
// models.SessionSeenResolution, so a busy editor does not cost a write per
// page.
const sessionTTL = 7 * 24 * time.Hour

// Keys of the request's Locals.
const (
	localUser    = "kalends.user"
	localSession = "kalends.session"
	localLang    = "kalends.lang"
)

// userOf returns the signed-in user of a request (nil when signed out).
func userOf(c *fiber.Ctx) *models.User {
	u, _ := c.Locals(localUser).(*models.User)
	return u
}

// sessionOf returns the session of a signed-in request (nil when signed
// out).
func sessionOf(c *fiber.Ctx) *models.Session {
	s, _ := c.Locals(localSession).(*models.Session)
	return s
}

// secure reports whether cookies must be Secure: the site is served over
// https.
func (h *handler) secure() bool {
	return h.d.Site != nil && strings.HasPrefix(strings.ToLower(h.d.Site.BaseURL), "https://")
}

// sessionCookie is the cookie that carries token for maxAge seconds (0 and
// below: delete it). Path / so that the admin's scripts can call the API
// with it (and X-WP-Nonce).
func (h *handler) sessionCookie(token string, maxAge int) *fiber.Cookie {
	ck := &fiber.Cookie{Name: models.SessionCookie, Value: token, Path: "/", MaxAge: maxAge,
		HTTPOnly: true, Secure: h.secure(), SameSite: fiber.CookieSameSiteLaxMode}
	if maxAge <= 0 {
		ck.Value, ck.MaxAge, ck.Expires = "", -1, time.Unix(0, 0)
	}
	return ck
}

// cookieAge is the Max-Age of sess's cookie: until its expiry, which
// models keeps within the session's lifetime, so the cookie never outlives
// the session.
func (h *handler) cookieAge(sess *models.Session) int {
	return max(1, int(sess.ExpiresAt.Sub(h.d.Site.Now())/time.Second))
}

// loadSession puts the user of a live session cookie into the request and
// records its use (last seen, address, sliding expiry: the one write a
// GET may cause). A cookie that names no live session is
// dropped. A database that does not answer is an error (500), never
// "signed out".
func (h *handler) loadSession(c *fiber.Ctx) error {
	token := c.Cookies(models.SessionCookie)
	if token == "" || h.d.DB == nil {
		return c.Next()
	}
	ctx := c.UserContext()
	sess, u, err := h.d.DB.SessionByToken(ctx, token)
	if errors.Is(err, models.ErrNoSession) {
		c.Cookie(h.sessionCookie("", 0))
		return c.Next()
	}
	if err != nil {
		return err
	}
	if wrote, err := h.d.DB.TouchSession(ctx, sess, sessionTTL, c.IP()); err != nil {
		return err
	} else if wrote {
		c.Cookie(h.sessionCookie(token, h.cookieAge(sess)))
	}
	c.Locals(localUser, u)
	c.Locals(localSession, sess)
	return c.Next()
}

// requireUser sends signed-out requests for any admin page but the sign-in
// page to the sign-in page, with the page asked for as redirect_to (for
// GET; after a form post there is no page to come back to). htmx requests
// are told with HX-Redirect, which makes the browser load the page.
func (h *handler) requireUser(c *fiber.Ctx) error {
	if userOf(c) != nil || c.Path() == loginPath || c.Path() == languagePath {
		return c.Next()
	}
	target := loginPath
	if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
		if back := c.OriginalURL(); safeRedirect(back) {
			target += "?redirect_to=" + url.QueryEscape(back)
		}
	}
	if c.Get("HX-Request") == "true" {
		c.Set("HX-Redirect", target)
		return c.SendStatus(fiber.StatusUnauthorized)
	}
	return c.Redirect(target, fiber.StatusSeeOther)
}
