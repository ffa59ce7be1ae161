package admin

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The profile (SPEC §10): one's own display name, e-mail address,
// language and password, and one's application passwords.

const profilePath = "/admin/profile"

// profileFields are the inputs of the profile page's forms.
var profileFields = []string{"display_name", "email", "locale", "current_password", "password", "password_confirm", "name"}

// profilePage builds the profile page of the signed-in user from the
// stored values.
func (h *handler) profileView(c *fiber.Ctx, fe formErrors) (profileView, error) {
	u := ui.UserOf(c)
	lay := h.layoutFor(c, "admin.profile.title")
	v := profileView{Layout: lay, Errors: fe, DisplayName: u.DisplayName, Email: u.Email, Login: u.Login,
		RoleName: lay.RoleName, Locales: localeOptions(lay, u.Locale)}
	aps, err := h.appPasswords(c, lay, u.ID, profilePath+"/app-passwords")
	if err != nil {
		return v, err
	}
	v.AppPasswords = aps
	if v.Sessions, err = h.sessions(c, lay); err != nil {
		return v, err
	}
	return v, nil
}

// profile shows the profile page.
func (h *handler) profile(c *fiber.Ctx) error {
	v, err := h.profileView(c, formErrors{})
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, profilePage(v))
}

// profileAgain renders the profile again (422) with fe; keep shows the
// input that failed.
func (h *handler) profileAgain(c *fiber.Ctx, fe formErrors, keep func(*profileView)) error {
	return h.profileWith(c, fiber.StatusUnprocessableEntity, fe, keep)
}

// profileWith renders the profile page with status (the errors of a form
// that was refused, or 429 past the sign-in limits).
func (h *handler) profileWith(c *fiber.Ctx, status int, fe formErrors, keep func(*profileView)) error {
	v, err := h.profileView(c, fe)
	if err != nil {
		return err
	}
	if keep != nil {
		keep(&v)
	}
	return render(c, status, profilePage(v))
}

// saveProfile saves one's display name, e-mail address and language.
func (h *handler) saveProfile(c *fiber.Ctx) error {
	u := ui.UserOf(c)
	display, email, locale := c.FormValue("display_name"), c.FormValue("email"), c.FormValue("locale")
	saved, err := h.d.DB.UpdateUser(c.UserContext(), u, u.ID, models.UserUpdate{DisplayName: &display, Email: &email, Locale: &locale})
	if err != nil {
		fe, ok := h.validationErrors(h.pickLang(c), err, profileFields...)
		if !ok {
			return err
		}
		return h.profileAgain(c, fe, func(v *profileView) {
			v.DisplayName, v.Email, v.Locales = display, email, localeOptions(v.Layout, locale)
		})
	}
	ui.SetUser(c, saved)
	h.setFlash(c, "profile_saved")
	return c.Redirect(profilePath, fiber.StatusSeeOther)
}

// changePassword changes one's account password: the current one, then
// the new one twice. The current one is checked as the sign-in form checks
// a password, under the same limits (a left-open session cannot be used to
// guess it). Setting it ends every session of the user and forgets their
// device cookies; this browser gets a new session and device cookie.
func (h *handler) changePassword(c *fiber.Ctx) error {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lang := h.pickLang(c)
	current, password, confirm := c.FormValue("current_password"), c.FormValue("password"), c.FormValue("password_confirm")
	device := c.Cookies(models.DeviceCookie)
	_, err := h.d.DB.SignInWithPassword(ctx, models.PasswordTry{Identifier: u.Login, Password: current, IP: c.IP(), Device: device, Account: u.ID})
	var limited *models.RateLimitError
	switch {
	case errors.As(err, &limited):
		c.Set(fiber.HeaderRetryAfter, limited.RetryAfterSeconds())
		return h.profileWith(c, fiber.StatusTooManyRequests, h.fieldError(lang, "current_password", "admin.login.too_many", nil), nil)
	case errors.Is(err, models.ErrBadCredentials):
		return h.profileAgain(c, h.fieldError(lang, "current_password", "admin.profile.password.wrong_current", nil), nil)
	case err != nil:
		return err
	}
	if password != confirm {
		return h.profileAgain(c, h.fieldError(lang, "password_confirm", "admin.profile.password.mismatch", nil), nil)
	}
	if err := h.d.DB.SetPassword(ctx, u, u.ID, password); err != nil {
		fe, ok := h.validationErrors(lang, err, profileFields...)
		if !ok {
			return err
		}
		return h.profileAgain(c, fe, nil)
	}
	if err := h.startSession(c, u.ID); err != nil {
		return err
	}
	if err := h.trustDevice(c, u.ID, device); err != nil {
		return err
	}
	h.setFlash(c, "password_changed")
	return c.Redirect(profilePath, fiber.StatusSeeOther)
}

// createProfileAppPassword creates one of one's application passwords and
// shows it once.
func (h *handler) createProfileAppPassword(c *fiber.Ctx) error {
	plain, name, fe, err := h.newAppPassword(c, ui.UserOf(c).ID)
	if err != nil {
		return err
	}
	v, err := h.profileView(c, fe)
	if err != nil {
		return err
	}
	if fe.Any() {
		v.AppPasswords.Name = name
		return render(c, fiber.StatusUnprocessableEntity, profilePage(v))
	}
	v.AppPasswords.Secret, v.AppPasswords.SecretName = plain, name
	return render(c, fiber.StatusOK, profilePage(v))
}

// revokeProfileAppPassword revokes one of one's application passwords.
func (h *handler) revokeProfileAppPassword(c *fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u := ui.UserOf(c)
	if err := h.d.DB.RevokeAppPassword(c.UserContext(), u, u.ID, id); err != nil {
		return err
	}
	h.setFlash(c, "app_password_revoked")
	return c.Redirect(profilePath+"#app-passwords", fiber.StatusSeeOther)
}
