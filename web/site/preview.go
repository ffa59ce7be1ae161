package site

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The preview of an event, venue or organizer: its edit form posts here
// (formaction, in a new tab) and gets the record's public page as saving
// would make it, while nothing is stored (the models' Preview runs the save
// in a transaction they roll back). A preview is for the signed-in user
// who may save that form: the session's CSRF token is required, and the
// models refuse who may not edit the record (or create one). The page
// carries a banner and noindex, and no cache keeps it: it is a POST with a
// session (the response cache holds anonymous GETs only) answered with
// Cache-Control: no-store.

// registerPreview mounts the preview routes: ui.PreviewPath+"event" for a
// new event, ui.PreviewPath+"event/12" for event 12, likewise "venue" and
// "organizer".
func (h *handler) registerPreview(app *fiber.App) {
	kinds := map[string]fiber.Handler{
		"event": h.previewEvent,
		"venue": func(c *fiber.Ctx) error {
			return previewLinked(h, c, h.d.DB.Venues(), ui.VenueInput, ui.VenueFields, h.venueView,
				func(v *models.Venue) *models.Post { return &v.Post })
		},
		"organizer": func(c *fiber.Ctx) error {
			return previewLinked(h, c, h.d.DB.Organizers(), ui.OrganizerInput, ui.OrganizerFields, h.organizerView,
				func(o *models.Organizer) *models.Post { return &o.Post })
		},
	}
	for kind, handle := range kinds {
		handle = h.d.Gate.Wrap(h.previewAllowed(handle))
		app.Post(ui.PreviewPath+kind, h.d.LoadSession, handle)
		app.Post(ui.PreviewPath+kind+"/:id", h.d.LoadSession, handle)
	}
}

// previewAllowed refuses (403) a preview without a session or without the
// session's CSRF token in the form (the admin forms' hidden _csrf).
func (h *handler) previewAllowed(next fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		sess, sent := ui.SessionOf(c), c.FormValue("_csrf")
		if ui.UserOf(c) == nil || sess == nil || sent == "" ||
			subtle.ConstantTimeCompare([]byte(sent), []byte(sess.CSRFToken)) != 1 {
			return fiber.ErrForbidden
		}
		return next(c)
	}
}

// previewRef is the record a preview changes: the :id of its path, nil for
// a new one.
func previewRef(c *fiber.Ctx) (*models.Ref, error) {
	s := c.Params("id")
	if s == "" {
		return nil, nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return nil, fiber.ErrNotFound
	}
	r := models.ByID(id)
	return &r, nil
}

// previewEvent is the preview of the event form: its input as saving
// sends it (for a stored event, over the stored form, as the admin does).
func (h *handler) previewEvent(c *fiber.Ctx) error {
	ref, err := previewRef(c)
	if err != nil {
		return err
	}
	ctx, u := c.UserContext(), ui.UserOf(c)
	f := ui.ReadEventForm(c)
	in := f.Input("")
	if ref != nil {
		cur, err := h.d.DB.GetEvent(ctx, u, *ref, "")
		if err != nil {
			return err
		}
		in = f.SaveInput(ui.EventFormOf(cur, h.d.Site.Zone()))
	}
	e, err := h.d.DB.PreviewEvent(ctx, u, ref, in)
	if err != nil {
		return h.previewFailed(c, err)
	}
	lang := h.pageLang(e.Lang)
	v, err := h.eventView(c, lang, e)
	if err != nil {
		return err
	}
	h.markPreview(&v.Frame)
	return h.sendPreview(c, publicEventPage(v))
}

// previewLinked is the preview of a venue's or an organizer's form.
func previewLinked[T, In any](h *handler, c *fiber.Ctx, ops models.Linked[T, In], input func(map[string]string) (In, error),
	fields []string, view func(lang string, rec *T) (*recordPageView, models.EventFilter, error),
	post func(*T) *models.Post) error {
	ref, err := previewRef(c)
	if err != nil {
		return err
	}
	in, err := input(ui.ReadLinkedForm(c, fields))
	if err != nil {
		return h.previewFailed(c, err)
	}
	rec, err := ops.Preview(c.UserContext(), ui.UserOf(c), ref, in, "")
	if err != nil {
		return h.previewFailed(c, err)
	}
	lang := h.pageLang(post(rec).Lang)
	v, f, err := view(lang, rec)
	if err != nil {
		return err
	}
	if ref != nil { // a new record has no events yet
		if err := h.publicEventsOf(c, lang, v, f); err != nil {
			return err
		}
	}
	h.markPreview(&v.Frame)
	return h.sendPreview(c, publicRecordPage(*v))
}

// pageLang is the language a preview's page is shown in: the record's own
// (its source language), else the site's.
func (h *handler) pageLang(lang string) string {
	if i18n.Valid(lang) {
		return lang
	}
	return h.d.SiteLang()
}

// markPreview makes a page a preview: its banner, noindex, and no
// canonical or alternate links (the record may have no page yet).
func (h *handler) markPreview(v *publicView) {
	v.Preview = h.d.I18n.T(v.Lang, "public.preview.banner", nil)
	v.Robots = noindex
	v.Canonical = ""
}

// previewFailed answers a form that cannot be previewed: its invalid
// fields on a page (422); refusals and the rest go to the error handler.
func (h *handler) previewFailed(c *fiber.Ctx, err error) error {
	var ve *models.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	lang := h.pageLang(i18n.Normalize(ui.UserOf(c).Locale))
	var msgs []string
	for _, f := range ve.Fields {
		msgs = append(msgs, h.d.I18n.T(lang, f.Reason, f.Data))
	}
	v := h.frame(lang, "/events/", h.d.I18n.T(lang, "public.preview.invalid", nil), "")
	h.markPreview(&v)
	c.Status(fiber.StatusUnprocessableEntity)
	return h.sendPreview(c, publicErrorPage(v, strings.Join(msgs, " ")))
}

// sendPreview renders a preview page: never stored by any cache, never
// indexed.
func (h *handler) sendPreview(c *fiber.Ctx, page templ.Component) error {
	var buf bytes.Buffer
	if err := page.Render(c.UserContext(), &buf); err != nil {
		return err
	}
	ui.PageHeaders(c)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Robots-Tag", noindex)
	return c.Send(buf.Bytes())
}
