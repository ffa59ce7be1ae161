package api

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

func TestTermUpdateIsPartial(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		id := mkTerm(t, e, "/categories", "Conferences", map[string]any{"description": "Talks"})
		path := fmt.Sprint(ns, "/categories/", id)
		// A name change keeps the slug and the description.
		res := e.do(t, "POST", path, map[string]any{"name": "Conferences & Summits"}, models.RoleAuthor)
		m := res.Map(t)
		if res.Status != 200 || m["name"] != "Conferences & Summits" || m["slug"] != "conferences" || m["description"] != "Talks" {
			t.Errorf("rename = %d %s", res.Status, res.Body)
		}
		// PUT and PATCH are the same operation; description may be cleared.
		res = e.do(t, "PATCH", path, map[string]any{"description": "", "slug": "Summits"}, models.RoleAuthor)
		m = res.Map(t)
		if res.Status != 200 || m["description"] != "" || m["slug"] != "summits" || m["name"] != "Conferences & Summits" {
			t.Errorf("patch = %d %s", res.Status, res.Body)
		}
		// Updating to the own name in another case is no conflict.
		if res := e.do(t, "PUT", path, map[string]any{"name": "CONFERENCES & SUMMITS"}, models.RoleAuthor); res.Status != 200 {
			t.Errorf("own name = %d %s", res.Status, res.Body)
		}
		other := mkTerm(t, e, "/categories", "Other", nil)
		for _, c := range []struct {
			body  map[string]any
			code  string
			param string
		}{
			{map[string]any{"name": "other"}, "term_exists", ""},
			{map[string]any{"slug": "other"}, "rest_invalid_param", "slug"},
			{map[string]any{"slug": "!!!"}, "rest_invalid_param", "slug"},
			{map[string]any{"slug": ""}, "rest_invalid_param", "slug"},
			{map[string]any{"name": "   "}, "rest_invalid_param", "name"},
			{map[string]any{"name": strings.Repeat("n", 256)}, "rest_invalid_param", "name"},
			{map[string]any{"description": strings.Repeat("d", 65537)}, "rest_invalid_param", "description"},
			{map[string]any{"parent": id}, "rest_invalid_param", "parent"},
			{map[string]any{"parent": 999999}, "rest_invalid_param", "parent"},
			{map[string]any{"parent": -1}, "rest_invalid_param", "parent"},
			{map[string]any{"parent": "foo"}, "rest_invalid_param", "parent"},
			{map[string]any{"name": []any{"x"}}, "rest_invalid_param", "name"},
		} {
			res := e.do(t, "PATCH", path, c.body, models.RoleEditor)
			if res.Status != 400 || res.Code(t) != c.code {
				t.Errorf("%v: %d %s", c.body, res.Status, res.Body)
				continue
			}
			if c.code == "term_exists" && res.Map(t)["data"].(map[string]any)["term_id"].(float64) != float64(other) {
				t.Errorf("%v: term_id %s", c.body, res.Body)
			}
			if c.param != "" {
				if _, ok := res.Map(t)["data"].(map[string]any)["params"].(map[string]any)[c.param]; !ok {
					t.Errorf("%v: error does not name %s: %s", c.body, c.param, res.Body)
				}
			}
		}
	})
}

func TestTermHierarchyHasNoCycles(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		a := mkTerm(t, e, "/categories", "A", nil)
		b := mkTerm(t, e, "/categories", "B", map[string]any{"parent": a})
		c := mkTerm(t, e, "/categories", "C", map[string]any{"parent": b})
		for _, p := range []int64{a, b, c} {
			res := e.do(t, "PATCH", fmt.Sprint(ns, "/categories/", a), map[string]any{"parent": p}, models.RoleEditor)
			if res.Status != 400 || res.Map(t)["data"].(map[string]any)["params"].(map[string]any)["parent"] == nil {
				t.Errorf("A under %d: %d %s", p, res.Status, res.Body)
			}
		}
		// Moving C to the top, then A under C, is fine.
		if res := e.do(t, "PATCH", fmt.Sprint(ns, "/categories/", c), map[string]any{"parent": 0}, models.RoleEditor); res.Status != 200 || res.Map(t)["parent"].(float64) != 0 {
			t.Errorf("C to top: %d %s", res.Status, res.Body)
		}
		if res := e.do(t, "PATCH", fmt.Sprint(ns, "/categories/", a), map[string]any{"parent": c}, models.RoleEditor); res.Status != 200 {
			t.Errorf("A under C: %d %s", res.Status, res.Body)
		}
		// Tags ignore parent: the argument does not exist on /tags.
		tag := e.do(t, "POST", ns+"/tags", map[string]any{"name": "T", "parent": a}, models.RoleEditor)
		if tag.Status != 201 {
			t.Errorf("tag with parent: %d %s", tag.Status, tag.Body)
		}
	})
}

func TestTermDelete(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		root := mkTerm(t, e, "/categories", "Root", nil)
		mid := mkTerm(t, e, "/categories", "Mid", map[string]any{"parent": root})
		leaf := mkTerm(t, e, "/categories", "Leaf", map[string]any{"parent": mid})
		ev := mkEvent(t, e, models.StatusPublish, mid, leaf)
		res := e.do(t, "DELETE", fmt.Sprint(ns, "/categories/", mid), nil, models.RoleAuthor)
		m := res.Map(t)
		if res.Status != 200 || m["name"] != "Mid" || m["count"].(float64) != 1 || m["parent"].(float64) != float64(root) {
			t.Fatalf("delete = %d %s", res.Status, res.Body)
		}
		if res := e.do(t, "GET", fmt.Sprint(ns, "/categories/", mid), nil, ""); res.Status != 404 {
			t.Errorf("deleted term still readable: %d", res.Status)
		}
		// The child moved up to the deleted term's parent; the event keeps its other link.
		if res := e.do(t, "GET", fmt.Sprint(ns, "/categories/", leaf), nil, ""); res.Map(t)["parent"].(float64) != float64(root) {
			t.Errorf("leaf after delete: %s", res.Body)
		}
		list := e.do(t, "GET", fmt.Sprint(ns, "/categories?post=", ev), nil, "")
		if got := names(t, list.Map(t), "categories"); !reflect.DeepEqual(got, []string{"Leaf"}) {
			t.Errorf("event's categories after delete = %v", got)
		}
		var links int
		if err := e.DB.IDB().NewRaw("SELECT COUNT(*) FROM event_terms WHERE term_id = ?", mid).Scan(context.Background(), &links); err != nil || links != 0 {
			t.Errorf("links left: %d %v", links, err)
		}
		// A child whose name clashes at the new level blocks the delete.
		dupTop := mkTerm(t, e, "/categories", "Twin", nil)
		holder := mkTerm(t, e, "/categories", "Holder", nil)
		mkTerm(t, e, "/categories", "twin", map[string]any{"parent": holder})
		res = e.do(t, "DELETE", fmt.Sprint(ns, "/categories/", holder), nil, models.RoleEditor)
		if res.Status != 400 || res.Code(t) != "term_exists" || res.Map(t)["data"].(map[string]any)["term_id"].(float64) != float64(dupTop) {
			t.Errorf("clashing delete = %d %s", res.Status, res.Body)
		}
	})
}

func TestTermTranslations(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		id := mkTerm(t, e, "/categories", "Music", map[string]any{"description": "Concerts"})
		mkEvent(t, e, models.StatusPublish, id)
		path := fmt.Sprint(ns, "/categories/", id)
		res := e.do(t, "PATCH", path+"?ml_language=ja", map[string]any{"name": "音楽", "slug": "music-ja"}, models.RoleEditor)
		m := res.Map(t)
		if res.Status != 200 || m["name"] != "音楽" || m["description"] != "Concerts" || m["lang"] != "en" ||
			!reflect.DeepEqual(m["translations"], []any{"ja"}) || m["slug"] != "music-ja" {
			t.Errorf("ja update = %d %s", res.Status, res.Body)
		}
		en := e.do(t, "GET", path, nil, "").Map(t)
		if en["name"] != "Music" || en["slug"] != "music-ja" {
			t.Errorf("en read after ja update = %v", en)
		}
		if ja := e.do(t, "GET", "/ja"+path, nil, "").Map(t); ja["name"] != "音楽" {
			t.Errorf("prefixed ja read = %v", ja)
		}
		// Search covers the request language's names.
		list := e.do(t, "GET", ns+"/categories?search=音&ml_language=ja", nil, "")
		if got := names(t, list.Map(t), "categories"); !reflect.DeepEqual(got, []string{"音楽"}) {
			t.Errorf("ja search = %v", got)
		}
		if got := names(t, e.do(t, "GET", ns+"/categories?search=音", nil, "").Map(t), "categories"); len(got) != 0 {
			t.Errorf("en search for a ja name = %v", got)
		}
		// Created in Korean: Korean is the source language.
		ko := e.do(t, "POST", ns+"/tags?ml_language=ko", map[string]any{"name": "서울"}, models.RoleEditor).Map(t)
		if ko["lang"] != "ko" || ko["slug"] != "서울" {
			t.Errorf("ko create = %v", ko)
		}
	})
}

func TestTermRoutesInIndex(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		res := e.do(t, "GET", ns+"/", nil, "")
		routes := res.Map(t)["routes"].(map[string]any)
		coll := routes["/"+Namespace+"/categories"].(map[string]any)
		eps := coll["endpoints"].([]any)
		list := eps[0].(map[string]any)["args"].(map[string]any)
		if pp := list["per_page"].(map[string]any); pp["default"].(float64) != 120 || pp["type"] != "integer" {
			t.Errorf("per_page = %v", pp)
		}
		if he := list["hide_empty"].(map[string]any); he["default"] != "1" || he["type"] != "boolean" {
			t.Errorf("hide_empty = %v", he)
		}
		if inc := list["include"].(map[string]any); inc["items"].(map[string]any)["type"] != "integer" || inc["type"] != nil {
			t.Errorf("include = %v", inc)
		}
		for _, name := range []string{"page", "per_page", "search", "exclude", "include", "order", "orderby", "hide_empty", "parent", "post", "event", "slug", "ml_language"} {
			if _, ok := list[name]; !ok {
				t.Errorf("categories list lacks %s", name)
			}
		}
		item := routes["/"+Namespace+`/tags/(?P<id>\d+)`].(map[string]any)
		var methods [][]any
		for _, ep := range item["endpoints"].([]any) {
			methods = append(methods, ep.(map[string]any)["methods"].([]any))
		}
		want := [][]any{{"GET"}, {"POST", "PUT", "PATCH"}, {"DELETE"}}
		if !reflect.DeepEqual(methods, want) {
			t.Errorf("tag item endpoints = %v", methods)
		}
		tagList := routes["/"+Namespace+"/tags"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["args"].(map[string]any)
		if _, ok := tagList["parent"]; ok {
			t.Error("tags list must not have parent")
		}
	})
}

// count follows the events API: create, update, trash and delete.
func TestTermCountFollowsEvents(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		jazz := mkTerm(t, e, "/categories", "Jazz", nil)
		count := func(id int64) float64 {
			t.Helper()
			res := e.do(t, "GET", fmt.Sprint(ns, "/categories/", id), nil, "")
			if res.Status != 200 {
				t.Fatalf("read category: %d %s", res.Status, res.Body)
			}
			return res.Map(t)["count"].(float64)
		}
		ev := e.do(t, "POST", ns+"/events", map[string]any{"title": "Gig", "start_date": "2030-05-01 20:00", "end_date": "2030-05-01 23:00",
			"status": "publish", "categories": []any{jazz, "Blues"}, "tags": []any{"late"}}, models.RoleEditor)
		if ev.Status != 201 {
			t.Fatalf("create event: %d %s", ev.Status, ev.Body)
		}
		em := ev.Map(t)
		evID := int64(em["id"].(float64))
		cats := em["categories"].([]any)
		// Embedded terms come in name order, as WordPress lists an object's terms.
		if len(cats) != 2 || cats[0].(map[string]any)["name"] != "Blues" || cats[1].(map[string]any)["count"].(float64) != 1 {
			t.Errorf("embedded categories = %v", cats)
		}
		if c := count(jazz); c != 1 {
			t.Errorf("count after create = %v", c)
		}
		path := fmt.Sprint(ns, "/events/", evID)
		if res := e.do(t, "PATCH", path, map[string]any{"status": "draft"}, models.RoleEditor); res.Status != 200 {
			t.Fatalf("unpublish: %d %s", res.Status, res.Body)
		}
		if c := count(jazz); c != 0 {
			t.Errorf("count of a draft's category = %v", c)
		}
		if res := e.do(t, "PATCH", path, map[string]any{"status": "publish"}, models.RoleEditor); res.Status != 200 {
			t.Fatalf("publish: %d %s", res.Status, res.Body)
		}
		if res := e.do(t, "DELETE", path, nil, models.RoleEditor); res.Status != 200 {
			t.Fatalf("trash: %d %s", res.Status, res.Body)
		}
		if c := count(jazz); c != 0 {
			t.Errorf("count after trash = %v", c)
		}
		if names := names(t, e.do(t, "GET", ns+"/categories", nil, "").Map(t), "categories"); len(names) != 0 {
			t.Errorf("hide_empty list after trash = %v", names)
		}
		if res := e.do(t, "DELETE", path+"?force=true", nil, models.RoleEditor); res.Status != 200 {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		if c := count(jazz); c != 0 {
			t.Errorf("count after delete = %v", c)
		}
	})
}
