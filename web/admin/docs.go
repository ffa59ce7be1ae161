package admin

import (
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"

	"github.com/kalends/kalends/web/ui"
)

// docsCSP is the page's Content-Security-Policy: the admin's, with inline
// style attributes allowed (Swagger UI's React components set them);
// scripts stay limited to our own files.
const docsCSP = ui.ContentSecurityPolicy + "; style-src-attr 'unsafe-inline'"

func (h *handler) docs(c *fiber.Ctx) error {
	lay := h.layoutFor(c, "admin.docs.title")
	lay.ExtraCSS = []string{assets.URL("vendor/swagger-ui/swagger-ui.css")}
	lay.ExtraJS = []string{assets.URL("vendor/swagger-ui/swagger-ui-bundle.js"), assets.URL("js/docs.js")}
	spec := h.d.APIPath + "doc?ml_language=" + lay.Lang
	if err := render(c, fiber.StatusOK, docsPage(docsView{Layout: lay, SpecURL: spec, RawURL: spec})); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentSecurityPolicy, docsCSP)
	return nil
}
