package api

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

func TestEventTranslationsFollowTheRequestLanguage(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		start := time.Now().UTC().AddDate(0, 0, 5)
		ev := e.createEvent(t, map[string]any{"title": "Concert", "description": "Music night",
			"start_date": start.Format(time.DateTime), "end_date": start.Add(time.Hour).Format(time.DateTime),
			"categories": "Music", "featured": true})
		id := eventIDOf(ev)
		r := e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d?ml_language=ja", id),
			map[string]any{"title": "コンサート", "sticky": true}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusOK)
		m := r.Map(t)
		if m["title"] != "コンサート" || m["description"] != "<p>Music night</p>" || m["lang"] != "en" ||
			!reflect.DeepEqual(m["translations"], []any{"ja"}) || m["sticky"] != true || m["featured"] != true {
			t.Errorf("ja update: %v %v %v %v", m["title"], m["description"], m["lang"], m["translations"])
		}
		r = e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", id), nil, "")
		if m := r.Map(t); m["title"] != "Concert" || m["sticky"] != true {
			t.Errorf("en read: %v %v", m["title"], m["sticky"])
		}
		r = e.do(t, "GET", fmt.Sprintf("/ja/cal/events/v1/events/%d", id), nil, "")
		mustStatus(t, r, http.StatusOK)
		m = r.Map(t)
		if m["title"] != "コンサート" || !strings.HasPrefix(m["rest_url"].(string), "http://example.test/ja/cal/events/v1/") {
			t.Errorf("ja prefix read: %v %v", m["title"], m["rest_url"])
		}
		if ld := m["json_ld"].(map[string]any); ld["inLanguage"] != "ja" || ld["name"] != "コンサート" {
			t.Errorf("ja json_ld: %v", ld)
		}
		if n, l := e.listTotal(t, "search=コンサート&ml_language=ja", ""); n != 1 || !strings.Contains(l["rest_url"].(string), "ml_language=ja") {
			t.Errorf("ja search: %d %v", n, l["rest_url"])
		}
		if n, _ := e.listTotal(t, "search=コンサート", ""); n != 0 {
			t.Errorf("en search found the ja title: %d", n)
		}
		// Localized generated text: cost ranges and Free.
		r = e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d?ml_language=ko", id), map[string]any{"cost": []any{"0", "20"}}, models.RoleAdministrator)
		if m := r.Map(t); m["cost"] != "무료부터 $20까지" {
			t.Errorf("ko cost: %v", m["cost"])
		}
	})
}

func TestEventSlugsStayUniqueUnderConcurrentCreates(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		var wg sync.WaitGroup
		slugs := make([]string, 8)
		for i := range slugs {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "Same Title",
					"start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00"}, models.RoleAdministrator)
				if r.Status != http.StatusCreated {
					t.Errorf("create %d: %d %.200s", i, r.Status, r.Body)
					return
				}
				slugs[i] = r.Map(t)["slug"].(string)
			}(i)
		}
		wg.Wait()
		seen := map[string]bool{}
		for _, s := range slugs {
			if s == "" {
				continue
			}
			if seen[s] || !strings.HasPrefix(s, "same-title") {
				t.Errorf("slug %q repeated or unexpected: %v", s, slugs)
			}
			seen[s] = true
		}
	})
}

// TestEventRoutesInTheIndex checks the events arguments of GET / against
// TEC's index (08-namespace-index), without password and ticketed, with our
// extensions.
func TestEventRoutesInTheIndex(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		r := e.do(t, "GET", "/cal/events/v1/", nil, "")
		mustStatus(t, r, http.StatusOK)
		routes := r.Map(t)["routes"].(map[string]any)
		argNames := func(route string, ep int) []string {
			rt, ok := routes[route].(map[string]any)
			if !ok {
				t.Fatalf("no route %s", route)
			}
			var names []string
			args := rt["endpoints"].([]any)[ep].(map[string]any)["args"].(map[string]any)
			for k := range args {
				names = append(names, k)
			}
			return names
		}
		list := argNames("/cal/events/v1/events", 0)
		for _, want := range []string{"page", "per_page", "start_date", "end_date", "starts_before", "starts_after",
			"ends_before", "ends_after", "strict_dates", "search", "categories", "tags", "venue", "organizer", "featured",
			"status", "geoloc", "geoloc_lat", "geoloc_lng", "include", "post_parent", "ml_language"} {
			if !contains(list, want) {
				t.Errorf("list lacks %s", want)
			}
		}
		for _, not := range []string{"password", "ticketed"} {
			if contains(list, not) {
				t.Errorf("list has %s", not)
			}
		}
		create := argNames("/cal/events/v1/events", 1)
		for _, want := range []string{"author", "date", "date_utc", "title", "description", "slug", "excerpt", "status",
			"timezone", "all_day", "start_date", "end_date", "image", "cost", "website", "show_map", "show_map_link",
			"hide_from_listings", "sticky", "featured", "categories", "tags", "venue", "organizer"} {
			if !contains(create, want) {
				t.Errorf("create lacks %s", want)
			}
		}
		item := routes[`/cal/events/v1/events/(?P<id>\d+)`].(map[string]any)
		if got := fmt.Sprint(item["methods"]); got != "[GET DELETE POST PUT PATCH]" {
			t.Errorf("item methods %s", got)
		}
		if !contains(argNames(`/cal/events/v1/events/(?P<id>\d+)`, 1), "force") {
			t.Error("DELETE lacks force")
		}
		if !contains(argNames(`/cal/events/v1/events/by-slug/(?P<slug>[^/]+)`, 2), "slug") {
			t.Error("by-slug update lacks slug")
		}
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
