package api

import (
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Temporary: until the apicore date parser lands on main.
func linkedParseDate(s string, loc *time.Location, now time.Time) (time.Time, error) {
	for _, f := range []string{time.DateTime, "2006-01-02 15:04", time.DateOnly, "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(f, s, loc); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	if s == "now" {
		return now, nil
	}
	return time.Time{}, errors.New("bad date")
}

// Temporary stand-ins for apicore's helpers.

func argForce() Arg {
	return Arg{Name: "force", Type: "boolean", Default: false, HasDefault: true, Desc: "arg.common.force", In: "query", Kind: KBool}
}

func sendJSON(c *fiber.Ctx, status int, body any) error {
	b, err := marshal(body)
	if err != nil {
		return err
	}
	c.Set("Content-Type", "application/json; charset=UTF-8")
	return c.Status(status).Send(b)
}

func linkedPageURL(r *Request, path string, page int64, q []KV) string {
	v := "?page=" + strconv.FormatInt(page, 10)
	for _, kv := range q {
		v += "&" + url.QueryEscape(kv.K) + "=" + url.QueryEscape(kv.V.(string))
	}
	return r.Deps.APIURL(r, path) + v
}

func linkedListHeaders(c *fiber.Ctx, total, totalPages int, next, prev string) {
	c.Set("X-TEC-Total", strconv.Itoa(total))
	c.Set("X-TEC-TotalPages", strconv.Itoa(totalPages))
}
