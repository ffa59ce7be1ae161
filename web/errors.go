package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// ErrorHandler returns the fiber error handler of non-API paths: an HTML
// page in the request's language with a status-specific sentence. Causes of
// server errors are logged and never shown.
func ErrorHandler(d *Deps) fiber.ErrorHandler {
	h := &handler{d: d}
	return func(c *fiber.Ctx, err error) error {
		status := fiber.StatusInternalServerError
		var fe *fiber.Error
		// A refusal of the models reads as the API's message (SPEC §10); a
		// record that does not exist is a 404; an invalid query argument a
		// 400 with its reason.
		var refused *models.ForbiddenError
		var invalid *models.ValidationError
		msg := ""
		switch {
		case errors.As(err, &fe):
			status = fe.Code
		case errors.As(err, &refused):
			status, msg = fiber.StatusForbidden, refused.MessageID()
		case errors.Is(err, models.ErrNotFound):
			status = fiber.StatusNotFound
		case errors.As(err, &invalid) && len(invalid.Fields) > 0:
			status = fiber.StatusBadRequest
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
		message := d.I18n.T(lang, msgID, nil)
		switch {
		case msg != "":
			message = d.I18n.T(lang, msg, nil)
		case invalid != nil && status == fiber.StatusBadRequest:
			f := invalid.Fields[0]
			message = d.I18n.T(lang, f.Reason, f.Data)
		}
		c.Response().ResetBody()
		// Error pages are never cached: the next attempt may succeed.
		c.Set(fiber.HeaderCacheControl, "no-store")
		rerr := render(c, status, errorPage(errorView{
			Layout:  h.layoutFor(c, titleID),
			Status:  status,
			Message: message,
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
