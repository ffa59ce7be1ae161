package admin

import (
	"context"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// Revisions in the admin: the edit page of an event, venue or organizer
// lists the kept states (who, when, which fields); each opens a page that
// shows, field by field, what it holds beside what the record holds now,
// with one button that restores it (itself kept as a revision).

// revisionRow is one revision in the edit page's list.
type revisionRow struct {
	Date, Author, Fields, Href string
}

// diffRow is one field that differs between a revision and now.
type diffRow struct {
	Label, Old, Now string
}

// revisionFieldLabels name the stored fields a revision lists.
var revisionFieldLabels = map[string]string{
	"title": "admin.event.field.title", "description": "admin.event.field.description", "excerpt": "admin.event.field.excerpt",
	"status": "admin.event.field.status", "start_at": "admin.event.field.when", "end_at": "admin.event.field.when",
	"all_day": "admin.event.field.when", "timezone": "admin.event.field.timezone", "venues": "admin.event.field.venue",
	"organizers": "admin.event.field.organizer", "categories_and_tags": "admin.revisions.field.terms",
	"cost": "admin.event.field.cost", "currency_symbol": "admin.event.field.cost", "currency_position": "admin.event.field.cost",
	"currency_code": "admin.event.field.cost", "website": "admin.event.field.website", "translations": "admin.revisions.field.translations",
	"venue": "admin.venue.field.venue", "address": "admin.venue.field.address", "city": "admin.venue.field.city",
	"stateprovince": "admin.venue.field.stateprovince", "zip": "admin.venue.field.zip", "country": "admin.venue.field.country",
	"phone": "admin.venue.field.phone", "organizer": "admin.organizer.field.organizer", "email": "admin.organizer.field.email",
	"slug": "admin.revisions.field.slug", "image_url": "admin.revisions.field.image", "featured": "admin.revisions.field.featured",
}

// revisionsOf lists the revisions of record id for its edit page; base is
// the record's admin path ("/admin/events/12").
func (h *handler) revisionsOf(c *fiber.Ctx, k models.Kind, id int64, base string) (revisionsView, error) {
	ctx, lang := c.UserContext(), h.pickLang(c)
	_, revs, err := h.d.DB.Revisions(ctx, ui.UserOf(c), k, models.ByID(id))
	if err != nil {
		return revisionsView{}, err
	}
	var v revisionsView
	names := map[int64]string{}
	for _, r := range revs {
		by, err := h.displayName(ctx, names, r.AuthorID)
		if err != nil {
			return v, err
		}
		var labels []string
		for _, f := range r.Fields {
			id, ok := revisionFieldLabels[f]
			if !ok {
				id = "admin.revisions.field.other"
			}
			if l := h.d.I18n.T(lang, id, nil); !contains(labels, l) {
				labels = append(labels, l)
			}
		}
		v.Rows = append(v.Rows, revisionRow{Date: ui.FormatDateTime(lang, r.CreatedAt.In(h.d.Site.Zone())), Author: by,
			Fields: strings.Join(labels, listSeparator(lang)), Href: base + "/revisions/" + strconv.FormatInt(r.ID, 10)})
	}
	return v, nil
}

func (h *handler) displayName(ctx context.Context, cache map[int64]string, id int64) (string, error) {
	if n, ok := cache[id]; ok {
		return n, nil
	}
	n, err := h.d.DB.DisplayName(ctx, id)
	cache[id] = n
	return n, err
}

// diffRows are the fields whose values differ, in the order of fields.
func diffRows(h *handler, lang string, fields []formField, old, now map[string]string) []diffRow {
	var out []diffRow
	for _, f := range fields {
		if strings.TrimSpace(old[f.Name]) != strings.TrimSpace(now[f.Name]) {
			out = append(out, diffRow{Label: h.d.I18n.T(lang, f.LabelID, nil), Old: old[f.Name], Now: now[f.Name]})
		}
	}
	return out
}

// revisionParams reads the record and revision ids of a revision URL.
func revisionParams(c *fiber.Ctx) (int64, int64, error) {
	id, err := recordID(c)
	if err != nil {
		return 0, 0, err
	}
	rev, err := strconv.ParseInt(c.Params("rev"), 10, 64)
	if err != nil || rev <= 0 {
		return 0, 0, fiber.ErrNotFound
	}
	return id, rev, nil
}

// revisionPage renders the page of a revision.
func (h *handler) revisionPage(c *fiber.Ctx, rev *models.Revision, record, base string, rows []diffRow) error {
	lang := h.pickLang(c)
	by, err := h.d.DB.DisplayName(c.UserContext(), rev.AuthorID)
	if err != nil {
		return err
	}
	v := revisionPageView{Layout: h.layoutFor(c, "admin.revisions.title"), Record: record,
		When: ui.FormatDateTime(lang, rev.CreatedAt.In(h.d.Site.Zone())), By: by, Rows: rows,
		Restore: base + "/revisions/" + strconv.FormatInt(rev.ID, 10) + "/restore", Back: base + "/edit"}
	return render(c, fiber.StatusOK, revisionPageTpl(v))
}

// eventDiffFields are the fields an event's revision page compares.
var eventDiffFields = []formField{
	{Name: "title", LabelID: "admin.event.field.title"}, {Name: "status", LabelID: "admin.event.field.status"},
	{Name: "when", LabelID: "admin.event.field.when"}, {Name: "timezone", LabelID: "admin.event.field.timezone"},
	{Name: "venue", LabelID: "admin.event.field.venue"}, {Name: "organizers", LabelID: "admin.event.field.organizer"},
	{Name: "categories", LabelID: "admin.event.field.categories"}, {Name: "tags", LabelID: "admin.event.field.tags"},
	{Name: "cost", LabelID: "admin.event.field.cost"}, {Name: "website", LabelID: "admin.event.field.website"},
	{Name: "excerpt", LabelID: "admin.event.field.excerpt"}, {Name: "description", LabelID: "admin.event.field.description"},
	{Name: "translations", LabelID: "admin.revisions.field.translations"},
}

// eventDiffValues are the values of an event the revision page compares,
// as an editor reads them.
func (h *handler) eventDiffValues(lang string, e *models.Event) map[string]string {
	sep := listSeparator(lang)
	zone := h.d.Site.Zone()
	if e.Timezone != "" {
		if z, err := models.LoadZone(e.Timezone, zone); err == nil {
			zone = z
		}
	}
	when := ui.FormatDateTime(lang, e.StartAt.In(zone)) + " – " + ui.FormatDateTime(lang, e.EndAt.In(zone))
	if e.AllDay {
		when = ui.FormatDate(lang, e.StartAt.In(zone)) + " – " + ui.FormatDate(lang, e.EndAt.In(zone))
	}
	var venues, orgs, cats, tags []string
	for _, v := range e.Venues {
		venues = append(venues, v.Venue)
	}
	for _, o := range e.Organizers {
		orgs = append(orgs, o.Organizer)
	}
	for _, t := range e.Categories {
		cats = append(cats, t.Name)
	}
	for _, t := range e.Tags {
		tags = append(tags, t.Name)
	}
	var langs []string
	for _, l := range e.Translations {
		langs = append(langs, ui.LanguageNames[l])
	}
	return map[string]string{"title": e.Title, "status": h.d.I18n.T(lang, statusLabel[e.Status], nil), "when": when,
		"timezone": e.Timezone, "venue": strings.Join(venues, sep), "organizers": strings.Join(orgs, sep),
		"categories": strings.Join(cats, sep), "tags": strings.Join(tags, sep), "cost": strings.Join(models.CostItems(e.Cost), sep), "website": deref(e.Website),
		"excerpt": e.Excerpt, "description": e.Description, "translations": strings.Join(langs, sep)}
}

// eventRevision shows a revision of an event beside the event now.
func (h *handler) eventRevision(c *fiber.Ctx) error {
	id, rev, err := revisionParams(c)
	if err != nil {
		return err
	}
	ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
	old, meta, err := h.d.DB.EventAtRevision(ctx, u, models.ByID(id), rev, "")
	if err != nil {
		return err
	}
	now, err := h.d.DB.GetEvent(ctx, u, models.ByID(id), "")
	if err != nil {
		return err
	}
	return h.revisionPage(c, meta, now.Title, eventPath(id, ""), diffRows(h, lang, eventDiffFields, h.eventDiffValues(lang, old), h.eventDiffValues(lang, now)))
}

// eventRevisionRestore restores a revision of an event.
func (h *handler) eventRevisionRestore(c *fiber.Ctx) error {
	id, rev, err := revisionParams(c)
	if err != nil {
		return err
	}
	if _, err := h.d.DB.RestoreEventRevision(c.UserContext(), ui.UserOf(c), models.ByID(id), rev, ""); err != nil {
		return err
	}
	h.setFlash(c, "revision_restored")
	return h.redirect(c, eventPath(id, "/edit"))
}

// revision shows a revision of a venue or organizer beside it now.
func (p *linkedPages[T, In]) revision(c *fiber.Ctx, h *handler) error {
	id, rev, err := revisionParams(c)
	if err != nil {
		return err
	}
	ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
	old, meta, err := p.ops(h.d.DB).AtRevision(ctx, u, models.ByID(id), rev, "")
	if err != nil {
		return err
	}
	now, err := p.ops(h.d.DB).Get(ctx, u, models.ByID(id), "")
	if err != nil {
		return err
	}
	fields := append([]formField{{Name: "status", LabelID: "admin.event.field.status"}}, p.fields...)
	values := func(rec *T) map[string]string {
		m := p.values(rec)
		m["status"] = h.d.I18n.T(lang, statusLabel[p.post(rec).Status], nil)
		return m
	}
	nowVals := p.values(now)
	title := nowVals[p.fields[0].Name]
	return h.revisionPage(c, meta, title, p.recordPath(id, ""), diffRows(h, lang, fields, values(old), values(now)))
}

// restoreRevision restores a revision of a venue or organizer.
func (p *linkedPages[T, In]) restoreRevision(c *fiber.Ctx, h *handler) error {
	id, rev, err := revisionParams(c)
	if err != nil {
		return err
	}
	if _, err := p.ops(h.d.DB).RestoreRevision(c.UserContext(), ui.UserOf(c), models.ByID(id), rev, ""); err != nil {
		return err
	}
	h.setFlash(c, "revision_restored")
	return h.redirect(c, p.recordPath(id, "/edit"))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
