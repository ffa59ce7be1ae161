package site

import (
	"errors"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/jsonld"
	"github.com/kalends/kalends/internal/ordered"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// publicEventsOf fills a record page's list: the upcoming events f selects,
// page by page (?page=N), up to the last page (a page past it is not
// there: errBadPage; an empty list has its first page). A page asked with
// a filter is not for indexing.
func (h *handler) publicEventsOf(c *fiber.Ctx, lang string, v *recordPageView, f models.EventFilter) error {
	page, ok := queryInt(c, "page", 1)
	if !ok {
		return errBadPage
	}
	f.Page, f.PerPage, f.Lang, f.EndsAfter = page, publicPerPage, lang, h.upcoming()
	p, err := h.d.DB.ListEvents(c.UserContext(), actor(c), f)
	if err != nil {
		return err
	}
	v.Events = h.cards(lang, p.Items)
	of := (p.Total + publicPerPage - 1) / publicPerPage
	if page > max(of, 1) {
		return errBadPage
	}
	if filtered(c) {
		v.Frame.Robots = noindex
	}
	v.Pager = publicPager{Page: page, Of: of}
	base := c.Path()
	keep := c.Request().URI().QueryArgs()
	at := func(n int) string {
		args := fiber.AcquireArgs()
		defer fiber.ReleaseArgs(args)
		keep.CopyTo(args)
		args.Del("page")
		if n > 1 {
			args.Set("page", strconv.Itoa(n))
		}
		if args.Len() == 0 {
			return base
		}
		return base + "?" + args.String()
	}
	if page > 1 {
		v.Pager.Prev = at(page - 1)
	}
	if page < of {
		v.Pager.Next = at(page + 1)
	}
	return nil
}

// linkedPage reads a venue or an organizer by slug for a public page.
type linkedPage struct {
	kind models.Kind // venue or organizer
	get  func(h *handler, c *fiber.Ctx, slug, lang string) (*recordPageView, models.EventFilter, error)
}

var (
	venueKind = linkedPage{kind: models.KindVenue, get: func(h *handler, c *fiber.Ctx, slug, lang string) (*recordPageView, models.EventFilter, error) {
		vn, err := h.d.DB.Venues().Get(c.UserContext(), actor(c), models.BySlug(slug), lang)
		if err != nil || !onPublicPage(vn.Status) {
			return nil, models.EventFilter{}, orHidden(err)
		}
		return h.venueView(lang, vn)
	}}
	organizerKind = linkedPage{kind: models.KindOrganizer, get: func(h *handler, c *fiber.Ctx, slug, lang string) (*recordPageView, models.EventFilter, error) {
		o, err := h.d.DB.Organizers().Get(c.UserContext(), actor(c), models.BySlug(slug), lang)
		if err != nil || !onPublicPage(o.Status) {
			return nil, models.EventFilter{}, orHidden(err)
		}
		return h.organizerView(lang, o)
	}}
)

// venueView is the page of venue vn in lang (before its list of events),
// and the filter of that list.
func (h *handler) venueView(lang string, vn *models.Venue) (*recordPageView, models.EventFilter, error) {
	path := "/venue/" + url.PathEscape(vn.Slug) + "/"
	v := &recordPageView{Frame: h.frame(lang, path, vn.Venue, jsonld.PlainText(vn.Description)),
		Kind: h.d.I18n.T(lang, "public.kind.venue", nil), Description: vn.Description, Map: mapURL(vn), Image: vn.ImageURL}
	t := v.Frame.T
	for _, d := range []link{{t("public.field.address"), venueAddress(vn)}, {t("public.field.phone"), vn.Phone}} {
		if d.Href != "" {
			v.Details = append(v.Details, d)
		}
	}
	if vn.Website != "" {
		v.Details = append(v.Details, link{t("public.field.website"), vn.Website})
	}
	return v, models.EventFilter{VenueIDs: []int64{vn.ID}}, v.Frame.withJSONLD(
		append(ordered.Obj{{K: "@context", V: "http://schema.org"}}, jsonld.Venue(vn, v.Frame.Canonical)...))
}

// organizerView is the page of organizer o in lang, as venueView.
func (h *handler) organizerView(lang string, o *models.Organizer) (*recordPageView, models.EventFilter, error) {
	path := "/organizer/" + url.PathEscape(o.Slug) + "/"
	v := &recordPageView{Frame: h.frame(lang, path, o.Organizer, jsonld.PlainText(o.Description)),
		Kind: h.d.I18n.T(lang, "public.kind.organizer", nil), Description: o.Description, Image: o.ImageURL}
	t := v.Frame.T
	for _, d := range []link{{t("public.field.email"), o.Email}, {t("public.field.phone"), o.Phone}, {t("public.field.website"), o.Website}} {
		if d.Href != "" {
			v.Details = append(v.Details, d)
		}
	}
	return v, models.EventFilter{OrganizerIDs: []int64{o.ID}}, v.Frame.withJSONLD(
		append(ordered.Obj{{K: "@context", V: "http://schema.org"}}, jsonld.Organizer(o)...))
}

// orHidden is err, or a not-found error when the record exists but has no
// public page.
func orHidden(err error) error {
	if err != nil {
		return err
	}
	return models.ErrNotFound
}

// publicLinked is /venue/<slug>/ and /organizer/<slug>/.
func (h *handler) publicLinked(k linkedPage) func(*fiber.Ctx, string) error {
	return func(c *fiber.Ctx, lang string) error {
		slug, ok := slugParam(c)
		if !ok {
			return h.notFound(c, lang)
		}
		v, f, err := k.get(h, c, slug, lang)
		if errors.Is(err, models.ErrNotFound) {
			if moved, err := h.movedSlug(c, lang, k.kind, slug, "/"); moved || err != nil {
				return err
			}
		}
		if hidden(err) {
			return h.notFound(c, lang)
		}
		if err != nil {
			return err
		}
		if err := h.publicEventsOf(c, lang, v, f); err != nil {
			return h.listError(c, lang, err)
		}
		return h.renderPublic(c, fiber.StatusOK, publicRecordPage(*v))
	}
}

// publicTerm is /events/category/<slug>/ and /tag/<slug>/.
func (h *handler) publicTerm(taxonomy string) func(*fiber.Ctx, string) error {
	return func(c *fiber.Ctx, lang string) error {
		slug, ok := slugParam(c)
		if !ok {
			return h.notFound(c, lang)
		}
		p, err := h.d.DB.ListTerms(c.UserContext(), actor(c), models.TermFilter{Taxonomy: taxonomy, Slug: slug, PerPage: 1, Lang: lang})
		if err == nil && len(p.Items) == 0 {
			if moved, err := h.movedSlug(c, lang, models.Kind(taxonomy), slug, "/"); moved || err != nil {
				return err
			}
			err = models.ErrNotFound
		}
		if hidden(err) {
			return h.notFound(c, lang)
		}
		if err != nil {
			return err
		}
		t := p.Items[0]
		path, kindID := "/tag/"+url.PathEscape(t.Slug)+"/", "public.kind.tag"
		f := models.EventFilter{Tags: []models.TermRef{{ID: t.ID}}}
		if taxonomy == models.TaxCategory {
			path, kindID = "/events/category/"+url.PathEscape(t.Slug)+"/", "public.kind.category"
			f = models.EventFilter{Categories: []models.TermRef{{ID: t.ID}}}
		}
		v := recordPageView{Frame: h.frame(lang, path, t.Name, jsonld.PlainText(t.Description)),
			Kind: h.d.I18n.T(lang, kindID, nil), Description: t.Description}
		if err := h.publicEventsOf(c, lang, &v, f); err != nil {
			return h.listError(c, lang, err)
		}
		if len(v.Events) == 0 { // a category or tag page is its list
			v.Frame.Robots = noindex
		}
		ics := h.d.PageURL(lang, "/events.ics?"+map[string]string{models.TaxCategory: "categories", models.TaxTag: "tags"}[taxonomy]+"="+url.QueryEscape(t.Slug))
		v.ICS, v.Webcal = ics, ui.WebcalURL(ics)
		if err := v.Frame.withJSONLD(itemList(t.Name, v.Frame.Canonical, v.Events)); err != nil {
			return err
		}
		return h.renderPublic(c, fiber.StatusOK, publicRecordPage(v))
	}
}
