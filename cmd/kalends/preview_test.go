package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestPreviewShowsUnsavedFormsToWhoMayEditThem: the forms' Preview posts
// to web/site, which answers the public page as the form's unsaved content
// makes it, for a signed-in user with the session's CSRF token who may
// edit the record (or create one); the page says it is a preview, is not
// for indexing, is not kept by any cache, and nothing is stored. Through
// the whole app (newApp, with the response cache on), both dialects.
func TestPreviewShowsUnsavedFormsToWhoMayEditThem(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500,
			CacheSize: 4 << 20, CacheCheck: time.Millisecond}
		site := siteOf(cfg)
		db.UseSite(site)
		app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		user := func(login string, role models.Role) *models.User {
			u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: login, Password: "correct horse battery", Role: role})
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		ed, au := user("ed", models.RoleEditor), user("au", models.RoleAuthor)
		s := func(v string) *string { return &v }
		day := time.Now().UTC().AddDate(0, 0, 3).Format(time.DateOnly)
		ev, err := db.CreateEvent(ctx, ed, models.EventInput{Title: s("Lantern walk"), StartDate: s(day + " 10:00"),
			EndDate: s(day + " 11:00"), PostInput: models.PostInput{Status: s(models.StatusPublish)}, Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		vn, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: s("Old hall"), PostInput: models.PostInput{Status: s(models.StatusPublish)}}, "")
		if err != nil {
			t.Fatal(err)
		}
		session := func(u *models.User) (cookie, csrf string) {
			token, sess, err := db.CreateSession(ctx, u.ID, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return models.SessionCookie + "=" + token, sess.CSRFToken
		}
		edCookie, edCSRF := session(ed)
		auCookie, auCSRF := session(au)
		const unsaved = "未保存の題名 Unsaved title"
		eventForm := func(csrf string) url.Values {
			return url.Values{"_csrf": {csrf}, "title": {unsaved}, "description": {"<p>Lanterns 灯笼 등불</p>"},
				"start_date": {day + "T18:00"}, "end_date": {day + "T20:00"}, "timezone": {"UTC"}, "status": {models.StatusPublish},
				"new_tags": {"夜市"}}
		}
		// answer is a response whose body do read and closed.
		type answer struct {
			StatusCode int
			Header     http.Header
		}
		post := func(path, cookie string, form url.Values) (answer, string) {
			req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if cookie != "" {
				req.Header.Set("Cookie", cookie)
			}
			res, body := do(t, app, req)
			return answer{res.StatusCode, res.Header}, body
		}
		eventPath := "/preview/event/" + strconv.FormatInt(ev.ID, 10)

		refused := []struct {
			name, path, cookie string
			form               url.Values
			want               int
		}{
			{"anonymous", eventPath, "", eventForm(edCSRF), http.StatusForbidden},
			{"no CSRF token", eventPath, edCookie, eventForm(""), http.StatusForbidden},
			{"another session's token", eventPath, edCookie, eventForm(auCSRF), http.StatusForbidden},
			{"an author on an editor's event", eventPath, auCookie, eventForm(auCSRF), http.StatusForbidden},
			{"an author on an editor's venue", "/preview/venue/" + strconv.FormatInt(vn.ID, 10), auCookie,
				url.Values{"_csrf": {auCSRF}, "venue": {"Taken over"}}, http.StatusForbidden},
			{"an unknown event", "/preview/event/999999", edCookie, eventForm(edCSRF), http.StatusNotFound},
		}
		for _, r := range refused {
			res, body := post(r.path, r.cookie, r.form)
			if res.StatusCode != r.want || strings.Contains(body, unsaved) || strings.Contains(body, "Taken over") {
				t.Errorf("%s: %d (want %d) %.300s", r.name, res.StatusCode, r.want, body)
			}
		}

		// The public page is in the cache before the preview.
		anon := func() (answer, string) {
			res, body := do(t, app, httptest.NewRequest(http.MethodGet, "/event/"+ev.Slug+"/", nil))
			return answer{res.StatusCode, res.Header}, body
		}
		anon()
		previewed := func(name, path, cookie string, form url.Values, want ...string) {
			t.Helper()
			res, body := post(path, cookie, form)
			if res.StatusCode != http.StatusOK {
				_, main, _ := strings.Cut(body, "<main")
				t.Fatalf("%s: %d %s", name, res.StatusCode, main)
			}
			for _, w := range append([]string{`data-testid="preview-banner"`, `<meta name="robots" content="noindex">`,
				"Preview: this page shows unsaved changes"}, want...) {
				if !strings.Contains(body, w) {
					t.Errorf("%s: the page lacks %q", name, w)
				}
			}
			if res.Header.Get("X-Robots-Tag") != "noindex" || !strings.Contains(res.Header.Get("Cache-Control"), "no-store") ||
				res.Header.Get("X-Kalends-Cache") != "" || res.Header.Get("Content-Security-Policy") == "" {
				t.Errorf("%s: headers %v", name, res.Header)
			}
			// Its "add to your calendar" links would add the stored record.
			if strings.Contains(body, `class="add-to"`) {
				t.Errorf("%s: the preview offers to add the stored event to a calendar", name)
			}
		}
		previewed("an editor's event", eventPath, edCookie, eventForm(edCSRF), unsaved, "Lanterns 灯笼 등불", "夜市")
		byAuthor := eventForm(auCSRF)
		byAuthor.Del("new_tags") // an author may not make tags
		previewed("an author's new event", "/preview/event", auCookie, byAuthor, unsaved)
		previewed("an editor's venue", "/preview/venue/"+strconv.FormatInt(vn.ID, 10), edCookie,
			url.Values{"_csrf": {edCSRF}, "venue": {"新しい会場 Ny hall"}, "city": {"Kyōto 京都"}, "status": {models.StatusPublish},
				"image": {"https://example.test/hall.jpg"}}, "新しい会場 Ny hall", "Kyōto 京都", `src="https://example.test/hall.jpg"`)
		previewed("an author's new organizer", "/preview/organizer", auCookie,
			url.Values{"_csrf": {auCSRF}, "organizer": {"주최자 Oh"}, "email": {"oh@example.test"}}, "주최자 Oh")

		// An invalid form says why, in place of the page.
		bad := eventForm(edCSRF)
		bad.Set("title", "")
		if res, body := post(eventPath, edCookie, bad); res.StatusCode != http.StatusUnprocessableEntity ||
			res.Header.Get("X-Robots-Tag") != "noindex" || !strings.Contains(body, "preview-banner") {
			t.Errorf("an invalid form: %d %v %.300s", res.StatusCode, res.Header, body)
		}

		// Nothing was stored, and the cache still answers the stored page.
		for i := range 2 {
			res, body := anon()
			if res.StatusCode != http.StatusOK || strings.Contains(body, unsaved) || !strings.Contains(body, "Lantern walk") ||
				strings.Contains(body, "preview-banner") {
				t.Errorf("the public page after the preview (%d): %d %.300s", i, res.StatusCode, body)
			}
			if i == 1 && res.Header.Get("X-Kalends-Cache") != "hit" {
				t.Errorf("the public page again: cache %q", res.Header.Get("X-Kalends-Cache"))
			}
		}
		got, err := db.GetEvent(ctx, ed, models.ByID(ev.ID), "")
		if err != nil || got.Title != "Lantern walk" || len(got.Tags) != 0 {
			t.Errorf("the event after the preview: %+v, %v", got, err)
		}
		page, err := db.ListEvents(ctx, ed, models.EventFilter{PerPage: 50, Statuses: []string{models.StatusPublish, models.StatusDraft, models.StatusPending}})
		if err != nil || page.Total != 1 {
			t.Errorf("events after previews of new ones: %d, %v", page.Total, err)
		}
		venues, err := db.Organizers().List(ctx, ed, models.LinkedFilter{PerPage: 10})
		if err != nil || venues.Total != 0 {
			t.Errorf("organizers after the preview of a new one: %d, %v", venues.Total, err)
		}
	})
}
