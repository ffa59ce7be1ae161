package api

// Acceptance tests of issues 2–5 that no other test proves on its own.

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

// TestAcceptanceItemIDZeroIsNotFound: id 0 names nothing, so every method of
// every item route answers the route's own 404 (as TEC), while a path whose
// id is not digits never matches a route at all.
func TestAcceptanceItemIDZeroIsNotFound(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		cases := []struct{ path, code string }{
			{"/events/0", "rest-event-not-found"},
			{"/events/000", "rest-event-not-found"},
			{"/venues/0", "rest-venue-not-found"},
			{"/organizers/0", "rest-organizer-not-found"},
			{"/categories/0", "rest_term_invalid"},
			{"/tags/0", "rest_term_invalid"},
		}
		for _, c := range cases {
			for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
				as := models.RoleAdministrator
				if m == "GET" {
					as = ""
				}
				r := e.do(t, m, "/cal/events/v1"+c.path, map[string]any{"title": "x", "name": "x"}, as)
				if r.Status != 404 || r.Code(t) != c.code {
					t.Errorf("%s %s: %d %.200s, want 404 %s", m, c.path, r.Status, r.Body, c.code)
				}
			}
			r := e.do(t, "DELETE", "/cal/events/v1"+c.path+"?force=true", nil, models.RoleAdministrator)
			if r.Status != 404 || r.Code(t) != c.code {
				t.Errorf("DELETE %s?force=true: %d %.200s, want 404 %s", c.path, r.Status, r.Body, c.code)
			}
		}
		for _, p := range []string{"/events/-1", "/events/abc", "/events/1x", "/venues/-1", "/organizers/abc", "/categories/-1", "/tags/x1"} {
			r := e.do(t, "GET", "/cal/events/v1"+p, nil, "")
			if r.Status != 404 || r.Code(t) != "rest_no_route" {
				t.Errorf("GET %s: %d %.200s, want 404 rest_no_route", p, r.Status, r.Body)
			}
		}
	})
}

// TestAcceptanceIndexListsTheFifteenRoutes (issue 2): the namespace index
// lists exactly the 15 routes; every list has page 1 and per_page 120 as
// defaults; creates mark their required arguments; item reads take only the
// path parameter and ml_language, and DELETE adds only force.
func TestAcceptanceIndexListsTheFifteenRoutes(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) { checkIndexRoutes(t, e) })
}

func checkIndexRoutes(t *testing.T, e *testEnv) {
	r := e.do(t, "GET", nsURL+"/", nil, "")
	if r.Status != 200 {
		t.Fatalf("index: %d %.300s", r.Status, r.Body)
	}
	routes := r.Map(t)["routes"].(map[string]any)
	// TEC's 15, plus our extensions /media and /media/{id} (issue 16) and
	// the three revision routes of events, venues and organizers (issue 17),
	// and the change feed /changes (issue 34).
	if len(routes) != 27 {
		t.Errorf("index lists %d routes, want 15 + 2 + 9 + 1", len(routes))
	}
	required := map[string][]string{
		"/events": {"title", "start_date", "end_date"}, "/venues": {"venue"}, "/organizers": {"organizer"},
		"/categories": {"name"}, "/tags": {"name"},
	}
	for coll, req := range required {
		entry, ok := routes[nsURL+coll].(map[string]any)
		if !ok {
			t.Errorf("no route %s", coll)
			continue
		}
		for _, ep := range entry["endpoints"].([]any) {
			ep := ep.(map[string]any)
			args := ep["args"].(map[string]any)
			switch ep["methods"].([]any)[0] {
			case "GET":
				if args["page"].(map[string]any)["default"] != float64(1) || args["per_page"].(map[string]any)["default"] != float64(120) {
					t.Errorf("%s list: page %v per_page %v", coll, args["page"], args["per_page"])
				}
			case "POST":
				for _, name := range req {
					if a, _ := args[name].(map[string]any); a == nil || a["required"] != true {
						t.Errorf("%s create: %s is not required: %v", coll, name, a)
					}
				}
			}
		}
	}
	for pattern, entry := range routes {
		if !strings.Contains(pattern, "(?P<") {
			continue
		}
		for _, ep := range entry.(map[string]any)["endpoints"].([]any) {
			ep := ep.(map[string]any)
			var names []string
			for n := range ep["args"].(map[string]any) {
				names = append(names, n)
			}
			sort.Strings(names)
			got := strings.Join(names, ",")
			switch ep["methods"].([]any)[0] {
			case "GET":
				if got != "id,ml_language" && got != "ml_language,slug" && (!strings.Contains(pattern, "/revisions/") || got != "id,ml_language,revision") {
					t.Errorf("GET %s args: %s", pattern, got)
				}
			case "DELETE":
				// Every DELETE takes force (terms are deleted for good either way);
				// an event's takes the scope of an occurrence too (issue 18).
				isEvent := strings.HasPrefix(pattern, nsURL+"/events/")
				if got != "force,id,ml_language" && got != "force,ml_language,slug" &&
					(pattern != nsURL+`/media/(?P<id>\d+)` || got != "force,id,ml_language,unlink") &&
					(!isEvent || (got != "force,id,ml_language,scope" && got != "force,ml_language,scope,slug")) {
					t.Errorf("DELETE %s args: %s", pattern, got)
				}
			}
		}
	}
}

// TestAcceptanceListArgumentErrorsOnEveryList (issues 2–5): bad page and
// per_page values are 400 rest_invalid_param naming the argument on every
// list; malformed JSON on every create is 400 rest_invalid_json; an unknown
// method on a real route is 404 rest_no_route.
func TestAcceptanceListArgumentErrorsOnEveryList(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, coll := range []string{"/events", "/venues", "/organizers", "/categories", "/tags"} {
			for _, arg := range []string{"page", "per_page"} {
				for _, v := range []string{"foo", "-1", "0", "foo%20bar"} {
					r := e.do(t, "GET", nsURL+coll+"?"+arg+"="+v, nil, "")
					if r.Status != 400 || r.Code(t) != "rest_invalid_param" {
						t.Errorf("GET %s?%s=%s: %d %.200s", coll, arg, v, r.Status, r.Body)
						continue
					}
					params, _ := r.Map(t)["data"].(map[string]any)["params"].(map[string]any)
					if _, ok := params[arg]; !ok || len(params) != 1 {
						t.Errorf("GET %s?%s=%s names %v, want only %s", coll, arg, v, params, arg)
					}
				}
			}
			if r := e.do(t, "POST", nsURL+coll, `{"name": `, models.RoleAdministrator); r.Status != 400 || r.Code(t) != "rest_invalid_json" {
				t.Errorf("POST %s with malformed JSON: %d %.200s", coll, r.Status, r.Body)
			}
			if r := e.do(t, "PATCH", nsURL+coll, map[string]any{"name": "x"}, models.RoleAdministrator); r.Status != 404 || r.Code(t) != "rest_no_route" {
				t.Errorf("PATCH %s: %d %.200s", coll, r.Status, r.Body)
			}
		}
	})
}

// TestAcceptanceOrganizerAccessAndUnknown (issue 4): organizer drafts are
// invisible to anonymous callers (list, and 403 on the single) and visible
// to editors; unknown organizer ids are 404; anonymous writes on existing
// venues and organizers are 401.
func TestAcceptanceOrganizerAccessAndUnknown(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		pub := idOf(t, e.do(t, "POST", nsURL+"/organizers", map[string]any{"organizer": "Public Org"}, models.RoleEditor))
		draft := idOf(t, e.do(t, "POST", nsURL+"/organizers", map[string]any{"organizer": "Draft Org", "status": "draft"}, models.RoleEditor))
		venue := idOf(t, e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "Some Hall"}, models.RoleEditor))
		if got, n := listIDs(t, e.do(t, "GET", nsURL+"/organizers", nil, ""), "organizers"); n != 1 || len(got) != 1 || got[0] != pub {
			t.Errorf("anonymous list: %v total %d, want only %d", got, n, pub)
		}
		if _, n := listIDs(t, e.do(t, "GET", nsURL+"/organizers", nil, models.RoleEditor), "organizers"); n != 2 {
			t.Errorf("editor list total %d, want 2", n)
		}
		expect(t, "anonymous draft organizer", e.do(t, "GET", fmt.Sprintf("%s/organizers/%d", nsURL, draft), nil, ""), 403, "organizer-not-accessible")
		expect(t, "anonymous draft organizer by slug", e.do(t, "GET", nsURL+"/organizers/by-slug/draft-org", nil, ""), 403, "organizer-not-accessible")
		expect(t, "editor draft organizer", e.do(t, "GET", fmt.Sprintf("%s/organizers/%d", nsURL, draft), nil, models.RoleEditor), 200, "")
		expect(t, "unknown organizer id", e.do(t, "GET", nsURL+"/organizers/999999", nil, ""), 404, "rest-organizer-not-found")
		expect(t, "unknown organizer id update", e.do(t, "PATCH", nsURL+"/organizers/999999", map[string]any{"phone": "1"}, models.RoleEditor), 404, "rest-organizer-not-found")
		for _, p := range []string{fmt.Sprintf("/organizers/%d", pub), fmt.Sprintf("/venues/%d", venue), "/venues/by-slug/some-hall", "/organizers/by-slug/public-org"} {
			for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
				expect(t, "anonymous "+m+" "+p, e.do(t, m, nsURL+p, map[string]any{"phone": "1"}, ""), 401, "rest_forbidden")
			}
		}
	})
}

// An id too large for any record names nothing: the route's own 404, as for
// id 0 and any other unknown id (SPEC §4).
func TestAcceptanceHugeItemIDIsNotFound(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for path, code := range map[string]string{
			"/events/99999999999999999999":     "rest-event-not-found",
			"/venues/99999999999999999999":     "rest-venue-not-found",
			"/organizers/99999999999999999999": "rest-organizer-not-found",
			"/categories/99999999999999999999": "rest_term_invalid",
			"/tags/99999999999999999999":       "rest_term_invalid",
		} {
			r := e.do(t, "GET", "/cal/events/v1"+path, nil, "")
			if r.Status != 404 || r.Code(t) != code {
				t.Errorf("GET %s: %d %s, want 404 %s", path, r.Status, r.Body, code)
			}
		}
	})
}
