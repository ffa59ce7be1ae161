package site

import (
	"context"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// slugParam is the slug a public or admin route's :slug segment names,
// however the client sent it: percent-encoded (the form of every URL
// Kalends gives out, in either hex case) or raw UTF-8, composed or
// decomposed. Fiber leaves path parameters undecoded (UnescapePath stays
// off, as the API decodes its own paths), so the segment is decoded here,
// checked to be UTF-8 and put in Unicode NFC, the form slugs are stored in.
// ok is false for a segment that cannot name a slug (a bad escape or
// bytes that are not UTF-8, or a control character, which no slug holds):
// the caller answers 404.
func slugParam(c *fiber.Ctx) (slug string, ok bool) {
	return models.DecodeSlug(c.Params("slug"))
}

// kindPaths are the public page paths of each kind, before the slug.
var kindPaths = map[models.Kind]string{models.KindEvent: "/event/", models.KindVenue: "/venue/",
	models.KindOrganizer: "/organizer/", models.KindCategory: "/events/category/", models.KindTag: "/tag/"}

// movedSlug answers a request for a slug no record of kind k has now but
// one had before its slug changed (an edit, an import, a restored
// revision): a 301 to that record's current address in the same language
// prefix, with the same query, when the caller may see it on a public page
// (for feeds, when it is published: feeds are read anonymously). ok is
// false when there is nothing to redirect to; the caller answers 404.
// suffix is what follows the slug: "/" for pages, ".ics" for an event's
// calendar.
func (h *handler) movedSlug(c *fiber.Ctx, lang string, k models.Kind, slug, suffix string) (ok bool, err error) {
	ctx := c.UserContext()
	id, err := h.d.DB.OldSlugTarget(ctx, k, slug)
	if err != nil {
		return false, ignoreHidden(err)
	}
	u := actor(c)
	if suffix == ".ics" {
		u = nil
	}
	status, now, err := h.statusAndSlug(ctx, u, k, id, lang)
	if err != nil {
		return false, ignoreHidden(err)
	}
	if !onPublicPage(status) || u == nil && status != models.StatusPublish || now == slug {
		return false, nil
	}
	to := h.d.PagePath(lang, kindPaths[k]+url.PathEscape(now)+suffix)
	if q := c.Request().URI().QueryString(); len(q) > 0 {
		to += "?" + string(q)
	}
	return true, c.Redirect(to, fiber.StatusMovedPermanently)
}

// statusAndSlug reads the status and the current slug of the record of
// kind k with id, as u (nil: anonymous) may read it. Categories and tags
// have no status: every one has a page, so they read as published.
func (h *handler) statusAndSlug(ctx context.Context, u *models.User, k models.Kind, id int64, lang string) (status, slug string, err error) {
	switch k {
	case models.KindEvent:
		e, err := h.d.DB.GetEvent(ctx, u, models.ByID(id), lang)
		if err != nil {
			return "", "", err
		}
		return e.Status, e.Slug, nil
	case models.KindVenue:
		v, err := h.d.DB.Venues().Get(ctx, u, models.ByID(id), lang)
		if err != nil {
			return "", "", err
		}
		return v.Status, v.Slug, nil
	case models.KindOrganizer:
		o, err := h.d.DB.Organizers().Get(ctx, u, models.ByID(id), lang)
		if err != nil {
			return "", "", err
		}
		return o.Status, o.Slug, nil
	}
	t, err := h.d.DB.GetTerm(ctx, u, string(k), id, lang)
	if err != nil {
		return "", "", err
	}
	return models.StatusPublish, t.Slug, nil
}

// ignoreHidden is nil for an error that means the record cannot be shown
// (so the caller answers 404), err otherwise.
func ignoreHidden(err error) error {
	if hidden(err) {
		return nil
	}
	return err
}
