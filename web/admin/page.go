package admin

import (
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// productName is the product's name, the same in every language.
const productName = "Kalends"

// Paths of the pages this package serves.
const (
	loginPath     = "/admin/login"
	logoutPath    = "/admin/logout"
	dashboardPath = "/admin/"
)

// navEntry is one link of the sidebar. Ready is false for the pages of
// SPEC §10 that are not built yet: they are shown, marked, and not linked,
// so nobody follows a link to a 404. Flip it when the page lands.
type navEntry struct {
	ID, Path, LabelID string
	Ready             bool
	AdminOnly         bool
}

var navEntries = []navEntry{
	{ID: "dashboard", Path: dashboardPath, LabelID: "admin.nav.dashboard", Ready: true},
	{ID: "calendar", Path: "/admin/calendar", LabelID: "admin.nav.calendar", Ready: true},
	{ID: "events", Path: "/admin/events", LabelID: "admin.nav.events", Ready: true},
	{ID: "venues", Path: "/admin/venues", LabelID: "admin.nav.venues", Ready: true},
	{ID: "organizers", Path: "/admin/organizers", LabelID: "admin.nav.organizers", Ready: true},
	{ID: "categories", Path: "/admin/categories", LabelID: "admin.nav.categories", Ready: true},
	{ID: "tags", Path: "/admin/tags", LabelID: "admin.nav.tags", Ready: true},
	{ID: "import", Path: "/admin/import", LabelID: "admin.nav.import", Ready: true},
	{ID: "media", Path: "/admin/media", LabelID: "media.nav", Ready: true},
	{ID: "users", Path: usersPath, LabelID: "admin.nav.users", AdminOnly: true, Ready: true},
	{ID: "settings", Path: settingsPath, LabelID: "settings.nav", AdminOnly: true, Ready: true},
	{ID: "webhooks", Path: webhooksPath, LabelID: "admin.webhooks.nav", AdminOnly: true, Ready: true},
	{ID: "docs", Path: "/admin/docs", LabelID: "admin.nav.docs", Ready: true},
}

// navItem is a sidebar entry as a page shows it.
type navItem struct {
	ID, Label, Href string
	Ready, Current  bool
}

// layoutFor builds the frame of a page for the request c, titled with the
// message titleID.
func (h *handler) layoutFor(c *fiber.Ctx, titleID string) layoutView {
	lang := h.pickLang(c)
	t := func(id string) string { return h.d.I18n.T(lang, id, nil) }
	td := func(id string, data map[string]any) string { return h.d.I18n.T(lang, id, data) }
	v := layoutView{
		Lang: lang, HTMLLang: i18n.Tag(lang).String(), Title: t(titleID), Product: productName, T: t, TD: td,
		CSSURL: assets.URL("css/admin.css"), JSURL: assets.URL("js/admin.js"), HTMXURL: assets.URL("vendor/htmx.min.js"),
		LangName: ui.LanguageNames[lang],
		SiteName: h.d.Identity(c.UserContext()).Settings.Name(lang, h.d.SiteLang()),
		// Every page: forms marked data-unsaved ask before they are left.
		ExtraJS: []string{assets.URL("js/unsaved.js")},
	}
	// Outside /admin/ (an error page of another path) a signed-out browser
	// does not send the sign-in form's cookie, and a new one would replace
	// the cookie of a sign-in page open elsewhere: there the switcher is
	// made of ?lang= links, which show that page and store nothing.
	signedOutElsewhere := !strings.HasPrefix(c.Path(), "/admin/") && (ui.UserOf(c) == nil || ui.SessionOf(c) == nil)
	for _, code := range i18n.Codes {
		l := ui.LangLink{Code: code, Tag: i18n.Tag(code).String(), Name: ui.LanguageNames[code], Current: code == lang}
		if signedOutElsewhere {
			l.Href = withLang(c, code)
		}
		v.Langs = append(v.Langs, l)
	}
	v.LangBack = pageWithoutLang(c)
	if id, data := h.takeFlash(c); id != "" {
		v.Flash = h.d.I18n.T(lang, id, data)
	}
	u, sess := ui.UserOf(c), ui.SessionOf(c)
	if u == nil || sess == nil {
		if !signedOutElsewhere {
			v.LangCSRF = h.loginCSRF(c)
		}
		return v
	}
	v.LangCSRF = sess.CSRFToken
	v.User, v.RoleName = u, t(roleMessage[u.Role])
	v.CSRF, v.Nonce = sess.CSRFToken, sess.Nonce
	hx, _ := json.Marshal(map[string]string{csrfHeader: sess.CSRFToken})
	v.HXHeaders = string(hx)
	for _, e := range navEntries {
		if e.AdminOnly && !models.MayManageUsers(u) {
			continue
		}
		v.Nav = append(v.Nav, navItem{ID: e.ID, Label: t(e.LabelID), Href: e.Path, Ready: e.Ready,
			Current: c.Path() == e.Path || e.Path != dashboardPath && strings.HasPrefix(c.Path(), e.Path+"/")})
	}
	return v
}

// roleMessage names each role (GLOSSARY.md).
var roleMessage = map[models.Role]string{
	models.RoleSubscriber:    "admin.role.subscriber",
	models.RoleContributor:   "admin.role.contributor",
	models.RoleAuthor:        "admin.role.author",
	models.RoleEditor:        "admin.role.editor",
	models.RoleAdministrator: "admin.role.administrator",
}
