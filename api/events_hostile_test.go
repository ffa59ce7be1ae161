package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

func manyItems(n int, item any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = item
	}
	return out
}

// hostileEventBodies are create bodies that must be answered with a 4xx
// (or a 201 when the value is acceptable), never a 500.
func hostileEventBodies() map[string]any {
	base := func(k string, v any) map[string]any {
		return map[string]any{"title": "Hostile", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00", k: v}
	}
	return map[string]any{
		"title number":          base("title", 123),
		"title list":            base("title", []any{"a"}),
		"title object":          base("title", map[string]any{"a": 1}),
		"title long":            base("title", strings.Repeat("長", 300)),
		"start zero date":       base("start_date", "0000-00-00"),
		"start year 99999":      base("start_date", "99999-01-01 10:00"),
		"start feb 30":          base("start_date", "2027-02-30"),
		"start huge number":     base("start_date", 1e20),
		"start negative":        base("start_date", -1),
		"start empty":           base("start_date", ""),
		"start object":          base("start_date", map[string]any{"date": "2027-01-01"}),
		"end before start":      base("end_date", "2026-01-01"),
		"end year 0001":         base("end_date", "0001-01-01"),
		"timezone unknown":      base("timezone", "Mars/Olympus"),
		"timezone path":         base("timezone", "../../etc/passwd"),
		"timezone offset 99":    base("timezone", "UTC+99"),
		"timezone number":       base("timezone", 5),
		"categories object":     base("categories", map[string]any{"a": 1}),
		"categories nested":     base("categories", []any{[]any{1}}),
		"categories empty obj":  base("categories", []any{map[string]any{}}),
		"categories bad id":     base("categories", []any{map[string]any{"id": "x"}}),
		"categories 10000":      base("categories", manyItems(10000, "x")),
		"categories long name":  base("categories", strings.Repeat("x", 300)),
		"categories negative":   base("categories", []any{-1}),
		"categories zero":       base("categories", []any{0}),
		"categories fraction":   base("categories", []any{1.5}),
		"categories unknown id": base("categories", []any{987654}),
		"categories bool":       base("categories", true),
		"tags objects":          base("tags", []any{map[string]any{"name": "ok"}, map[string]any{"id": 999999}}),
		"venue word":            base("venue", "abc"),
		"venue bad object":      base("venue", []any{map[string]any{"foo": 1}}),
		"venue negative id":     base("venue", map[string]any{"id": -5}),
		"venue huge id":         base("venue", map[string]any{"id": 1e30}),
		"venue unknown id":      base("venue", 999999),
		"venue 10000":           base("venue", manyItems(10000, 1)),
		"venue bool":            base("venue", true),
		"venue nested list":     base("venue", []any{[]any{1}}),
		"organizer word":        base("organizer", "x,y"),
		"organizer unknown":     base("organizer", []any{map[string]any{"id": 424242}}),
		"organizer empty name":  base("organizer", []any{map[string]any{"organizer": ""}}),
		"organizer 10000":       base("organizer", manyItems(10000, map[string]any{"organizer": "A"})),
		"cost object":           base("cost", map[string]any{"a": 1}),
		"cost nested":           base("cost", []any{[]any{1}}),
		"cost bool":             base("cost", true),
		"cost huge":             base("cost", 1e308),
		"cost 10000":            base("cost", manyItems(10000, "1")),
		"website not url":       base("website", "notaurl"),
		"website number":        base("website", 5),
		"image ftp":             base("image", "ftp://x/y.png"),
		"image id":              base("image", "12"),
		"image number":          base("image", 12),
		"status bogus":          base("status", "bogus"),
		"author unknown":        base("author", 999999),
		"author word":           base("author", "abc"),
		"author negative":       base("author", -1),
		"slug traversal":        base("slug", "../.."),
		"slug only symbols":     base("slug", "!!!"),
		"date year 99999":       base("date", "99999-01-01"),
		"date_utc zero":         base("date_utc", "0000-00-00 00:00:00"),
		"description huge":      base("description", strings.Repeat("x", 70000)),
		"all_day maybe":         base("all_day", "maybe"),
		"featured list":         base("featured", []any{true}),
	}
}

func TestEventCreateHostileInputNever500(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for name, body := range hostileEventBodies() {
			r := e.do(t, "POST", "/cal/events/v1/events", body, models.RoleAdministrator)
			if r.Status >= 500 || (r.Status != http.StatusCreated && r.Status != http.StatusBadRequest) {
				t.Errorf("%s: status %d: %.300s", name, r.Status, r.Body)
			}
		}
		// Invalid links and dates are 400 naming the argument.
		for name, arg := range map[string]string{"venue unknown id": "venue", "organizer unknown": "organizer",
			"end before start": "end_date", "categories unknown id": "categories", "categories object": "categories",
			"venue bad object": "venue", "start year 99999": "start_date", "timezone unknown": "timezone"} {
			r := e.do(t, "POST", "/cal/events/v1/events", hostileEventBodies()[name], models.RoleAdministrator)
			if r.Status != http.StatusBadRequest {
				t.Errorf("%s: status %d", name, r.Status)
				continue
			}
			params, _ := r.Map(t)["data"].(map[string]any)["params"].(map[string]any)
			if _, ok := params[arg]; !ok {
				t.Errorf("%s: 400 does not name %s: %.300s", name, arg, r.Body)
			}
		}
		raw := []string{
			"{\"title\": \"bad \xff\xfe utf8\", \"start_date\": \"2027-01-01\", \"end_date\": \"2027-01-01\"}",
			`{"title": "x", "start_date": "2027-01-01", "end_date": "2027-01-01", "venue": {"venue": {"venue": {}}}}`,
			`{"title": "x"`,
			`[1,2,3]`,
			`{"title": "\u0000", "start_date": "2027-01-01", "end_date": "2027-01-01"}`,
		}
		for _, b := range raw {
			if r := e.do(t, "POST", "/cal/events/v1/events", b, models.RoleAdministrator); r.Status >= 500 {
				t.Errorf("%q: status %d: %.300s", b, r.Status, r.Body)
			}
		}
		form := url.Values{"title": {"Form"}, "start_date": {"2027-01-01 10:00"}, "end_date": {"2027-01-01 11:00"},
			"venue[venue]": {"Oslo Hall"}, "venue[city]": {"Oslo"}, "organizer[]": {"x"}, "tags[]": {"a", "b"}}
		if r := e.do(t, "POST", "/cal/events/v1/events", form, models.RoleAdministrator); r.Status >= 500 {
			t.Errorf("form: %d %s", r.Status, r.Body)
		}
		form.Del("organizer[]")
		r := e.do(t, "POST", "/cal/events/v1/events", form, models.RoleAdministrator)
		mustStatus(t, r, http.StatusCreated)
		if v, _ := r.Map(t)["venue"].(map[string]any); v == nil || v["venue"] != "Oslo Hall" {
			t.Errorf("form venue: %s", r.Body)
		}
		ids := make([]string, 10000)
		for i := range ids {
			ids[i] = fmt.Sprint(i + 1)
		}
		for _, q := range []string{"per_page=99999999999999999999", "page=1e400", "start_date=0000-00-00",
			"end_date=99999-12-31", "geoloc_lat=NaN&geoloc_lng=1", "geoloc_lat=1e999&geoloc_lng=1",
			"categories[]=x&categories[]=y", "venue[a]=1", "status[]=publish",
			"search=" + strings.Repeat("%E5%A4%A7", 300), "search=%FF%FE", "strict_dates=maybe", "featured=2",
			"starts_after=tomorrow&ends_before=%2B5%20days", "page=99999999&per_page=500"} {
			if r := e.do(t, "GET", "/cal/events/v1/events?"+q, nil, ""); r.Status >= 500 {
				t.Errorf("GET ?%.60s: %d %s", q, r.Status, r.Body)
			}
		}
		for _, body := range []map[string]any{{"include": strings.Join(ids, ",")}, {"include": manyItems(10000, 1)}, {"venue": manyItems(10000, 1)}} {
			if r := e.do(t, "GET", "/cal/events/v1/events", body, ""); r.Status >= 500 {
				t.Errorf("GET with a 10,000-item list: %d %.300s", r.Status, r.Body)
			}
		}
		for _, p := range []string{"/events/99999999999999999999", "/events/0", "/events/by-slug/%FF", "/events/by-slug/" + strings.Repeat("a", 2000)} {
			for _, m := range []string{"GET", "DELETE", "PATCH"} {
				if r := e.do(t, m, "/cal/events/v1"+p, map[string]any{"title": "x"}, models.RoleAdministrator); r.Status >= 500 {
					t.Errorf("%s %s: %d %s", m, p, r.Status, r.Body)
				}
			}
		}
	})
}
