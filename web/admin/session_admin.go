package admin

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/web/ui"
)

// requireUser sends signed-out requests for any admin page but the sign-in
// page to the sign-in page, with the page asked for as redirect_to (for
// GET; after a form post there is no page to come back to). htmx requests
// are told with HX-Redirect, which makes the browser load the page.
func (h *handler) requireUser(c *fiber.Ctx) error {
	if ui.UserOf(c) != nil || c.Path() == loginPath || c.Path() == languagePath {
		return c.Next()
	}
	target := loginPath
	if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
		if back := c.OriginalURL(); safeRedirect(back) {
			target += "?redirect_to=" + url.QueryEscape(back)
		}
	}
	if c.Get("HX-Request") == "true" {
		c.Set("HX-Redirect", target)
		return c.SendStatus(fiber.StatusUnauthorized)
	}
	return c.Redirect(target, fiber.StatusSeeOther)
}
