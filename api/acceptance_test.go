package api

// Acceptance tests of issues 2–5 that no other test proves on its own.

import (
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
