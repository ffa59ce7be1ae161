package api

import (
	"net/url"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

// No input may produce a 500: hostile queries and bodies on every venue and
// organizer route answer 2xx or 4xx.
func TestLinkedRoutesSurviveHostileInput(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "100% _real_ venue!"}, models.RoleEditor)
		for _, c := range []struct {
			method, path string
			body         any
			status       int
		}{
			{"GET", "/venues?search=" + url.QueryEscape(`%_!'"\`), nil, 200},
			{"GET", "/venues?search=" + url.QueryEscape("100%"), nil, 200},
			{"GET", "/venues?search=" + strings.Repeat("x", 201), nil, 400},
			{"GET", "/venues?status=publish,nonsense", nil, 400},
			{"GET", "/venues?status=any", nil, 200},
			{"GET", "/venues?status=", nil, 200},
			{"GET", "/venues?per_page=100000", nil, 200},
			{"GET", "/venues?page=99999999999999999999", nil, 400},
			{"GET", "/venues?event=abc", nil, 400},
			{"GET", "/venues?has_events[]=1&has_events[]=2", nil, 200},
			{"GET", "/organizers?only_with_upcoming[a]=b", nil, 200},
			{"GET", "/venues/99999999999999999999", nil, 404}, // names nothing, like any unknown id
			{"GET", "/venues/by-slug/" + url.PathEscape("a%b'c"), nil, 404},
			{"DELETE", "/venues/1?force=maybe", nil, 400},
			{"POST", "/venues", `{"venue": "X", "geo_lat": 1e999}`, 400},
			{"POST", "/venues", `{"venue": "X", "show_map": {"a": 1}}`, 400},
			{"POST", "/venues", `{"venue": ["X"]}`, 400},
			{"POST", "/venues", `{"venue": "X\u0000Y"}`, 400},
			{"POST", "/venues", `{"venue": "X", "description": null}`, 201},
			{"POST", "/venues", url.Values{"venue[]": {"a", "b"}}, 400},
			{"POST", "/organizers", url.Values{"organizer": {"Form Org"}, "email": {"a@example.com"}, "date": {"tomorrow 9am"}}, 201},
			{"POST", "/organizers", `{"organizer": "X", "date": "32nd of never"}`, 400},
			{"PATCH", "/venues/by-slug/100-real-venue", `{"author": "abc"}`, 400},
		} {
			r := e.do(t, c.method, nsURL+c.path, c.body, models.RoleEditor)
			if r.Status != c.status {
				t.Errorf("%s %s %v: %d %.300s, want %d", c.method, c.path, c.body, r.Status, r.Body, c.status)
			}
		}
	})
}
