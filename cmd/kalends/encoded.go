package main

import (
	"bytes"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// refuseEncodedBodies answers 415 to a request whose Content-Encoding is
// anything but identity, before anything reads its body (SPEC §11). The
// body limit counts the bytes as sent, so a compressed body would be
// inflated past it by whoever decodes it: Fiber's Ctx.Body inflates gzip,
// deflate and br (nested too) without a cap, and fasthttp inflates a gzip
// multipart body before parsing it. So this is the first middleware: no
// handler, Fiber helper or multipart parser may see such a body. The
// answer carries Accept-Encoding: identity (RFC 7694) and is rendered by
// the surface that owns the path (the API's JSON error, else the error
// page), in the language the URL names (the body is never read for it).
func refuseEncodedBodies(l *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !encodedBody(c) {
			return c.Next()
		}
		start := time.Now()
		setSecurityHeaders(c)
		if err := c.App().ErrorHandler(c, fiber.ErrUnsupportedMediaType); err != nil {
			_ = c.SendStatus(fiber.StatusUnsupportedMediaType)
		}
		c.Set(fiber.HeaderAcceptEncoding, "identity")
		setCaching(c)
		l.Info("http request",
			"method", c.Method(),
			"path", c.Path(),
			"status", c.Response().StatusCode(),
			"duration", time.Since(start),
			"refused", "content-encoding")
		return nil
	}
}

// encodedBody reports whether any Content-Encoding header of the request
// names a coding other than identity. Every header line counts (Fiber
// decodes by the last one), and every item of a list ("gzip, gzip").
func encodedBody(c *fiber.Ctx) bool {
	encoded := false
	c.Request().Header.VisitAll(func(key, value []byte) {
		if encoded || !bytes.EqualFold(key, []byte(fiber.HeaderContentEncoding)) {
			return
		}
		for _, coding := range strings.Split(string(value), ",") {
			coding = strings.TrimSpace(coding)
			if coding != "" && !strings.EqualFold(coding, "identity") {
				encoded = true
				return
			}
		}
	})
	return encoded
}
