package api

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

// TestWritesRefuseBeforeTheyLook checks SPEC §2's order on every write
// route of the table: a caller who may not make that kind of write gets 401
// (anonymous) or 403 (subscriber) whether or not the record exists and
// whatever the body names — unknown authors, venues, organizers, terms and
// parents — so a write never tells such a caller what exists. The routes
// come from the route table, so a new write route is covered by itself.
func TestWritesRefuseBeforeTheyLook(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		ed := models.RoleEditor
		ids := map[string]string{}
		slugs := map[string]string{}
		for _, k := range []struct{ coll, name string }{{"/events", "title"}, {"/venues", "venue"}, {"/organizers", "organizer"},
			{"/categories", "name"}, {"/tags", "name"}} {
			body := map[string]any{k.name: "Existing " + k.coll}
			if k.coll == "/events" {
				body["start_date"], body["end_date"] = "2027-01-01 10:00", "2027-01-01 11:00"
			}
			r := e.do(t, "POST", "/"+Namespace+k.coll, body, ed)
			if r.Status != 201 {
				t.Fatalf("seed %s: %d %s", k.coll, r.Status, r.Body)
			}
			m := r.Map(t)
			ids[k.coll] = fmt.Sprint(m["id"])
			slugs[k.coll] = fmt.Sprint(m["slug"])
		}
		// Bodies that pass every check needing no data (each required
		// field, the right types) and name things that do not exist.
		bodies := map[string][]map[string]any{
			"/events": {
				{"title": "T", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00", "author": 987654,
					"categories": []any{987654}, "tags": []any{987654}, "venue": 987654, "organizer": []any{987654}},
				{"title": "T", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00",
					"categories": []any{"a brand new category"}, "venue": map[string]any{"venue": "Inline", "author": 987654}},
			},
			"/venues":     {{"venue": "V", "author": 987654}},
			"/organizers": {{"organizer": "O", "author": 987654}},
			"/categories": {{"name": "N", "parent": 987654}},
			"/tags":       {{"name": "N"}},
		}
		routes := 0
		for _, rt := range Routes() {
			for _, ep := range rt.Endpoints {
				for _, method := range ep.Methods {
					if method == "GET" {
						continue
					}
					routes++
					coll := "/" + strings.Split(strings.TrimPrefix(rt.DocPath, "/"), "/")[0]
					var paths []string
					switch {
					case strings.Contains(rt.DocPath, "{id}"):
						paths = []string{strings.Replace(rt.DocPath, "{id}", ids[coll], 1), strings.Replace(rt.DocPath, "{id}", "987654", 1)}
						if coll != "/events" { // an id of another kind
							paths = append(paths, strings.Replace(rt.DocPath, "{id}", ids["/events"], 1))
						}
					case strings.Contains(rt.DocPath, "{slug}"):
						paths = []string{strings.Replace(rt.DocPath, "{slug}", slugs[coll], 1), strings.Replace(rt.DocPath, "{slug}", "no-such-slug", 1)}
					default:
						paths = []string{rt.DocPath}
					}
					for _, path := range paths {
						path = strings.Replace(path, "{revision}", "1", 1)
						for _, body := range bodies[coll] {
							if method == "DELETE" {
								body = nil
							}
							var first []byte
							for _, as := range []models.Role{"", models.RoleSubscriber} {
								target := "/" + Namespace + path
								if method == "DELETE" {
									target += "?force=true"
								}
								var r *testResp
								if body == nil {
									r = e.do(t, method, target, nil, as)
								} else {
									r = e.do(t, method, target, body, as)
								}
								want := 401
								if as != "" {
									want = 403
								}
								if r.Status != want || r.Code(t) != "rest_forbidden" {
									t.Errorf("%s %s as %q: %d %s, want %d rest_forbidden", method, path, as, r.Status, r.Body, want)
								}
								if as == "" {
									if first == nil {
										first = r.Body
									}
									if !bytes.Equal(first, r.Body) {
										t.Errorf("%s %s: answers differ with the body: %s vs %s", method, path, first, r.Body)
									}
								}
							}
						}
					}
				}
			}
		}
		if routes < 20 {
			t.Errorf("only %d write methods in the route table", routes)
		}
		// What an editor is told about the same requests: the data checks
		// run once the capability is settled.
		r := e.do(t, "POST", "/"+Namespace+"/events", bodies["/events"][0], ed)
		expect(t, "editor, unknown author", r, 400, "rest_invalid_param")
		r = e.do(t, "POST", "/"+Namespace+"/categories", bodies["/categories"][0], ed)
		expect(t, "editor, unknown parent", r, 400, "rest_invalid_param")
		r = e.do(t, "DELETE", "/"+Namespace+"/events/987654", nil, ed)
		expect(t, "editor, unknown event", r, 404, "rest-event-not-found")
	})
}
