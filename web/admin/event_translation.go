package admin

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// translationLink is one language of a record's translations.
type translationLink struct {
	Code, Name, Href string
	Done             bool
}

// translationLinks are the languages a record written in source can be
// translated into, those in have marked done, each linking to href(lang).
func translationLinks(source string, have []string, href func(lang string) string) []translationLink {
	var out []translationLink
	for _, l := range translationLangs() {
		if l != source {
			out = append(out, translationLink{Code: l, Name: ui.LanguageNames[l], Done: contains(have, l), Href: href(l)})
		}
	}
	return out
}

// translationLangs are the languages a record can be translated into.
func translationLangs() []string { return i18n.Codes }

// eventTranslation shows the source text and the lang text of an event
// side by side.
func (h *handler) eventTranslation(c *fiber.Ctx) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	v, err := h.translationView(c, id)
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, translationPage(v))
}

func (h *handler) translationView(c *fiber.Ctx, id int64) (translationView, error) {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lang := c.Params("lang")
	if !i18n.Valid(lang) {
		return translationView{}, fiber.ErrNotFound
	}
	src, err := h.d.DB.GetEvent(ctx, u, models.ByID(id), "")
	if err != nil {
		return translationView{}, err
	}
	if err := h.d.DB.CheckEdit(ctx, u, models.KindEvent, models.ByID(id)); err != nil {
		return translationView{}, err
	}
	if lang == src.Lang {
		return translationView{}, fiber.ErrNotFound
	}
	tr, err := h.d.DB.GetEvent(ctx, u, models.ByID(id), lang)
	if err != nil {
		return translationView{}, err
	}
	lay := h.layoutFor(c, "admin.translations.title")
	withRichText(&lay)
	v := translationView{Layout: lay, ID: id, Lang: lang, LangName: ui.LanguageNames[lang], LangTag: i18n.Tag(lang).String(),
		SourceName: ui.LanguageNames[src.Lang], SourceTag: i18n.Tag(src.Lang).String(),
		Source: eventForm{Title: src.Title, Description: src.Description, Excerpt: src.Excerpt},
		Action: eventPath(id, "/translations/"+lang), EditHref: eventPath(id, "/edit"), RecordTitle: src.Title,
		Missing: map[string]bool{}}
	// A field not translated yet reads as the source text (the API's
	// fallback); the form shows it empty and marked instead.
	has := false
	for _, l := range tr.Translations {
		has = has || l == lang
	}
	field := func(name, source, read string) string {
		if !has || read == source {
			v.Missing[name] = true
			return ""
		}
		return read
	}
	v.T = eventForm{Title: field("title", src.Title, tr.Title), Description: field("description", src.Description, tr.Description),
		Excerpt: field("excerpt", src.Excerpt, tr.Excerpt)}
	h.decorateTranslationLangs(&v, src)
	return v, nil
}

func (h *handler) decorateTranslationLangs(v *translationView, e *models.Event) {
	v.Langs = translationLinks(e.Lang, e.Translations, func(l string) string { return eventPath(e.ID, "/translations/"+l) })
}

// eventTranslationSave writes the lang translation through the same
// operation as the API's ml_language updates. An empty field is left as
// it was (the source text keeps showing through).
func (h *handler) eventTranslationSave(c *fiber.Ctx) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	v, err := h.translationView(c, id)
	if err != nil {
		return err
	}
	in := models.EventInput{Lang: v.Lang}
	for name, dst := range map[string]**string{"title": &in.Title, "description": &in.Description, "excerpt": &in.Excerpt} {
		if s := c.FormValue(name); strings.TrimSpace(s) != "" {
			*dst = &s
		}
	}
	if _, err := h.d.DB.UpdateEvent(c.UserContext(), ui.UserOf(c), models.ByID(id), in); err != nil {
		fe, ok := h.validationErrors(v.Layout.Lang, err, "title", "description", "excerpt")
		if !ok {
			return err
		}
		v.T = eventForm{Title: c.FormValue("title"), Description: c.FormValue("description"), Excerpt: c.FormValue("excerpt")}
		v.Errors = fe
		return render(c, fiber.StatusUnprocessableEntity, translationPage(v))
	}
	h.setFlash(c, "translation_saved")
	return h.redirect(c, v.Action)
}
