package web

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// The venues and organizers pages: one implementation over the models'
// generic operations (models.Linked), described per kind by a linkedPages
// value: its fields in form order, how to read them from a record and how
// to build the models input from a posted form.

const linkedPerPage = 20

// formField is one input of a record form, named as the API argument.
type formField struct {
	Name, LabelID, HelpID string
	Type                  string // text, textarea, url, email, tel, number, checkbox
	Translatable          bool
	Wide                  bool // spans the form's width
}

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

// mount registers the kind's routes.
func (p *linkedPages[T, In]) mount(r fiber.Router, h *handler) {
	base := strings.TrimPrefix(p.path, "/admin")
	r.Get(base, func(c *fiber.Ctx) error { return p.list(c, h) })
	r.Get(base+"/new", func(c *fiber.Ctx) error { return p.newForm(c, h) })
	r.Post(base, func(c *fiber.Ctx) error { return p.create(c, h) })
	r.Post(base+"/bulk", func(c *fiber.Ctx) error { return p.bulk(c, h) })
	r.Get(base+"/:id/edit", func(c *fiber.Ctx) error { return p.edit(c, h) })
	r.Get(base+"/:id/translations/:lang", func(c *fiber.Ctx) error { return p.translation(c, h, false) })
	r.Post(base+"/:id/translations/:lang", func(c *fiber.Ctx) error { return p.translation(c, h, true) })
	r.Get(base+"/:id/revisions/:rev", func(c *fiber.Ctx) error { return p.revision(c, h) })
	r.Post(base+"/:id/revisions/:rev/restore", func(c *fiber.Ctx) error { return p.restoreRevision(c, h) })
	r.Post(base+"/:id/:action", func(c *fiber.Ctx) error { return p.action(c, h) })
	r.Post(base+"/:id", func(c *fiber.Ctx) error { return p.save(c, h) })
}

// linkedQuery is the state of a linked list, kept in its URL.
type linkedQuery struct {
	path, Search, Status string
	Page                 int
}

func (q linkedQuery) href(change func(*linkedQuery)) string {
	if change != nil {
		change(&q)
	}
	v := url.Values{}
	if q.Search != "" {
		v.Set("search", q.Search)
	}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if len(v) == 0 {
		return q.path
	}
	return q.path + "?" + v.Encode()
}

// linkedRow is one record of a list.
type linkedRow struct {
	ID                        int64
	Name, Sub, Edit           string
	Status, StatusLabel       string
	Trashed                   bool
	MissingLangs, TransLangs  []string
	SourceLang                string
	ModifiedText, ModifiedISO string
}

// linkedListView is a venues or organizers list page.
type linkedListView struct {
	Layout    layoutView
	Kind      string // "venues"
	Path      string
	Q         linkedQuery
	Access    models.AdminListAccess
	Tabs      []statusTab
	Rows      []linkedRow
	TotalText string
	PageText  string
	PrevHref  string
	NextHref  string
	Trash     bool
	Bulk      []option
	NewLabel  string
	EmptyText string
	NameLabel string
}

func (p *linkedPages[T, In]) list(c *fiber.Ctx, h *handler) error {
	ctx, u := c.UserContext(), userOf(c)
	lay := h.layoutFor(c, p.titleID)
	lang, t := lay.Lang, lay.T
	q := linkedQuery{path: p.path, Search: strings.TrimSpace(c.Query("search")), Status: c.Query("status")}
	q.Page, _ = strconv.Atoi(c.Query("page"))
	q.Page = max(q.Page, 1)
	if r := []rune(q.Search); len(r) > models.MaxSearchLen {
		q.Search = string(r[:models.MaxSearchLen])
	}
	v := linkedListView{Layout: lay, Kind: strings.TrimPrefix(p.path, "/admin/"), Path: p.path, Q: q,
		Access: models.ListAccess(u, p.kind), Trash: q.Status == models.StatusTrash,
		NewLabel: t(p.newID), EmptyText: t(p.empty), NameLabel: t(p.fields[0].LabelID)}
	f := models.LinkedFilter{Page: q.Page, PerPage: linkedPerPage, Words: models.SearchWords(q.Search), Lang: lang}
	if q.Status != "" {
		f.Statuses = []string{q.Status}
	}
	page, err := p.ops(h.d.DB).List(ctx, u, f)
	if err != nil {
		return err
	}
	counts, err := h.d.DB.CountPosts(ctx, u)
	if err != nil {
		return err
	}
	all := 0
	for _, n := range counts[p.kind] {
		all += n
	}
	v.Tabs = append(v.Tabs, statusTab{Label: t("admin.events.tab.all"), Count: strconv.Itoa(all), Current: q.Status == "",
		Href: q.href(func(x *linkedQuery) { x.Status, x.Page = "", 1 })})
	if v.Access.Statuses {
		for _, s := range statusOrder {
			st := s.Status
			v.Tabs = append(v.Tabs, statusTab{Label: t(s.LabelID), Status: st, Count: strconv.Itoa(counts[p.kind][st]),
				Current: q.Status == st, Href: q.href(func(x *linkedQuery) { x.Status, x.Page = st, 1 })})
		}
		trash, err := p.ops(h.d.DB).List(ctx, u, models.LinkedFilter{Statuses: []string{models.StatusTrash}, PerPage: 1})
		if err != nil {
			return err
		}
		v.Tabs = append(v.Tabs, statusTab{Label: t("admin.status.trash"), Status: models.StatusTrash, Count: strconv.Itoa(trash.Total),
			Current: v.Trash, Href: q.href(func(x *linkedQuery) { x.Status, x.Page = models.StatusTrash, 1 })})
	}
	v.Rows = p.listRows(h, lang, t, page.Items)
	pages := (page.Total + linkedPerPage - 1) / linkedPerPage
	v.TotalText = h.d.I18n.T(lang, "admin.list.total", map[string]any{"Count": page.Total})
	if pages > 1 {
		v.PageText = h.d.I18n.T(lang, "admin.list.page", map[string]any{"Page": q.Page, "Pages": pages})
	}
	if q.Page > 1 {
		v.PrevHref = q.href(func(x *linkedQuery) { x.Page-- })
	}
	if q.Page < pages {
		v.NextHref = q.href(func(x *linkedQuery) { x.Page++ })
	}
	v.Bulk = h.bulkActions(lang, v.Trash, v.Access)
	return render(c, fiber.StatusOK, linkedListPage(v))
}

// listRows are the rows of the list of venues or organizers.
func (p *linkedPages[T, In]) listRows(h *handler, lang string, t func(string) string, items []*T) []linkedRow {
	var rows []linkedRow
	site := h.d.Site.Zone()
	for _, rec := range items {
		post := p.post(rec)
		name := p.values(rec)[p.fields[0].Name]
		if strings.TrimSpace(name) == "" {
			name = t("admin.event.untitled")
		}
		rows = append(rows, linkedRow{ID: post.ID, Name: name, Sub: p.sub(rec), Edit: p.recordPath(post.ID, "/edit"),
			Status: post.Status, StatusLabel: t(statusLabel[post.Status]), Trashed: post.Status == models.StatusTrash,
			MissingLangs: missingLangs(post.Lang, post.Translations), SourceLang: post.Lang,
			ModifiedText: formatDateTime(lang, post.UpdatedAt.In(site)), ModifiedISO: post.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z")})
	}
	return rows
}

// linkedFormView is the create or edit page of a venue or organizer.
type linkedFormView struct {
	Layout     layoutView
	Revisions  revisionsView // of a stored record
	Kind       string
	ID         int64
	Action     string
	Fields     []formField
	Values     map[string]string
	Errors     fieldErrors
	Statuses   []option
	StatusName string
	Status     string
	Langs      []translationLink
	JSONURL    string
	Trashed    bool
}

func (v linkedFormView) err(field string) string { return v.Errors.of(field) }

func (p *linkedPages[T, In]) formView(c *fiber.Ctx, h *handler, titleID string, id int64, vals map[string]string) linkedFormView {
	lay := h.layoutFor(c, titleID)
	v := linkedFormView{Layout: lay, Kind: strings.TrimPrefix(p.path, "/admin/"), ID: id, Action: p.path, Fields: p.fields,
		Values: vals, Status: vals["status"]}
	if id != 0 {
		v.Action = p.recordPath(id, "")
		v.JSONURL = h.d.APIPath + v.Kind + "/" + strconv.FormatInt(id, 10)
	}
	for _, s := range models.StatusChoices(userOf(c), p.kind) {
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
	if choices := models.StatusChoices(userOf(c), p.kind); len(choices) > 0 && choices[len(choices)-1] != models.StatusPrivate {
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
	var invalid *models.ValidationError
	if !errors.As(err, &invalid) {
		return err
	}
	v := p.formView(c, h, titleID, id, vals)
	for _, fe := range invalid.Fields {
		v.Errors = append(v.Errors, fieldError{Field: fe.Field, Message: h.d.I18n.T(v.Layout.Lang, fe.Reason, fe.Data)})
	}
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
		if rec, _, err = p.ops(h.d.DB).Create(c.UserContext(), userOf(c), in, ""); err == nil {
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
	rec, err := p.ops(h.d.DB).Get(c.UserContext(), userOf(c), models.ByID(id), "")
	if err != nil {
		return err
	}
	post := p.post(rec)
	if post.Status == models.StatusTrash {
		return &models.ForbiddenError{Kind: p.kind, Reason: models.RefusalInTrash, SignedIn: true}
	}
	// The form is for who may edit the record (WordPress's edit screen).
	if err := h.d.DB.CheckEdit(c.UserContext(), userOf(c), p.kind, models.ByID(id)); err != nil {
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
	ctx, u := c.UserContext(), userOf(c)
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
		when := formatDateTime(v.Layout.Lang, post.UpdatedAt.In(h.d.Site.Zone()))
		msg := v.Layout.T("admin.form.conflict_when") + " " + when
		if by != "" {
			msg = v.Layout.TD("admin.form.conflict_by", map[string]any{"Name": by, "When": when})
		}
		v.Errors = append(v.Errors, fieldError{Message: v.Layout.T("admin.form.conflict") + " " + msg})
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

func (p *linkedPages[T, In]) action(c *fiber.Ctx, h *handler) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	ctx, u, lang := c.UserContext(), userOf(c), h.pickLang(c)
	back := safeLinkedBack(c.FormValue("back"), p.path)
	ops := p.ops(h.d.DB)
	switch c.Params("action") {
	case "trash":
		_, err = ops.Trash(ctx, u, models.ByID(id), lang)
	case "restore":
		_, err = p.setStatus(c, h, id, models.StatusDraft)
	case "delete":
		_, err = ops.Delete(ctx, u, models.ByID(id), lang)
	default:
		return fiber.ErrNotFound
	}
	if err != nil {
		return err
	}
	h.setFlash(c, p.flash+"_"+c.Params("action"))
	return c.Redirect(back, fiber.StatusSeeOther)
}

// setStatus changes only the status of record id.
func (p *linkedPages[T, In]) setStatus(c *fiber.Ctx, h *handler, id int64, st string) (*T, error) {
	in, err := p.input(map[string]string{"status": st, "_status_only": "1"})
	if err != nil {
		return nil, err
	}
	return p.ops(h.d.DB).Update(c.UserContext(), userOf(c), models.ByID(id), in, "")
}

func (p *linkedPages[T, In]) bulk(c *fiber.Ctx, h *handler) error {
	ctx, u, lang := c.UserContext(), userOf(c), h.pickLang(c)
	ops := p.ops(h.d.DB)
	status := func(st string) func(id int64) error {
		return func(id int64) error { _, err := p.setStatus(c, h, id, st); return err }
	}
	return h.bulk(c, safeLinkedBack(c.FormValue("back"), p.path), map[string]func(int64) error{
		"publish": status(models.StatusPublish),
		"restore": status(models.StatusDraft),
		"trash":   func(id int64) error { _, err := ops.Trash(ctx, u, models.ByID(id), lang); return err },
		"delete":  func(id int64) error { _, err := ops.Delete(ctx, u, models.ByID(id), lang); return err },
	})
}

// safeLinkedBack is a path of the kind's pages to go back to, or def.
func safeLinkedBack(p, def string) string {
	if strings.HasPrefix(p, def) && !strings.HasPrefix(p, "//") && !strings.ContainsAny(p, "\\\r\n") {
		return p
	}
	return def
}

// linkedTranslationView is the side-by-side translation page of a venue or
// organizer.
type linkedTranslationView struct {
	Layout      layoutView
	Lang        string
	LangName    string
	LangTag     string
	SourceName  string
	SourceTag   string
	Fields      []formField
	Source      map[string]string
	Values      map[string]string
	Missing     map[string]bool
	Errors      fieldErrors
	Action      string
	EditHref    string
	Langs       []translationLink
	RecordTitle string
}

func (v linkedTranslationView) err(field string) string { return v.Errors.of(field) }

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
	ctx, u := c.UserContext(), userOf(c)
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
	v := linkedTranslationView{Layout: h.layoutFor(c, "admin.translations.title"), Lang: lang, LangName: languageNames[lang],
		LangTag: i18n.Tag(lang).String(), SourceName: languageNames[sp.Lang], SourceTag: i18n.Tag(sp.Lang).String(),
		Source: srcVals, Values: map[string]string{}, Missing: map[string]bool{}, Action: p.recordPath(id, "/translations/"+lang),
		EditHref: p.recordPath(id, "/edit"), RecordTitle: srcVals[p.fields[0].Name]}
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
	ctx, u := c.UserContext(), userOf(c)
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
		var invalid *models.ValidationError
		if !errors.As(err, &invalid) {
			return err
		}
		for _, f := range v.Fields {
			v.Values[f.Name] = c.FormValue(f.Name)
		}
		for _, fe := range invalid.Fields {
			v.Errors = append(v.Errors, fieldError{Field: fe.Field, Message: h.d.I18n.T(v.Layout.Lang, fe.Reason, fe.Data)})
		}
		return render(c, fiber.StatusUnprocessableEntity, linkedTranslationPage(v))
	}
	h.setFlash(c, "translation_saved")
	return h.redirect(c, v.Action)
}
