package ui

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// SessionTTL is how long a session lasts from its last use (sliding);
// never longer than the site's SessionLifetime after sign-in (models
// enforces both). The use is recorded, and the expiry moved, at most once
// per models.SessionSeenResolution, so a busy editor does not cost a write
// per page.
const SessionTTL = 7 * 24 * time.Hour

// Keys of the request's Locals.
const (
	localUser    = "kalends.user"
	localSession = "kalends.session"
)

// SetUser makes u the signed-in user of the rest of the request (after
// the user's own record was saved).
func SetUser(c *fiber.Ctx, u *models.User) { c.Locals(localUser, u) }

// UserOf returns the signed-in user of a request (nil when signed out).
func UserOf(c *fiber.Ctx) *models.User {
	u, _ := c.Locals(localUser).(*models.User)
	return u
}

// SessionOf returns the session of a signed-in request (nil when signed
// out).
func SessionOf(c *fiber.Ctx) *models.Session {
	s, _ := c.Locals(localSession).(*models.Session)
	return s
}

// Secure reports whether cookies must be Secure: the site is served over
// https.
func (d *Deps) Secure() bool {
	return d.Site != nil && strings.HasPrefix(strings.ToLower(d.Site.BaseURL), "https://")
}

// SessionCookie is the cookie that carries token for maxAge seconds (0 and
// below: delete it). Path / so that the admin's scripts can call the API
// with it (and X-WP-Nonce).
func (d *Deps) SessionCookie(token string, maxAge int) *fiber.Cookie {
	ck := &fiber.Cookie{Name: models.SessionCookie, Value: token, Path: "/", MaxAge: maxAge,
		HTTPOnly: true, Secure: d.Secure(), SameSite: fiber.CookieSameSiteLaxMode}
	if maxAge <= 0 {
		ck.Value, ck.MaxAge, ck.Expires = "", -1, time.Unix(0, 0)
	}
	return ck
}

// CookieAge is the Max-Age of sess's cookie: until its expiry, which
// models keeps within the session's lifetime, so the cookie never outlives
// the session.
func (d *Deps) CookieAge(sess *models.Session) int {
	return max(1, int(sess.ExpiresAt.Sub(d.Site.Now())/time.Second))
}

// LoadSession puts the user of a live session cookie into the request and
// records its use (last seen, address, sliding expiry: the one write a
// GET may cause). A cookie that names no live session is
// dropped. A database that does not answer is an error (500), never
// "signed out".
func (d *Deps) LoadSession(c *fiber.Ctx) error {
	token := c.Cookies(models.SessionCookie)
	if token == "" || d.DB == nil {
		return c.Next()
	}
	ctx := c.UserContext()
	sess, u, err := d.DB.SessionByToken(ctx, token)
	if errors.Is(err, models.ErrNoSession) {
		c.Cookie(d.SessionCookie("", 0))
		return c.Next()
	}
	if err != nil {
		return err
	}
	if wrote, err := d.DB.TouchSession(ctx, sess, SessionTTL, c.IP()); err != nil {
		return err
	} else if wrote {
		c.Cookie(d.SessionCookie(token, d.CookieAge(sess)))
	}
	c.Locals(localUser, u)
	c.Locals(localSession, sess)
	return c.Next()
}
