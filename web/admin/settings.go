package admin

import (
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The site's settings (issue 36): its name and tagline in each language,
// logo, accents, custom CSS, default view and links back to the
// organization's site. Administrators only; the rules are models'.

const settingsPath = "/admin/settings"

// settingsLinkRows is how many links the form offers.
const settingsLinkRows = 3

// settingsFields are the inputs of the settings form.
func settingsFields() []string {
	f := []string{"logo", "accent_light", "accent_dark", "custom_css", "default_view", "links"}
	for _, l := range i18n.Codes {
		f = append(f, "name_"+l, "tagline_"+l)
	}
	for i := range settingsLinkRows {
		f = append(f, "link_label_"+strconv.Itoa(i), "link_url_"+strconv.Itoa(i))
	}
	return f
}

// settingsPage shows the form with the stored settings.
func (h *handler) settingsPage(c *fiber.Ctx) error {
	if err := models.CheckManageSettings(ui.UserOf(c)); err != nil {
		return err
	}
	st, err := h.d.DB.Settings(c.UserContext())
	if err != nil {
		return err
	}
	in := models.SettingsInput{Names: st.Names, Taglines: st.Taglines, LogoID: st.LogoID, AccentLight: st.AccentLight,
		AccentDark: st.AccentDark, CustomCSS: st.CustomCSS, DefaultView: st.DefaultView, Links: st.Links}
	logo := ""
	if st.LogoID != 0 {
		if m, err := h.d.DB.Media(c.UserContext(), st.LogoID); err == nil {
			logo = m.Path("full")
		}
	}
	return render(c, fiber.StatusOK, settingsForm(h.settingsView(c, in, logo, formErrors{})))
}

// saveSettings stores the form; 422 with the messages next to the fields.
func (h *handler) saveSettings(c *fiber.Ctx) error {
	u := ui.UserOf(c)
	if err := models.CheckManageSettings(u); err != nil {
		return err
	}
	in := models.SettingsInput{Names: map[string]string{}, Taglines: map[string]string{},
		AccentLight: c.FormValue("accent_light"), AccentDark: c.FormValue("accent_dark"),
		CustomCSS: c.FormValue("custom_css"), DefaultView: c.FormValue("default_view")}
	if in.DefaultView == "list" {
		in.DefaultView = ""
	}
	for _, l := range i18n.Codes {
		in.Names[l], in.Taglines[l] = c.FormValue("name_"+l), c.FormValue("tagline_"+l)
	}
	for i := range settingsLinkRows {
		n := strconv.Itoa(i)
		in.Links = append(in.Links, models.SettingsLink{Label: c.FormValue("link_label_" + n), URL: c.FormValue("link_url_" + n)})
	}
	logo := c.FormValue("logo")
	in.LogoID = models.MediaIDOf(logo)
	if in.LogoID == 0 && logo != "" {
		in.LogoID = -1 // not an image of the library: refused below
	}
	_, err := h.d.DB.SaveSettings(c.UserContext(), u, in, i18n.Codes)
	if err == nil {
		if h.d.Ident != nil {
			h.d.Ident.Wrote()
		}
		h.setFlash(c, "settings_saved")
		return c.Redirect(settingsPath, fiber.StatusSeeOther)
	}
	fe, ok := h.validationErrors(h.pickLang(c), err, settingsFields()...)
	if !ok {
		return err
	}
	return render(c, fiber.StatusUnprocessableEntity, settingsForm(h.settingsView(c, in, logo, fe)))
}

// settingsView is the form's view of in.
func (h *handler) settingsView(c *fiber.Ctx, in models.SettingsInput, logo string, fe formErrors) settingsView {
	lay := h.layoutFor(c, "settings.title")
	withPicker(&lay)
	v := settingsView{Layout: lay, Errors: fe, Logo: logo, AccentLight: in.AccentLight, AccentDark: in.AccentDark,
		CustomCSS: in.CustomCSS, Library: mediaLibrary(ui.UserOf(c))}
	// The default language first: the others fall back to it.
	langs := append([]string{h.d.SiteLang()}, slices.DeleteFunc(slices.Clone(i18n.Codes), func(l string) bool { return l == h.d.SiteLang() })...)
	for _, l := range langs {
		v.Langs = append(v.Langs, settingsLang{Code: l, Tag: i18n.Tag(l).String(), Name: ui.LanguageNames[l],
			SiteName: in.Names[l], Tagline: in.Taglines[l], Default: l == h.d.SiteLang()})
	}
	for _, view := range models.SettingsViews {
		v.Views = append(v.Views, option{Value: view, Label: lay.T("settings.view." + view),
			Selected: view == in.DefaultView || view == "list" && in.DefaultView == ""})
	}
	for i := range settingsLinkRows {
		var l models.SettingsLink
		if i < len(in.Links) {
			l = in.Links[i]
		}
		v.Links = append(v.Links, settingsLinkRow{N: strconv.Itoa(i), Label: l.Label, URL: l.URL})
	}
	v.DefaultLight, v.DefaultDark = "#0b5cad", "#4493f8"
	return v
}
