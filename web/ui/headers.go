package ui

import "github.com/gofiber/fiber/v2"

// ContentSecurityPolicy is sent with every HTML page. Scripts and styles
// come only from our own origin (the embedded assets): no inline script,
// no inline style, no eval. htmx is configured not to inject its indicator
// <style> (includeIndicatorStyles: false; admin.css has those rules) and
// not to evaluate scripts (allowEval, allowScriptTags: false). Frames of
// the admin by other sites are refused (frame-ancestors, with
// X-Frame-Options: DENY set for every response in cmd), forms post only
// here, and no <base> can redirect relative URLs.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// PageHeaders sets the headers of an HTML page: the CSP, the framing,
// referrer and sniffing rules (also set for every response by cmd, repeated
// here so the admin does not depend on the assembly), and no caching of
// pages that show a user's data.
func PageHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentSecurityPolicy, ContentSecurityPolicy)
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderReferrerPolicy, "same-origin")
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "no-store")
}
