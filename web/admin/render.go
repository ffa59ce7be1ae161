package admin

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/web/ui"
)

// initial is the first letter of a name, for the user menu's avatar.
func initial(name string) string {
	for _, r := range strings.TrimSpace(name) {
		return strings.ToUpper(string(r))
	}
	return "?"
}

// statusText is an HTTP status as digits.
func statusText(status int) string { return strconv.Itoa(status) }

// render writes a templ component as the HTML response. On a render error
// the partial body is discarded so the error page is not appended to half a
// page.
func render(c *fiber.Ctx, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.UserContext(), &buf); err != nil {
		c.Response().ResetBody()
		return err
	}
	ui.PageHeaders(c)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Status(status).Send(buf.Bytes())
}
