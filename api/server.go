package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/kalends/kalends/i18n"
)

// Server settings the API relies on; main builds the fiber app with them.
const (
	// BodyLimit is the largest request body the server reads (SPEC §11).
	BodyLimit = 1 << 20
	// DrainLimit is how much of a body over BodyLimit the server still
	// reads before answering 413, so clients that send the whole body
	// before reading (curl, net/http, urllib) get the answer instead of a
	// reset connection. Larger bodies are refused on their announced length.
	DrainLimit = 4 << 20
	// ReadBufferSize must hold the request line and headers, else fasthttp
	// answers a plain-text 431 before routing: fasthttp's 4 KiB does not
	// hold a list argument at its 1,000-item limit (include=…).
	ReadBufferSize = 16 << 10
)

// Mount mounts the API on app: /cal/events/v1/… and /{lang}/cal/events/v1/…,
// every route from the route table (Routes). The app's error handler must
// send the errors of API paths (Owns) to ErrorHandler.
func Mount(app *fiber.App, d *Deps) { mount(app, d, Routes()) }

// Owns reports whether path belongs to the API (with or without a language
// prefix).
func Owns(path string) bool {
	_, _, ok := splitAPIPath(path)
	return ok
}

// ErrorHandler renders an error of an API request in the WordPress JSON
// shape, in the request's language, logging server faults.
func ErrorHandler(d *Deps) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error { return writeAPIError(c, d, err) }
}

// RejectUnknownMethods answers requests with a method fiber does not know
// (fiber would send a plain-text 400 before any handler runs): on API paths
// they are 404 rest_no_route like any other method a route lacks. Call it
// once every surface is mounted.
func RejectUnknownMethods(app *fiber.App, d *Deps) {
	srv := app.Server()
	next := srv.Handler
	known := map[string]bool{}
	for _, m := range app.Config().RequestMethods {
		known[m] = true
	}
	srv.Handler = func(fctx *fasthttp.RequestCtx) {
		if known[string(fctx.Method())] {
			next(fctx)
			return
		}
		c := app.AcquireCtx(fctx)
		defer app.ReleaseCtx(c)
		if Owns(c.Path()) {
			_ = writeAPIError(c, d, ErrNoRoute())
			return
		}
		next(fctx)
	}
}

// splitAPIPath splits an API path into its language prefix ("/ja" or "")
// and the part after the namespace ("/events/7", "" or "/"); ok is false
// for paths outside the API.
func splitAPIPath(p string) (prefix, rest string, ok bool) {
	lp := strings.ToLower(p)
	ns := "/" + Namespace
	try := func(pre string) bool {
		if !strings.HasPrefix(lp, pre+ns) {
			return false
		}
		after := lp[len(pre)+len(ns):]
		if after != "" && after[0] != '/' {
			return false
		}
		prefix, rest = pre, p[len(pre)+len(ns):]
		return true
	}
	if try("") {
		return "", rest, true
	}
	for _, code := range i18n.Codes {
		if try("/" + code) {
			return prefix, rest, true
		}
	}
	return "", "", false
}
