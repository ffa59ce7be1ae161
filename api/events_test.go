package api

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

// eventKeys is TEC's key order of an event (samples 05, 17), then ours.
var eventKeys = []string{"id", "global_id", "global_id_lineage", "author", "status", "date", "date_utc", "modified",
	"modified_utc", "url", "rest_url", "title", "description", "excerpt", "slug", "image", "all_day", "start_date",
	"start_date_details", "end_date", "end_date_details", "utc_start_date", "utc_start_date_details", "utc_end_date",
	"utc_end_date_details", "timezone", "timezone_abbr", "cost", "cost_details", "website", "show_map",
	"show_map_link", "hide_from_listings", "sticky", "featured", "categories", "tags", "venue", "organizer",
	"custom_fields", "lang", "translations"}

// mustStatus fails unless the response has status want.
func mustStatus(t *testing.T, r *testResp, want int) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d: %.600s", r.Status, want, r.Body)
	}
}

// createEvent creates an event as admin and returns its body.
func (e *testEnv) createEvent(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	r := e.do(t, "POST", "/cal/events/v1/events", body, models.RoleAdministrator)
	mustStatus(t, r, http.StatusCreated)
	return r.Map(t)
}

func eventIDOf(m map[string]any) int64 { return int64(m["id"].(float64)) }

func TestEventSamplesReplay(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		// 05: create with links; 07: inline venue/organizer and terms by name.
		r := e.do(t, "POST", "/cal/events/v1/events", map[string]any{
			"title": "Tech Conference 2027", "description": "<p>A big conference</p>", "excerpt": "Short summary",
			"start_date": "2027-03-10 09:00:00", "end_date": "2027-03-12 17:00:00", "timezone": "America/New_York",
			"cost": "25", "website": "https://conf.example.com",
			"venue":      map[string]any{"venue": "Grand Arena", "city": "Metropolis"},
			"organizer":  []any{map[string]any{"organizer": "Acme Events"}},
			"categories": []any{"Conferences"}, "tags": "featured-talk", "featured": true, "show_map": true,
		}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusCreated)
		if got := r.Keys(t); !reflect.DeepEqual(got, eventKeys) {
			t.Errorf("keys:\n got %v\nwant %v", got, eventKeys)
		}
		ev := r.Map(t)
		id := eventIDOf(ev)
		if loc := r.Header.Get("Location"); loc != fmt.Sprintf("http://example.test/cal/events/v1/events/%d", id) {
			t.Errorf("Location %q", loc)
		}
		want := map[string]any{
			"author": fmt.Sprint(e.Users[models.RoleAdministrator].ID), "status": "publish",
			"url": "http://example.test/event/tech-conference-2027/", "title": "Tech Conference 2027",
			"description": "<p>A big conference</p>", "excerpt": "<p>Short summary</p>", "slug": "tech-conference-2027",
			"image": false, "all_day": false, "start_date": "2027-03-10 09:00:00", "end_date": "2027-03-12 17:00:00",
			"utc_start_date": "2027-03-10 14:00:00", "utc_end_date": "2027-03-12 22:00:00",
			"timezone": "America/New_York", "timezone_abbr": "EST", "cost": "$25", "website": "https://conf.example.com",
			"show_map": true, "show_map_link": false, "hide_from_listings": false, "sticky": false, "featured": true,
			"global_id": fmt.Sprintf("example.test?id=%d", id), "lang": "en",
		}
		for k, v := range want {
			if !reflect.DeepEqual(ev[k], v) {
				t.Errorf("%s = %#v, want %#v", k, ev[k], v)
			}
		}
		details := ev["start_date_details"].(map[string]any)
		if details["month"] != "03" || details["hour"] != "09" || details["year"] != "2027" {
			t.Errorf("start_date_details %v", details)
		}
		cd := ev["cost_details"].(map[string]any)
		if !reflect.DeepEqual(cd["values"], []any{"25"}) || cd["currency_symbol"] != "" {
			t.Errorf("cost_details %v", cd)
		}
		cats := ev["categories"].([]any)
		if len(cats) != 1 || cats[0].(map[string]any)["name"] != "Conferences" {
			t.Errorf("categories %v", cats)
		}
		if v, ok := ev["venue"].(map[string]any); !ok || v["venue"] != "Grand Arena" {
			t.Errorf("venue %v", ev["venue"])
		}
		if o := ev["organizer"].([]any); len(o) != 1 {
			t.Errorf("organizer %v", o)
		}

		// 06: all day, cost "Free", site zone.
		r = e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "All Day Fair", "start_date": "2027-04-01",
			"end_date": "2027-04-01", "all_day": true, "cost": "Free"}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusCreated)
		fair := r.Map(t)
		for k, v := range map[string]any{"start_date": "2027-04-01 00:00:00", "end_date": "2027-04-01 23:59:59",
			"timezone": "UTC", "timezone_abbr": "UTC", "cost": "Free", "website": "http://example.test/event/all-day-fair/",
			"venue": []any{}, "organizer": []any{}, "custom_fields": []any{}} {
			if !reflect.DeepEqual(fair[k], v) {
				t.Errorf("all day %s = %#v, want %#v", k, fair[k], v)
			}
		}

		// 17: single read with json_ld.
		r = e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", id), nil, "")
		mustStatus(t, r, http.StatusOK)
		if got := r.Keys(t); !reflect.DeepEqual(got, append(append([]string{}, eventKeys...), "json_ld")) {
			t.Errorf("single keys %v", got)
		}
		ld := r.Map(t)["json_ld"].(map[string]any)
		for k, v := range map[string]any{"@type": "Event", "startDate": "2027-03-10T09:00:00-05:00",
			"endDate": "2027-03-12T17:00:00-05:00", "inLanguage": "en"} {
			if ld[k] != v {
				t.Errorf("json_ld %s = %v, want %v", k, ld[k], v)
			}
		}
		if offers := ld["offers"].(map[string]any); offers["price"] != "25" || offers["priceCurrency"] != "USD" {
			t.Errorf("offers %v", offers)
		}
		if _, ok := ld["location"]; !ok {
			t.Error("json_ld has no location")
		}

		// 19: by slug.
		r = e.do(t, "GET", "/cal/events/v1/events/by-slug/tech-conference-2027", nil, "")
		mustStatus(t, r, http.StatusOK)
		if eventIDOf(r.Map(t)) != id {
			t.Error("by-slug found another event")
		}

		// 28: partial update keeps what was not sent (SPEC §9).
		r = e.do(t, "POST", fmt.Sprintf("/cal/events/v1/events/%d", id), map[string]any{"title": "Tech Conference 2027 (updated)", "cost": "30"}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusOK)
		up := r.Map(t)
		for k, v := range map[string]any{"title": "Tech Conference 2027 (updated)", "cost": "$30", "featured": true,
			"show_map": true, "timezone": "America/New_York", "website": "https://conf.example.com", "slug": "tech-conference-2027"} {
			if !reflect.DeepEqual(up[k], v) {
				t.Errorf("after update %s = %#v, want %#v", k, up[k], v)
			}
		}
		if len(up["organizer"].([]any)) != 1 {
			t.Error("update unlinked the organizer")
		}

		// 29: PUT with all_day.
		r = e.do(t, "PUT", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(fair)), map[string]any{"title": "All Day Fair (put)",
			"start_date": "2027-04-02", "end_date": "2027-04-02", "all_day": true}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusOK)
		if m := r.Map(t); m["start_date"] != "2027-04-02 00:00:00" || m["end_date"] != "2027-04-02 23:59:59" || m["cost"] != "Free" {
			t.Errorf("put: %v %v %v", m["start_date"], m["end_date"], m["cost"])
		}

		// 32, 38: unknown id, id of a venue.
		mustStatus(t, e.do(t, "GET", "/cal/events/v1/events/999999", nil, ""), http.StatusNotFound)
		venueID := int64(ev["venue"].(map[string]any)["id"].(float64))
		r = e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", venueID), nil, "")
		mustStatus(t, r, http.StatusBadRequest)
		if r.Code(t) != "rest-invalid-event-id" {
			t.Errorf("code %s", r.Code(t))
		}
		r = e.do(t, "GET", "/cal/events/v1/events/by-slug/no-such-event", nil, "")
		mustStatus(t, r, http.StatusNotFound)
		if r.Code(t) != "rest-event-not-found" {
			t.Errorf("code %s", r.Code(t))
		}

		// 39–43: missing fields, bad date, anonymous, bad password.
		r = e.do(t, "POST", "/cal/events/v1/events", map[string]any{"start_date": "2027-01-01 10:00:00", "end_date": "2027-01-01 11:00:00"}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusBadRequest)
		if r.Code(t) != "rest_missing_callback_param" {
			t.Errorf("code %s", r.Code(t))
		}
		r = e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "No dates"}, models.RoleAdministrator)
		if p := r.Map(t)["data"].(map[string]any)["params"]; !reflect.DeepEqual(p, []any{"start_date", "end_date"}) {
			t.Errorf("missing params %v", p)
		}
		r = e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "Bad date", "start_date": "not-a-date", "end_date": "2027-01-01"}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusBadRequest)
		if _, ok := r.Map(t)["data"].(map[string]any)["params"].(map[string]any)["start_date"]; !ok {
			t.Errorf("bad date: %s", r.Body)
		}
		mustStatus(t, e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "Anon", "start_date": "2027-01-01 10:00:00", "end_date": "2027-01-01 11:00:00"}, ""), http.StatusUnauthorized)

		// 59–62: trash, trash again, read trashed.
		r = e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(fair)), nil, models.RoleAdministrator)
		mustStatus(t, r, http.StatusOK)
		if m := r.Map(t); m["status"] != "trash" || m["slug"] != "all-day-fair" {
			t.Errorf("trashed: %v %v", m["status"], m["slug"])
		}
		r = e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(fair)), nil, models.RoleAdministrator)
		mustStatus(t, r, http.StatusGone)
		if r.Code(t) != "event-is-in-trash" {
			t.Errorf("code %s", r.Code(t))
		}
		for _, as := range []models.Role{"", models.RoleAdministrator} {
			r = e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(fair)), nil, as)
			mustStatus(t, r, http.StatusForbidden)
			if r.Code(t) != "event-no-longer-available" {
				t.Errorf("code %s", r.Code(t))
			}
		}
		// force=true deletes for good.
		mustStatus(t, e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d?force=true", eventIDOf(fair)), nil, models.RoleAuthor), http.StatusForbidden)
		mustStatus(t, e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d?force=true", eventIDOf(fair)), nil, models.RoleEditor), http.StatusOK)
		mustStatus(t, e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(fair)), nil, models.RoleEditor), http.StatusNotFound)
	})
}

func TestEventListSamples(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for i, title := range []string{"Tech Conference", "Fair", "Jazz Night"} {
			e.createEvent(t, map[string]any{"title": title, "start_date": time.Now().AddDate(0, 1, i).Format("2006-01-02 15:04"),
				"end_date": time.Now().AddDate(0, 1, i).Add(time.Hour).Format("2006-01-02 15:04")})
		}
		r := e.do(t, "GET", "/cal/events/v1/events", nil, "")
		mustStatus(t, r, http.StatusOK)
		if got := r.Keys(t); !reflect.DeepEqual(got, []string{"events", "rest_url", "total", "total_pages"}) {
			t.Errorf("envelope keys %v", got)
		}
		m := r.Map(t)
		if m["total"] != float64(3) || r.Header.Get("X-TEC-Total") != "3" || r.Header.Get("X-WP-TotalPages") != "1" {
			t.Errorf("totals %v %v", m["total"], r.Header)
		}
		yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
		if u := m["rest_url"].(string); !strings.Contains(u, "start_date="+yesterday+"+00%3A00%3A00") || !strings.Contains(u, "status=publish") {
			t.Errorf("rest_url %s", u)
		}
		r = e.do(t, "GET", "/cal/events/v1/events?per_page=1&page=2", nil, "")
		mustStatus(t, r, http.StatusOK)
		if got := r.Keys(t); !reflect.DeepEqual(got, []string{"events", "rest_url", "next_rest_url", "previous_rest_url", "total", "total_pages"}) {
			t.Errorf("page 2 keys %v", got)
		}
		if r.Header.Get("Link") == "" {
			t.Error("no Link header")
		}
		r = e.do(t, "GET", "/cal/events/v1/events?search=jazz", nil, "")
		if m := r.Map(t); m["total"] != float64(1) {
			t.Errorf("search total %v", m["total"])
		}
		r = e.do(t, "GET", "/cal/events/v1/events?search=zzznomatch", nil, "")
		mustStatus(t, r, http.StatusOK)
		if m := r.Map(t); m["total"] != float64(0) || len(m["events"].([]any)) != 0 {
			t.Errorf("empty list %s", r.Body)
		}
		for _, q := range []string{"per_page=0", "page=foo", "page=-1", "per_page=foo%20bar", "start_date=garbage"} {
			if r := e.do(t, "GET", "/cal/events/v1/events?"+q, nil, ""); r.Status != http.StatusBadRequest {
				t.Errorf("%s: status %d", q, r.Status)
			}
		}
		r = e.do(t, "GET", "/cal/events/v1/events?per_page=1000", nil, "")
		if u := r.Map(t)["rest_url"].(string); !strings.Contains(u, "per_page=500") {
			t.Errorf("clamp: %s", u)
		}
		r = e.do(t, "GET", "/cal/events/v1/events?page=99", nil, "")
		mustStatus(t, r, http.StatusNotFound)
		if r.Code(t) != "event-archive-page-not-found" {
			t.Errorf("code %s", r.Code(t))
		}
	})
}
