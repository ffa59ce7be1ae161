package api

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/kalends/kalends/internal/respcache"
)

// ResponseCache is the response cache the API shares with the public
// pages (internal/respcache).
type ResponseCache = respcache.Cache

// NewResponseCache returns a cache of at most maxBytes (nil when 0).
var NewResponseCache = respcache.New

// setETag sets a strong ETag (a hash of the body) on a 200 answer.
func setETag(c *fiber.Ctx) string { return respcache.SetETag(c) }

// withETag gives every successful GET an ETag and answers 304 Not
// Modified, without a body, when If-None-Match names it.
func withETag(next fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := next(c); err != nil {
			return err
		}
		if c.Method() != fiber.MethodGet || c.Response().StatusCode() != http.StatusOK {
			return nil
		}
		tag := setETag(c)
		if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && etagMatches(inm, tag) {
			c.Status(http.StatusNotModified)
			c.Response().ResetBody()
		}
		return nil
	}
}

// etagMatches reports whether an If-None-Match list names tag (weak
// comparison, as RFC 9110 asks for If-None-Match).
func etagMatches(list, tag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}

// withIfMatch refuses a change (PUT, PATCH, POST, DELETE) whose If-Match
// header does not name the current ETag of the record, as a GET of the same
// URL by the same caller would give it: 412 rest_precondition_failed, so
// a client never overwrites an edit it has not seen. get serves the GET.
// The check and the change are two steps: a change made between them by
// someone else is not caught (a narrow window, documented in /doc).
func withIfMatch(app *fiber.App, get, next fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		want := c.Get(fiber.HeaderIfMatch)
		switch m := c.Method(); {
		case want == "", m != fiber.MethodPut && m != fiber.MethodPatch && m != fiber.MethodPost && m != fiber.MethodDelete:
			return next(c)
		}
		var fctx fasthttp.RequestCtx
		c.Request().Header.CopyTo(&fctx.Request.Header)
		fctx.Request.SetRequestURI(string(c.Request().RequestURI()))
		fctx.Request.Header.SetMethod(fiber.MethodGet)
		fctx.Request.Header.Del(fiber.HeaderIfMatch)
		fctx.Request.Header.Del(fiber.HeaderContentType)
		fctx.Request.Header.SetContentLength(0)
		gc := app.AcquireCtx(&fctx)
		defer app.ReleaseCtx(gc)
		gc.SetUserContext(c.UserContext())
		if err := get(gc); err != nil || gc.Response().StatusCode() != http.StatusOK {
			return next(c) // no current representation: the change answers for itself (404, 401…)
		}
		if !strongMatch(want, setETag(gc)) {
			return NewError(http.StatusPreconditionFailed, "rest_precondition_failed", "error.rest_precondition_failed")
		}
		return next(c)
	}
}

// strongMatch reports whether an If-Match list names tag by strong
// comparison (RFC 9110: a weak tag never matches; * matches any current
// representation).
func strongMatch(list, tag string) bool {
	for _, t := range strings.Split(list, ",") {
		if t = strings.TrimSpace(t); t == "*" || t == tag {
			return true
		}
	}
	return false
}
