package api

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

const nsURL = "/cal/events/v1"

// linkedEvent stores a bare event directly (the events routes are another
// helper's), linked to the given venues and organizers.
func linkedEvent(t *testing.T, e *testEnv, status string, end time.Time, venues, organizers []int64) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := e.DB.NewPostID(ctx, models.KindEvent)
	if err != nil {
		t.Fatal(err)
	}
	now := models.Now()
	ev := &models.Event{Post: models.Post{ID: id, Status: status, Slug: fmt.Sprintf("event-%d", id), Lang: "en",
		PublishedAt: now, CreatedAt: now, UpdatedAt: now}, Title: "E", StartAt: models.Sec(end.Add(-time.Hour)), EndAt: models.Sec(end), Timezone: "UTC"}
	if _, err := e.DB.IDB().NewInsert().Model(ev).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for i, v := range venues {
		if _, err := e.DB.IDB().NewInsert().Model(&models.EventVenue{EventID: id, VenueID: v, Position: i}).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i, o := range organizers {
		if _, err := e.DB.IDB().NewInsert().Model(&models.EventOrganizer{EventID: id, OrganizerID: o, Position: i}).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// idOf returns the id of a record body.
func idOf(t *testing.T, r *testResp) int64 {
	t.Helper()
	f, ok := r.Map(t)["id"].(float64)
	if !ok {
		t.Fatalf("no id in %d %.300s", r.Status, r.Body)
	}
	return int64(f)
}

// listIDs returns the ids of a list body under key, and its total.
func listIDs(t *testing.T, r *testResp, key string) ([]int64, int) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("list: %d %.300s", r.Status, r.Body)
	}
	m := r.Map(t)
	var ids []int64
	items, _ := m[key].([]any)
	for _, it := range items {
		ids = append(ids, int64(it.(map[string]any)["id"].(float64)))
	}
	return ids, int(m["total"].(float64))
}

func expect(t *testing.T, what string, r *testResp, status int, code string) {
	t.Helper()
	if r.Status != status || (code != "" && r.Code(t) != code) {
		t.Errorf("%s: %d %.400s, want %d %s", what, r.Status, r.Body, status, code)
	}
}

func TestVenueCreateReadUpdateTrash(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		body := map[string]any{"venue": "Grand Arena", "address": "1 Main St", "city": "Metropolis", "country": "United States",
			"state": "NY", "zip": "10001", "phone": "555-1234", "website": "https://arena.example.com"}
		r := e.do(t, "POST", nsURL+"/venues", body, models.RoleAdministrator)
		expect(t, "create", r, 201, "")
		id := idOf(t, r)
		if loc := r.Header.Get("Location"); loc != fmt.Sprintf("http://example.test/cal/events/v1/venues/%d", id) {
			t.Errorf("Location = %q", loc)
		}
		want := "id,author,status,date,date_utc,modified,modified_utc,url,venue,slug,address,city,country,state,zip,phone,website,stateprovince,show_map,show_map_link,global_id,global_id_lineage,lang,translations"
		if got := strings.Join(r.Keys(t), ","); got != want {
			t.Errorf("create keys\n got %s\nwant %s", got, want)
		}
		m := r.Map(t)
		if m["stateprovince"] != "NY" || m["show_map"] != true || m["url"] != "http://example.test/venue/grand-arena/" || m["author"] != fmt.Sprint(e.Users[models.RoleAdministrator].ID) {
			t.Errorf("create body: %s", r.Body)
		}
		again := e.do(t, "POST", nsURL+"/venues", body, models.RoleAdministrator)
		if again.Status != 201 || idOf(t, again) != id {
			t.Errorf("second identical POST: %d %s, want 201 and id %d", again.Status, again.Body, id)
		}

		for _, path := range []string{fmt.Sprintf("/venues/%d", id), "/venues/by-slug/grand-arena"} {
			g := e.do(t, "GET", nsURL+path, nil, "")
			expect(t, "get "+path, g, 200, "")
			ld, _ := g.Map(t)["json_ld"].(map[string]any)
			if ld["@type"] != "Place" || ld["address"].(map[string]any)["addressRegion"] != "NY" {
				t.Errorf("json_ld of %s: %v", path, ld)
			}
		}

		// Partial update: fields not sent keep their values; "" clears.
		u := e.do(t, "PATCH", fmt.Sprintf("%s/venues/%d", nsURL, id), map[string]any{"venue": "Grand Arena (renamed)", "zip": "", "show_map": false}, models.RoleEditor)
		expect(t, "update", u, 200, "")
		um := u.Map(t)
		if um["venue"] != "Grand Arena (renamed)" || um["phone"] != "555-1234" || um["website"] != "https://arena.example.com" ||
			um["show_map"] != false || um["show_map_link"] != true || um["status"] != "publish" || um["slug"] != "grand-arena" {
			t.Errorf("partial update: %s", u.Body)
		}
		if _, has := um["zip"]; has {
			t.Errorf("cleared zip still shown: %s", u.Body)
		}
		expect(t, "empty name on update", e.do(t, "PUT", fmt.Sprintf("%s/venues/%d", nsURL, id), map[string]any{"venue": ""}, models.RoleEditor), 400, "rest_invalid_param")

		// Trash, then 410; reads of a trashed venue are 403 for anonymous callers.
		ev := linkedEvent(t, e, models.StatusPublish, time.Now().Add(time.Hour), []int64{id}, nil)
		expect(t, "anonymous delete", e.do(t, "DELETE", fmt.Sprintf("%s/venues/%d", nsURL, id), nil, ""), 401, "rest_forbidden")
		d := e.do(t, "DELETE", fmt.Sprintf("%s/venues/%d", nsURL, id), nil, models.RoleEditor)
		if d.Status != 200 || d.Map(t)["status"] != "trash" {
			t.Errorf("trash: %d %s", d.Status, d.Body)
		}
		ids, _ := listIDs(t, e.do(t, "GET", fmt.Sprintf("%s/venues?event=%d", nsURL, ev), nil, models.RoleEditor), "venues")
		if len(ids) != 0 {
			t.Errorf("trashed venue still linked to its event: %v", ids)
		}
		expect(t, "delete again", e.do(t, "DELETE", nsURL+"/venues/by-slug/grand-arena", nil, models.RoleEditor), 410, "venue-is-in-trash")
		expect(t, "anonymous read of trashed", e.do(t, "GET", fmt.Sprintf("%s/venues/%d", nsURL, id), nil, ""), 403, "venue-not-accessible")
		expect(t, "author force", e.do(t, "DELETE", fmt.Sprintf("%s/venues/%d?force=true", nsURL, id), nil, models.RoleAuthor), 403, "rest_forbidden")
		expect(t, "editor force", e.do(t, "DELETE", fmt.Sprintf("%s/venues/%d?force=true", nsURL, id), nil, models.RoleEditor), 200, "")
		expect(t, "gone for good", e.do(t, "GET", fmt.Sprintf("%s/venues/%d", nsURL, id), nil, models.RoleEditor), 404, "rest-venue-not-found")
	})
}

func TestVenueErrorsAndRoles(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		ed := e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "Editor Hall"}, models.RoleEditor)
		id := idOf(t, ed)
		ev := linkedEvent(t, e, models.StatusPublish, time.Now(), nil, nil)
		for _, c := range []struct {
			name, method, path string
			body               any
			as                 models.Role
			status             int
			code               string
		}{
			{"unknown id", "GET", "/venues/999999", nil, "", 404, "rest-venue-not-found"},
			{"unknown slug", "GET", "/venues/by-slug/nope", nil, "", 404, "rest-venue-not-found"},
			{"unknown id update", "POST", "/venues/999999", map[string]any{"city": "X"}, models.RoleEditor, 404, "rest-venue-not-found"},
			{"event id on venue route", "GET", fmt.Sprintf("/venues/%d", ev), nil, "", 400, "rest_invalid_param"},
			// A caller who may not write learns nothing, not even the kind of an id (SPEC §9).
			{"event id, anonymous delete", "DELETE", fmt.Sprintf("/venues/%d", ev), nil, "", 401, "rest_forbidden"},
			{"event id, editor delete", "DELETE", fmt.Sprintf("/venues/%d", ev), nil, models.RoleEditor, 400, "rest_invalid_param"},
			{"venue id on organizer route", "GET", fmt.Sprintf("/organizers/%d", id), nil, "", 400, "rest_invalid_param"},
			{"anonymous create", "POST", "/venues", map[string]any{"venue": "X"}, "", 401, "rest_forbidden"},
			{"subscriber create", "POST", "/venues", map[string]any{"venue": "X"}, models.RoleSubscriber, 403, "rest_forbidden"},
			{"anonymous update", "POST", fmt.Sprintf("/venues/%d", id), map[string]any{"city": "X"}, "", 401, "rest_forbidden"},
			{"contributor edits editor's venue", "PATCH", fmt.Sprintf("/venues/%d", id), map[string]any{"city": "X"}, models.RoleContributor, 403, "rest_forbidden"},
			{"contributor edits by slug", "PATCH", "/venues/by-slug/editor-hall", map[string]any{"city": "X"}, models.RoleContributor, 403, "rest_forbidden"},
			{"contributor trashes by slug", "DELETE", "/venues/by-slug/editor-hall", nil, models.RoleContributor, 403, "rest_forbidden"},
			{"author names another author", "POST", "/venues", map[string]any{"venue": "X", "author": e.Users[models.RoleEditor].ID}, models.RoleAuthor, 403, "rest_forbidden"},
			{"missing name", "POST", "/venues", map[string]any{"city": "Nowhere"}, models.RoleEditor, 400, "rest_missing_callback_param"},
			{"empty name", "POST", "/venues", map[string]any{"venue": ""}, models.RoleEditor, 400, "rest_invalid_param"},
			{"bad website", "POST", "/venues", map[string]any{"venue": "X", "website": "foo"}, models.RoleEditor, 400, "rest_invalid_param"},
			{"bad image", "POST", "/venues", map[string]any{"venue": "X", "image": "javascript:alert(1)"}, models.RoleEditor, 400, "rest_invalid_param"},
			{"latitude out of range", "POST", "/venues", map[string]any{"venue": "X", "geo_lat": 91}, models.RoleEditor, 400, "rest_invalid_param"},
			{"longitude as text", "POST", "/venues", map[string]any{"venue": "X", "geo_lng": "east"}, models.RoleEditor, 400, "rest_invalid_param"},
			{"bad status", "POST", "/venues", map[string]any{"venue": "X", "status": "kinda_thinking_about_it"}, models.RoleEditor, 400, "rest_invalid_param"},
			{"unknown author", "POST", "/venues", map[string]any{"venue": "X", "author": 99999}, models.RoleEditor, 400, "rest_invalid_param"},
			{"zip as number", "POST", "/venues", map[string]any{"venue": "X", "zip": 10001}, models.RoleEditor, 400, "rest_invalid_param"},
			{"name as object", "POST", "/venues", map[string]any{"venue": map[string]any{"a": 1}}, models.RoleEditor, 400, "rest_invalid_param"},
			{"bad email", "POST", "/organizers", map[string]any{"organizer": "X", "email": "not-an-address"}, models.RoleEditor, 400, "rest_invalid_param"},
			{"organizer missing name", "POST", "/organizers", map[string]any{"email": "x@example.com"}, models.RoleEditor, 400, "rest_missing_callback_param"},
			{"unknown organizer", "GET", "/organizers/by-slug/nope", nil, "", 404, "rest-organizer-not-found"},
			{"anonymous status filter", "GET", "/venues?status=draft", nil, "", 400, "rest_invalid_param"},
			{"subscriber status filter", "GET", "/organizers?status=draft", nil, models.RoleSubscriber, 400, "rest_invalid_param"},
			{"unknown event filter", "GET", "/venues?event=999999", nil, "", 400, "rest_invalid_param"},
			{"venue as event filter", "GET", fmt.Sprintf("/venues?event=%d", id), nil, "", 400, "rest_invalid_param"},
			{"per_page zero", "GET", "/venues?per_page=0", nil, "", 400, "rest_invalid_param"},
			{"page past the end", "GET", "/venues?page=3", nil, "", 404, "venue-archive-page-not-found"},
			{"organizer page past the end", "GET", "/organizers?page=2", nil, "", 404, "organizer-archive-page-not-found"},
		} {
			r := e.do(t, c.method, nsURL+c.path, c.body, c.as)
			expect(t, c.name, r, c.status, c.code)
			if c.code == "rest_invalid_param" && r.Status == 400 {
				params, _ := r.Map(t)["data"].(map[string]any)["params"].(map[string]any)
				if len(params) == 0 {
					t.Errorf("%s: no param named in %s", c.name, r.Body)
				}
			}
		}
		// A contributor edits and trashes their own unpublished venue.
		c := e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "Mine", "status": "publish"}, models.RoleContributor)
		if c.Map(t)["status"] != "pending" {
			t.Errorf("contributor publish: %s", c.Body)
		}
		expect(t, "contributor edits own", e.do(t, "PATCH", fmt.Sprintf("%s/venues/%d", nsURL, idOf(t, c)), map[string]any{"city": "Y"}, models.RoleContributor), 200, "")
		expect(t, "empty page 1", e.do(t, "GET", nsURL+"/organizers", nil, ""), 200, "")
		if b := string(e.do(t, "GET", nsURL+"/organizers", nil, "").Body); !strings.HasPrefix(b, `{"organizers":[],`) || !strings.Contains(b, `"total":0,"total_pages":0`) {
			t.Errorf("empty list: %s", b)
		}
	})
}

func TestLinkedPublicationDates(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		loc, _ := time.LoadLocation("Asia/Tokyo")
		e.Deps.Site.Location = loc
		r := e.do(t, "POST", nsURL+"/organizers", map[string]any{"organizer": "Dated", "date": "2026-01-02 09:00:00"}, models.RoleEditor)
		m := r.Map(t)
		if m["date"] != "2026-01-02 09:00:00" || m["date_utc"] != "2026-01-02 00:00:00" {
			t.Errorf("date in the site zone: %s", r.Body)
		}
		r = e.do(t, "PATCH", fmt.Sprintf("%s/organizers/%d", nsURL, idOf(t, r)), map[string]any{"date": "2020-01-01", "date_utc": "2025-05-05 12:00:00"}, models.RoleEditor)
		m = r.Map(t)
		if m["date_utc"] != "2025-05-05 12:00:00" || m["date"] != "2025-05-05 21:00:00" {
			t.Errorf("date_utc wins over date: %s", r.Body)
		}
		// Older publication dates sort later in lists.
		newer := idOf(t, e.do(t, "POST", nsURL+"/organizers", map[string]any{"organizer": "Newer"}, models.RoleEditor))
		if got, _ := listIDs(t, e.do(t, "GET", nsURL+"/organizers", nil, ""), "organizers"); len(got) != 2 || got[0] != newer {
			t.Errorf("order by publication date: %v", got)
		}
	})
}
