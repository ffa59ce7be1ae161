package site

import (
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// root is "/": the public list of events, or, for the url the API gives a
// record that has no public page yet (/?post_type=tribe_events&p=<id>, as
// WordPress), that record: 404 unless the caller may read it, then its
// public page when it has one and its edit page otherwise.
func (h *handler) root(c *fiber.Ctx, lang string) error {
	pt, p := c.Query("post_type"), c.Query("p")
	if pt == "" && p == "" {
		return c.Redirect(h.d.PagePath(lang, "/events/"), fiber.StatusFound)
	}
	id, err := strconv.ParseInt(p, 10, 64)
	if err != nil || id < 1 {
		return h.notFound(c, lang)
	}
	u := actor(c)
	ctx := c.UserContext()
	var status, slug, page, edit string
	switch pt {
	case "tribe_events":
		e, err := h.d.DB.GetEvent(ctx, u, models.ByID(id), lang)
		if err != nil {
			return h.notFoundOr(c, lang, err)
		}
		status, slug, page, edit = e.Status, e.Slug, "/event/", "/admin/events/"
	case "tribe_venue":
		v, err := h.d.DB.Venues().Get(ctx, u, models.ByID(id), lang)
		if err != nil {
			return h.notFoundOr(c, lang, err)
		}
		status, slug, page, edit = v.Status, v.Slug, "/venue/", "/admin/venues/"
	case "tribe_organizer":
		o, err := h.d.DB.Organizers().Get(ctx, u, models.ByID(id), lang)
		if err != nil {
			return h.notFoundOr(c, lang, err)
		}
		status, slug, page, edit = o.Status, o.Slug, "/organizer/", "/admin/organizers/"
	default:
		return h.notFound(c, lang)
	}
	if onPublicPage(status) {
		return c.Redirect(h.d.PagePath(lang, page+url.PathEscape(slug)+"/"), fiber.StatusFound)
	}
	if u == nil { // a published record is the only kind anonymous callers read
		return h.notFound(c, lang)
	}
	return c.Redirect(edit+strconv.FormatInt(id, 10)+"/edit", fiber.StatusFound)
}

func (h *handler) notFoundOr(c *fiber.Ctx, lang string, err error) error {
	if hidden(err) {
		return h.notFound(c, lang)
	}
	return err
}
