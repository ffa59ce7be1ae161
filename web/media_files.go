package web

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// registerMedia serves the images of the media library at
// /media/{id}/{size}.{ext}. A name never changes for the same bytes (an
// image is never replaced, only deleted), so the answer may be cached for a
// year; the type is the stored one and browsers must not guess another.
func (h *handler) registerMedia(app *fiber.App) {
	app.Get("/media/:id/:file", h.mediaFile)
}

func (h *handler) mediaFile(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	size, ext, ok := strings.Cut(c.Params("file"), ".")
	if err != nil || id <= 0 || !ok {
		return fiber.ErrNotFound
	}
	m, f, data, err := h.d.DB.MediaFileData(c.UserContext(), id, size)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return fiber.ErrNotFound
	case err != nil:
		return err
	case ext != m.Ext:
		return fiber.ErrNotFound
	}
	c.Set(fiber.HeaderContentType, m.Mime)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	c.Set(fiber.HeaderETag, f.ETag)
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; sandbox; frame-ancestors 'none'")
	if match := c.Get(fiber.HeaderIfNoneMatch); match != "" && strings.Contains(match, f.ETag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	return c.Send(data)
}
