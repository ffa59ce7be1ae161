package admin

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/admission"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web/ui"
)

// ErrorHandler returns the fiber error handler of non-API paths: an HTML
// page in the request's language with a status-specific sentence. Causes of
// server errors are logged and never shown.
func ErrorHandler(d *ui.Deps) fiber.ErrorHandler {
	h := &handler{d: d}
	return func(c *fiber.Ctx, err error) error {
		status, refusal, data := errorStatus(c, err)
		if status >= 500 && d.Logger != nil {
			d.Logger.Error("web: request failed", "method", c.Method(), "path", c.Path(), "err", err)
		}
		lang := h.pickLang(c)
		titleID, msgID := errorMessageIDs(status)
		message := d.I18n.T(lang, msgID, nil)
		if refusal != "" {
			message = d.I18n.T(lang, refusal, data)
		}
		c.Response().ResetBody()
		// Error pages are never cached: the next attempt may succeed.
		c.Set(fiber.HeaderCacheControl, "no-store")
		view := errorView{
			Layout:  h.layoutFor(c, titleID),
			Status:  status,
			Message: message,
			Back:    d.I18n.T(lang, "admin.error.back", nil),
		}
		if u := c.OriginalURL(); status == fiber.StatusServiceUnavailable && (c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead) &&
			safeRedirect(u) {
			// A page asked for again may be served once the server is less
			// busy (a form sent is not: going back keeps what was typed).
			view.Retry, view.RetryURL = d.I18n.T(lang, "admin.error.retry", nil), u
		}
		if status == fiber.StatusServiceUnavailable && len(c.Response().Header.Peek(fiber.HeaderRetryAfter)) == 0 {
			c.Set(fiber.HeaderRetryAfter, "2") // a failover's length (cmd/kalends/app.go)
		}
		rerr := render(c, status, errorPage(view))
		if rerr != nil {
			// The page itself failed: fall back to plain text without detail.
			c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
			return c.Status(status).SendString(fiber.ErrInternalServerError.Message)
		}
		return nil
	}
}

// errorStatus is the status of err and, when the user is told why, the
// message id of the refusal and its data.
func errorStatus(c *fiber.Ctx, err error) (status int, refusal string, data map[string]any) {
	status = fiber.StatusInternalServerError
	var fe *fiber.Error
	var forbidden *models.ForbiddenError
	var invalid *models.ValidationError
	var limited *models.RateLimitError
	switch {
	case errors.As(err, &fe):
		status = fe.Code
	case errors.As(err, &forbidden):
		// The API's refusal, in the user's language; a record the
		// user may not read is as absent as in the API (404).
		status, refusal, data = fiber.StatusForbidden, forbidden.MessageID(), forbidden.Data
		if forbidden.Reason == models.RefusalNotAccessible || forbidden.Reason == models.RefusalNoLongerAvailable {
			status, refusal = fiber.StatusNotFound, ""
		}
	case errors.Is(err, models.ErrNotFound):
		status = fiber.StatusNotFound
	case errors.As(err, &invalid) && len(invalid.Fields) > 0:
		status, refusal, data = fiber.StatusBadRequest, invalid.Fields[0].Reason, invalid.Fields[0].Data
	case errors.Is(err, admission.ErrBusy):
		status, refusal = fiber.StatusServiceUnavailable, "error.server_busy"
	case errors.Is(err, models.ErrUnavailable):
		// The database did not answer (a failover): the busy page, which
		// offers to try again (Retry-After is set by the app).
		status = fiber.StatusServiceUnavailable
	case errors.As(err, &limited):
		status, refusal = fiber.StatusTooManyRequests, limited.Reason
		c.Set(fiber.HeaderRetryAfter, limited.RetryAfterSeconds())
	}
	return status, refusal, data
}

// errorMessageIDs are the message ids of the error page's title and
// sentence for status.
func errorMessageIDs(status int) (titleID, msgID string) {
	titleID, msgID = "admin.error.title", "admin.error.generic"
	switch {
	case status == fiber.StatusForbidden:
		titleID, msgID = "admin.error.forbidden.title", "admin.error.forbidden"
	case status == fiber.StatusNotFound:
		titleID, msgID = "admin.error.not_found.title", "admin.error.not_found"
	case status == fiber.StatusMethodNotAllowed:
		msgID = "admin.error.method_not_allowed"
	case status == fiber.StatusRequestEntityTooLarge:
		msgID = "admin.error.too_large"
	case status == fiber.StatusUnsupportedMediaType:
		msgID = "admin.error.compressed"
	case status == fiber.StatusServiceUnavailable:
		titleID = "admin.error.busy.title"
	case status >= 500:
		msgID = "admin.error.internal"
	}
	return titleID, msgID
}
