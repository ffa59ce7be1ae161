package admin

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// maxAppPasswordName is the longest name of an application password
// (models.CreateAppPassword refuses longer ones).
const maxAppPasswordName = 255

// appPasswordRow is one application password in the table.
type appPasswordRow struct {
	ID                    int64
	Name                  string
	Created, CreatedISO   string
	LastUsed, LastUsedISO string // "" when never used
	Revoked, RevokedISO   string // "" while active
	Revoke                string // the revoke form's action
}

// appPasswords reads the application passwords of userID (ListAppPasswords
// refuses those who may not see them) as the section posting to action.
func (h *handler) appPasswords(c *fiber.Ctx, lay layoutView, userID int64, action string) (appPasswordsView, error) {
	v := appPasswordsView{Action: action}
	aps, err := h.d.DB.ListAppPasswords(c.UserContext(), ui.UserOf(c), userID)
	if err != nil {
		return v, err
	}
	site := h.d.Site.Zone()
	for _, ap := range aps {
		r := appPasswordRow{ID: ap.ID, Name: ap.Name, Created: ui.FormatDateTime(lay.Lang, ap.CreatedAt.In(site)),
			CreatedISO: ap.CreatedAt.UTC().Format(time.RFC3339)}
		if ap.LastUsedAt != nil {
			r.LastUsed, r.LastUsedISO = ui.FormatDateTime(lay.Lang, ap.LastUsedAt.In(site)), ap.LastUsedAt.UTC().Format(time.RFC3339)
		}
		if ap.RevokedAt != nil {
			r.Revoked, r.RevokedISO = ui.FormatDateTime(lay.Lang, ap.RevokedAt.In(site)), ap.RevokedAt.UTC().Format(time.RFC3339)
		} else {
			r.Revoke = action + "/" + strconv.FormatInt(ap.ID, 10) + "/revoke"
		}
		v.Rows = append(v.Rows, r)
	}
	return v, nil
}

// newAppPassword creates an application password named by the form's
// name for userID. It returns the password in clear, or the messages of
// an invalid name.
func (h *handler) newAppPassword(c *fiber.Ctx, userID int64) (plain, name string, fe formErrors, err error) {
	name = c.FormValue("name")
	plain, ap, err := h.d.DB.CreateAppPassword(c.UserContext(), userID, name)
	if errors.Is(err, models.ErrInvalid) {
		return "", name, h.fieldError(h.pickLang(c), "name", "reason.too_long", map[string]any{"Max": maxAppPasswordName}), nil
	}
	if err != nil {
		return "", name, fe, err
	}
	return plain, ap.Name, fe, nil
}

// createUserAppPassword creates an application password for the user of
// the path (GetUser refuses those who may not manage them) and shows it
// once on their edit page.
func (h *handler) createUserAppPassword(c *fiber.Ctx) error {
	target, err := h.targetUser(c)
	if err != nil {
		return err
	}
	plain, name, fe, err := h.newAppPassword(c, target.ID)
	if err != nil {
		return err
	}
	v, err := h.userEdit(c, target, fe)
	if err != nil {
		return err
	}
	if fe.Any() {
		v.AppPasswords.Name = name
		return render(c, fiber.StatusUnprocessableEntity, userEditPage(v))
	}
	v.AppPasswords.Secret, v.AppPasswords.SecretName = plain, name
	return render(c, fiber.StatusOK, userEditPage(v))
}

// revokeUserAppPassword revokes one application password of the user of
// the path.
func (h *handler) revokeUserAppPassword(c *fiber.Ctx) error {
	target, err := h.targetUser(c)
	if err != nil {
		return err
	}
	apID, err := pathID(c, "ap")
	if err != nil {
		return err
	}
	if err := h.d.DB.RevokeAppPassword(c.UserContext(), ui.UserOf(c), target.ID, apID); err != nil {
		return err
	}
	h.setFlash(c, "app_password_revoked")
	return c.Redirect(userPath(target.ID, "/edit")+"#app-passwords", fiber.StatusSeeOther)
}
