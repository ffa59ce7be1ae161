package site

import (
	"context"
	"io/fs"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
)

// Embeds (issue 36): /embed/events, /embed/events/month and
// /embed/event/<slug>/, under every language prefix, are the public list,
// month and event in embedLayout, for the origins of --embed-origins to
// frame. They are read as an anonymous visitor (the session cookie is
// ignored), hold no form that posts, and are the only answers that may be
// framed: their CSP's frame-ancestors names those origins and they carry
// no X-Frame-Options; every other answer keeps frame-ancestors 'none' and
// X-Frame-Options: DENY. With no --embed-origins they, /embed.js and
// /oembed answer 404.

type embedKey struct{}

// embedded reports whether a page renders inside a frame (embedLayout).
func embedded(ctx context.Context) bool {
	b, _ := ctx.Value(embedKey{}).(bool)
	return b
}

// embedFrameJS is the script of an embedded page that tells the parent its
// height.
func embedFrameJS() string { return assets.URL("js/embed-frame.js") }

// registerEmbeds mounts the embeds, /embed.js and /oembed.
func (h *handler) registerEmbeds(app *fiber.App) {
	app.Get("/embed.js", h.embedScript)
	app.Get("/oembed", h.oembed)
	h.perLanguage(nil, func(pre string, with func(langHandler) fiber.Handler) {
		app.Get(pre+"/embed/events", h.embed(with(h.publicEvents), ""))
		app.Get(pre+"/embed/events/month", h.embed(with(h.publicEvents), "month"))
		app.Get(pre+"/embed/event/:slug", h.embed(with(h.publicEvent), ""))
	})
}

// embed wraps a public page's handler (already behind the response cache)
// as an embed: 404 without --embed-origins, the view set, the page
// rendered in embedLayout, and the framing headers set on every answer,
// a cache hit too.
func (h *handler) embed(next fiber.Handler, view string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if len(h.d.EmbedOrigins) == 0 {
			return fiber.ErrNotFound
		}
		if view != "" {
			c.Request().URI().QueryArgs().Set("view", view)
		}
		c.SetUserContext(context.WithValue(c.UserContext(), embedKey{}, true))
		err := next(c)
		if c.Response().StatusCode() < fiber.StatusMultipleChoices || c.Response().StatusCode() == fiber.StatusNotModified {
			h.embedHeaders(c)
		}
		return err
	}
}

// embedHeaders are the framing headers of an embed: the page CSP with
// frame-ancestors set to --embed-origins, and no X-Frame-Options.
func (h *handler) embedHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentSecurityPolicy, EmbedCSP(h.d.EmbedOrigins))
	c.Response().Header.Del(fiber.HeaderXFrameOptions)
	c.Set(fiber.HeaderReferrerPolicy, "strict-origin-when-cross-origin")
}

// EmbedCSP is the Content-Security-Policy of an embed framed by origins:
// the public pages' (external https images shown) but for frame-ancestors.
func EmbedCSP(origins []string) string {
	return strings.Replace(publicCSP, "frame-ancestors 'none'", "frame-ancestors "+strings.Join(origins, " "), 1)
}

// embedScript serves assets/js/embed.js at /embed.js, the address other
// sites include (it cannot carry our hash), to be revalidated.
func (h *handler) embedScript(c *fiber.Ctx) error {
	if len(h.d.EmbedOrigins) == 0 {
		return fiber.ErrNotFound
	}
	b, err := fs.ReadFile(assets.FS, "js/embed.js")
	if err != nil {
		return err
	}
	etag := `"` + assets.Hash("js/embed.js") + `"`
	c.Set(fiber.HeaderETag, etag)
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	if c.Get(fiber.HeaderIfNoneMatch) == etag {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	return c.Send(b)
}
