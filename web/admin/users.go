package admin

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// Users pages (SPEC §10, administrators). Every handler goes through the
// models operations with the signed-in user, which refuse anyone else by
// themselves (403 with the API's message, through the error handler).

const (
	usersPath    = "/admin/users"
	usersPerPage = 50
	// reassignChoices bounds the users offered in the delete form's select.
	reassignChoices = 500
)

// userPath is the path of user id's pages: "" for the save URL, or a
// suffix such as "/edit".
func userPath(id int64, suffix string) string {
	return usersPath + "/" + strconv.FormatInt(id, 10) + suffix
}

// Fields of the user forms, named as models names them.
var (
	userCreateFields = []string{"login", "display_name", "email", "role", "password"}
	userEditFields   = []string{"display_name", "email", "role", "locale", "password", "reassign", "name"}
)

// users lists the users, searched by search and filtered by role, a page
// at a time.
func (h *handler) users(c *fiber.Ctx) error {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lay := h.layoutFor(c, "admin.users.title")
	search, role := strings.TrimSpace(c.Query("search")), c.Query("role")
	page := max(c.QueryInt("page", 1), 1)
	res, err := h.d.DB.ListUsers(ctx, u, models.UserFilter{Search: search, Role: models.Role(role), Page: page, PerPage: usersPerPage})
	if err != nil {
		return err
	}
	v := usersView{Layout: lay, Search: search, Total: res.Total, Filtered: search != "" || role != ""}
	v.TotalText = h.d.I18n.T(lay.Lang, "admin.users.total", map[string]any{"Count": res.Total})
	v.Roles = append([]option{{Value: "", Label: lay.T("admin.users.filter.all_roles")}}, h.roleOptions(lay, models.Role(role))...)
	for _, r := range res.Items {
		v.Rows = append(v.Rows, userRow{ID: r.ID, Login: r.Login, DisplayName: r.DisplayName, Email: r.Email,
			RoleName: lay.T(roleMessage[r.Role]), Role: string(r.Role), Edit: userPath(r.ID, "/edit")})
	}
	pages := (res.Total + usersPerPage - 1) / usersPerPage
	if pages > 1 {
		v.PageText = h.d.I18n.T(lay.Lang, "admin.users.page_of", map[string]any{"Page": page, "Pages": pages})
		link := func(p int) string {
			q := url.Values{}
			if search != "" {
				q.Set("search", search)
			}
			if role != "" {
				q.Set("role", role)
			}
			q.Set("page", strconv.Itoa(p))
			return usersPath + "?" + q.Encode()
		}
		if page > 1 {
			v.Prev = link(min(page-1, pages))
		}
		if page < pages {
			v.Next = link(page + 1)
		}
	}
	return render(c, fiber.StatusOK, usersPage(v))
}

// roleOptions are the roles, most powerful last as WordPress lists them,
// with cur selected.
func (h *handler) roleOptions(lay layoutView, cur models.Role) []option {
	out := make([]option, 0, len(models.Roles))
	for _, r := range models.Roles {
		out = append(out, option{Value: string(r), Label: lay.T(roleMessage[r]), Selected: r == cur})
	}
	return out
}

// localeOptions are the languages a user may save (each named in itself),
// after the site's language ("").
func localeOptions(lay layoutView, cur string) []option {
	out := []option{{Value: "", Label: lay.T("admin.profile.locale.site"), Selected: cur == ""}}
	for _, code := range i18n.Codes {
		out = append(out, option{Value: code, Label: ui.LanguageNames[code], Selected: code == cur})
	}
	return out
}

// newUser shows the form that creates a user (to those who may).
func (h *handler) newUser(c *fiber.Ctx) error {
	if err := models.CheckManageUsers(ui.UserOf(c)); err != nil {
		return err
	}
	lay := h.layoutFor(c, "admin.users.new.title")
	return render(c, fiber.StatusOK, userNewPage(userNewView{Layout: lay, Roles: h.roleOptions(lay, models.RoleSubscriber)}))
}

// createUser creates a user and goes to their edit page; invalid input
// shows the form again (422) with the input kept, but the password.
func (h *handler) createUser(c *fiber.Ctx) error {
	ctx, u := c.UserContext(), ui.UserOf(c)
	in := models.NewUser{Login: c.FormValue("login"), DisplayName: c.FormValue("display_name"), Email: c.FormValue("email"),
		Role: models.Role(c.FormValue("role")), Password: c.FormValue("password")}
	created, err := h.d.DB.CreateUser(ctx, u, in)
	if err == nil {
		h.setFlash(c, "user_created")
		return c.Redirect(userPath(created.ID, "/edit"), fiber.StatusSeeOther)
	}
	lay := h.layoutFor(c, "admin.users.new.title")
	fe, ok := h.validationErrors(lay.Lang, err, userCreateFields...)
	if !ok {
		return err
	}
	v := userNewView{Layout: lay, Errors: fe, Login: in.Login, DisplayName: in.DisplayName, Email: in.Email,
		Roles: h.roleOptions(lay, in.Role)}
	return render(c, fiber.StatusUnprocessableEntity, userNewPage(v))
}

// pathID is the positive integer path parameter name, or a 404.
func pathID(c *fiber.Ctx, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Params(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, fiber.ErrNotFound
	}
	return id, nil
}

// editUser shows a user's edit page: details, a new password, their
// application passwords, and deleting them.
func (h *handler) editUser(c *fiber.Ctx) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	target, err := h.d.DB.GetUser(c.UserContext(), ui.UserOf(c), id)
	if err != nil {
		return err
	}
	v, err := h.userEdit(c, target, formErrors{})
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, userEditPage(v))
}

// userEdit builds the edit page of target from its stored values.
func (h *handler) userEdit(c *fiber.Ctx, target *models.User, fe formErrors) (userEditView, error) {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lay := h.layoutFor(c, "admin.users.edit.title")
	lay.Title = h.d.I18n.T(lay.Lang, "admin.users.edit.title", map[string]any{"Name": target.DisplayName})
	v := userEditView{Layout: lay, Errors: fe, Target: target, Self: target.ID == u.ID,
		DisplayName: target.DisplayName, Email: target.Email,
		Roles: h.roleOptions(lay, target.Role), Locales: localeOptions(lay, target.Locale)}
	aps, err := h.appPasswords(c, lay, target.ID, userPath(target.ID, "/app-passwords"))
	if err != nil {
		return v, err
	}
	v.AppPasswords = aps
	if !v.Self {
		others, err := h.d.DB.ListUsers(ctx, u, models.UserFilter{PerPage: reassignChoices})
		if err != nil {
			return v, err
		}
		for _, o := range others.Items {
			if o.ID == target.ID {
				continue
			}
			v.Reassign = append(v.Reassign, option{Value: strconv.FormatInt(o.ID, 10),
				Label: o.DisplayName + " (" + o.Login + ")", Selected: o.ID == u.ID})
		}
	}
	return v, nil
}

// editAgain renders target's edit page again with the messages of err
// (422), or returns err when it is not a validation error. keep changes
// the view to show the input that failed.
func (h *handler) editAgain(c *fiber.Ctx, target *models.User, err error, keep func(*userEditView)) error {
	fe, ok := h.validationErrors(h.pickLang(c), err, userEditFields...)
	if !ok {
		return err
	}
	v, err := h.userEdit(c, target, fe)
	if err != nil {
		return err
	}
	if keep != nil {
		keep(&v)
	}
	return render(c, fiber.StatusUnprocessableEntity, userEditPage(v))
}

// targetUser reads the user of the path's id through GetUser, which
// refuses those who may not manage them.
func (h *handler) targetUser(c *fiber.Ctx) (*models.User, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return nil, err
	}
	return h.d.DB.GetUser(c.UserContext(), ui.UserOf(c), id)
}

// updateUser saves a user's display name, e-mail address, role and
// language.
func (h *handler) updateUser(c *fiber.Ctx) error {
	target, err := h.targetUser(c)
	if err != nil {
		return err
	}
	display, email, locale := c.FormValue("display_name"), c.FormValue("email"), c.FormValue("locale")
	role := models.Role(c.FormValue("role"))
	in := models.UserUpdate{DisplayName: &display, Email: &email, Role: &role, Locale: &locale}
	saved, err := h.d.DB.UpdateUser(c.UserContext(), ui.UserOf(c), target.ID, in)
	if err != nil {
		return h.editAgain(c, target, err, func(v *userEditView) {
			v.DisplayName, v.Email = display, email
			v.Roles, v.Locales = h.roleOptions(v.Layout, role), localeOptions(v.Layout, locale)
		})
	}
	if saved.ID == ui.UserOf(c).ID {
		ui.SetUser(c, saved)
	}
	h.setFlash(c, "user_saved")
	return c.Redirect(userPath(target.ID, "/edit"), fiber.StatusSeeOther)
}

// resetPassword sets a user's account password (which signs them out
// everywhere; the administrator's own session is started again when it is
// their own account).
func (h *handler) resetPassword(c *fiber.Ctx) error {
	target, err := h.targetUser(c)
	if err != nil {
		return err
	}
	if err := h.d.DB.SetPassword(c.UserContext(), ui.UserOf(c), target.ID, c.FormValue("password")); err != nil {
		return h.editAgain(c, target, err, nil)
	}
	if target.ID == ui.UserOf(c).ID {
		if err := h.startSession(c, target.ID); err != nil {
			return err
		}
	}
	h.setFlash(c, "user_password_set")
	return c.Redirect(userPath(target.ID, "/edit"), fiber.StatusSeeOther)
}

// deleteUser deletes a user, giving their records to the user chosen in
// reassign.
func (h *handler) deleteUser(c *fiber.Ctx) error {
	target, err := h.targetUser(c)
	if err != nil {
		return err
	}
	to, _ := strconv.ParseInt(c.FormValue("reassign"), 10, 64)
	if err := h.d.DB.DeleteUser(c.UserContext(), ui.UserOf(c), target.ID, to); err != nil {
		return h.editAgain(c, target, err, nil)
	}
	h.setFlash(c, "user_deleted")
	return c.Redirect(usersPath, fiber.StatusSeeOther)
}

// startSession ends nothing and starts a new session for userID on this
// browser (at sign-in, and after a password change ended every session of
// the user), recording the browser and its address for the profile's list.
func (h *handler) startSession(c *fiber.Ctx, userID int64) error {
	token, sess, err := h.d.DB.StartSession(c.UserContext(), userID, ui.SessionTTL,
		models.SessionClient{UserAgent: c.Get(fiber.HeaderUserAgent), IP: c.IP()})
	if err != nil {
		return err
	}
	c.Cookie(h.d.SessionCookie(token, h.d.CookieAge(sess)))
	return nil
}
