package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestNonASCIISlugPagesResolve: every kind of record named in Chinese,
// Japanese, Korean or accented Latin has a public page at the url the API
// gives it (percent-encoded), in every language prefix, and the same page
// answers the slug sent in lower-case hex, as raw UTF-8 and decomposed
// (NFD); the event's .ics too. A bad escape is 404, never a 500; so is a
// NUL in a filter. (Before the slug was decoded, every one of these pages
// was 404.)
func TestNonASCIISlugPagesResolve(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		ctx := context.Background()
		admin, v, o := seedAdminVenueOrganizer(t, db)
		s := func(v string) *string { return &v }
		titles := []string{"春季音乐节", "Fête de la Musique"}
		for i, title := range titles {
			in := models.EventInput{Title: s(title), StartDate: s("2027-05-0" + itoa(int64(i+1)) + " 19:00"),
				EndDate: s("2027-05-0" + itoa(int64(i+1)) + " 21:00"), Lang: "en",
				Categories: &[]models.TermRef{{Name: "音楽祭"}}, Tags: &[]models.TermRef{{Name: "야외"}},
				Venues: &[]models.VenueRef{{ID: v.ID}}, Organizers: &[]models.OrganizerRef{{ID: o.ID}}}
			in.Status = s(models.StatusPublish)
			if _, err := db.CreateEvent(ctx, admin, in); err != nil {
				t.Fatal(err)
			}
		}
		type rec struct{ api, key, title string }
		var recs []rec
		for _, l := range []struct{ path, key string }{
			{"/cal/events/v1/events", "title"}, {"/cal/events/v1/venues", "venue"}, {"/cal/events/v1/organizers", "organizer"},
			{"/cal/events/v1/categories", "name"}, {"/cal/events/v1/tags", "name"},
		} {
			list := apiJSON(t, app, l.path)
			var items []any
			for _, k := range []string{"events", "venues", "organizers", "categories", "tags"} {
				if a, ok := list[k].([]any); ok {
					items = a
				}
			}
			if len(items) == 0 {
				t.Fatalf("%s: no records", l.path)
			}
			for _, it := range items {
				m := it.(map[string]any)
				recs = append(recs, rec{m["url"].(string), l.key, m[l.key].(string)})
			}
		}
		get := func(target string) (int, string) {
			req := httptest.NewRequest("GET", "/", nil)
			req.RequestURI = target // sent as written: raw UTF-8 stays raw
			res, body := do(t, app, req)
			return res.StatusCode, body
		}
		for _, r := range recs {
			path := strings.TrimPrefix(r.api, "http://example.test")
			if !strings.Contains(path, "%") {
				t.Fatalf("%s: url %q is not percent-encoded", r.title, r.api)
			}
			raw, err := url.PathUnescape(path)
			if err != nil {
				t.Fatal(err)
			}
			nfd := (&url.URL{Path: norm.NFD.String(raw)}).EscapedPath()
			for _, pre := range []string{"", "/ja", "/zh-hans", "/ko", "/en"} {
				for _, p := range []string{path, strings.ToLower(path), raw, nfd} {
					code, page := get(pre + p)
					if code != http.StatusOK {
						t.Errorf("GET %s: %d, want 200", pre+p, code)
						continue
					}
					if m := h1RE.FindStringSubmatch(page); m == nil || html.UnescapeString(m[1]) != r.title {
						t.Errorf("GET %s: title %q, want %q", pre+p, m, r.title)
					}
				}
			}
			if strings.HasPrefix(path, "/event/") {
				ics := strings.TrimSuffix(path, "/") + ".ics"
				for _, p := range []string{ics, "/ja" + ics, strings.TrimSuffix(raw, "/") + ".ics"} {
					if code, body := get(p); code != http.StatusOK || !strings.Contains(body, "BEGIN:VEVENT") {
						t.Errorf("GET %s: %d, want 200 with the event", p, code)
					}
				}
			}
		}
		for _, p := range []string{"/event/%E6%98%A5%ZZ/", "/event/%FF%FE/", "/venue/%E6/", "/event/%E6%98.ics", "/tag/%00/"} {
			if code, _ := get(p); code != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", p, code)
			}
		}
		// NUL in a filter or a search was a 500 on SQLite (bun refuses the
		// string): now no such category, or a search without the NUL.
		for _, p := range []string{"/events/?categories=%00", "/ja/events/?tags=%00", "/events.ics?tags=%00", "/events/?search=a%00b",
			"/events/?search=%00&view=month", "/events.ics?search=%00"} {
			if code, _ := get(p); code >= 500 {
				t.Errorf("GET %s: %d", p, code)
			}
		}
	})
}

// seedAdminVenueOrganizer makes an administrator, a venue named in
// Japanese and an organizer named in Korean (their slugs are not ASCII).
func seedAdminVenueOrganizer(t *testing.T, db *models.DB) (*models.User, *models.Venue, *models.Organizer) {
	t.Helper()
	ctx := context.Background()
	admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "correct horse battery", Role: models.RoleAdministrator})
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	v, _, err := db.Venues().Create(ctx, admin, models.VenueInput{Venue: s("東京ホール")}, "en")
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := db.Organizers().Create(ctx, admin, models.OrganizerInput{Organizer: s("서울 음악회")}, "en")
	if err != nil {
		t.Fatal(err)
	}
	return admin, v, o
}
