package api

import (
	"net/http"
	"net/url"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
)

// Issue 29 item 2, through the real app: an event, venue and organizer
// posted with decomposed names (as macOS sends them) are stored composed,
// and a by-slug request for the percent-encoded decomposed slug finds
// each, as does a search typed in conjoining jamo.
func TestDecomposedWritesAndBySlugThroughTheAPI(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		nfd := norm.NFD.String
		r := e.do(t, "POST", "/cal/events/v1/events", map[string]any{
			"title": nfd("서울 가을 축제 Café"), "start_date": "2031-10-01 10:00:00", "end_date": "2031-10-01 12:00:00", "status": "publish",
			"venue": map[string]any{"venue": nfd("Théâtre 한옥")}, "organizer": map[string]any{"organizer": nfd("Société 김")},
		}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusCreated)
		ev := r.Map(t)
		slug, _ := ev["slug"].(string)
		if slug != "서울-가을-축제-café" {
			t.Fatalf("slug %+q, want the composed 서울-가을-축제-café", slug)
		}
		if ev["title"] != "서울 가을 축제 Café" {
			t.Errorf("title %+q, want it composed", ev["title"])
		}
		venue, _ := ev["venue"].(map[string]any) // TEC: one venue is an object
		orgs, _ := ev["organizer"].([]any)
		if venue == nil || len(orgs) != 1 {
			t.Fatalf("venue %v, organizer %v", ev["venue"], ev["organizer"])
		}
		for _, c := range []struct {
			path string
			id   any
			slug any
		}{
			{"/cal/events/v1/events/by-slug/", ev["id"], slug},
			{"/cal/events/v1/venues/by-slug/", venue["id"], venue["slug"]},
			{"/cal/events/v1/organizers/by-slug/", orgs[0].(map[string]any)["id"], orgs[0].(map[string]any)["slug"]},
		} {
			s, _ := c.slug.(string)
			if !norm.NFC.IsNormalString(s) || nfd(s) == s {
				t.Fatalf("%s: slug %+q, want composed (and not plain ASCII)", c.path, s)
			}
			r := e.do(t, "GET", c.path+url.PathEscape(nfd(s)), nil, "")
			mustStatus(t, r, http.StatusOK)
			if got := r.Map(t)["id"]; got != c.id {
				t.Errorf("%s%s found %v, want %v", c.path, nfd(s), got, c.id)
			}
		}
		r = e.do(t, "GET", "/cal/events/v1/events?start_date=2031-01-01&end_date=2031-12-31&search="+url.QueryEscape(nfd("가을 축제")), nil, "")
		mustStatus(t, r, http.StatusOK)
		if list, _ := r.Map(t)["events"].([]any); len(list) != 1 {
			t.Errorf("search for 가을 축제 in jamo: %d events, want 1: %.400s", len(list), r.Body)
		}
	})
}
