package api

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Page returns the requested page (1 when absent).
func (r *Request) Page() int {
	n, ok := r.Int("page")
	switch {
	case !ok || n <= 0:
		return 1
	case n > math.MaxInt32:
		// Any page this far is past the end of every list; keep it there
		// (404 or an empty page) instead of wrapping to page 1.
		return math.MaxInt32
	}
	return int(n)
}

// PerPage returns the page size: the default of 120 when absent, capped at
// the site's MaxPerPage (as TEC caps it silently).
func (r *Request) PerPage() int {
	n, _ := r.Int("per_page")
	return r.Deps.site().PageSize(n)
}

// listURL returns the absolute URL of path in the namespace, keeping the
// language prefix, with the query members in the given order. Values may
// be string, integers, bool, float64, []int64 or []string (lists as comma
// lists); nil values and empty strings are left out.
func listURL(r *Request, path string, q []KV) string {
	u := r.Deps.APIURL(r, path)
	var parts []string
	for _, kv := range q {
		s, ok := queryValue(kv.V)
		if !ok {
			continue
		}
		parts = append(parts, url.QueryEscape(kv.K)+"="+url.QueryEscape(s))
	}
	if len(parts) > 0 {
		u += "?" + strings.Join(parts, "&")
	}
	return u
}

func queryValue(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, x != ""
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case []int64:
		s := make([]string, len(x))
		for i, n := range x {
			s[i] = strconv.FormatInt(n, 10)
		}
		return strings.Join(s, ","), len(x) > 0
	case []string:
		return strings.Join(x, ","), len(x) > 0
	}
	return fmt.Sprint(v), true
}

// setListHeaders sets the total headers of a list (TEC's and WordPress's)
// and an RFC 8288 Link header with the next and previous pages ("" for
// none).
func setListHeaders(c *fiber.Ctx, r *Request, total int64, totalPages int, next, prev string) {
	_ = r
	t, tp := strconv.FormatInt(total, 10), strconv.Itoa(totalPages)
	c.Set("X-TEC-Total", t)
	c.Set("X-TEC-TotalPages", tp)
	c.Set("X-WP-Total", t)
	c.Set("X-WP-TotalPages", tp)
	var links []string
	if next != "" {
		links = append(links, "<"+next+`>; rel="next"`)
	}
	if prev != "" {
		links = append(links, "<"+prev+`>; rel="prev"`)
	}
	if len(links) > 0 {
		c.Set(fiber.HeaderLink, strings.Join(links, ", "))
	}
}
