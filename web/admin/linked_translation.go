package admin

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// translation shows (or, posted, saves) the lang translation of a record:
// the translatable fields only, saved through the same update as the API's
// ml_language writes; an empty field is left as it was.
func (p *linkedPages[T, In]) translation(c *fiber.Ctx, h *handler, post bool) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	lang := c.Params("lang")
	if !i18n.Valid(lang) {
		return fiber.ErrNotFound
	}
	v, err := p.translationView(c, h, id, lang)
	if err != nil {
		return err
	}
	if !post {
		return render(c, fiber.StatusOK, linkedTranslationPage(v))
	}
	return p.saveTranslation(c, h, id, lang, v)
}

// translationView is the translation form of a record the user may edit,
// with the source's values and the translation's.
func (p *linkedPages[T, In]) translationView(c *fiber.Ctx, h *handler, id int64, lang string) (linkedTranslationView, error) {
	ctx, u := c.UserContext(), ui.UserOf(c)
	src, err := p.ops(h.d.DB).Get(ctx, u, models.ByID(id), "")
	if err != nil {
		return linkedTranslationView{}, err
	}
	sp := p.post(src)
	if sp.Status == models.StatusTrash { // as the edit form: restored first
		return linkedTranslationView{}, &models.ForbiddenError{Kind: p.kind, Reason: models.RefusalInTrash, SignedIn: true}
	}
	if err := h.d.DB.CheckEdit(ctx, u, p.kind, models.ByID(id)); err != nil {
		return linkedTranslationView{}, err
	}
	if lang == sp.Lang {
		return linkedTranslationView{}, fiber.ErrNotFound
	}
	tr, err := p.ops(h.d.DB).Get(ctx, u, models.ByID(id), lang)
	if err != nil {
		return linkedTranslationView{}, err
	}
	srcVals, trVals := p.values(src), p.values(tr)
	v := linkedTranslationView{Layout: h.layoutFor(c, "admin.translations.title"), Lang: lang, LangName: ui.LanguageNames[lang],
		LangTag: i18n.Tag(lang).String(), SourceName: ui.LanguageNames[sp.Lang], SourceTag: i18n.Tag(sp.Lang).String(),
		Source: srcVals, Values: map[string]string{}, Missing: map[string]bool{}, Action: p.recordPath(id, "/translations/"+lang),
		EditHref: p.recordPath(id, "/edit"), RecordTitle: srcVals[p.fields[0].Name]}
	withRichText(&v.Layout)
	has := false
	for _, l := range sp.Translations {
		has = has || l == lang
	}
	for _, f := range p.fields {
		if !f.Translatable {
			continue
		}
		v.Fields = append(v.Fields, f)
		if !has || trVals[f.Name] == srcVals[f.Name] {
			v.Missing[f.Name] = true
		} else {
			v.Values[f.Name] = trVals[f.Name]
		}
	}
	v.Langs = translationLinks(sp.Lang, sp.Translations, func(l string) string { return p.recordPath(id, "/translations/"+l) })
	return v, nil
}

// saveTranslation saves the fields posted (an empty one is left as it
// was); a refusal shows the form again with its messages.
func (p *linkedPages[T, In]) saveTranslation(c *fiber.Ctx, h *handler, id int64, lang string, v linkedTranslationView) error {
	ctx, u := c.UserContext(), ui.UserOf(c)
	vals := map[string]string{"_partial": "1"}
	for _, f := range v.Fields {
		if s := c.FormValue(f.Name); strings.TrimSpace(s) != "" {
			vals[f.Name] = s
		}
	}
	in, err := p.input(vals)
	if err == nil {
		_, err = p.ops(h.d.DB).Update(ctx, u, models.ByID(id), in, lang)
	}
	if err != nil {
		fe, ok := h.validationErrors(v.Layout.Lang, err, fieldNames(v.Fields)...)
		if !ok {
			return err
		}
		for _, f := range v.Fields {
			v.Values[f.Name] = c.FormValue(f.Name)
		}
		v.Errors = fe
		return render(c, fiber.StatusUnprocessableEntity, linkedTranslationPage(v))
	}
	h.setFlash(c, "translation_saved")
	return h.redirect(c, v.Action)
}
