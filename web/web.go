// Package web is the browser admin (templ pages under /admin/), the public
// pages (/events/, /event/<slug>/, …) and the embedded static files under
// /assets/. It calls models and never bun
// directly; texts come from the i18n bundle.
package web

import (
	"bytes"
	"io/fs"
	"log/slog"
	"mime"
	"path"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/admission"
	"github.com/kalends/kalends/internal/respcache"
	"github.com/kalends/kalends/models"
)

// Deps holds what the admin needs. One value is built in main.
type Deps struct {
	DB     *models.DB
	I18n   *i18n.Bundle
	Logger *slog.Logger
	// Site holds the settings shared with the store and the API (its
	// default language is used when nothing in the request picks one).
	Site    *models.Site
	APIPath string // path of the API index, e.g. "/cal/events/v1/"
	// Cache, when set, is the response cache shared with the API: public
	// pages and feeds are answered from it for anonymous readers.
	Cache *respcache.Cache
	// Gate, when set, bounds the requests worked on at once (shared with
	// the API); the admin and the public pages' cache misses go through it.
	Gate *admission.Gate
}

// initial is the first letter of a name, for the user menu's avatar.
func initial(name string) string {
	for _, r := range strings.TrimSpace(name) {
		return strings.ToUpper(string(r))
	}
	return "?"
}

// statusText is an HTTP status as digits.
func statusText(status int) string { return strconv.Itoa(status) }

// handler holds the dependencies of the admin handlers.
type handler struct{ d *Deps }

// Mount mounts the assets, the feeds, the media files, the public pages and
// the admin on app, in the order Fiber must match them (routes.go lists
// every admin route). The app's error handler must send the errors of admin
// paths to ErrorHandler.
func Mount(app *fiber.App, d *Deps) {
	h := &handler{d: d}
	app.Get("/assets/*", h.asset)
	h.registerFeeds(app)
	h.registerMedia(app)
	h.registerPublic(app)
	h.registerAdmin(app)
}

// render writes a templ component as the HTML response. On a render error
// the partial body is discarded so the error page is not appended to half a
// page.
func render(c *fiber.Ctx, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.UserContext(), &buf); err != nil {
		c.Response().ResetBody()
		return err
	}
	pageHeaders(c)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Status(status).Send(buf.Bytes())
}

// asset serves an embedded file. With the current content hash in its name
// (assets.URL) or in ?v= the file may be cached for a year; without it (or
// with a stale hash) caches must revalidate, so an old URL never pins an
// old file.
func (h *handler) asset(c *fiber.Ctx) error {
	name, inName := assets.Unhash(strings.TrimPrefix(path.Clean("/"+c.Params("*")), "/"))
	b, err := fs.ReadFile(assets.FS, name)
	if err != nil || name == "" {
		return fiber.ErrNotFound
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = fiber.MIMEOctetStream
	}
	hash := assets.Hash(name)
	if inName == hash || c.Query("v") == hash {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "no-cache")
	}
	etag := `"` + hash + `"`
	c.Set(fiber.HeaderETag, etag)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	if c.Get(fiber.HeaderIfNoneMatch) == etag {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, ct)
	return c.Send(b)
}
