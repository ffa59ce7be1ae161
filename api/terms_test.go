package api

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"sync"
	"testing"

	"github.com/kalends/kalends/models"
)

const ns = "/cal/events/v1"

// mkTerm creates a term through the API as an editor and returns its id.
func mkTerm(t *testing.T, e *testEnv, coll, name string, extra map[string]any) int64 {
	t.Helper()
	body := map[string]any{"name": name}
	for k, v := range extra {
		body[k] = v
	}
	res := e.do(t, "POST", ns+coll, body, models.RoleEditor)
	if res.Status != 201 {
		t.Fatalf("create %s %q: %d %s", coll, name, res.Status, res.Body)
	}
	return int64(res.Map(t)["id"].(float64))
}

// mkEvent writes a bare event with a status, linked to terms (the events
// API is another branch's; the store row is all term counts need).
func mkEvent(t *testing.T, e *testEnv, status string, termIDs ...int64) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := e.DB.NewPostID(ctx, models.KindEvent)
	if err != nil {
		t.Fatal(err)
	}
	now := models.Now()
	ev := &models.Event{Post: models.Post{ID: id, Status: status, Slug: fmt.Sprint("event-", id), Lang: "en",
		PublishedAt: now, CreatedAt: now, UpdatedAt: now}, Title: "E", StartAt: now, EndAt: now, Timezone: "UTC"}
	if _, err := e.DB.IDB().NewInsert().Model(ev).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tid := range termIDs {
		if _, err := e.DB.IDB().NewInsert().Model(&models.EventTerm{EventID: id, TermID: tid}).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Stored behind the store's back: bring the term counts up to date.
	if _, err := e.DB.RecountTerms(ctx); err != nil {
		t.Fatal(err)
	}
	return id
}

// names lists the name of every item of a term list body.
func names(t *testing.T, body map[string]any, key string) []string {
	t.Helper()
	items, ok := body[key].([]any)
	if !ok {
		t.Fatalf("no %s list in %v", key, body)
	}
	out := []string{}
	for _, it := range items {
		out = append(out, it.(map[string]any)["name"].(string))
	}
	return out
}

func TestTermCreateReadShapes(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		res := e.do(t, "POST", ns+"/categories", map[string]any{"name": "Conferences", "description": "Conference events"}, models.RoleAuthor)
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		m := res.Map(t)
		id := int64(m["id"].(float64))
		if got, want := res.Header.Get("Location"), fmt.Sprintf("http://example.test%s/categories/%d", ns, id); got != want {
			t.Errorf("Location = %q, want %q", got, want)
		}
		wantKeys := []string{"id", "count", "description", "name", "slug", "taxonomy", "parent", "meta", "url", "urls", "_links", "lang", "translations"}
		if got := res.Keys(t); !reflect.DeepEqual(got, wantKeys) {
			t.Errorf("keys = %v, want %v", got, wantKeys)
		}
		if m["count"].(float64) != 0 || m["slug"] != "conferences" || m["taxonomy"] != "tribe_events_cat" ||
			m["url"] != "http://example.test/events/category/conferences/" || m["lang"] != "en" ||
			!reflect.DeepEqual(m["translations"], []any{}) || !reflect.DeepEqual(m["meta"], []any{}) {
			t.Errorf("created category = %s", res.Body)
		}
		urls := m["urls"].(map[string]any)
		if urls["self"] != fmt.Sprintf("http://example.test%s/categories/%d", ns, id) || urls["collection"] != "http://example.test"+ns+"/categories" {
			t.Errorf("urls = %v", urls)
		}
		got := e.do(t, "GET", fmt.Sprintf("%s/categories/%d", ns, id), nil, models.RoleAuthor)
		if got.Status != 200 || string(got.Body) != string(res.Body) {
			t.Errorf("read = %d %s, want the created body", got.Status, got.Body)
		}

		tag := e.do(t, "POST", ns+"/tags", map[string]any{"name": "featured-talk"}, models.RoleEditor)
		wantTagKeys := []string{"id", "count", "description", "name", "slug", "taxonomy", "meta", "url", "urls", "_links", "lang", "translations"}
		if tag.Status != 201 || !reflect.DeepEqual(tag.Keys(t), wantTagKeys) {
			t.Fatalf("tag create: %d %s", tag.Status, tag.Body)
		}
		tm := tag.Map(t)
		if tm["taxonomy"] != "post_tag" || tm["url"] != "http://example.test/tag/featured-talk/" {
			t.Errorf("tag = %s", tag.Body)
		}

		// A child category links up to its parent; CJK slugs stay readable.
		child := e.do(t, "POST", ns+"/categories", map[string]any{"name": "夏祭り", "parent": id}, models.RoleEditor)
		cm := child.Map(t)
		if child.Status != 201 || cm["slug"] != "夏祭り" || cm["parent"].(float64) != float64(id) ||
			cm["urls"].(map[string]any)["up"] != fmt.Sprintf("http://example.test%s/categories/%d", ns, id) ||
			cm["url"] != "http://example.test/events/category/"+url.PathEscape("夏祭り")+"/" {
			t.Errorf("child = %d %s", child.Status, child.Body)
		}
		// Under a language prefix every URL keeps it.
		ja := e.do(t, "GET", fmt.Sprintf("/ja%s/categories/%d", ns, id), nil, "")
		if jm := ja.Map(t); jm["url"] != "http://example.test/ja/events/category/conferences/" ||
			jm["urls"].(map[string]any)["self"] != fmt.Sprintf("http://example.test/ja%s/categories/%d", ns, id) {
			t.Errorf("prefixed read = %s", ja.Body)
		}
	})
}

func TestTermExistsAndSlugs(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		music := mkTerm(t, e, "/categories", "Music", nil)
		dup := e.do(t, "POST", ns+"/categories", map[string]any{"name": "  MUSIC "}, models.RoleEditor)
		if dup.Status != 400 || dup.Code(t) != "term_exists" || dup.Map(t)["data"].(map[string]any)["term_id"].(float64) != float64(music) {
			t.Errorf("duplicate name = %d %s", dup.Status, dup.Body)
		}
		// The same name under another parent is fine, and gets a unique slug.
		rock := mkTerm(t, e, "/categories", "Rock", nil)
		sub := e.do(t, "POST", ns+"/categories", map[string]any{"name": "Music", "parent": rock}, models.RoleEditor)
		if sub.Status != 201 || sub.Map(t)["slug"] != "music-2" {
			t.Errorf("same name, other level = %d %s", sub.Status, sub.Body)
		}
		// An explicit slug is sanitized; a taken one is 400 naming slug.
		s := e.do(t, "POST", ns+"/categories", map[string]any{"name": "Jazz", "slug": "Jazz Night!"}, models.RoleEditor)
		if s.Status != 201 || s.Map(t)["slug"] != "jazz-night" {
			t.Errorf("explicit slug = %d %s", s.Status, s.Body)
		}
		taken := e.do(t, "POST", ns+"/categories", map[string]any{"name": "Blues", "slug": "music"}, models.RoleEditor)
		if taken.Status != 400 || taken.Code(t) != "rest_invalid_param" || taken.Map(t)["data"].(map[string]any)["params"].(map[string]any)["slug"] == nil {
			t.Errorf("taken slug = %d %s", taken.Status, taken.Body)
		}
		// Tags are another taxonomy: same name and slug are free there.
		if tag := e.do(t, "POST", ns+"/tags", map[string]any{"name": "Music", "slug": "music"}, models.RoleEditor); tag.Status != 201 {
			t.Errorf("tag with a category's name = %d %s", tag.Status, tag.Body)
		}
	})
}

func TestTermConcurrentCreatesOfOneName(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		const n = 8
		status := make([]int, n)
		codes := make([]string, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				res := e.do(t, "POST", ns+"/tags", map[string]any{"name": "Race"}, models.RoleEditor)
				status[i] = res.Status
				if res.Status != 201 {
					codes[i] = res.Code(t)
				}
			}(i)
		}
		wg.Wait()
		created := 0
		for i := range status {
			switch {
			case status[i] == 201:
				created++
			case status[i] != 400 || codes[i] != "term_exists":
				t.Errorf("request %d: %d %s", i, status[i], codes[i])
			}
		}
		if created != 1 {
			t.Errorf("%d creates succeeded, want exactly 1 (statuses %v)", created, status)
		}
	})
}

func TestTermRoles(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		cat := mkTerm(t, e, "/categories", "Cat", nil)
		tag := mkTerm(t, e, "/tags", "Tag", nil)
		cases := []struct {
			role   models.Role
			method string
			path   string
			want   int
		}{
			{"", "POST", "/categories", 401},
			{models.RoleSubscriber, "POST", "/categories", 403},
			{models.RoleContributor, "POST", "/categories", 403},
			{models.RoleAuthor, "POST", "/categories", 201},
			{models.RoleAuthor, "POST", "/tags", 403},
			{models.RoleEditor, "POST", "/tags", 201},
			{"", "PATCH", fmt.Sprint("/categories/", cat), 401},
			{models.RoleContributor, "PUT", fmt.Sprint("/categories/", cat), 403},
			{models.RoleAuthor, "PATCH", fmt.Sprint("/categories/", cat), 200},
			{models.RoleAuthor, "POST", fmt.Sprint("/tags/", tag), 403},
			{"", "DELETE", fmt.Sprint("/tags/", tag), 401},
			{models.RoleSubscriber, "DELETE", fmt.Sprint("/tags/", tag), 403},
			{models.RoleAuthor, "DELETE", fmt.Sprint("/tags/", tag), 403},
			{models.RoleAdministrator, "DELETE", fmt.Sprint("/tags/", tag), 200},
			{"", "GET", fmt.Sprint("/categories/", cat), 200},
			{models.RoleSubscriber, "GET", "/categories?hide_empty=0", 200},
		}
		for i, c := range cases {
			var body any = map[string]any{"name": fmt.Sprint("New ", i)}
			if c.method == "GET" || c.method == "DELETE" {
				body = nil
			}
			res := e.do(t, c.method, ns+c.path, body, c.role)
			if res.Status != c.want {
				t.Errorf("%s %s %s as %q = %d, want %d: %s", "", c.method, c.path, c.role, res.Status, c.want, res.Body)
			}
		}
		// The Allow header lists what the caller may do.
		if got := e.do(t, "GET", fmt.Sprint(ns, "/categories/", cat), nil, "").Header.Get("Allow"); got != "GET" {
			t.Errorf("anonymous Allow = %q", got)
		}
		if got := e.do(t, "GET", fmt.Sprint(ns, "/categories/", cat), nil, models.RoleAuthor).Header.Get("Allow"); got != "GET, POST, PUT, PATCH, DELETE" {
			t.Errorf("author Allow = %q", got)
		}
	})
}

func TestTermUnknownIDs(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		cat := mkTerm(t, e, "/categories", "Cat", nil)
		for _, c := range []struct {
			method, path string
			as           models.Role
		}{
			{"GET", "/categories/999999", ""},
			{"GET", fmt.Sprint("/tags/", cat), ""}, // a category is not a tag
			{"PATCH", "/categories/999999", models.RoleEditor},
			{"DELETE", fmt.Sprint("/tags/", cat), models.RoleEditor},
		} {
			res := e.do(t, c.method, ns+c.path, nil, c.as)
			if res.Status != 404 || res.Code(t) != "rest_term_invalid" {
				t.Errorf("%s %s = %d %s", c.method, c.path, res.Status, res.Body)
			}
		}
		if res := e.do(t, "GET", ns+"/categories/abc", nil, ""); res.Status != 404 || res.Code(t) != "rest_no_route" {
			t.Errorf("non-numeric id = %d %s", res.Status, res.Body)
		}
	})
}
