package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/kalends/kalends/models"
)

// BodyLimit is the largest request body the server reads (SPEC §11).
const BodyLimit = 1 << 20

// ServerOptions lets main plug the web admin into the app NewServer builds.
type ServerOptions struct {
	// WebErrorHandler renders errors of non-API paths (HTML pages); nil
	// answers them in plain text with the status text only.
	WebErrorHandler fiber.ErrorHandler
	// Middleware runs for every request after request id, access log and
	// panic recovery, before the API and /healthz.
	Middleware []fiber.Handler
	// SessionUser, when set, identifies API callers that send no
	// Authorization header: the admin's own JavaScript signs in with its
	// session cookie plus the X-WP-Nonce header (SPEC §7). It returns nil
	// for an anonymous caller (a cookie without a valid nonce counts as
	// anonymous, as in WordPress); an error is answered like any other.
	SessionUser func(c *fiber.Ctx) (*models.User, error)
}

// NewServer builds the fiber app with the API, /healthz, the shared
// middleware and the error handler. Main mounts the web admin on the
// returned app.
func NewServer(d *Deps, o ServerOptions) *fiber.App {
	return newServerWithRoutes(d, o, Routes())
}

// newServerWithRoutes is NewServer with a given route table (tests use
// synthetic tables).
func newServerWithRoutes(d *Deps, o ServerOptions, routes []Route) *fiber.App {
	app := fiber.New(fiber.Config{
		BodyLimit: BodyLimit,
		// Fiber reuses request buffers; Immutable copies every string it
		// hands out so nothing kept after a handler can change under us.
		Immutable:             true,
		ErrorHandler:          errorHandler(d, o),
		DisableStartupMessage: true,
		// Parse multipart bodies in the pipeline (where a broken one just
		// carries no parameters), not while reading the request, where
		// fasthttp would fail the whole connection.
		DisablePreParseMultipartForm: true,
		// The request line and headers must fit this buffer, else fasthttp
		// answers a plain-text 431 before routing. fasthttp's 4 KiB does not
		// hold a list argument at its 1,000-item limit (include=…).
		ReadBufferSize: 16 << 10,
	})
	app.Use(RequestID(), AccessLog(d.Logger), Recover(d.Logger))
	for _, m := range o.Middleware {
		app.Use(m)
	}
	app.Get("/healthz", healthz(d))
	registerWith(app, d, routes, o.SessionUser)
	catchUnknownMethods(app, d)
	return app
}

// catchUnknownMethods answers requests with a method fiber does not know
// (fiber would send a plain-text 400 before any handler runs): on API paths
// they are 404 rest_no_route like any other method a route lacks.
func catchUnknownMethods(app *fiber.App, d *Deps) {
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
		if _, _, ok := splitAPIPath(c.Path()); ok {
			_ = writeAPIError(c, d, ErrNoRoute())
			return
		}
		next(fctx)
	}
}

// healthz answers 200 when the database answers within 2 seconds.
func healthz(d *Deps) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		c.Set(fiber.HeaderContentType, contentTypeJSON)
		c.Set(fiber.HeaderCacheControl, "no-store")
		if d.DB == nil || d.DB.Ping(ctx) != nil {
			return c.Status(http.StatusServiceUnavailable).SendString(`{"status":"unavailable"}`)
		}
		return c.SendString(`{"status":"ok"}`)
	}
}

// errorHandler renders every error that reaches fiber: API paths get the
// WordPress JSON shape, other paths go to the web handler or get a plain
// status text (never err.Error(), which may hold internals).
func errorHandler(d *Deps, o ServerOptions) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		if _, _, ok := splitAPIPath(c.Path()); ok {
			return writeAPIError(c, d, err)
		}
		// A request fasthttp could not parse (a request line over the read
		// buffer, a negative Content-Length) has no path to go by: answer in
		// the documented JSON shape, which API clients can read, rather than
		// with the admin's HTML page.
		if len(c.Request().Header.RawHeaders()) == 0 {
			return writeAPIError(c, d, err)
		}
		if o.WebErrorHandler != nil {
			return o.WebErrorHandler(c, err)
		}
		status := http.StatusInternalServerError
		var fe *fiber.Error
		var ae *Error
		switch {
		case errors.As(err, &ae):
			status = ae.Status
		case errors.As(err, &fe):
			status = fe.Code
		}
		if status >= 500 {
			logger(d).Error("http: internal error", "err", err, "path", c.Path(), "request_id", RequestIDOf(c))
		}
		c.Response().ResetBody()
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		return c.Status(status).SendString(http.StatusText(status))
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
	for _, code := range languageCodes {
		if try("/" + code) {
			return prefix, rest, true
		}
	}
	return "", "", false
}
