package main

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// credentialHeaders are what a request may carry to say who sends it: its
// answer then depends on them, so every cacheable anonymous answer names
// them in Vary.
var credentialHeaders = []string{fiber.HeaderAuthorization, fiber.HeaderCookie, "X-WP-Nonce"}

// cachingHeaders sets, once every surface has answered, what caches may
// keep (issue 28). An answer to a request that carries credentials (an
// Authorization header, the session cookie, valid or not, or an
// X-WP-Nonce) may hold drafts and private records: it is "private,
// no-store", on the API, the admin, the public pages and the feeds alike.
// A cacheable anonymous answer keeps its caching and names the credential
// headers in Vary, so a shared cache never hands one reader's answer to
// another. Static assets and media files are the same bytes for everyone
// and keep their long caching whoever asks (the session cookie's path is
// "/", so a signed-in browser sends it with every image).
func cachingHeaders(c *fiber.Ctx) error {
	err := c.Next()
	setCaching(c)
	return err
}

// setCaching sets the caching headers of cachingHeaders on the answer
// made.
func setCaching(c *fiber.Ctx) {
	if !publicFile(c.Path()) && carriesCredentials(c) {
		c.Set(fiber.HeaderCacheControl, "private, no-store")
		return
	}
	if m := c.Method(); m != fiber.MethodGet && m != fiber.MethodHead {
		return
	}
	cc := strings.ToLower(string(c.Response().Header.Peek(fiber.HeaderCacheControl)))
	if !strings.Contains(cc, "no-store") && !strings.Contains(cc, "private") {
		c.Vary(credentialHeaders...)
	}
}

// carriesCredentials reports whether a request says who sends it.
func carriesCredentials(c *fiber.Ctx) bool {
	return len(c.Request().Header.Peek(fiber.HeaderAuthorization)) > 0 ||
		len(c.Request().Header.Peek("X-WP-Nonce")) > 0 ||
		len(c.Request().Header.Cookie(models.SessionCookie)) > 0
}

// publicFile reports whether path names an embedded asset or a media
// file: bytes that do not depend on who asks.
func publicFile(path string) bool {
	return strings.HasPrefix(path, "/assets/") || strings.HasPrefix(path, "/media/")
}
