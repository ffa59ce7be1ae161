package site

import (
	"html"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// oEmbed (https://oembed.com): /oembed?url=…&format=json answers the
// "rich" type for a page of this site (--base-url's scheme, host and
// port) that is an event or a view of events: its html is one <iframe> of
// the page's embed, with no script. It fetches nothing: the url is only
// parsed. Another site's url, or one of ours that is neither, is 404;
// another format is 501.

// Sizes of the frame when the consumer sets no bounds.
const (
	oembedWidth       = 600
	oembedListHeight  = 800
	oembedEventHeight = 500
)

type oembedAnswer struct {
	Version      string `json:"version"`
	Type         string `json:"type"`
	Title        string `json:"title"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	HTML         string `json:"html"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	CacheAge     int    `json:"cache_age"`
}

func (h *handler) oembed(c *fiber.Ctx) error {
	if len(h.d.EmbedOrigins) == 0 {
		return fiber.ErrNotFound
	}
	if f := c.Query("format", "json"); f != "json" {
		return fiber.ErrNotImplemented
	}
	lang, rest, ok := h.ownPage(c.Query("url"))
	if !ok {
		return fiber.ErrNotFound
	}
	width, height := oembedWidth, oembedListHeight
	var title, src string
	switch {
	case rest.Path == "/events/" || rest.Path == "/events" || rest.Path == "/":
		q := rest.Query()
		view := "/embed/events/"
		if q.Get("view") == "month" {
			view = "/embed/events/month/"
		}
		q.Del("view")
		src = h.d.PageURL(lang, view)
		if enc := q.Encode(); enc != "" {
			src += "?" + enc
		}
		title = h.d.I18n.T(lang, "public.events.title", nil)
	case strings.HasPrefix(rest.Path, "/event/"):
		slug, ok := models.DecodeSlug(strings.Trim(strings.TrimPrefix(rest.EscapedPath(), "/event/"), "/"))
		if !ok {
			return fiber.ErrNotFound
		}
		e, err := h.d.DB.GetEvent(c.UserContext(), nil, models.BySlug(slug), lang)
		if err != nil || e.Status != models.StatusPublish {
			if err == nil || hidden(err) {
				return fiber.ErrNotFound
			}
			return err
		}
		title, height = e.Title, oembedEventHeight
		src = h.d.PageURL(lang, "/embed/event/"+url.PathEscape(e.Slug)+"/")
	default:
		return fiber.ErrNotFound
	}
	width = bound(c, "maxwidth", width)
	height = bound(c, "maxheight", height)
	name := h.d.SiteName(c.UserContext(), lang)
	frame := `<iframe src="` + html.EscapeString(src) + `" width="` + strconv.Itoa(width) + `" height="` + strconv.Itoa(height) +
		`" title="` + html.EscapeString(title+" · "+name) + `" loading="lazy" referrerpolicy="strict-origin-when-cross-origin" frameborder="0"></iframe>`
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.JSON(oembedAnswer{Version: "1.0", Type: "rich", Title: title, ProviderName: name,
		ProviderURL: h.d.Site.BaseURL + "/", HTML: frame, Width: width, Height: height, CacheAge: 3600})
}

// bound is the smaller of def and the positive integer argument name.
func bound(c *fiber.Ctx, name string, def int) int {
	if n, err := strconv.Atoi(c.Query(name)); err == nil && n > 0 && n < def {
		return n
	}
	return def
}

// ownPage reads raw as an address of this site: its language (the prefix,
// or the default language) and the rest of it without the prefix; false
// when another scheme, host or port, or not an absolute URL.
func (h *handler) ownPage(raw string) (lang string, rest *url.URL, ok bool) {
	u, err := url.Parse(raw)
	base, err2 := url.Parse(h.d.Site.BaseURL)
	if err != nil || err2 != nil || !u.IsAbs() || u.User != nil ||
		!strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(hostPort(u), hostPort(base)) {
		return "", nil, false
	}
	p := strings.TrimPrefix(u.Path, strings.TrimSuffix(base.Path, "/"))
	lang = h.d.SiteLang()
	for _, code := range i18n.Codes {
		if p == "/"+code || strings.HasPrefix(p, "/"+code+"/") {
			lang, p = code, strings.TrimPrefix(p, "/"+code)
			break
		}
	}
	if p == "" {
		p = "/"
	}
	rest = &url.URL{Path: p, RawQuery: u.RawQuery}
	return lang, rest, true
}

// hostPort is u's host with its port, the scheme's default when none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}
