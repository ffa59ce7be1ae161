package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestRevisionsRestoreAnEventExactly: an event with a venue, two
// organizers, categories, tags, a time zone, a cost and a Japanese
// translation is changed everywhere; its revision shows it as it was, and
// restoring the revision gives back the same API response in both
// languages, dates and links included, but modified and modified_utc.
// Term counts follow; the restore is itself a revision; a contributor may
// not read the revisions of an editor's event. Venues keep revisions too.
// On SQLite and MariaDB.
func TestRevisionsRestoreAnEventExactly(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		ctx := context.Background()
		auth := map[models.Role]string{}
		for _, role := range []models.Role{models.RoleEditor, models.RoleContributor} {
			u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: string(role), Password: "correct horse battery", Role: role})
			if err != nil {
				t.Fatal(err)
			}
			pw, _, err := db.CreateAppPassword(ctx, u.ID, "tests")
			if err != nil {
				t.Fatal(err)
			}
			auth[role] = "Basic " + basic(string(role), pw)
		}
		call := func(method, path, body string, role models.Role) (int, map[string]any, string) {
			t.Helper()
			req := httptest.NewRequest(method, path, strings.NewReader(body))
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			req.Header.Set("Authorization", auth[role])
			res, text := do(t, app, req)
			var m map[string]any
			_ = json.Unmarshal([]byte(text), &m)
			return res.StatusCode, m, text
		}
		ev := "/cal/events/v1/events"
		id := func(m map[string]any) string { return strconv.FormatInt(int64(m["id"].(float64)), 10) }
		_, v1, _ := call("POST", "/cal/events/v1/venues", `{"venue":"Old hall","city":"Osaka"}`, models.RoleEditor)
		_, v2, _ := call("POST", "/cal/events/v1/venues", `{"venue":"New hall","city":"Kyoto"}`, models.RoleEditor)
		var orgs []string
		for _, name := range []string{"Crew A", "Crew B", "Crew C"} {
			_, o, _ := call("POST", "/cal/events/v1/organizers", `{"organizer":"`+name+`"}`, models.RoleEditor)
			orgs = append(orgs, id(o))
		}
		status, e, text := call("POST", ev, `{"title":"Concert","description":"<p>Strings</p>","start_date":"2031-03-07 19:00","end_date":"2031-03-07 21:00",
			"timezone":"Asia/Tokyo","cost":"3000","status":"publish","venue":`+id(v1)+`,"organizer":[`+orgs[0]+`,`+orgs[1]+`],
			"categories":["Music","Classical"],"tags":["strings","evening"]}`, models.RoleEditor)
		if status != http.StatusCreated {
			t.Fatalf("create: %d %s", status, text)
		}
		item := ev + "/" + id(e)
		if status, _, text := call("POST", item, `{"title":"コンサート","description":"<p>弦楽</p>","ml_language":"ja"}`, models.RoleEditor); status != http.StatusOK {
			t.Fatalf("translate: %d %s", status, text)
		}
		read := func(lang string) map[string]any {
			_, m, _ := call("GET", item+"?ml_language="+lang, "", models.RoleEditor)
			delete(m, "modified")
			delete(m, "modified_utc")
			return m
		}
		wantEN, wantJA := read("en"), read("ja")

		// Change everything.
		if status, _, text := call("POST", item, `{"title":"Jazz night","description":"<p>Brass</p>","start_date":"2031-04-01 20:00","end_date":"2031-04-02 01:00",
			"timezone":"Europe/Paris","cost":"25","venue":`+id(v2)+`,"organizer":[`+orgs[2]+`],"categories":["Jazz"],"tags":["late"],"featured":true}`, models.RoleEditor); status != http.StatusOK {
			t.Fatalf("change: %d %s", status, text)
		}
		if status, _, text := call("POST", item, `{"title":"ジャズの夜","ml_language":"ja"}`, models.RoleEditor); status != http.StatusOK {
			t.Fatalf("change ja: %d %s", status, text)
		}
		if reflect.DeepEqual(read("en"), wantEN) {
			t.Fatal("the change changed nothing")
		}
		status, list, text := call("GET", item+"/revisions", "", models.RoleEditor)
		revs, _ := list["revisions"].([]any)
		if status != http.StatusOK || len(revs) != 3 { // translation, change, change of the translation
			t.Fatalf("revisions: %d %s", status, text)
		}
		// The oldest is the state after the create, before the translation;
		// the one before the big change is the second newest.
		target := revs[1].(map[string]any)
		fields, _ := target["fields"].([]any)
		joined := ""
		for _, f := range fields {
			joined += f.(string) + " "
		}
		for _, want := range []string{"title", "start_at", "timezone", "venues", "organizers", "categories_and_tags"} {
			if !strings.Contains(joined, want) {
				t.Errorf("revision fields %q lack %s", joined, want)
			}
		}
		revPath := item + "/revisions/" + id(target)
		status, shown, text := call("GET", revPath+"?ml_language=en", "", models.RoleEditor)
		if status != http.StatusOK {
			t.Fatalf("revision: %d %s", status, text)
		}
		old, _ := shown["event"].(map[string]any)
		delete(old, "modified")
		delete(old, "modified_utc")
		for k := range wantEN {
			if !reflect.DeepEqual(old[k], wantEN[k]) {
				t.Errorf("the revision shows %s = %v, want %v", k, old[k], wantEN[k])
			}
		}
		if reflect.DeepEqual(read("en"), wantEN) {
			t.Fatal("reading a revision changed the event")
		}
		if status, _, _ := call("GET", item+"/revisions", "", models.RoleContributor); status != http.StatusForbidden {
			t.Errorf("a contributor reads the revisions of an editor's event: %d", status)
		}
		if status, _, _ := call("POST", revPath+"/restore", "", models.RoleContributor); status != http.StatusForbidden {
			t.Errorf("a contributor restores a revision of an editor's event: %d", status)
		}
		if status, _, text := call("POST", revPath+"/restore", "", models.RoleEditor); status != http.StatusOK {
			t.Fatalf("restore: %d %s", status, text)
		}
		for lang, want := range map[string]map[string]any{"en": wantEN, "ja": wantJA} {
			if got := read(lang); !reflect.DeepEqual(got, want) {
				for k := range want {
					if !reflect.DeepEqual(got[k], want[k]) {
						t.Errorf("%s after restore: %s = %v, want %v", lang, k, got[k], want[k])
					}
				}
			}
		}
		_, cats, _ := call("GET", "/cal/events/v1/categories?per_page=50", "", models.RoleEditor)
		for _, c := range cats["categories"].([]any) {
			c := c.(map[string]any)
			want := map[string]float64{"Music": 1, "Classical": 1, "Jazz": 0}[c["name"].(string)]
			if c["count"].(float64) != want {
				t.Errorf("category %s counts %v after the restore, want %v", c["name"], c["count"], want)
			}
		}
		_, list, _ = call("GET", item+"/revisions", "", models.RoleEditor)
		if revs, _ := list["revisions"].([]any); len(revs) != 4 {
			t.Errorf("the restore kept no revision: %d", len(revs))
		}
		if status, _, _ := call("GET", item+"/revisions/999999", "", models.RoleEditor); status != http.StatusNotFound {
			t.Errorf("an unknown revision: %d", status)
		}

		// Venues: rename, then restore.
		venue := "/cal/events/v1/venues/" + id(v1)
		call("POST", venue, `{"venue":"Renamed hall"}`, models.RoleEditor)
		_, vl, _ := call("GET", venue+"/revisions", "", models.RoleEditor)
		vrevs, _ := vl["revisions"].([]any)
		if len(vrevs) != 1 {
			t.Fatalf("venue revisions: %v", vl)
		}
		if status, back, text := call("POST", venue+"/revisions/"+id(vrevs[0].(map[string]any))+"/restore", "", models.RoleEditor); status != http.StatusOK || back["venue"] != "Old hall" {
			t.Errorf("venue restore: %d %s", status, text)
		}
	})
}
