package admin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// eventForm is what the event form shows and sends (ui.EventForm, shared
// with the public site's preview).
type eventForm = ui.EventForm

// Form values of date inputs.
const (
	localDateTime = ui.LocalDateTime
	localDate     = ui.LocalDate
)

// formOf fills the form from a stored event (read in its source language),
// with the version it carries.
func formOf(e *models.Event, site *time.Location) eventForm {
	f := ui.EventFormOf(e, site)
	f.Version = recordVersion(f, e.UpdatedAt, e.ModifiedBy, e.Translations)
	return f
}

// recordVersion is the version a form carries: a digest of what the form
// shows and of the record's last change, so a change made in the same
// second as the form was loaded still counts.
func recordVersion(shown any, updated time.Time, by int64, langs []string) string {
	b, _ := json.Marshal([]any{shown, updated.Unix(), by, langs})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// conflictView says that the record changed since the form was loaded.
type conflictView struct {
	When   string
	By     string // "" when unknown
	Fields []string
}

// formFields are the fields the event form shows, in order; a message for
// any other field goes to the summary only.
var formFields = []string{"title", "description", "excerpt", "status", "start_date", "end_date", "timezone",
	"venue", "organizer", "categories", "tags", "cost", "website", "image", "slug", "date",
	"currency_symbol", "currency_code", "currency_position", "recurrence"}

func (h *handler) eventFormView(c *fiber.Ctx, titleID string, f eventForm, id int64) (eventFormView, error) {
	lay := h.layoutFor(c, titleID)
	withRichText(&lay)
	lang, u := lay.Lang, ui.UserOf(c)
	v := eventFormView{Layout: lay, F: f, ID: id, Action: eventsPath, Zones: zoneNames, SiteZone: h.d.Site.Zone().String(),
		Access: models.ListAccess(u, models.KindEvent)}
	v.Library, v.PreviewAction = mediaLibrary(u), ui.PreviewPath+"event"
	withPicker(&v.Layout)
	if id != 0 {
		v.PreviewAction += "/" + strconv.FormatInt(id, 10)
		v.Action = eventPath(id, "")
		v.JSONURL = h.d.APIPath + "events/" + strconv.FormatInt(id, 10)
	}
	for _, s := range models.StatusChoices(u, models.KindEvent) {
		v.Statuses = append(v.Statuses, option{Value: s, Label: lay.T(statusLabel[s]), Selected: s == f.Status})
	}
	var err error
	if v.Venues, err = h.venueOptions(c, lang, "", f.Venue); err != nil {
		return v, err
	}
	if v.Organizers, err = h.organizerOptions(c, lang, "", f.Organizers); err != nil {
		return v, err
	}
	if v.Categories, err = h.categoryOptions(c, lang, f.Categories); err != nil {
		return v, err
	}
	if v.Tags, err = h.tagOptions(c, lang, f.Tags); err != nil {
		return v, err
	}
	return v, nil
}

// eventNew shows the empty form: tomorrow 10:00–11:00 in the site zone.
func (h *handler) eventNew(c *fiber.Ctx) error {
	site := h.d.Site.Zone()
	start := h.d.Site.Now().In(site).AddDate(0, 0, 1)
	start = time.Date(start.Year(), start.Month(), start.Day(), 10, 0, 0, 0, site)
	f := eventForm{StartDate: start.Format(localDateTime), EndDate: start.Add(time.Hour).Format(localDateTime),
		Timezone: site.String(), Status: models.StatusDraft}
	v, err := h.eventFormView(c, "admin.events.new", f, 0)
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, eventFormPage(v))
}

// eventCreate creates the event of the posted form: 303 to its edit page,
// or the form again with its errors (422).
func (h *handler) eventCreate(c *fiber.Ctx) error {
	f := readEventForm(c)
	lang := h.pickLang(c)
	e, err := h.d.DB.CreateEvent(c.UserContext(), ui.UserOf(c), f.Input(""))
	if err != nil {
		return h.eventFormFailed(c, "admin.events.new", f, 0, err, lang)
	}
	h.setFlash(c, "event_created")
	// The calendar's quick-create goes back to the calendar.
	if back := c.FormValue("_return"); strings.HasPrefix(back, calendarPath) && !strings.ContainsAny(back, "\\\r\n") {
		return h.redirect(c, back)
	}
	return h.redirect(c, eventPath(e.ID, "/edit"))
}

// eventFormFailed renders the form again for a failed save: 422 with the
// messages next to their fields; any other error goes to the error page.
func (h *handler) eventFormFailed(c *fiber.Ctx, titleID string, f eventForm, id int64, err error, lang string) error {
	fe, ok := h.validationErrors(lang, err, formFields...)
	if !ok {
		return err
	}
	v, verr := h.eventFormView(c, titleID, f, id)
	if verr != nil {
		return verr
	}
	v.Errors = fe
	return render(c, fiber.StatusUnprocessableEntity, eventFormPage(v))
}

// redirect answers a successful post: 303 to path, or for htmx 200 with
// HX-Redirect.
func (h *handler) redirect(c *fiber.Ctx, path string) error {
	if c.Get("HX-Request") == "true" {
		c.Set("HX-Redirect", path)
		return c.SendStatus(fiber.StatusOK)
	}
	return c.Redirect(path, fiber.StatusSeeOther)
}

// eventEdit shows the form of a stored event, in its source language.
func (h *handler) eventEdit(c *fiber.Ctx) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	e, err := h.d.DB.GetEvent(c.UserContext(), ui.UserOf(c), models.ByID(id), "")
	if err != nil {
		return err
	}
	// The form is for who may edit the event (WordPress's edit screen).
	if err := h.d.DB.CheckEdit(c.UserContext(), ui.UserOf(c), models.KindEvent, models.ByID(id)); err != nil {
		return err
	}
	v, err := h.eventFormView(c, "admin.events.edit", formOf(e, h.d.Site.Zone()), id)
	if err != nil {
		return err
	}
	h.decorateEdit(&v, e)
	if v.Revisions, err = h.revisionsOf(c, models.KindEvent, id, eventPath(id, "")); err != nil {
		return err
	}
	return render(c, fiber.StatusOK, eventFormPage(v))
}

// decorateEdit adds what only an existing event's form shows: its status
// and its translations.
func (h *handler) decorateEdit(v *eventFormView, e *models.Event) {
	v.StatusName = v.Layout.T(statusLabel[e.Status])
	v.Langs = translationLinks(e.Lang, e.Translations, func(l string) string { return eventPath(e.ID, "/translations/"+l) })
}

// eventSave saves the edit form. The form carries the version it was
// loaded from: when the event changed since, nothing is written and the
// form comes back (409) saying when and which fields differ, with the
// choice to reload or to save over it (_overwrite).
func (h *handler) eventSave(c *fiber.Ctx) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
	f := readEventForm(c)
	cur, err := h.d.DB.GetEvent(ctx, u, models.ByID(id), "")
	if err != nil {
		return err
	}
	stored := formOf(cur, h.d.Site.Zone())
	if f.Version != stored.Version && c.FormValue("_overwrite") == "" {
		v, err := h.eventFormView(c, "admin.events.edit", f, id)
		if err != nil {
			return err
		}
		h.decorateEdit(&v, cur)
		v.F.Version = stored.Version
		by, err := h.d.DB.DisplayName(ctx, cur.ModifiedBy)
		if err != nil {
			return err
		}
		v.Conflict = &conflictView{When: ui.FormatDateTime(lang, cur.UpdatedAt.In(h.d.Site.Zone())), By: by,
			Fields: h.changedFields(lang, f, stored)}
		return render(c, fiber.StatusConflict, eventFormPage(v))
	}
	in := f.SaveInput(stored)
	if _, err := h.d.DB.UpdateEvent(ctx, u, models.ByID(id), in); err != nil {
		return h.eventFormFailed(c, "admin.events.edit", f, id, err, lang)
	}
	h.setFlash(c, "event_saved")
	return h.redirect(c, eventPath(id, "/edit"))
}

// changedFields names the fields whose stored value differs from what the
// form sends: what saving over the newer version would change.
func (h *handler) changedFields(lang string, sent, stored eventForm) []string {
	var out []string
	add := func(differ bool, labelID string) {
		if differ {
			out = append(out, h.d.I18n.T(lang, labelID, nil))
		}
	}
	add(sent.Title != stored.Title, "admin.event.field.title")
	add(strings.TrimSpace(sent.Description) != strings.TrimSpace(stored.Description), "admin.event.field.description")
	add(strings.TrimSpace(sent.Excerpt) != strings.TrimSpace(stored.Excerpt), "admin.event.field.excerpt")
	add(sent.Status != stored.Status, "admin.event.field.status")
	add(sent.StartDate != stored.StartDate || sent.EndDate != stored.EndDate || sent.AllDay != stored.AllDay, "admin.event.field.when")
	add(sent.Timezone != stored.Timezone, "admin.event.field.timezone")
	add(sent.Venue != stored.Venue, "admin.event.field.venue")
	add(strings.Join(sent.Organizers, ",") != strings.Join(stored.Organizers, ","), "admin.event.field.organizer")
	add(strings.Join(sent.Categories, ",") != strings.Join(stored.Categories, ","), "admin.event.field.categories")
	add(strings.Join(sent.Tags, ",") != strings.Join(stored.Tags, ","), "admin.event.field.tags")
	add(sent.Cost != stored.Cost, "admin.event.field.cost")
	add(sent.Website != stored.Website, "admin.event.field.website")
	return out
}

// readEventForm reads a posted event form.
func readEventForm(c *fiber.Ctx) eventForm { return ui.ReadEventForm(c) }
