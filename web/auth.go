package web

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// Sign-in limits (SPEC §10) are the site's (models.Limits): after too many
// failed attempts on one login or from one address within the window,
// further attempts are refused with 429 until the window is over. The
// counters live in the database, so every instance counts the same
// attempts, and application passwords on the API count alike.
const maxLoginInput = 320 // longer than any login or e-mail address

// loginForm shows the sign-in form; a signed-in user goes straight on.
func (h *handler) loginForm(c *fiber.Ctx) error {
	back := c.Query("redirect_to")
	if !safeRedirect(back) {
		back = ""
	}
	if userOf(c) != nil {
		return c.Redirect(orDashboard(back), fiber.StatusSeeOther)
	}
	return h.renderLogin(c, fiber.StatusOK, "", "", back)
}

// renderLogin renders the sign-in form with status, an alert message id
// (or ""), the login typed and where to go next.
func (h *handler) renderLogin(c *fiber.Ctx, status int, errID, login, back string) error {
	v := loginView{Layout: h.layoutFor(c, "admin.login.title"), Login: login, RedirectTo: back, CSRF: h.loginCSRF(c)}
	if errID != "" {
		v.Error = v.Layout.T(errID)
	}
	return render(c, status, loginPage(v))
}

// login checks the sign-in form. Every refusal reads the same whether or
// not the login exists, and costs the same (models.CheckSignIn hashes a
// dummy password for unknown logins). Success ends the session the browser
// had, starts a new one (so a session token planted before sign-in is
// worth nothing after), and goes to redirect_to when it is a path of this
// site.
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
	ip := c.IP()
	var limited *models.RateLimitError
	if err := h.d.DB.CheckSignInLimit(ctx, login, ip); errors.As(err, &limited) {
		c.Set(fiber.HeaderRetryAfter, limited.RetryAfterSeconds())
		return h.renderLogin(c, fiber.StatusTooManyRequests, "admin.login.too_many", login, back)
	} else if err != nil {
		return err
	}
	u, err := h.d.DB.CheckSignIn(ctx, login, password)
	if errors.Is(err, models.ErrBadCredentials) {
		if err := h.d.DB.NoteFailedSignIn(ctx, login, ip); err != nil {
			return err
		}
		return h.renderLogin(c, fiber.StatusUnauthorized, "admin.login.failed", login, back)
	}
	if err != nil {
		return err
	}
	if err := h.d.DB.ClearSignInAttempts(ctx, login); err != nil {
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
	c.Cookie(&fiber.Cookie{Name: loginCSRFName, Path: loginPath, MaxAge: -1, Expires: time.Unix(0, 0),
		HTTPOnly: true, Secure: h.secure(), SameSite: fiber.CookieSameSiteStrictMode})
	h.setFlash(c, "signed_in")
	return c.Redirect(orDashboard(back), fiber.StatusSeeOther)
}

// logout ends the session (the CSRF check ran before) and goes to the
// sign-in form.
func (h *handler) logout(c *fiber.Ctx) error {
	if err := h.d.DB.EndSession(c.UserContext(), c.Cookies(models.SessionCookie)); err != nil {
		return err
	}
	c.Cookie(h.sessionCookie("", 0))
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
