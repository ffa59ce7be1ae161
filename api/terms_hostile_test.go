package api

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

// No input to the term routes may give a 5xx.
func TestTermHostileInputNever500(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		cat := mkTerm(t, e, "/categories", "Cat", nil)
		many := strings.TrimSuffix(strings.Repeat("1,", 1000), ",")
		queries := []string{
			"per_page=500", "per_page=100000", "page=1099511627776", "page=9223372036854775807", "per_page=1e3",
			"search=%25%25%25", "search=%00", "search=%FF%FE", "search=" + url.QueryEscape("夏祭り' OR 1=1 --"),
			"include=" + many, "exclude=" + many, "include[]=1&include[]=x", "include=-1", "orderby=include",
			"orderby=count&order=DESC", "order=ASC", "hide_empty=yes", "hide_empty[]=1", "parent=1.5", "parent=1e2",
			"post=" + strings.Repeat("9", 30), "event=0", "slug=" + strings.Repeat("s", 300), "slug=" + url.QueryEscape("\u202e"),
			"ml_language=fr", "ml_language=", "search[a]=1",
		}
		for _, coll := range []string{"/categories", "/tags"} {
			for _, q := range queries {
				if res := e.do(t, "GET", ns+coll+"?"+q, nil, ""); res.Status >= 500 {
					t.Errorf("GET %s?%s: %d %s", coll, q, res.Status, res.Body)
				}
			}
		}
		bodies := []any{
			`{"name": 5}`, `{"name": {"a": 1}}`, `{"name": null}`, `{"name": "x", "parent": "1e400"}`, `{"name": "x", "parent": 1e30}`,
			`{"name": "x", "parent": [1]}`, `{"name": "x", "slug": "🎉🎉"}`, `{"name": "x", "description": null}`,
			`{"name": "\u0000"}`, `{"name": "x\ud800"}`, `[1,2]`, `{"name": "` + strings.Repeat("名", 255) + `"}`,
			`{"name": "` + strings.Repeat("名", 256) + `"}`, `{"name": "ok", "slug": "` + strings.Repeat("ü", 255) + `"}`,
			`{"name": "` + strings.Repeat("\\\\", 100) + `"}`, `{"name": "x", "parent": -9223372036854775808}`,
			url.Values{"name": {"form"}, "parent": {fmt.Sprint(cat)}}, url.Values{"name[]": {"a", "b"}},
		}
		for _, coll := range []string{"/categories", "/tags", fmt.Sprint("/categories/", cat)} {
			for _, b := range bodies {
				if res := e.do(t, "POST", ns+coll, b, models.RoleEditor); res.Status >= 500 {
					t.Errorf("POST %s %v: %d %s", coll, b, res.Status, res.Body)
				}
			}
		}
	})
}
