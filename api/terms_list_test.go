package api

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/models"
)

func TestTermListOrders(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		b := mkTerm(t, e, "/tags", "b", map[string]any{"description": "zz"})
		a := mkTerm(t, e, "/tags", "A", map[string]any{"description": "yy"})
		c := mkTerm(t, e, "/tags", "C", map[string]any{"description": "xx"})
		mkEvent(t, e, models.StatusPublish, a, b, c)
		mkEvent(t, e, models.StatusPublish, a)
		mkEvent(t, e, models.StatusPublish, a, c)
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"", []string{"A", "b", "C"}},
			{"orderby=name&order=asc", []string{"A", "b", "C"}},
			{"orderby=name&order=desc", []string{"C", "b", "A"}},
			{"orderby=id&order=desc", []string{"C", "A", "b"}},
			{"orderby=id", []string{"b", "A", "C"}},
			{"orderby=slug", []string{"A", "b", "C"}},
			{"orderby=description", []string{"C", "A", "b"}},
			{"orderby=count&order=desc", []string{"A", "C", "b"}},
			{"orderby=term_group", []string{"b", "A", "C"}},
			{fmt.Sprintf("orderby=include&include=%d,%d,%d", c, b, a), []string{"C", "b", "A"}},
			{fmt.Sprintf("include=%d,%d", c, b), []string{"b", "C"}},
			{fmt.Sprintf("exclude=%d", a), []string{"b", "C"}},
			{"search=B", []string{"b"}},
			{"slug=c", []string{"C"}},
		} {
			res := e.do(t, "GET", ns+"/tags?"+tc.query, nil, "")
			if res.Status != 200 {
				t.Errorf("%s: %d %s", tc.query, res.Status, res.Body)
				continue
			}
			if got := names(t, res.Map(t), "tags"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
			}
		}
	})
}

func TestTermListBadArguments(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		cat := mkTerm(t, e, "/categories", "Cat", nil)
		tag := mkTerm(t, e, "/tags", "Tag", nil)
		venueID, err := e.DB.NewPostID(context.Background(), models.KindVenue)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"exclude=999999", fmt.Sprintf("include=%d,999999", cat), fmt.Sprintf("include=%d", tag),
			"order=", "order=up", "orderby=", "orderby=name_key", "parent=", "parent=0", "parent=999999",
			fmt.Sprintf("parent=%d", tag), "post=", "post=23", "post=foo", "event=", "event=23", "event=foo",
			fmt.Sprintf("event=%d", venueID), "slug=", "page=0", "per_page=0", "per_page=-1", "hide_empty=maybe",
			"search=" + strings.Repeat("x", 201), "include=a,b", "page=99999999999999999999",
		} {
			res := e.do(t, "GET", ns+"/categories?"+q, nil, "")
			if res.Status != 400 || res.Code(t) != "rest_invalid_param" {
				t.Errorf("%s: %d %s", q, res.Status, res.Body)
			}
		}
		// The same on tags, which have no parent filter: it is simply ignored there.
		for _, q := range []string{"post=23", "slug=", "orderby="} {
			if res := e.do(t, "GET", ns+"/tags?"+q, nil, ""); res.Status != 400 {
				t.Errorf("tags %s: %d %s", q, res.Status, res.Body)
			}
		}
	})
}

func TestTermListFilters(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		music := mkTerm(t, e, "/categories", "Music", nil)
		jazz := mkTerm(t, e, "/categories", "Jazz", map[string]any{"parent": music})
		rock := mkTerm(t, e, "/categories", "Rock", map[string]any{"parent": music})
		empty := mkTerm(t, e, "/categories", "Empty", nil)
		draftOnly := mkTerm(t, e, "/categories", "Drafty", nil)
		ev := mkEvent(t, e, models.StatusPublish, music, jazz)
		rockEvent := mkEvent(t, e, models.StatusPublish, rock)
		mkEvent(t, e, models.StatusDraft, draftOnly, music)
		mkEvent(t, e, models.StatusTrash, empty)
		_ = empty

		check := func(q string, want []string) map[string]any {
			t.Helper()
			res := e.do(t, "GET", ns+"/categories?"+q, nil, "")
			if res.Status != 200 {
				t.Fatalf("%s: %d %s", q, res.Status, res.Body)
			}
			m := res.Map(t)
			if got := names(t, m, "categories"); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %v, want %v", q, got, want)
			}
			return m
		}
		// hide_empty defaults to true and counts published events only.
		m := check("", []string{"Jazz", "Music", "Rock"})
		for _, it := range m["categories"].([]any) {
			item := it.(map[string]any)
			if item["name"] == "Music" && item["count"].(float64) != 1 {
				t.Errorf("Music count = %v, want 1 (the draft does not count)", item["count"])
			}
		}
		check("hide_empty=0", []string{"Drafty", "Empty", "Jazz", "Music", "Rock"})
		check("hide_empty=false&search=R", []string{"Drafty", "Rock"}) // "Drafty" contains r too
		check(fmt.Sprint("parent=", music), []string{"Jazz", "Rock"})
		check(fmt.Sprint("post=", ev), []string{"Jazz", "Music"})
		check(fmt.Sprintf("post=%d&event=%d", rockEvent, ev), []string{"Jazz", "Music"}) // event wins
	})
}

func TestTermListPagination(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		var ids []int64
		for i := 1; i <= 9; i++ {
			ids = append(ids, mkTerm(t, e, "/tags", fmt.Sprintf("Tag %d", i), nil))
		}
		mkEvent(t, e, models.StatusPublish, ids...)
		base := "http://example.test" + ns + "/tags/"
		for _, tc := range []struct {
			page       int
			names      []string
			next, prev string
		}{
			{1, []string{"Tag 1", "Tag 2", "Tag 3"}, base + "?page=2&per_page=3&search=tag", ""},
			{2, []string{"Tag 4", "Tag 5", "Tag 6"}, base + "?page=3&per_page=3&search=tag", base + "?per_page=3&search=tag"},
			{3, []string{"Tag 7", "Tag 8", "Tag 9"}, "", base + "?page=2&per_page=3&search=tag"},
			{4, []string{}, "", base + "?page=3&per_page=3&search=tag"},
		} {
			res := e.do(t, "GET", fmt.Sprintf("%s/tags?per_page=3&search=tag&page=%d", ns, tc.page), nil, "")
			if res.Status != 200 {
				t.Fatalf("page %d: %d %s", tc.page, res.Status, res.Body)
			}
			m := res.Map(t)
			wantKeys := []string{"rest_url", "total", "total_pages", "tags"}
			if tc.next != "" {
				wantKeys = append(wantKeys, "next_rest_url")
			}
			if tc.prev != "" {
				wantKeys = append(wantKeys, "previous_rest_url")
			}
			if got := res.Keys(t); !reflect.DeepEqual(got, wantKeys) {
				t.Errorf("page %d keys = %v, want %v", tc.page, got, wantKeys)
			}
			if got := names(t, m, "tags"); !reflect.DeepEqual(got, tc.names) {
				t.Errorf("page %d = %v, want %v", tc.page, got, tc.names)
			}
			wantSelf := base + "?per_page=3&search=tag"
			if tc.page > 1 {
				wantSelf = fmt.Sprintf("%s?page=%d&per_page=3&search=tag", base, tc.page)
			}
			if m["rest_url"] != wantSelf || m["total"].(float64) != 9 || m["total_pages"].(float64) != 3 {
				t.Errorf("page %d envelope: rest_url %v total %v pages %v", tc.page, m["rest_url"], m["total"], m["total_pages"])
			}
			if next, _ := m["next_rest_url"].(string); next != tc.next {
				t.Errorf("page %d next = %q, want %q", tc.page, next, tc.next)
			}
			if prev, _ := m["previous_rest_url"].(string); prev != tc.prev {
				t.Errorf("page %d prev = %q, want %q", tc.page, prev, tc.prev)
			}
			if res.Header.Get("X-TEC-Total") != "9" || res.Header.Get("X-WP-TotalPages") != "3" {
				t.Errorf("page %d headers: %v", tc.page, res.Header)
			}
			link := res.Header.Get("Link")
			if (tc.next != "") != strings.Contains(link, `rel="next"`) || (tc.prev != "") != strings.Contains(link, `rel="prev"`) {
				t.Errorf("page %d Link = %q", tc.page, link)
			}
		}
		// Every effective filter is echoed, lists as comma lists.
		res := e.do(t, "GET", fmt.Sprintf("%s/tags?include=%d,%d&orderby=include&order=desc&hide_empty=0&ml_language=ja", ns, ids[1], ids[0]), nil, "")
		want := fmt.Sprintf("%s?include=%d%%2C%d&order=desc&orderby=include&hide_empty=false&ml_language=ja", base, ids[1], ids[0])
		if got := res.Map(t)["rest_url"]; got != want {
			t.Errorf("rest_url = %v, want %v", got, want)
		}
	})
}

// queryCounter counts the SQL statements a database runs.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}
func (q *queryCounter) AfterQuery(_ context.Context, _ *bun.QueryEvent) { q.n.Add(1) }

func TestTermListCostsFixedQueries(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		var ids []int64
		for i := 0; i < 120; i++ {
			ids = append(ids, mkTerm(t, e, "/categories", fmt.Sprint("C", i), nil))
		}
		ev := mkEvent(t, e, models.StatusPublish, ids...)
		for _, id := range ids[:10] {
			name := fmt.Sprint("カ", id)
			if _, err := e.DB.UpdateTerm(context.Background(), e.Users[models.RoleEditor], models.TaxCategory, id, models.TermInput{Name: &name}, "ja"); err != nil {
				t.Fatal(err)
			}
		}
		qc := &queryCounter{}
		e.DB.AddQueryHook(qc)
		count := func(perPage int) int64 {
			qc.n.Store(0)
			res := e.do(t, "GET", fmt.Sprintf("%s/categories?per_page=%d&ml_language=ja&post=%d&exclude=%d", ns, perPage, ev, ids[50]), nil, "")
			if res.Status != 200 {
				t.Fatalf("list: %d %s", res.Status, res.Body)
			}
			if got := len(res.Map(t)["categories"].([]any)); got != min(perPage, 119) {
				t.Fatalf("per_page %d gave %d items", perPage, got)
			}
			return qc.n.Load()
		}
		one, hundred := count(1), count(100)
		if one != hundred || one > 8 {
			t.Errorf("queries: per_page=1 -> %d, per_page=100 -> %d; want the same small number", one, hundred)
		}
		t.Logf("a category list costs %d queries", one)
	})
}

func TestTermSearchIsLiteralAndFoldsCase(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		var ids []int64
		for _, n := range []string{"Émile", "100% Jazz", "a_b", "plain"} {
			ids = append(ids, mkTerm(t, e, "/tags", n, nil))
		}
		mkEvent(t, e, models.StatusPublish, ids...)
		for q, want := range map[string][]string{
			"émile": {"Émile"},
			"ÉMILE": {"Émile"},
			"%":     {"100% Jazz"},
			"_":     {"a_b"},
			"!":     {},
			"jazz":  {"100% Jazz"}, // slug 100-jazz, name 100% Jazz
			"a-b":   {"a_b"},       // by slug
		} {
			res := e.do(t, "GET", ns+"/tags?search="+url.QueryEscape(q), nil, "")
			if got := names(t, res.Map(t), "tags"); !reflect.DeepEqual(got, want) {
				t.Errorf("search %q = %v, want %v", q, got, want)
			}
		}
	})
}
