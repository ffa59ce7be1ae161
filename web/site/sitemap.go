package site

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// The sitemap (sitemaps.org protocol): /sitemap.xml is an index of
// children, /sitemap-<kind>-<n>.xml, one per kind and run of ids
// (models.SitemapChildren): child n of a kind lists its public records
// with ids from (n-1)·size+1 to n·size, so a record never moves from one
// child to another, and a child that lists nothing (past the end, or a run
// of ids held by drafts or by other kinds) is 404 and absent from the
// index. Each URL is the page in the site's default language with its
// pages in every language as xhtml:link alternates, and the record's last
// change as lastmod (events, venues, organizers). /sitemap-pages-1.xml
// lists the list of events. The index gives no lastmod of its children:
// it would read every record (see models.SitemapChildren).

// sitemapPerChild is the number of ids a child covers, and so the most
// URLs it lists (the protocol allows 50,000; at 10,000 a child of events
// is some 5 MB and answers in well under a second). Tests lower it.
var sitemapPerChild = 10_000

// sitemapMaxBytes is the protocol's bound on a sitemap file.
const sitemapMaxBytes = 50 << 20

// sitemapSlugMax is the longest slug a record may have, in bytes (the
// column's 255: models.maxSlugLen).
const sitemapSlugMax = 255

// sitemapKind is a kind of record the sitemap lists: its name in the
// children's addresses and the path of its pages.
type sitemapKind struct {
	name string
	kind models.Kind
	path string
}

var sitemapKinds = []sitemapKind{
	{"events", models.KindEvent, "/event/"},
	{"venues", models.KindVenue, "/venue/"},
	{"organizers", models.KindOrganizer, "/organizer/"},
	{"categories", models.KindCategory, "/events/category/"},
	{"tags", models.KindTag, "/tag/"},
}

// sitemapPages names the child of the pages that are no record's: the
// list of events (its filtered and paged forms are not canonical).
const sitemapPages = "pages"

// sitemapSize is the number of ids per child: sitemapPerChild, or fewer
// when a child of the longest entries this site can have (a slug of 255
// bytes, each percent-encoded, in five URLs) would pass the protocol's
// 50 MB.
func (h *handler) sitemapSize() int {
	prefix, path := 0, 0
	for _, code := range i18n.Codes {
		prefix = max(prefix, len("/"+code))
	}
	for _, k := range sitemapKinds {
		path = max(path, len(k.path))
	}
	longest := len(h.d.Site.BaseURL) + prefix + path + 3*sitemapSlugMax + 1
	entry := (1+len(i18n.Codes))*longest + 300 // loc, the alternates, markup and lastmod
	return max(1, min(sitemapPerChild, sitemapMaxBytes/entry))
}

// sitemapIndex is /sitemap.xml: the children that list something, pages
// first, then each kind's in order.
func (h *handler) sitemapIndex(c *fiber.Ctx) error {
	ctx := c.UserContext()
	size := h.sitemapSize()
	base := xmlText(h.d.Site.BaseURL)
	var b bytes.Buffer
	b.WriteString(xmlHeader + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	child := func(name string, n int) {
		b.WriteString("<sitemap><loc>" + base + "/sitemap-" + name + "-" + strconv.Itoa(n) + ".xml</loc></sitemap>\n")
	}
	child(sitemapPages, 1)
	for _, k := range sitemapKinds {
		ns, err := h.d.DB.SitemapChildren(ctx, k.kind, size)
		if err != nil {
			return err
		}
		for _, n := range ns {
			child(k.name, n)
		}
	}
	b.WriteString("</sitemapindex>\n")
	return sendSitemap(c, b.Bytes())
}

// sitemapChild is /sitemap-<kind>-<n>.xml.
func (h *handler) sitemapChild(c *fiber.Ctx) error {
	name, n, ok := parseSitemapChild(c.Params("name"))
	if !ok {
		return h.notFound(c, h.d.SiteLang())
	}
	w := h.newSitemapWriter()
	if name == sitemapPages {
		if n != 1 {
			return h.notFound(c, h.d.SiteLang())
		}
		w.url("/events/", time.Time{})
		return sendSitemap(c, w.done())
	}
	var kind sitemapKind
	for _, k := range sitemapKinds {
		if k.name == name {
			kind = k
		}
	}
	if kind.name == "" {
		return h.notFound(c, h.d.SiteLang())
	}
	entries, err := h.d.DB.SitemapEntries(c.UserContext(), kind.kind, h.sitemapSize(), n)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return h.notFound(c, h.d.SiteLang())
	}
	w.grow(len(entries))
	for _, e := range entries {
		w.url(kind.path+url.PathEscape(e.Slug)+"/", e.Modified)
	}
	return sendSitemap(c, w.done())
}

// parseSitemapChild reads "<kind>-<n>.xml": n a positive number written
// without leading zeros, so that each child has one address.
func parseSitemapChild(s string) (name string, n int, ok bool) {
	s, ok = strings.CutSuffix(s, ".xml")
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndexByte(s, '-')
	if i < 1 {
		return "", 0, false
	}
	name, num := s[:i], s[i+1:]
	if num == "" || num[0] == '0' || len(num) > 9 {
		return "", 0, false
	}
	for _, r := range num {
		if r < '0' || r > '9' {
			return "", 0, false
		}
	}
	n, err := strconv.Atoi(num)
	return name, n, err == nil
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// sitemapWriter writes a urlset: each URL in the site's default language,
// its pages in every language as alternates.
type sitemapWriter struct {
	b    bytes.Buffer
	base string // the base URL, escaped
	// prefix[i] is the path prefix of i18n.Codes[i] ("" in the site's
	// default language) and tag[i] its hreflang.
	prefix, tag []string
}

func (h *handler) newSitemapWriter() *sitemapWriter {
	w := &sitemapWriter{base: xmlText(h.d.Site.BaseURL)}
	for _, code := range i18n.Codes {
		p := "/" + code
		if code == h.d.SiteLang() {
			p = ""
		}
		w.prefix = append(w.prefix, p)
		w.tag = append(w.tag, i18n.Tag(code).String())
	}
	w.b.WriteString(xmlHeader + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` + "\n")
	return w
}

// grow makes room for n entries of a typical size.
func (w *sitemapWriter) grow(n int) {
	w.b.Grow(n * (len(w.prefix) + 1) * (len(w.base) + 80))
}

// url writes the entry of path (no language prefix, percent-encoded):
// its address in the site's default language (no prefix), lastmod when
// mod is set, and its address in every language.
func (w *sitemapWriter) url(path string, mod time.Time) {
	path = xmlText(path)
	b := &w.b
	b.WriteString("<url><loc>")
	b.WriteString(w.base)
	b.WriteString(path)
	b.WriteString("</loc>")
	if !mod.IsZero() {
		b.WriteString("<lastmod>")
		b.WriteString(mod.UTC().Format(time.RFC3339))
		b.WriteString("</lastmod>")
	}
	for i, p := range w.prefix {
		b.WriteString(`<xhtml:link rel="alternate" hreflang="`)
		b.WriteString(w.tag[i])
		b.WriteString(`" href="`)
		b.WriteString(w.base)
		b.WriteString(p)
		b.WriteString(path)
		b.WriteString(`"/>`)
	}
	b.WriteString("</url>\n")
}

func (w *sitemapWriter) done() []byte {
	w.b.WriteString("</urlset>\n")
	return w.b.Bytes()
}

// xmlEscaper escapes text for XML content and attribute values.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// xmlText is s escaped for XML (a percent-encoded path keeps & and ' as
// they are).
func xmlText(s string) string {
	if !strings.ContainsAny(s, `&<>"'`) {
		return s
	}
	return xmlEscaper.Replace(s)
}

// sendSitemap sends an XML sitemap or index.
func sendSitemap(c *fiber.Ctx, body []byte) error {
	c.Set(fiber.HeaderContentType, "application/xml; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.Send(body)
}

// robots is /robots.txt: the sitemap, and no crawling of the admin.
func (h *handler) robots(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.SendString("User-agent: *\nDisallow: /admin/\n\nSitemap: " + h.d.Site.BaseURL + "/sitemap.xml\n")
}
