package api

import (
	"bytes"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// Responses: the headers every API answer carries, CORS, JSON bodies and
// the WordPress error shape.

// applyCORS follows SPEC §2: reads (GET, HEAD, OPTIONS) answer any origin
// without credentials; origins listed in Config.CORSOrigins get their
// origin echoed with credentials, which writes need.
func applyCORS(c *fiber.Ctx, d *Deps) {
	origin := c.Get(fiber.HeaderOrigin)
	if origin == "" {
		return
	}
	c.Vary(fiber.HeaderOrigin)
	if listedOrigin(d, origin) {
		c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
		c.Set(fiber.HeaderAccessControlAllowCredentials, "true")
		return
	}
	m := strings.ToUpper(c.Method())
	if m == fiber.MethodOptions {
		if rm := c.Get(fiber.HeaderAccessControlRequestMethod); rm != "" {
			m = strings.ToUpper(rm)
		}
	}
	switch m {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	}
}

func listedOrigin(d *Deps, origin string) bool {
	for _, o := range d.CORSOrigins {
		if o != "" && strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// setAPIHeaders sets the headers every API response carries (SPEC §2).
func setAPIHeaders(c *fiber.Ctx, lang string) {
	c.Set(fiber.HeaderContentType, contentTypeJSON)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set("X-Robots-Tag", "noindex")
	c.Set(fiber.HeaderContentLanguage, lang)
	c.Set(fiber.HeaderAccessControlExposeHeaders, exposeHeaders)
	c.Set(fiber.HeaderAccessControlAllowHeaders, allowHeaders)
}

// sendJSON writes v as the JSON response body (no HTML escaping) with
// status. Handlers answer with it.
func sendJSON(c *fiber.Ctx, status int, v any) error {
	b := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= maxPooledJSON {
			b.Reset()
			jsonBuffers.Put(b)
		}
	}()
	if err := appendJSON(b, v); err != nil {
		return ErrInternal(err)
	}
	c.Set(fiber.HeaderContentType, contentTypeJSON)
	// SetBody copies into the response's own pooled buffer, so b goes
	// back to the pool at once.
	c.Status(status).Response().SetBody(b.Bytes())
	return nil
}

// jsonBuffers keep the buffers bodies are encoded into: a page of events
// is a few hundred kilobytes, which a fresh buffer would reach by
// doubling, copying and zeroing on every request. Buffers grown past
// maxPooledJSON (a page at the largest per_page) are left to the
// collector so one huge answer does not stay pinned.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledJSON = 4 << 20

// writeAPIError renders err in the WordPress error shape in the request's
// language (or the path prefix's, or the default).
func writeAPIError(c *fiber.Ctx, d *Deps, err error) error {
	e := toAPIError(err)
	lang := d.defaultLang()
	r, _ := c.Locals(requestKey).(*Request)
	if r != nil {
		lang = r.Lang
	} else if prefix, _, ok := splitAPIPath(c.Path()); ok && prefix != "" {
		lang = strings.ToLower(prefix[1:])
	} else if q := strings.ToLower(c.Query("ml_language")); i18n.Valid(q) {
		lang = q // refused before the request was read (a full gate)
	}
	if e.Status >= 500 {
		logger(d).Error("api: request failed", "status", e.Status, "code", e.Code, "err", err,
			"method", c.Method(), "path", c.Path(), "request_id", c.GetRespHeader(fiber.HeaderXRequestID))
	}
	c.Response().ResetBody()
	for _, h := range []string{"X-WP-Total", "X-WP-TotalPages", "X-TEC-Total", "X-TEC-TotalPages", fiber.HeaderLink, fiber.HeaderLocation} {
		c.Response().Header.Del(h)
	}
	if e.Status == fiber.StatusServiceUnavailable && len(c.Response().Header.Peek(fiber.HeaderRetryAfter)) == 0 {
		c.Set(fiber.HeaderRetryAfter, "2") // a failover's length (cmd/kalends/app.go)
	}
	if err := sendJSON(c, e.Status, errorBody(d, lang, e)); err != nil {
		return err
	}
	setAPIHeaders(c, lang)
	return nil
}

// errorBody is {"code", "message", "data": {"status", …}}.
func errorBody(d *Deps, lang string, e *Error) Obj {
	data := Obj{{"status", e.Status}}
	msgData := map[string]any{}
	for k, v := range e.MsgData {
		msgData[k] = v
	}
	if e.Missing != nil {
		data = append(data, KV{"params", e.Missing})
		if _, ok := msgData["Params"]; !ok {
			msgData["Params"] = strings.Join(e.Missing, ", ")
		}
	}
	if e.Invalid != nil {
		params, details := Obj{}, Obj{}
		names := make([]string, 0, len(e.Invalid))
		for _, inv := range e.Invalid {
			msg := d.I18n.T(lang, inv.Reason, inv.Data)
			code := inv.Code
			if code == "" {
				code = models.CodeInvalidParam
			}
			params = append(params, KV{inv.Field, msg})
			details = append(details, KV{inv.Field, Obj{{"code", code}, {"message", msg}, {"data", nil}}})
			names = append(names, inv.Field)
		}
		data = append(data, KV{"params", params}, KV{"details", details})
		if _, ok := msgData["Params"]; !ok {
			msgData["Params"] = strings.Join(names, ", ")
		}
	}
	for _, kv := range e.Data {
		if jr, ok := kv.V.(jsonReason); ok {
			kv.V = d.I18n.T(lang, jr.id, nil)
		}
		data = append(data, kv)
	}
	body := Obj{{"code", e.Code}, {"message", d.I18n.T(lang, e.MsgID, msgData)}, {"data", data}}
	if e.Additional != nil {
		body = append(body, KV{"additional_data", e.Additional})
	}
	return body
}
