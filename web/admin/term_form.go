package admin

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// termForm is what the term form shows and sends, named as the API's
// arguments (SPEC §10).
type termForm struct {
	Name, Slug, Description, Parent string
}

// readTermForm reads a posted term form.
func readTermForm(c *fiber.Ctx) termForm {
	return termForm{Name: c.FormValue("name"), Slug: strings.TrimSpace(c.FormValue("slug")),
		Description: c.FormValue("description"), Parent: strings.TrimSpace(c.FormValue("parent"))}
}

// input is the models input of the form. An empty slug is not sent (a new
// term gets one from its name, a stored one keeps its own); a parent that
// is not a number is sent as -1, which the operation refuses.
func (f termForm) input(k *termKind) models.TermInput {
	in := models.TermInput{Name: &f.Name, Description: &f.Description}
	if f.Slug != "" {
		in.Slug = &f.Slug
	}
	if k.Tree {
		var parent int64
		if f.Parent != "" {
			var err error
			if parent, err = strconv.ParseInt(f.Parent, 10, 64); err != nil {
				parent = -1
			}
		}
		in.ParentID = &parent
	}
	return in
}

// termFormFields are the fields the term form shows; a message for any
// other field goes to the summary only.
func termFormFields(k *termKind) []string {
	if k.Tree {
		return []string{"name", "slug", "description", "parent"}
	}
	return []string{"name", "slug", "description"}
}

func (h *handler) termFormView(c *fiber.Ctx, k *termKind, titleID string, f termForm, id int64) (termFormView, error) {
	lay := h.layoutFor(c, titleID)
	withRichText(&lay)
	v := termFormView{Layout: lay, K: k, F: f, ID: id, Action: k.Path, Access: models.TermAccess(ui.UserOf(c), k.Taxonomy)}
	if id != 0 {
		v.Action = k.termPath(id, "")
	}
	if k.Tree {
		all, err := h.categoryOptions(c, lay.Lang, []string{f.Parent})
		if err != nil {
			return v, err
		}
		v.Parents = parentChoices(all, strconv.FormatInt(id, 10))
	}
	return v, nil
}

// parentChoices are the categories a category may move under: the tree
// without the category self and its descendants (which follow it in the
// tree with a greater depth).
func parentChoices(tree []option, self string) []option {
	out := make([]option, 0, len(tree))
	skip := -1
	for _, o := range tree {
		if skip >= 0 && o.Depth > skip {
			continue
		}
		skip = -1
		if o.Value == self {
			skip = o.Depth
			continue
		}
		out = append(out, o)
	}
	return out
}

// termNew shows the empty form.
func (h *handler) termNew(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		v, err := h.termFormView(c, k, k.NewID, termForm{}, 0)
		if err != nil {
			return err
		}
		return render(c, fiber.StatusOK, termFormPage(v))
	}
}

// termCreate creates the term of the posted form, written in the site's
// language: 303 to its edit page, or the form again with its errors (422).
func (h *handler) termCreate(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		f := readTermForm(c)
		t, err := h.d.DB.CreateTerm(c.UserContext(), ui.UserOf(c), k.Taxonomy, f.input(k), i18n.OrSource(h.d.Site.Language()))
		if err != nil {
			return h.termFormFailed(c, k, k.NewID, f, 0, err)
		}
		h.setFlash(c, k.FlashCreated)
		return h.redirect(c, k.termPath(t.ID, "/edit"))
	}
}

// termFormFailed renders the form again for a failed save: 422 with the
// messages next to their fields (a name taken at that level is a message
// on the name); any other error goes to the error page.
func (h *handler) termFormFailed(c *fiber.Ctx, k *termKind, titleID string, f termForm, id int64, err error) error {
	var exists *models.TermExistsError
	lang := h.pickLang(c)
	errs, ok := h.validationErrors(lang, err, termFormFields(k)...)
	switch {
	case ok:
	case errors.As(err, &exists):
		errs = h.fieldError(lang, "name", exists.MessageID(), map[string]any{"ID": exists.ID})
	default:
		return err
	}
	v, verr := h.termFormView(c, k, titleID, f, id)
	if verr != nil {
		return verr
	}
	if id != 0 {
		t, err := h.d.DB.GetTerm(c.UserContext(), ui.UserOf(c), k.Taxonomy, id, "")
		if err != nil {
			return err
		}
		h.decorateTermEdit(&v, t)
	}
	v.Errors = errs
	return render(c, fiber.StatusUnprocessableEntity, termFormPage(v))
}

// termEdit shows the form of a stored term, in its source language.
func (h *handler) termEdit(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := recordID(c)
		if err != nil {
			return err
		}
		t, err := h.d.DB.GetTerm(c.UserContext(), ui.UserOf(c), k.Taxonomy, id, "")
		if err != nil {
			return err
		}
		f := termForm{Name: t.Name, Slug: t.Slug, Description: t.Description, Parent: strconv.FormatInt(t.ParentID, 10)}
		v, err := h.termFormView(c, k, k.EditID, f, id)
		if err != nil {
			return err
		}
		h.decorateTermEdit(&v, t)
		return render(c, fiber.StatusOK, termFormPage(v))
	}
}

// decorateTermEdit adds what only a stored term's form shows: its event
// count and its translations.
func (h *handler) decorateTermEdit(v *termFormView, t *models.Term) {
	v.Count = i18n.Number(v.Layout.Lang, t.Count)
	v.Langs = h.termTranslationLinks(v.K, t)
}

// termTranslationLinks are the languages term t can be translated into.
func (h *handler) termTranslationLinks(k *termKind, t *models.Term) []translationLink {
	return translationLinks(t.Lang, t.Translations, func(l string) string { return k.termPath(t.ID, "/translations/"+l) })
}

// termSave saves the edit form, in the term's source language.
func (h *handler) termSave(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := recordID(c)
		if err != nil {
			return err
		}
		ctx, u := c.UserContext(), ui.UserOf(c)
		f := readTermForm(c)
		cur, err := h.d.DB.GetTerm(ctx, u, k.Taxonomy, id, "")
		if err != nil {
			return err
		}
		if _, err := h.d.DB.UpdateTerm(ctx, u, k.Taxonomy, id, f.input(k), cur.Lang); err != nil {
			return h.termFormFailed(c, k, k.EditID, f, id, err)
		}
		h.setFlash(c, k.FlashSaved)
		return h.redirect(c, k.termPath(id, "/edit"))
	}
}

// termDelete deletes one term for good: the first post shows the
// confirmation step, the confirmed one deletes and goes to the list. A
// category whose subcategories cannot move up (a name taken there) comes
// back to the confirmation with the reason (409).
func (h *handler) termDelete(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := recordID(c)
		if err != nil {
			return err
		}
		back := backTo(c.FormValue("back"), k.Path)
		if strings.HasPrefix(back, k.termPath(id, "/")) {
			back = k.Path // the deleted term's own pages are gone
		}
		action := k.termPath(id, "/delete")
		if c.FormValue("confirm") == "" {
			if _, err := h.d.DB.GetTerm(c.UserContext(), ui.UserOf(c), k.Taxonomy, id, ""); err != nil {
				return err
			}
			return h.confirmDelete(c, k, []int64{id}, action, back, "", fiber.StatusOK)
		}
		lang := h.pickLang(c)
		_, err = h.d.DB.DeleteTerm(c.UserContext(), ui.UserOf(c), k.Taxonomy, id, lang)
		var exists *models.TermExistsError
		if errors.As(err, &exists) {
			problem := h.d.I18n.T(lang, exists.MessageID(), map[string]any{"ID": exists.ID})
			return h.confirmDelete(c, k, []int64{id}, action, back, problem, fiber.StatusConflict)
		}
		if err != nil {
			return err
		}
		h.setFlash(c, k.FlashDeleted)
		return h.redirect(c, back)
	}
}

// termTranslationViewOf reads term id in its source language and in the
// page's language.
func (h *handler) termTranslationViewOf(c *fiber.Ctx, k *termKind, id int64) (termTranslationView, error) {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lang := c.Params("lang")
	if !i18n.Valid(lang) {
		return termTranslationView{}, fiber.ErrNotFound
	}
	src, err := h.d.DB.GetTerm(ctx, u, k.Taxonomy, id, "")
	if err != nil {
		return termTranslationView{}, err
	}
	if lang == src.Lang {
		return termTranslationView{}, fiber.ErrNotFound
	}
	tr, err := h.d.DB.GetTerm(ctx, u, k.Taxonomy, id, lang)
	if err != nil {
		return termTranslationView{}, err
	}
	lay := h.layoutFor(c, "admin.translations.title")
	withRichText(&lay)
	v := translationView{Layout: lay, ID: id, Lang: lang, LangName: ui.LanguageNames[lang], LangTag: i18n.Tag(lang).String(),
		SourceName: ui.LanguageNames[src.Lang], SourceTag: i18n.Tag(src.Lang).String(),
		Source: eventForm{Title: src.Name, Description: src.Description},
		Action: k.termPath(id, "/translations/"+lang), EditHref: k.termPath(id, "/edit"), RecordTitle: src.Name,
		Missing: map[string]bool{}, Langs: h.termTranslationLinks(k, src)}
	// A field not translated yet reads as the source text (the API's
	// fallback); the form shows it empty and marked instead.
	has := contains(tr.Translations, lang)
	field := func(name, source, read string) string {
		if !has || read == source {
			v.Missing[name] = true
			return ""
		}
		return read
	}
	v.T = eventForm{Title: field("name", src.Name, tr.Name), Description: field("description", src.Description, tr.Description)}
	return termTranslationView{translationView: v, K: k}, nil
}

// termTranslation shows the source text and the lang text of a term side
// by side.
func (h *handler) termTranslation(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := recordID(c)
		if err != nil {
			return err
		}
		v, err := h.termTranslationViewOf(c, k, id)
		if err != nil {
			return err
		}
		return render(c, fiber.StatusOK, termTranslationPage(v))
	}
}

// termTranslationSave writes the lang translation through UpdateTerm, as
// the API's ml_language writes do. An empty field is left as it was (the
// source text keeps showing through).
func (h *handler) termTranslationSave(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := recordID(c)
		if err != nil {
			return err
		}
		v, err := h.termTranslationViewOf(c, k, id)
		if err != nil {
			return err
		}
		var in models.TermInput
		if s := c.FormValue("name"); strings.TrimSpace(s) != "" {
			in.Name = &s
		}
		if s := c.FormValue("description"); strings.TrimSpace(s) != "" {
			in.Description = &s
		}
		if _, err := h.d.DB.UpdateTerm(c.UserContext(), ui.UserOf(c), k.Taxonomy, id, in, v.Lang); err != nil {
			fe, ok := h.validationErrors(v.Layout.Lang, err, "name", "description")
			if !ok {
				return err
			}
			v.T = eventForm{Title: c.FormValue("name"), Description: c.FormValue("description")}
			v.Errors = fe
			return render(c, fiber.StatusUnprocessableEntity, termTranslationPage(v))
		}
		h.setFlash(c, "translation_saved")
		return h.redirect(c, v.Action)
	}
}
