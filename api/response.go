package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

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
	for _, o := range d.Config.CORSOrigins {
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
	b, err := marshal(v)
	if err != nil {
		return ErrInternal(err)
	}
	c.Set(fiber.HeaderContentType, contentTypeJSON)
	return c.Status(status).Send(b)
}

// toAPIError turns any error into an *Error: our own pass through, a
// database that does not answer is 503, anything else 500.
func toAPIError(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, models.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return ErrUnavailable(err)
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch {
		case fe.Code == http.StatusRequestEntityTooLarge:
			return NewError(fe.Code, "rest_payload_too_large", "error.rest_payload_too_large")
		case fe.Code == http.StatusNotFound || fe.Code == http.StatusMethodNotAllowed || fe.Code == http.StatusNotImplemented:
			return ErrNoRoute()
		case fe.Code == http.StatusServiceUnavailable:
			return ErrUnavailable(err)
		case fe.Code >= 400 && fe.Code < 500:
			e := NewError(fe.Code, "rest_bad_request", "error.rest_bad_request")
			return e
		}
	}
	return ErrInternal(err)
}

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
	}
	if e.Status >= 500 {
		logger(d).Error("api: request failed", "status", e.Status, "code", e.Code, "err", err,
			"method", c.Method(), "path", c.Path(), "request_id", RequestIDOf(c))
	}
	c.Response().ResetBody()
	for _, h := range []string{"X-WP-Total", "X-WP-TotalPages", "X-TEC-Total", "X-TEC-TotalPages", fiber.HeaderLink, fiber.HeaderLocation} {
		c.Response().Header.Del(h)
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
			msg := d.I18n.T(lang, inv.Reason.ID, inv.Reason.Data)
			params = append(params, KV{inv.Name, msg})
			details = append(details, KV{inv.Name, Obj{{"code", inv.Reason.Code}, {"message", msg}, {"data", nil}}})
			names = append(names, inv.Name)
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
	return Obj{{"code", e.Code}, {"message", d.I18n.T(lang, e.MsgID, msgData)}, {"data", data}}
}
