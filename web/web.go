// Package web mounts the browser pages: the admin (web/admin, under
// /admin/), the public site (web/site: pages, feeds, sitemap, robots.txt),
// the embedded static files under /assets/ and the media library's files.
// What the admin and the site share lives in web/ui. They call models and
// never bun directly; texts come from the i18n bundle.
package web

import (
	"io/fs"
	"mime"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/web/admin"
	"github.com/kalends/kalends/web/site"
	"github.com/kalends/kalends/web/ui"
)

// Deps holds what the browser pages need (the admin's and the public
// site's); one value is built in main.
type Deps = ui.Deps

// handler holds the dependencies of the assets and media files handlers.
type handler struct{ d *Deps }

// Mount mounts the assets, the media files, the public site and the admin
// on app, in the order Fiber must match them (each package's routes.go
// lists its routes). The app's error handler must send the errors of admin
// paths to ErrorHandler.
func Mount(app *fiber.App, d *Deps) {
	h := &handler{d: d}
	app.Get("/assets/*", h.asset)
	h.registerMedia(app)
	site.Register(app, d)
	admin.Register(app, d)
}

// ErrorHandler returns the fiber error handler of non-API paths: an HTML
// page in the request's language with a status-specific sentence.
func ErrorHandler(d *Deps) fiber.ErrorHandler { return admin.ErrorHandler(d) }

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
