package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

// weekly creates 10 published events one week apart (days 7, 14, … 70
// from today at 10:00 UTC), returning their ids in order.
func (e *testEnv) weekly(t *testing.T, extra func(i int) map[string]any) []int64 {
	t.Helper()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	var ids []int64
	for i := 1; i <= 10; i++ {
		start := today.AddDate(0, 0, 7*i).Add(10 * time.Hour)
		body := map[string]any{"title": fmt.Sprintf("Week %d", i), "start_date": start.Format(time.DateTime),
			"end_date": start.Add(2 * time.Hour).Format(time.DateTime)}
		if extra != nil {
			for k, v := range extra(i) {
				body[k] = v
			}
		}
		ids = append(ids, eventIDOf(e.createEvent(t, body)))
	}
	return ids
}

func day(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format("2006-01-02") }

func (e *testEnv) listTotal(t *testing.T, query string, as models.Role) (int, map[string]any) {
	t.Helper()
	r := e.do(t, "GET", "/cal/events/v1/events?"+query, nil, as)
	mustStatus(t, r, http.StatusOK)
	m := r.Map(t)
	return int(m["total"].(float64)), m
}

func TestEventArchiveScenariosOfTEC(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		e.weekly(t, nil)
		if n, _ := e.listTotal(t, "start_date="+day(35), ""); n != 6 {
			t.Errorf("start_date five weeks out: %d, want 6", n)
		}
		if n, _ := e.listTotal(t, "start_date="+day(10)+"&end_date="+day(30), ""); n != 3 {
			t.Errorf("10–30 day window: %d, want 3", n)
		}
		n, m := e.listTotal(t, "per_page=3", "")
		if n != 10 || m["total_pages"] != float64(4) || len(m["events"].([]any)) != 3 {
			t.Errorf("per_page=3: total %d pages %v events %d", n, m["total_pages"], len(m["events"].([]any)))
		}
		if _, ok := m["previous_rest_url"]; ok {
			t.Error("page 1 has a previous_rest_url")
		}
		if !strings.Contains(m["next_rest_url"].(string), "page=2") {
			t.Errorf("next %v", m["next_rest_url"])
		}
		_, m = e.listTotal(t, "per_page=3&page=2", "")
		if p := m["previous_rest_url"].(string); strings.Contains(p, "page=") && !strings.Contains(p, "per_page=") || strings.Contains(p, "&page=") {
			t.Errorf("previous of page 2 keeps page: %s", p)
		}
		if !strings.Contains(m["next_rest_url"].(string), "page=3") {
			t.Errorf("next of page 2: %v", m["next_rest_url"])
		}
		_, m = e.listTotal(t, "per_page=3&page=4", "")
		if _, ok := m["next_rest_url"]; ok || len(m["events"].([]any)) != 1 {
			t.Errorf("last page: %v", m)
		}
		if r := e.do(t, "GET", "/cal/events/v1/events?per_page=3&page=5", nil, ""); r.Status != http.StatusNotFound {
			t.Errorf("page 5: %d", r.Status)
		}
		for _, arg := range []string{"page", "per_page"} {
			for _, v := range []string{"foo", "-1", "0", "foo%20bar"} {
				if r := e.do(t, "GET", "/cal/events/v1/events?"+arg+"="+v, nil, ""); r.Status != http.StatusBadRequest {
					t.Errorf("%s=%s: %d", arg, v, r.Status)
				}
			}
		}
	})
}

func TestEventListFilters(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		ids := e.weekly(t, func(i int) map[string]any {
			switch i {
			case 1:
				return map[string]any{"featured": true, "categories": "Music"}
			case 2:
				return map[string]any{"categories": []any{map[string]any{"name": "Music"}}, "description": "音楽の夕べ"}
			case 3:
				return map[string]any{"tags": []any{"jazz"}}
			case 4:
				return map[string]any{"venue": map[string]any{"venue": "Near Hall"}}
			case 5:
				return map[string]any{"venue": map[string]any{"venue": "Far Hall"}}
			case 6:
				return map[string]any{"organizer": map[string]any{"organizer": "Org X"}}
			case 7:
				return map[string]any{"status": "draft"}
			}
			return nil
		})
		ctx := context.Background()
		get := func(id int64) map[string]any {
			r := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", id), nil, models.RoleAdministrator)
			mustStatus(t, r, http.StatusOK)
			return r.Map(t)
		}
		catID := int64(get(ids[0])["categories"].([]any)[0].(map[string]any)["id"].(float64))
		near := int64(get(ids[3])["venue"].(map[string]any)["id"].(float64))
		far := int64(get(ids[4])["venue"].(map[string]any)["id"].(float64))
		org := int64(get(ids[5])["organizer"].([]any)[0].(map[string]any)["id"].(float64))
		db := e.DB.IDB()
		for _, v := range []struct {
			id       int64
			lat, lng float64
		}{{near, 35.68, 139.76}, {far, 40.71, -74.0}} {
			if _, err := db.NewUpdate().TableExpr("venues").Set("geo_lat = ?", v.lat).Set("geo_lng = ?", v.lng).Where("id = ?", v.id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.NewUpdate().TableExpr("events").Set("parent_id = ?", ids[0]).Where("id = ?", ids[7]).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		past := eventIDOf(e.createEvent(t, map[string]any{"title": "Past", "start_date": "2020-01-01 10:00", "end_date": "2020-01-01 11:00"}))

		cases := []struct {
			query string
			as    models.Role
			want  int
		}{
			{"", "", 9},
			{"", models.RoleEditor, 10},
			{"status=publish,%20draft", models.RoleEditor, 10},
			{"status=draft", models.RoleEditor, 1},
			{"search=week%203", "", 1},
			{"search=WEEK", "", 9},
			{"search=音楽", "", 1},
			{"categories=music", "", 2},
			{fmt.Sprintf("categories=%d", catID), "", 2},
			{"categories=music&tags=jazz", "", 0},
			{"tags=jazz", "", 1},
			{fmt.Sprintf("venue=%d", near), "", 1},
			{fmt.Sprintf("venue=%d,%d", near, far), "", 2},
			{fmt.Sprintf("organizer=%d", org), "", 1},
			{"featured=1", "", 1},
			{"featured=false", "", 8},
			{fmt.Sprintf("include=%d,%d", ids[0], past), "", 2},
			{fmt.Sprintf("post_parent=%d", ids[0]), "", 1},
			{"geoloc=1", "", 2},
			{"geoloc_lat=40&geoloc_lng=-75", "", 2},
		}
		for _, c := range cases {
			if n, _ := e.listTotal(t, c.query, c.as); n != c.want {
				t.Errorf("%q as %q: %d events, want %d", c.query, c.as, n, c.want)
			}
		}
		_, m := e.listTotal(t, "geoloc_lat=40&geoloc_lng=-75", "")
		if first := m["events"].([]any)[0].(map[string]any); eventIDOf(first) != ids[4] {
			t.Errorf("nearest first: got %v", first["title"])
		}
		_, m = e.listTotal(t, "categories=music&tags=jazz&venue="+fmt.Sprint(near)+"&featured=1", "")
		for _, want := range []string{"categories=music", "tags=jazz", "featured=1", fmt.Sprintf("venue=%d", near)} {
			if !strings.Contains(m["rest_url"].(string), want) {
				t.Errorf("rest_url %s lacks %s", m["rest_url"], want)
			}
		}
		for _, q := range []string{"status=draft", "categories=nope", "venue=999999", fmt.Sprintf("venue=%d", org),
			"geoloc_lat=40", "post_parent=999999", "status=bogus"} {
			as := models.Role("")
			if strings.HasPrefix(q, "status=bogus") {
				as = models.RoleEditor
			}
			if r := e.do(t, "GET", "/cal/events/v1/events?"+q, nil, as); r.Status != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400", q, r.Status)
			}
		}
	})
}

func TestEventVisibilityPerRole(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		start := time.Now().UTC().AddDate(0, 0, 3).Format(time.DateTime)
		end := time.Now().UTC().AddDate(0, 0, 3).Add(time.Hour).Format(time.DateTime)
		body := map[string]any{"title": "Mine", "start_date": start, "end_date": end, "status": "draft"}
		r := e.do(t, "POST", "/cal/events/v1/events", body, models.RoleContributor)
		mustStatus(t, r, http.StatusCreated)
		mine := eventIDOf(r.Map(t))
		body["title"] = "Theirs"
		theirs := eventIDOf(e.createEvent(t, body))
		body["title"], body["status"] = "Public", "publish"
		r = e.do(t, "POST", "/cal/events/v1/events", body, models.RoleContributor)
		if m := r.Map(t); m["status"] != "pending" {
			t.Errorf("contributor publish became %v", m["status"])
		}
		if n, _ := e.listTotal(t, "", models.RoleContributor); n != 2 {
			t.Errorf("contributor sees %d, want own draft and own pending (2)", n)
		}
		mustStatus(t, e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", theirs), nil, models.RoleContributor), http.StatusForbidden)
		mustStatus(t, e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", mine), nil, models.RoleContributor), http.StatusOK)
		r = e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", theirs), nil, "")
		if r.Status != http.StatusForbidden || r.Code(t) != "event-not-accessible" {
			t.Errorf("anonymous draft read: %d %s", r.Status, r.Body)
		}
		// By-slug writes check the record as the id routes do (SPEC §9).
		mustStatus(t, e.do(t, "PATCH", "/cal/events/v1/events/by-slug/theirs", map[string]any{"title": "x"}, models.RoleContributor), http.StatusForbidden)
		mustStatus(t, e.do(t, "DELETE", "/cal/events/v1/events/by-slug/theirs", nil, models.RoleContributor), http.StatusForbidden)
		r = e.do(t, "PATCH", "/cal/events/v1/events/by-slug/mine", map[string]any{"slug": "renamed"}, models.RoleContributor)
		mustStatus(t, r, http.StatusOK)
		if m := r.Map(t); m["slug"] != "renamed" || m["title"] != "Mine" {
			t.Errorf("rename by slug: %v %v", m["slug"], m["title"])
		}
		mustStatus(t, e.do(t, "GET", "/cal/events/v1/events/by-slug/renamed", nil, models.RoleContributor), http.StatusOK)
		mustStatus(t, e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d", mine), nil, models.RoleContributor), http.StatusOK)
		// Subscribers may not create; anonymous may not update.
		mustStatus(t, e.do(t, "POST", "/cal/events/v1/events", body, models.RoleSubscriber), http.StatusForbidden)
		mustStatus(t, e.do(t, "POST", fmt.Sprintf("/cal/events/v1/events/%d", theirs), map[string]any{"title": "x"}, ""), http.StatusUnauthorized)
	})
}

// include_hidden (our extension) lists events hidden from listings for
// contributors and up, and is ignored for anonymous callers and
// subscribers, whose lists never show them.
func TestIncludeHiddenIsHonouredOnlyForThoseWhoSeeDrafts(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		e.weekly(t, func(i int) map[string]any { return map[string]any{"hide_from_listings": i <= 3} })
		for _, tt := range []struct {
			as   models.Role
			want int
		}{{"", 7}, {models.RoleSubscriber, 7}, {models.RoleContributor, 10}, {models.RoleEditor, 10}} {
			if n, _ := e.listTotal(t, "include_hidden=true", tt.as); n != tt.want {
				t.Errorf("%q with include_hidden: %d, want %d", tt.as, n, tt.want)
			}
			if n, _ := e.listTotal(t, "", tt.as); n != 7 {
				t.Errorf("%q without: %d, want 7", tt.as, n)
			}
		}
		if _, m := e.listTotal(t, "include_hidden=true&per_page=2", models.RoleEditor); !strings.Contains(fmt.Sprint(m["next_rest_url"]), "include_hidden=true") {
			t.Errorf("next_rest_url %v does not keep include_hidden", m["next_rest_url"])
		}
	})
}
