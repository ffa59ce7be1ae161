package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"
)

// ErrorHandler returns the fiber error handler of non-API paths: an HTML
// page in the request's language with a status-specific sentence. Causes of
// server errors are logged and never shown.
func ErrorHandler(d *Deps) fiber.ErrorHandler {
	h := &handler{d: d}
	return func(c *fiber.Ctx, err error) error {
		status := fiber.StatusInternalServerError
		var fe *fiber.Error
		if errors.As(err, &fe) {
			status = fe.Code
		}
		if status >= 500 && d.Logger != nil {
			d.Logger.Error("web: request failed", "method", c.Method(), "path", c.Path(), "err", err)
		}
		lang := h.pickLang(c)
		titleID, msgID := "admin.error.title", "admin.error.generic"
		switch {
		case status == fiber.StatusForbidden:
			titleID, msgID = "admin.error.forbidden.title", "admin.error.forbidden"
		case status == fiber.StatusNotFound:
			titleID, msgID = "admin.error.not_found.title", "admin.error.not_found"
		case status == fiber.StatusMethodNotAllowed:
			msgID = "admin.error.method_not_allowed"
		case status == fiber.StatusRequestEntityTooLarge:
			msgID = "admin.error.too_large"
		case status >= 500:
			msgID = "admin.error.internal"
		}
		c.Response().ResetBody()
		// Error pages are never cached: the next attempt may succeed.
		c.Set(fiber.HeaderCacheControl, "no-store")
		rerr := render(c, status, errorPage(errorView{
			Layout:  h.layoutFor(c, titleID),
			Status:  status,
			Message: d.I18n.T(lang, msgID, nil),
			Back:    d.I18n.T(lang, "admin.error.back", nil),
		}))
		if rerr != nil {
			// The page itself failed: fall back to plain text without detail.
			c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
			return c.Status(status).SendString(fiber.ErrInternalServerError.Message)
		}
		return nil
	}
}
