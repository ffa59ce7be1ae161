package site

import (
	"context"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/web/ui"
)

// The site's identity on the public pages (issue 36): its name, tagline,
// logo and links in the header and footer, its accents and custom CSS in
// the generated stylesheet, served at a URL carrying a hash of its content.

// withIdentity fills the identity of a page at path in lang. frame has no
// request context to pass; the identity is in memory, and a read of the
// database it may need is short.
func (h *handler) withIdentity(v *publicView, lang, path string) {
	si := h.d.Identity(context.Background())
	v.SiteName = si.Name(lang, h.d.SiteLang(), v.T("public.site_name"))
	v.Tagline = si.Settings.Tagline(lang, h.d.SiteLang())
	v.Logo, v.LogoWidth, v.LogoHeight = si.Logo, si.LogoWidth, si.LogoHeight
	v.ThemeURL = si.StylesheetPath()
	for _, l := range si.Settings.Links {
		label := l.Label
		if label == "" {
			label = l.URL
		}
		v.SiteLinks = append(v.SiteLinks, link{Label: label, Href: l.URL})
	}
	if len(h.d.EmbedOrigins) > 0 && strings.HasPrefix(path, "/event/") {
		v.OEmbed = h.d.Site.BaseURL + "/oembed?format=json&url=" + url.QueryEscape(v.Canonical)
	}
}

// themeStylesheet serves the generated stylesheet. With the current hash
// in its name it may be cached for good; an old name gets the current
// content, to be revalidated, so a page cached elsewhere never shows an
// unstyled site.
func (h *handler) themeStylesheet(c *fiber.Ctx) error {
	si := h.d.Identity(c.UserContext())
	if len(si.Stylesheet) == 0 {
		return fiber.ErrNotFound
	}
	name := strings.TrimSuffix(c.Params("hash"), ".css")
	if name == si.StylesheetHash {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "no-cache")
	}
	etag := `"` + si.StylesheetHash + `"`
	c.Set(fiber.HeaderETag, etag)
	if c.Get(fiber.HeaderIfNoneMatch) == etag {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, "text/css; charset=utf-8")
	return c.Send(si.Stylesheet)
}

// defaultView is the path the site opens on ("/" redirects there): the
// list, or the view the settings name.
func (h *handler) defaultView(c *fiber.Ctx, lang string) string {
	if v := h.d.Identity(c.UserContext()).Settings.DefaultView; v != "" && v != "list" {
		return h.d.PagePath(lang, "/events/") + "?view=" + url.QueryEscape(v)
	}
	return h.d.PagePath(lang, "/events/")
}

// stylesheetPath is the route of the generated stylesheet.
const stylesheetPath = ui.StylesheetPrefix + ":hash"
