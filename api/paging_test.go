package api

import (
	"net/http"
	"testing"
)

// A page number beyond int32 stays past the end of the list (404 on
// post-like lists, an empty page on term lists) instead of wrapping to
// page 1.
func TestHugePageNumbersStayPastTheEnd(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		if r := e.do(t, "POST", "/cal/events/v1/venues", map[string]any{"venue": "Hall"}, "administrator"); r.Status != http.StatusCreated {
			t.Fatalf("create venue: %d %s", r.Status, r.Body)
		}
		for _, c := range []struct {
			target string
			status int
			code   string
		}{
			{"/cal/events/v1/venues?page=2147483647", 404, "venue-archive-page-not-found"},
			{"/cal/events/v1/venues?page=2147483648", 404, "venue-archive-page-not-found"},
			{"/cal/events/v1/venues?page=99999999999", 404, "venue-archive-page-not-found"},
			{"/cal/events/v1/organizers?page=99999999999", 404, "organizer-archive-page-not-found"},
			{"/cal/events/v1/events?page=99999999999", 404, "event-archive-page-not-found"},
			{"/cal/events/v1/categories?page=99999999999", 200, ""},
			{"/cal/events/v1/tags?page=2147483648&per_page=500", 200, ""},
		} {
			r := e.do(t, "GET", c.target, nil, "")
			if r.Status != c.status {
				t.Errorf("%s: status %d, want %d: %s", c.target, r.Status, c.status, r.Body)
				continue
			}
			if c.code != "" && r.Code(t) != c.code {
				t.Errorf("%s: code %q, want %q", c.target, r.Code(t), c.code)
			}
		}
	})
}
