package admin

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The venues and organizers pages: one implementation over the models'
// generic operations (models.Linked), described per kind by a linkedPages
// value: its fields in form order, how to read them from a record and how
// to build the models input from a posted form.

const linkedPerPage = 20

// linkedPages describes the pages of one linked kind.
type linkedPages[T, In any] struct {
	path                          string // "/admin/venues"
	kind                          models.Kind
	ops                           func(*models.DB) models.Linked[T, In]
	titleID, newID, editID, empty string
	fields                        []formField
	post                          func(*T) *models.Post
	values                        func(*T) map[string]string
	input                         func(vals map[string]string) (In, error)
	sub                           func(*T) string // second line of a list row
	flash                         string          // flash key prefix: "venue"
}

// recordPath is the admin path of record id with a suffix.
func (p *linkedPages[T, In]) recordPath(id int64, suffix string) string {
	return p.path + "/" + strconv.FormatInt(id, 10) + suffix
}

// fieldNames are the names of the inputs of fields, and extra.
func fieldNames(fields []formField, extra ...string) []string {
	out := extra
	for _, f := range fields {
		out = append(out, f.Name)
	}
	return out
}

func (p *linkedPages[T, In]) formView(c *fiber.Ctx, h *handler, titleID string, id int64, vals map[string]string) linkedFormView {
	lay := h.layoutFor(c, titleID)
	withRichText(&lay)
	v := linkedFormView{Layout: lay, Kind: strings.TrimPrefix(p.path, "/admin/"), ID: id, Action: p.path, Fields: p.fields,
		Values: vals, Status: vals["status"], Library: mediaLibrary(ui.UserOf(c)), PreviewAction: ui.PreviewPath + string(p.kind)}
	withPicker(&v.Layout)
	if id != 0 {
		v.PreviewAction += "/" + strconv.FormatInt(id, 10)
		v.Action = p.recordPath(id, "")
		v.JSONURL = h.d.APIPath + v.Kind + "/" + strconv.FormatInt(id, 10)
	}
	for _, s := range models.StatusChoices(ui.UserOf(c), p.kind) {
		v.Statuses = append(v.Statuses, option{Value: s, Label: lay.T(statusLabel[s]), Selected: s == vals["status"]})
	}
	return v
}

// readForm reads the posted values of the kind's fields.
func (p *linkedPages[T, In]) readForm(c *fiber.Ctx) map[string]string {
	vals := map[string]string{"status": c.FormValue("status"), "_version": c.FormValue("_version")}
	for _, f := range p.fields {
		v := c.FormValue(f.Name)
		if f.Type != "textarea" {
			v = strings.TrimSpace(v)
		}
		vals[f.Name] = v
	}
	return vals
}

func (p *linkedPages[T, In]) newForm(c *fiber.Ctx, h *handler) error {
	vals := map[string]string{"status": models.StatusPublish}
	if choices := models.StatusChoices(ui.UserOf(c), p.kind); len(choices) > 0 && choices[len(choices)-1] != models.StatusPrivate {
		vals["status"] = models.StatusDraft // those who may not publish
	}
	for _, f := range p.fields {
		if f.Name == "show_map" || f.Name == "show_map_link" {
			vals[f.Name] = "true"
		}
	}
	return render(c, fiber.StatusOK, linkedFormPage(p.formView(c, h, p.newID, 0, vals)))
}

// failed renders the form again with the errors of a failed save (422);
// any other error goes to the error page.
func (p *linkedPages[T, In]) failed(c *fiber.Ctx, h *handler, titleID string, id int64, vals map[string]string, err error) error {
	v := p.formView(c, h, titleID, id, vals)
	fe, ok := h.validationErrors(v.Layout.Lang, err, fieldNames(v.Fields, "status")...)
	if !ok {
		return err
	}
	v.Errors = fe
	return render(c, fiber.StatusUnprocessableEntity, linkedFormPage(v))
}

// inputOf builds the input of a posted form; a value the form itself
// cannot read comes back with the models' own checks of the rest, so every
// invalid field is reported at once.
func (p *linkedPages[T, In]) inputOf(h *handler, vals map[string]string, create bool) (In, error) {
	in, err := p.input(vals)
	if err != nil {
		var own, rest *models.ValidationError
		if errors.As(err, &own) && errors.As(p.ops(h.d.DB).Check(in, create), &rest) {
			own.Fields = append(own.Fields, rest.Fields...)
		}
	}
	return in, err
}

func (p *linkedPages[T, In]) create(c *fiber.Ctx, h *handler) error {
	vals := p.readForm(c)
	in, err := p.inputOf(h, vals, true)
	if err == nil {
		var rec *T
		if rec, _, err = p.ops(h.d.DB).Create(c.UserContext(), ui.UserOf(c), in, ""); err == nil {
			h.setFlash(c, p.flash+"_created")
			return h.redirect(c, p.recordPath(p.post(rec).ID, "/edit"))
		}
	}
	return p.failed(c, h, p.newID, 0, vals, err)
}

func (p *linkedPages[T, In]) edit(c *fiber.Ctx, h *handler) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	rec, err := p.ops(h.d.DB).Get(c.UserContext(), ui.UserOf(c), models.ByID(id), "")
	if err != nil {
		return err
	}
	post := p.post(rec)
	if post.Status == models.StatusTrash {
		return &models.ForbiddenError{Kind: p.kind, Reason: models.RefusalInTrash, SignedIn: true}
	}
	// The form is for who may edit the record (WordPress's edit screen).
	if err := h.d.DB.CheckEdit(c.UserContext(), ui.UserOf(c), p.kind, models.ByID(id)); err != nil {
		return err
	}
	vals := p.values(rec)
	vals["status"] = post.Status
	vals["_version"] = p.version(rec)
	v := p.formView(c, h, p.editID, id, vals)
	p.decorate(&v, post)
	if v.Revisions, err = h.revisionsOf(c, p.kind, id, p.recordPath(id, "")); err != nil {
		return err
	}
	return render(c, fiber.StatusOK, linkedFormPage(v))
}

// version is the version an edit form of rec carries (see recordVersion).
func (p *linkedPages[T, In]) version(rec *T) string {
	post := p.post(rec)
	shown := p.values(rec)
	shown["status"] = post.Status
	return recordVersion(shown, post.UpdatedAt, post.ModifiedBy, post.Translations)
}

// decorate adds what only a stored record's form shows.
func (p *linkedPages[T, In]) decorate(v *linkedFormView, post *models.Post) {
	v.StatusName = v.Layout.T(statusLabel[post.Status])
	v.Langs = translationLinks(post.Lang, post.Translations, func(l string) string { return p.recordPath(post.ID, "/translations/"+l) })
}

// save writes the edit form; a record changed since the form was loaded
// is not overwritten unless asked (409, as the event form).
func (p *linkedPages[T, In]) save(c *fiber.Ctx, h *handler) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	ctx, u := c.UserContext(), ui.UserOf(c)
	vals := p.readForm(c)
	cur, err := p.ops(h.d.DB).Get(ctx, u, models.ByID(id), "")
	if err != nil {
		return err
	}
	post := p.post(cur)
	if post.Status == models.StatusTrash {
		// As its edit page: a record in the trash is restored first (the
		// status actions of the list), not saved from a form.
		return &models.ForbiddenError{Kind: p.kind, Reason: models.RefusalInTrash, SignedIn: true}
	}
	if vals["_version"] != p.version(cur) && c.FormValue("_overwrite") == "" {
		vals["_version"] = p.version(cur)
		v := p.formView(c, h, p.editID, id, vals)
		p.decorate(&v, post)
		by, err := h.d.DB.DisplayName(ctx, post.ModifiedBy)
		if err != nil {
			return err
		}
		when := ui.FormatDateTime(v.Layout.Lang, post.UpdatedAt.In(h.d.Site.Zone()))
		msg := v.Layout.T("admin.form.conflict_when") + " " + when
		if by != "" {
			msg = v.Layout.TD("admin.form.conflict_by", map[string]any{"Name": by, "When": when})
		}
		v.Errors.add(v.Layout.T("admin.form.conflict") + " " + msg)
		v.Conflict = true
		return render(c, fiber.StatusConflict, linkedFormPage(v))
	}
	in, err := p.inputOf(h, vals, false)
	if err == nil {
		_, err = p.ops(h.d.DB).Update(ctx, u, models.ByID(id), in, "")
	}
	if err != nil {
		return p.failed(c, h, p.editID, id, vals, err)
	}
	h.setFlash(c, p.flash+"_saved")
	return h.redirect(c, p.recordPath(id, "/edit"))
}
