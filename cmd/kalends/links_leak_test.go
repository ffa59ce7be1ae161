package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// leakSite is the assembled app (response cache on) with an editor, an
// author and a contributor, each with an application password and a
// signed-in admin session (cookie and nonce).
type leakSite struct {
	t      *testing.T
	app    *fiber.App
	db     *models.DB
	users  map[string]*models.User
	basic  map[string]string
	cookie map[string]string
	nonce  map[string]string
}

func newLeakSite(t *testing.T, db *models.DB) *leakSite {
	t.Helper()
	cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500,
		CacheSize: 8 << 20, CacheCheck: time.Minute}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	s := &leakSite{t: t, app: app, db: db, users: map[string]*models.User{}, basic: map[string]string{},
		cookie: map[string]string{}, nonce: map[string]string{}}
	ctx := context.Background()
	for _, role := range []models.Role{models.RoleEditor, models.RoleAuthor, models.RoleContributor} {
		name := string(role)
		u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: name, Password: "correct horse " + name, Role: role})
		if err != nil {
			t.Fatal(err)
		}
		pw, _, err := db.CreateAppPassword(ctx, u.ID, "tests")
		if err != nil {
			t.Fatal(err)
		}
		token, _, err := db.CreateSession(ctx, u.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		s.users[name], s.cookie[name] = u, token
		s.basic[name] = "Basic " + base64.StdEncoding.EncodeToString([]byte(name+":"+pw))
		_, page := s.do("GET", "/admin/", "", name, "cookie")
		m := nonceMeta.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no nonce for %s:\n%.1000s", name, page)
		}
		s.nonce[name] = m[1]
	}
	return s
}

// do sends a request as who ("" anonymous) by way of via: "basic" (an
// application password), "nonce" (the session cookie and its nonce) or
// "cookie" (the session cookie alone, as a browser on a page). A body
// that starts with "{" is JSON, else a form.
func (s *leakSite) do(method, path, body, who, via string) (leakAnswer, string) {
	s.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	switch {
	case strings.HasPrefix(body, "{"):
		req.Header.Set("Content-Type", "application/json")
	case body != "":
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if who != "" {
		switch via {
		case "basic":
			req.Header.Set("Authorization", s.basic[who])
		case "nonce", "cookie":
			req.AddCookie(&http.Cookie{Name: models.SessionCookie, Value: s.cookie[who]})
			if via == "nonce" {
				req.Header.Set("X-WP-Nonce", s.nonce[who])
			}
		}
	}
	res, text := do(s.t, s.app, req)
	_ = res.Body.Close() // read and closed by do already
	// Unfolded: iCalendar lines are folded at 75 octets.
	return leakAnswer{res.StatusCode, res.Header}, strings.ReplaceAll(text, "\r\n ", "")
}

// leakAnswer is the status and headers of an answer (do reads the body).
type leakAnswer struct {
	StatusCode int
	Header     http.Header
}

// api sends a JSON request to the API by application password and wants
// status; it returns the id of the record answered.
func (s *leakSite) api(method, path, who string, body string, status int) (int64, string) {
	s.t.Helper()
	res, text := s.do(method, "/cal/events/v1"+path, body, who, "basic")
	if res.StatusCode != status {
		s.t.Fatalf("%s %s as %s: %d, want %d: %.500s", method, path, who, res.StatusCode, status, text)
	}
	m := regexp.MustCompile(`^\{"id":(\d+)`).FindStringSubmatch(text)
	if m == nil {
		return 0, text
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id, text
}

// secrets are what the hidden venue and organizer hold.
var secrets = []string{"Geheimsaal", "Hinterhof 13", "Stille Gesellschaft", "hidden@example.org", "48.1372"}

// shows lists the secrets text holds.
func shows(text string, of []string) []string {
	var out []string
	for _, s := range of {
		if strings.Contains(text, s) {
			out = append(out, s)
		}
	}
	return out
}

// sameAnswer checks that two answers are the same but for the ids they
// name (an unreadable id must read as an unknown one).
func sameAnswer(t *testing.T, what string, a leakAnswer, aText string, aID int64, b leakAnswer, bText string, bID int64) {
	t.Helper()
	ids := regexp.MustCompile(`\b(` + strconv.FormatInt(aID, 10) + `|` + strconv.FormatInt(bID, 10) + `)\b`)
	if a.StatusCode != b.StatusCode || ids.ReplaceAllString(aText, "<id>") != ids.ReplaceAllString(bText, "<id>") {
		t.Errorf("%s: a hidden id is answered\n%d %.600s\nan unknown one\n%d %.600s", what, a.StatusCode, aText, b.StatusCode, bText)
	}
}

// TestLinkedDraftsDoNotLeak is the finding "Linking bypasses read
// permission" through both doors: a contributor who names an editor's
// draft venue and a private organizer is answered as for unknown ids (by
// id and by slug, in list filters too); an event an editor linked them to,
// published by its author, shows them to nobody who may not read them
// (API list, single, json_ld; public page, its .ics, /events.ics and
// /events/; the admin's list, dashboard and form, and the API as the
// calendar reads it; kalends export); records made draft, private or
// trashed after being linked leave their events, and come back when
// published; the response cache never serves an editor's view to anyone
// else, in either order. Both dialects.
func TestLinkedDraftsDoNotLeak(t *testing.T) {
	t.Parallel()
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			dsn := modelstest.NewDSN(t, d)
			ctx := context.Background()
			db, err := models.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = db.Close() }()
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			linkedDraftsDoNotLeak(t, newLeakSite(t, db), dsn)
		})
	}
}

func linkedDraftsDoNotLeak(t *testing.T, s *leakSite, dsn string) {
	hiddenVenue, _ := s.api("POST", "/venues", "editor", `{"venue":"Geheimsaal 草稿","address":"Hinterhof 13, 秘密の住所","city":"München",
		"geo_lat":48.1372,"geo_lng":11.5756,"status":"draft"}`, 201)
	hiddenOrg, _ := s.api("POST", "/organizers", "editor", `{"organizer":"Stille Gesellschaft 비공개","email":"hidden@example.org","status":"private"}`, 201)
	pubVenue, _ := s.api("POST", "/venues", "editor", `{"venue":"Große Halle","address":"Marktplatz 1"}`, 201)
	pubOrg, _ := s.api("POST", "/organizers", "editor", `{"organizer":"Öffentlicher Verein","email":"verein@example.org"}`, 201)
	const unknown = 987654
	when := `"start_date":"2031-05-01 10:00","end_date":"2031-05-01 12:00"`

	// A contributor's writes: a hidden id is an unknown one, at every door.
	for _, c := range []struct{ what, field string }{{"venue", "venue"}, {"organizer", "organizer"}} {
		hidden := map[string]int64{"venue": hiddenVenue, "organizer": hiddenOrg}[c.field]
		a, aText := s.do("POST", "/cal/events/v1/events", fmt.Sprintf(`{"title":"Fête",%s,"%s":%d}`, when, c.field, hidden), "contributor", "basic")
		b, bText := s.do("POST", "/cal/events/v1/events", fmt.Sprintf(`{"title":"Fête",%s,"%s":%d}`, when, c.field, unknown), "contributor", "basic")
		sameAnswer(t, "create linking a hidden "+c.what, a, aText, hidden, b, bText, unknown)
		if got := shows(aText, secrets); a.StatusCode != http.StatusBadRequest || len(got) > 0 {
			t.Errorf("create linking a hidden %s: %d, shows %v", c.what, a.StatusCode, got)
		}
	}
	mineID, mine := s.api("POST", "/events", "contributor", fmt.Sprintf(`{"title":"Atelier ouvert",%s,"venue":%d,"organizer":[%d]}`, when, pubVenue, pubOrg), 201)
	slug := regexp.MustCompile(`"slug":"([^"]+)"`).FindStringSubmatch(mine)[1]
	for _, path := range []string{fmt.Sprintf("/cal/events/v1/events/%d", mineID), "/cal/events/v1/events/by-slug/" + slug} {
		a, aText := s.do("PATCH", path, fmt.Sprintf(`{"venue":%d,"organizer":[%d,%d]}`, pubVenue, hiddenOrg, hiddenOrg), "contributor", "nonce")
		b, bText := s.do("PATCH", path, fmt.Sprintf(`{"venue":%d,"organizer":[%d,%d]}`, pubVenue, unknown, unknown), "contributor", "nonce")
		sameAnswer(t, "update by "+path, a, aText, hiddenOrg, b, bText, unknown)
	}
	form := url.Values{"title": {"Fête"}, "start_date": {"2031-05-01T10:00"}, "end_date": {"2031-05-01T12:00"}}
	for _, hidden := range []int64{hiddenVenue, unknown} {
		_, page := s.do("GET", "/admin/events/new", "", "contributor", "cookie")
		form.Set("_csrf", csrfField.FindStringSubmatch(page)[1])
		form.Set("venue", strconv.FormatInt(hidden, 10))
		res, text := s.do("POST", "/admin/events", form.Encode(), "contributor", "cookie")
		if want := fmt.Sprintf("No venue has the ID %d.", hidden); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text, want) {
			t.Errorf("admin form linking %d: %d, want 422 with %q", hidden, res.StatusCode, want)
		}
	}

	// List filters: a hidden id is an unknown one on every list.
	for _, c := range []struct{ path, who, via string }{
		{"/cal/events/v1/events?venue=%d", "", ""}, {"/cal/events/v1/events?organizer=%d", "contributor", "basic"},
		{"/cal/events/v1/events?venue=%d", "author", "nonce"}, {"/events/?venue=%d", "", ""}, {"/events/?organizer=%d", "contributor", "cookie"},
		{"/events.ics?venue=%d", "", ""}, {"/events.ics?organizer=%d", "", ""},
	} {
		hidden := hiddenVenue
		if strings.Contains(c.path, "organizer") {
			hidden = hiddenOrg
		}
		a, aText := s.do("GET", fmt.Sprintf(c.path, hidden), "", c.who, c.via)
		b, bText := s.do("GET", fmt.Sprintf(c.path, unknown), "", c.who, c.via)
		sameAnswer(t, fmt.Sprintf(c.path, hidden)+" as "+c.who, a, aText, hidden, b, bText, unknown)
	}
	for _, hidden := range []int64{hiddenVenue, unknown} {
		res, text := s.do("GET", fmt.Sprintf("/admin/events?venue=%d", hidden), "", "author", "cookie")
		if want := fmt.Sprintf("No venue has the ID %d.", hidden); res.StatusCode != http.StatusOK || !strings.Contains(text, want) {
			t.Errorf("admin list filtered by %d: %d, want %q", hidden, res.StatusCode, want)
		}
	}

	// An editor links them to an author's draft (hidden ones first: what
	// a page, a feed and JSON-LD show); the author publishes it.
	eventID, _ := s.api("POST", "/events", "editor", fmt.Sprintf(`{"title":"Konzert am See",%s,"author":%d,"status":"draft",
		"venue":[%d,%d],"organizer":[%d,%d]}`, when, s.users["author"].ID, hiddenVenue, pubVenue, hiddenOrg, pubOrg), 201)
	_, answer := s.api("PATCH", fmt.Sprintf("/events/%d", eventID), "author", `{"status":"publish"}`, 200)
	if got := shows(answer, secrets); len(got) > 0 || !strings.Contains(answer, "Große Halle") {
		t.Errorf("the author's 200 shows %v (and the public venue: %v)", got, strings.Contains(answer, "Große Halle"))
	}
	_, page := s.do("GET", "/cal/events/v1/events/"+strconv.FormatInt(eventID, 10), "", "", "")
	eventSlug := regexp.MustCompile(`"slug":"([^"]+)"`).FindStringSubmatch(page)[1]
	event := "/cal/events/v1/events/" + strconv.FormatInt(eventID, 10)
	reads := []struct {
		path   string
		vias   []string // the editor's ways in
		editor bool     // whether the editor's view shows them
	}{
		{event, []string{"basic", "nonce"}, true},
		{"/cal/events/v1/events/by-slug/" + eventSlug, []string{"basic", "nonce"}, true},
		{"/cal/events/v1/events?start_date=2031-01-01&end_date=2031-12-31", []string{"basic", "nonce"}, true},
		{"/event/" + eventSlug + "/", []string{"cookie", "basic"}, true},
		{"/events/", []string{"cookie"}, true},
		{"/event/" + eventSlug + ".ics", []string{"cookie", "basic"}, false},
		{"/events.ics?start_date=2031-04-01&end_date=2031-06-01", []string{"cookie", "basic"}, false},
	}
	bump := func() { s.api("PATCH", fmt.Sprintf("/venues/%d", pubVenue), "editor", `{"phone":"+49 89 1"}`, 200) }
	for _, r := range reads {
		for _, via := range r.vias {
			// The editor's view shows the hidden venue on the API and on
			// pages read with the session; feeds are the public calendar,
			// and a page ignores an application password.
			sees := r.editor && (strings.HasPrefix(r.path, "/cal/") || via == "cookie")
			editorReads := func() {
				t.Helper()
				res, text := s.do("GET", r.path, "", "editor", via)
				if res.Header.Get("X-Kalends-Cache") == "hit" || res.StatusCode != http.StatusOK || strings.Contains(text, secrets[0]) != sees {
					t.Errorf("editor (%s) reads %s: %d, cache %q, shows %v", via, r.path, res.StatusCode, res.Header.Get("X-Kalends-Cache"), shows(text, secrets))
				}
			}
			anonymousReads := func(hit bool) {
				t.Helper()
				res, text := s.do("GET", r.path, "", "", "")
				if got := shows(text, secrets); res.StatusCode != http.StatusOK || len(got) > 0 || !strings.Contains(text, "Große Halle") {
					t.Errorf("anonymous reads %s after an editor (%s): %d, shows %v (and the public venue: %v)", r.path, via, res.StatusCode, got,
						strings.Contains(text, "Große Halle"))
				}
				if hit != (res.Header.Get("X-Kalends-Cache") == "hit") {
					t.Errorf("anonymous reads %s: cache %q, want hit %v", r.path, res.Header.Get("X-Kalends-Cache"), hit)
				}
			}
			bump() // anonymous first, then the editor, then anonymous again
			anonymousReads(false)
			editorReads()
			anonymousReads(true)
			bump() // the editor first
			editorReads()
			anonymousReads(false)
			anonymousReads(true)
		}
	}
	_, text := s.do("GET", event, "", "", "")
	if !strings.Contains(text, `"json_ld"`) || !strings.Contains(text, `"location"`) {
		t.Errorf("the single read has no json_ld location: %.300s", text)
	}

	// The admin, as the author: list, dashboard, edit form, and the API as
	// the calendar reads it. Saving the form as shown keeps the links.
	for _, path := range []string{"/admin/events", "/admin/", fmt.Sprintf("/admin/events/%d/edit", eventID)} {
		if res, text := s.do("GET", path, "", "author", "cookie"); res.StatusCode != http.StatusOK || len(shows(text, secrets)) > 0 {
			t.Errorf("the author's %s: %d, shows %v", path, res.StatusCode, shows(text, secrets))
		}
	}
	if _, text := s.do("GET", "/cal/events/v1/events?starts_before=2031-06-01&ends_after=2031-04-01&include_hidden=1", "", "author", "nonce"); len(shows(text, secrets)) > 0 {
		t.Errorf("the author's calendar shows %v", shows(text, secrets))
	}
	_, page = s.do("GET", fmt.Sprintf("/admin/events/%d/edit", eventID), "", "author", "cookie")
	save := url.Values{"_csrf": {csrfField.FindStringSubmatch(page)[1]}, "_overwrite": {"1"}, "title": {"Konzert am See 2031"},
		"status": {"publish"}, "start_date": {"2031-05-01T10:00"}, "end_date": {"2031-05-01T12:00"}, "timezone": {"UTC"},
		"venue": {strconv.FormatInt(pubVenue, 10)}, "organizer": {strconv.FormatInt(pubOrg, 10)}}
	if res, text := s.do("POST", fmt.Sprintf("/admin/events/%d", eventID), save.Encode(), "author", "cookie"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the author saves the form: %d %.500s", res.StatusCode, text)
	}
	if _, text := s.api("GET", fmt.Sprintf("/events/%d", eventID), "editor", "", 200); len(shows(text, secrets[:4])) != 4 || !strings.Contains(text, "Konzert am See 2031") {
		t.Errorf("after the author's save the editor reads %v", shows(text, secrets))
	}

	// Records hidden after being linked leave their events, and come back
	// when published; a trashed one was unlinked (TEC).
	later := []string{"Kiosk Ünïcode", "Café 会場", "Bühne 무대", "Ensemble Ōsaka"}
	dv, _ := s.api("POST", "/venues", "author", `{"venue":"Kiosk Ünïcode"}`, 201)
	pv, _ := s.api("POST", "/venues", "author", `{"venue":"Café 会場"}`, 201)
	tv, _ := s.api("POST", "/venues", "author", `{"venue":"Bühne 무대"}`, 201)
	po, _ := s.api("POST", "/organizers", "author", `{"organizer":"Ensemble Ōsaka"}`, 201)
	festID, _ := s.api("POST", "/events", "author", fmt.Sprintf(`{"title":"Sommerfest",%s,"venue":[%d,%d,%d],"organizer":%d}`, when, dv, pv, tv, po), 201)
	fest := fmt.Sprintf("/events/%d", festID)
	_, text = s.api("GET", fest, "", "", 200)
	festSlug := regexp.MustCompile(`"slug":"([^"]+)"`).FindStringSubmatch(text)[1]
	// The API shows every venue and organizer; pages and feeds the first.
	anonymousSees := func(what string, want []string) {
		t.Helper()
		for _, path := range []string{"/cal/events/v1" + fest, "/cal/events/v1/events?start_date=2031-05-01&end_date=2031-05-02", "/event/" + festSlug + "/",
			"/event/" + festSlug + ".ics", "/events.ics?start_date=2031-04-01&end_date=2031-06-01"} {
			_, text := s.do("GET", path, "", "", "")
			got := shows(text, later)
			switch {
			case strings.HasPrefix(path, "/cal/") && strings.Join(got, ",") != strings.Join(want, ","):
				t.Errorf("%s: anonymous %s shows %v, want %v", what, path, got, want)
			case len(want) == 0 && len(got) > 0, len(want) > 0 && !slices.Contains(got, want[0]):
				t.Errorf("%s: anonymous %s shows %v, want %v", what, path, got, want)
			}
		}
	}
	anonymousSees("all published", later)
	s.api("PATCH", fmt.Sprintf("/venues/%d", dv), "author", `{"status":"draft"}`, 200)
	s.api("PATCH", fmt.Sprintf("/venues/%d", pv), "author", `{"status":"private"}`, 200)
	s.api("DELETE", fmt.Sprintf("/venues/%d", tv), "author", "", 200)
	s.api("PATCH", fmt.Sprintf("/organizers/%d", po), "author", `{"status":"private"}`, 200)
	anonymousSees("hidden after linking", nil)
	if _, text := s.api("GET", fest, "contributor", "", 200); len(shows(text, later)) > 0 {
		t.Errorf("a contributor reads %v", shows(text, later))
	}
	if _, text := s.api("GET", fest, "editor", "", 200); strings.Join(shows(text, later), ",") != "Kiosk Ünïcode,Café 会場,Ensemble Ōsaka" {
		t.Errorf("the editor reads %v", shows(text, later))
	}
	for _, p := range []string{fmt.Sprintf("/venues/%d", dv), fmt.Sprintf("/venues/%d", pv), fmt.Sprintf("/venues/%d", tv), fmt.Sprintf("/organizers/%d", po)} {
		s.api("PATCH", p, "author", `{"status":"publish"}`, 200)
	}
	anonymousSees("published again", []string{"Kiosk Ünïcode", "Café 会場", "Ensemble Ōsaka"})

	// kalends export writes the public calendar.
	if r := kalends(t, "export", "--db", dsn); r.code != 0 || len(shows(r.stdout, secrets)) > 0 || !strings.Contains(r.stdout, "Große Halle") {
		t.Errorf("export: exit %d, shows %v\n%s", r.code, shows(r.stdout, secrets), r.stderr)
	}
}
