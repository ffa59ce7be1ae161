package web

import (
	"encoding/xml"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// root is "/": the public list of events, or, for the url the API gives a
// record that has no public page yet (/?post_type=tribe_events&p=<id>, as
// WordPress), that record: 404 unless the caller may read it, then its
// public page when it has one and its edit page otherwise.
func (h *handler) root(c *fiber.Ctx, lang string) error {
	pt, p := c.Query("post_type"), c.Query("p")
	if pt == "" && p == "" {
		return c.Redirect(h.pagePath(lang, "/events/"), fiber.StatusFound)
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
		return c.Redirect(h.pagePath(lang, page+url.PathEscape(slug)+"/"), fiber.StatusFound)
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

// sitemapCap bounds the sitemap at the protocol's limit of URLs per file.
const sitemapCap = 50_000

type sitemapURL struct {
	Loc     string        `xml:"loc"`
	LastMod string        `xml:"lastmod,omitempty"`
	Alts    []sitemapLink `xml:"xhtml:link"`
}

type sitemapLink struct {
	Rel      string `xml:"rel,attr"`
	Hreflang string `xml:"hreflang,attr"`
	Href     string `xml:"href,attr"`
}

type sitemapSet struct {
	XMLName xml.Name     `xml:"urlset"`
	NS      string       `xml:"xmlns,attr"`
	XHTML   string       `xml:"xmlns:xhtml,attr"`
	URLs    []sitemapURL `xml:"url"`
}

// sitemap is /sitemap.xml: every public record (published events not
// hidden from listings, venues, organizers, categories and tags), each with
// its pages in the other languages, up to sitemapCap URLs.
func (h *handler) sitemap(c *fiber.Ctx) error {
	ctx := c.UserContext()
	set := sitemapSet{NS: "http://www.sitemaps.org/schemas/sitemap/0.9", XHTML: "http://www.w3.org/1999/xhtml"}
	lang := h.siteLang()
	add := func(path, mod string) {
		if len(set.URLs) >= sitemapCap {
			return
		}
		u := sitemapURL{Loc: h.pageURL(lang, path), LastMod: mod}
		for _, code := range i18n.Codes {
			u.Alts = append(u.Alts, sitemapLink{"alternate", i18n.Tag(code).String(), h.pageURL(code, path)})
		}
		set.URLs = append(set.URLs, u)
	}
	add("/events/", "")
	const batch = 1000
	for page := 1; len(set.URLs) < sitemapCap; page++ {
		p, err := h.d.DB.ListEvents(ctx, nil, models.EventFilter{Page: page, PerPage: batch, Lang: lang})
		if err != nil {
			return err
		}
		for _, e := range p.Items {
			add("/event/"+url.PathEscape(e.Slug)+"/", e.UpdatedAt.UTC().Format("2006-01-02"))
		}
		if len(p.Items) < batch {
			break
		}
	}
	for _, k := range []struct {
		path string
		list func(page int) ([]*models.Post, error)
	}{
		{"/venue/", func(page int) ([]*models.Post, error) {
			return posts(h.d.DB.Venues().List(ctx, nil, models.LinkedFilter{Page: page, PerPage: batch, Lang: lang}))(func(v *models.Venue) *models.Post { return &v.Post })
		}},
		{"/organizer/", func(page int) ([]*models.Post, error) {
			return posts(h.d.DB.Organizers().List(ctx, nil, models.LinkedFilter{Page: page, PerPage: batch, Lang: lang}))(func(o *models.Organizer) *models.Post { return &o.Post })
		}},
	} {
		for page := 1; len(set.URLs) < sitemapCap; page++ {
			posts, err := k.list(page)
			if err != nil {
				return err
			}
			for _, p := range posts {
				add(k.path+url.PathEscape(p.Slug)+"/", p.UpdatedAt.UTC().Format("2006-01-02"))
			}
			if len(posts) < batch {
				break
			}
		}
	}
	for _, tax := range []string{models.TaxCategory, models.TaxTag} {
		path := map[string]string{models.TaxCategory: "/events/category/", models.TaxTag: "/tag/"}[tax]
		for page := 1; len(set.URLs) < sitemapCap; page++ {
			p, err := h.d.DB.ListTerms(ctx, nil, models.TermFilter{Taxonomy: tax, Page: page, PerPage: batch, Lang: lang})
			if err != nil {
				return err
			}
			for _, t := range p.Items {
				add(path+url.PathEscape(t.Slug)+"/", "")
			}
			if len(p.Items) < batch {
				break
			}
		}
	}
	out, err := xml.MarshalIndent(set, "", " ")
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "application/xml; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.Send(append([]byte(xml.Header), out...))
}

// posts turns a page of venues or organizers into their posts.
func posts[T any](p *models.Page[T], err error) func(post func(*T) *models.Post) ([]*models.Post, error) {
	return func(post func(*T) *models.Post) ([]*models.Post, error) {
		if err != nil {
			return nil, err
		}
		out := make([]*models.Post, len(p.Items))
		for i, v := range p.Items {
			out[i] = post(v)
		}
		return out, nil
	}
}
