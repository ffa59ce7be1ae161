package admin

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// Sign-in limits (SPEC §10) are the site's (models.Limits), counted and
// decided by models.SignInWithPassword: failures per typed identifier from
// one address, per address, and per typed identifier from all addresses
// (which a browser with a device cookie of the account passes). Past one,
// 429 with Retry-After and words that say neither which limit it was nor
// whether the login exists.
const maxLoginInput = 320 // longer than any login or e-mail address

// loginForm shows the sign-in form; a signed-in user goes straight on.
func (h *handler) loginForm(c *fiber.Ctx) error {
	back := c.Query("redirect_to")
	if !safeRedirect(back) {
		back = ""
	}
	if ui.UserOf(c) != nil {
		return c.Redirect(orDashboard(back), fiber.StatusSeeOther)
	}
	return h.renderLogin(c, fiber.StatusOK, "", "", back)
}

// renderLogin renders the sign-in form with status, an alert message id
// (or ""), the login typed and where to go next.
func (h *handler) renderLogin(c *fiber.Ctx, status int, errID, login, back string) error {
	v := loginView{Layout: h.layoutFor(c, "admin.login.title"), Login: login, RedirectTo: back, CSRF: h.loginCSRF(c),
		Action: loginPath}
	if l := i18n.Normalize(c.Query("lang")); l != "" {
		v.Action += "?lang=" + l
	}
	if errID != "" {
		v.Error = v.Layout.T(errID)
	}
	return render(c, status, loginPage(v))
}

// login checks the sign-in form. Every refusal reads the same whether or
// not the login exists, and costs the same (models.SignInWithPassword
// hashes a dummy password for unknown logins). Success ends the session the
// browser had, starts a new one (so a session token planted before sign-in
// is worth nothing after), gives the browser a new device cookie of the
// account, and goes to redirect_to when it is a path of this site.
func (h *handler) login(c *fiber.Ctx) error {
	ctx := c.UserContext()
	login := strings.TrimSpace(c.FormValue("login"))
	password := c.FormValue("password")
	back := c.FormValue("redirect_to")
	if !safeRedirect(back) {
		back = ""
	}
	if len(login) > maxLoginInput {
		login = login[:maxLoginInput]
	}
	if !h.checkLoginCSRF(c) {
		// A stale form (its cookie expired) or a post from another site:
		// nothing is checked; a new form with a new token is shown.
		return h.renderLogin(c, fiber.StatusForbidden, "admin.login.expired", login, back)
	}
	device := c.Cookies(models.DeviceCookie)
	u, err := h.d.DB.SignInWithPassword(ctx, models.PasswordTry{Identifier: login, Password: password, IP: c.IP(), Device: device})
	var limited *models.RateLimitError
	switch {
	case errors.As(err, &limited):
		c.Set(fiber.HeaderRetryAfter, limited.RetryAfterSeconds())
		return h.renderLogin(c, fiber.StatusTooManyRequests, "admin.login.too_many", login, back)
	case errors.Is(err, models.ErrBadCredentials):
		return h.renderLogin(c, fiber.StatusUnauthorized, "admin.login.failed", login, back)
	case err != nil:
		return err
	}
	if old := c.Cookies(models.SessionCookie); old != "" {
		if err := h.d.DB.EndSession(ctx, old); err != nil {
			return err
		}
	}
	if err := h.startSession(c, u.ID); err != nil {
		return err
	}
	if err := h.trustDevice(c, u.ID, device); err != nil {
		return err
	}
	c.Cookie(&fiber.Cookie{Name: loginCSRFName, Path: "/admin/", MaxAge: -1, Expires: time.Unix(0, 0),
		HTTPOnly: true, Secure: h.d.Secure(), SameSite: fiber.CookieSameSiteStrictMode})
	h.setFlash(c, "signed_in")
	return c.Redirect(orDashboard(back), fiber.StatusSeeOther)
}

// trustDevice gives the browser a new device cookie of userID in place of
// previous (see models.TrustDevice). Only the admin's forms read it, so its
// path is the admin's; scripts never see it (HttpOnly); Strict, as only
// this site's own forms need it.
func (h *handler) trustDevice(c *fiber.Ctx, userID int64, previous string) error {
	token, err := h.d.DB.TrustDevice(c.UserContext(), userID, previous)
	if err != nil {
		return err
	}
	c.Cookie(&fiber.Cookie{Name: models.DeviceCookie, Value: token, Path: "/admin", MaxAge: int(models.DeviceLifetime.Seconds()),
		HTTPOnly: true, Secure: h.d.Secure(), SameSite: fiber.CookieSameSiteStrictMode})
	return nil
}

// logout ends the session (the CSRF check ran before) and goes to the
// sign-in form.
func (h *handler) logout(c *fiber.Ctx) error {
	if err := h.d.DB.EndSession(c.UserContext(), c.Cookies(models.SessionCookie)); err != nil {
		return err
	}
	return h.signedOut(c)
}

// signedOut drops the session cookie of a session just ended and goes to
// the sign-in form, saying so.
func (h *handler) signedOut(c *fiber.Ctx) error {
	c.Cookie(h.d.SessionCookie("", 0))
	h.setFlash(c, "signed_out")
	return c.Redirect(loginPath, fiber.StatusSeeOther)
}

// orDashboard is back, or the dashboard when back is empty.
func orDashboard(back string) string {
	if back == "" {
		return dashboardPath
	}
	return back
}
