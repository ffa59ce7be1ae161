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
		return c.Redirect(h.defaultView(c, lang), fiber.StatusFound)
	}
	id, err := strconv.ParseInt(p, 10, 64)
	if err != nil || id < 1 {
		return h.notFound(c, lang)
	}
	kinds := map[string]struct {
		kind models.Kind
		edit string
	}{"tribe_events": {models.KindEvent, "/admin/events/"}, "tribe_venue": {models.KindVenue, "/admin/venues/"},
		"tribe_organizer": {models.KindOrganizer, "/admin/organizers/"}}
	k, ok := kinds[pt]
	if !ok {
		return h.notFound(c, lang)
	}
	u := actor(c)
	status, slug, err := h.statusAndSlug(c.UserContext(), u, k.kind, id, lang)
	if err != nil {
		return h.notFoundOr(c, lang, err)
	}
	if onPublicPage(status) {
		return c.Redirect(h.d.PagePath(lang, kindPaths[k.kind]+url.PathEscape(slug)+"/"), fiber.StatusFound)
	}
	if u == nil { // a published record is the only kind anonymous callers read
		return h.notFound(c, lang)
	}
	return c.Redirect(k.edit+strconv.FormatInt(id, 10)+"/edit", fiber.StatusFound)
}

func (h *handler) notFoundOr(c *fiber.Ctx, lang string, err error) error {
	if hidden(err) {
		return h.notFound(c, lang)
	}
	return err
}
