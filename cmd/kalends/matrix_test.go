package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The role × route matrix (issue 17): every caller (anonymous and the five
// roles) against events, venues and organizers owned by a contributor, an
// author and another author in every status, for read by id, read by
// slug, the list filtered by that status, revisions, update by id and by
// slug, and trash; event creates asking for each status; the media library
// (upload, list, read, change and delete another's image); categories and
// tags (create, read, update, delete). 2,376 cells per dialect. The expected
// outcome of each cell comes from the rules of SPEC §6 written below
// (expect), not from the code; where SPEC §6 is silent they follow
// WordPress and TEC as tec-rest-v1.md §9 describes them. A cell is
// "allowed" (2xx; for a list: the record is in it) or "refused" (4xx; for a
// list: absent, or 400 for a status an anonymous caller or subscriber may
// not ask for). Then nothing unpublished may reach an anonymous caller
// through searches, the feed, the public pages or the sitemap. The admin's
// pages and forms have their matrix in web/matrix_test.go; users and
// application passwords their own tests (models, api, web).
// TestRoleRouteMatrixStatusCodes then says which refusal each event cell
// gets (400, 401, 403, 410), one subtest per cell, and
// TestRoleRouteMatrixLeaks looks for unpublished events on every surface
// an anonymous caller reaches.

// matrixCallers are the callers, "" anonymous.
var matrixCallers = []string{"", "subscriber", "contributor", "author", "editor", "administrator"}

// matrixOwners own the records: the contributor, the author, and another
// author (whose records are "others'" to everyone but him).
var matrixOwners = []string{"contributor", "author", "author2"}

var matrixRole = map[string]models.Role{"subscriber": models.RoleSubscriber, "contributor": models.RoleContributor,
	"author": models.RoleAuthor, "author2": models.RoleAuthor, "editor": models.RoleEditor, "administrator": models.RoleAdministrator}

// expect is SPEC §6 for one cell: may caller do op on a record of owner in
// status? For "list" it says whether the record shows in the list asked
// with ?status=<status>.
func expect(kind, caller, op, owner, status string) bool {
	role := matrixRole[caller]
	own := caller == owner
	editor := role == models.RoleEditor || role == models.RoleAdministrator
	contributorOrAuthor := role == models.RoleContributor || role == models.RoleAuthor
	// "Unpublished": not publish or future (WordPress's edit_published_posts
	// covers both; a private record is edited under edit_posts when own).
	published := status == models.StatusPublish || status == models.StatusFuture
	// Who may edit a record (SPEC §6 table): editors everything; authors
	// their own; contributors their own unpublished ones.
	mayEdit := editor || (role == models.RoleAuthor && own) || (role == models.RoleContributor && own && !published)
	switch op {
	case "read", "slug":
		// Published records are public; other statuses are read by editors
		// and by their owner (contributor or author). A trashed event is
		// gone for everyone (TEC answers event-no-longer-available); a
		// trashed venue or organizer is read, as WordPress reads a trashed
		// post, by who could edit it (the fixture's were drafts).
		switch status {
		case models.StatusPublish:
			return true
		case models.StatusTrash:
			if kind == "events" {
				return false
			}
		}
		return editor || (contributorOrAuthor && own)
	case "list":
		// Anonymous callers and subscribers may ask for publish only; the
		// others see published records plus their own in any status but
		// trash; status=trash lists trashed records to who could edit them
		// (the records were trashed from draft, so their owners could).
		if status == models.StatusPublish {
			return true
		}
		return editor || (contributorOrAuthor && own)
	case "update":
		// A trashed record is edited by who could edit it before (WordPress
		// checks edit_post on the status it had; an update with a status is
		// how it leaves the trash). The fixture's trashed records were drafts.
		if status == models.StatusTrash {
			return editor || (contributorOrAuthor && own)
		}
		return mayEdit
	case "trash":
		// One already in the trash is not trashed again (TEC:
		// event-is-in-trash, 410): it is restored or deleted for good.
		return status != models.StatusTrash && mayEdit
	case "revisions":
		// Revisions are read by who may edit the record (WordPress reads
		// them under edit_post on the parent); the trashed ones were drafts.
		return mayEdit
	}
	panic(op)
}

// matrixCall is one request through the app as caller.
func matrixCall(t *testing.T, app *fiber.App, auth map[string]string, caller, method, path, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if caller != "" {
		req.Header.Set("Authorization", auth[caller])
	}
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// matrixRecord is one event of the fixture.
type matrixRecord struct {
	id            int64
	slug, word    string
	owner, status string
}

// matrixRecords creates, for one caller, a record of kind (events,
// venues or organizers) per owner and status, each with a unique word in
// its title; trashed ones are trashed drafts.
func matrixRecords(t *testing.T, db *models.DB, users map[string]*models.User, kind, tag string) []matrixRecord {
	t.Helper()
	ctx := context.Background()
	var out []matrixRecord
	for _, owner := range matrixOwners {
		for _, status := range models.Statuses {
			word := fmt.Sprintf("mx%s%s%s%s", kind[:2], tag, owner, status)
			st := status
			post := models.PostInput{AuthorID: &users[owner].ID, Status: &st}
			switch status {
			case models.StatusTrash:
				st = models.StatusDraft
			case models.StatusFuture:
				date := "2035-01-01 09:00:00"
				post.Date = &date
			}
			var id int64
			var slug string
			var err error
			switch kind {
			case "events":
				start, end := "2031-02-01 10:00", "2031-02-01 11:00"
				in := models.EventInput{Title: &word, StartDate: &start, EndDate: &end, Lang: "en"}
				in.PostInput = post
				var e *models.Event
				if e, err = db.CreateEvent(ctx, models.Console, in); err == nil {
					id, slug = e.ID, e.Slug
					if status == models.StatusTrash {
						_, err = db.TrashEvent(ctx, models.Console, models.ByID(id), "en")
					}
				}
			case "venues":
				var v *models.Venue
				if v, _, err = db.Venues().Create(ctx, models.Console, models.VenueInput{PostInput: post, Venue: &word}, "en"); err == nil {
					id, slug = v.ID, v.Slug
					if status == models.StatusTrash {
						_, err = db.Venues().Trash(ctx, models.Console, models.ByID(id), "en")
					}
				}
			case "organizers":
				var o *models.Organizer
				if o, _, err = db.Organizers().Create(ctx, models.Console, models.OrganizerInput{PostInput: post, Organizer: &word}, "en"); err == nil {
					id, slug = o.ID, o.Slug
					if status == models.StatusTrash {
						_, err = db.Organizers().Trash(ctx, models.Console, models.ByID(id), "en")
					}
				}
			}
			if err != nil {
				t.Fatalf("%s: %v", word, err)
			}
			out = append(out, matrixRecord{id: id, slug: slug, word: word, owner: owner, status: status})
		}
	}
	return out
}

func TestRoleRouteMatrix(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, roleRouteMatrix)
}

func roleRouteMatrix(t *testing.T, db *models.DB) {
	app, users, auth := matrixApp(t, db)
	ctx := context.Background()
	ev := "/cal/events/v1/events"
	var kinds = []string{"events", "venues", "organizers"}
	tally := modelstest.NewMatrix(t)
	check := tally.Check
	for _, caller := range matrixCallers {
		name := caller
		if name == "" {
			name = "anonymous"
		}
		for _, kind := range kinds {
			coll := "/cal/events/v1/" + kind
			recs := matrixRecords(t, db, users, kind, strings.ReplaceAll(name, "administrator", "admin"))
			for _, r := range recs {
				cell := func(op string) string {
					rel := "others"
					if caller == r.owner {
						rel = "own"
					}
					return fmt.Sprintf("%s/%s/%s/%s(%s)/%s", name, kind, op, rel, r.owner, r.status)
				}
				status, body := matrixCall(t, app, auth, caller, "GET", fmt.Sprintf("%s/%d", coll, r.id), "")
				check(cell("read"), expect(kind, caller, "read", r.owner, r.status), status == http.StatusOK, fmt.Sprint(status, body))
				status, body = matrixCall(t, app, auth, caller, "GET", coll+"/by-slug/"+r.slug, "")
				check(cell("slug"), expect(kind, caller, "slug", r.owner, r.status), status == http.StatusOK, fmt.Sprint(status, body))
				list := coll + "?per_page=100&status=" + r.status
				if kind == "events" {
					list += "&start_date=2031-01-01&end_date=2031-12-31"
				}
				status, body = matrixCall(t, app, auth, caller, "GET", list, "")
				if status != http.StatusOK && status != http.StatusBadRequest {
					t.Errorf("%s: list answered %d %.200s", cell("list"), status, body)
				}
				check(cell("list"), expect(kind, caller, "list", r.owner, r.status), status == http.StatusOK && strings.Contains(body, r.word), fmt.Sprint(status))
			}
			// Writes after the reads: update, then trash.
			for _, r := range recs {
				rel := "others"
				if caller == r.owner {
					rel = "own"
				}
				status, body := matrixCall(t, app, auth, caller, "GET", fmt.Sprintf("%s/%d/revisions", coll, r.id), "")
				check(fmt.Sprintf("%s/%s/revisions/%s(%s)/%s", name, kind, rel, r.owner, r.status), expect(kind, caller, "revisions", r.owner, r.status),
					status == http.StatusOK, fmt.Sprint(status, body))
				status, body = matrixCall(t, app, auth, caller, "POST", fmt.Sprintf("%s/%d", coll, r.id), `{"description":"changed"}`)
				check(fmt.Sprintf("%s/%s/update/%s(%s)/%s", name, kind, rel, r.owner, r.status), expect(kind, caller, "update", r.owner, r.status),
					status == http.StatusOK, fmt.Sprint(status, body))
				status, body = matrixCall(t, app, auth, caller, "POST", coll+"/by-slug/"+r.slug, `{"description":"changed by slug"}`)
				check(fmt.Sprintf("%s/%s/update by slug/%s(%s)/%s", name, kind, rel, r.owner, r.status), expect(kind, caller, "update", r.owner, r.status),
					status == http.StatusOK, fmt.Sprint(status, body))
				status, body = matrixCall(t, app, auth, caller, "DELETE", fmt.Sprintf("%s/%d", coll, r.id), "")
				check(fmt.Sprintf("%s/%s/trash/%s(%s)/%s", name, kind, rel, r.owner, r.status), expect(kind, caller, "trash", r.owner, r.status),
					status == http.StatusOK, fmt.Sprint(status, body))
			}
		}
		// Creates, asking for each status: who may create, and what is stored.
		for _, asked := range []string{models.StatusPublish, models.StatusDraft, models.StatusPending} {
			status, body := matrixCall(t, app, auth, caller, "POST", ev,
				fmt.Sprintf(`{"title":"new %s %s","start_date":"2031-03-01 10:00","end_date":"2031-03-01 11:00","status":%q}`, name, asked, asked))
			role := matrixRole[caller]
			may := role == models.RoleContributor || role == models.RoleAuthor || role == models.RoleEditor || role == models.RoleAdministrator
			check(fmt.Sprintf("%s/create/%s", name, asked), may, status == http.StatusCreated, fmt.Sprint(status, body))
			if status == http.StatusCreated {
				var e struct {
					Status string `json:"status"`
				}
				_ = json.Unmarshal([]byte(body), &e)
				want := asked
				if role == models.RoleContributor && asked == models.StatusPublish {
					want = models.StatusPending // SPEC §6: stored as pending
				}
				check(fmt.Sprintf("%s/create/%s stored %q", name, asked, e.Status), true, e.Status == want, "want "+want)
			}
		}
		// The media library (WordPress's upload_files: authors and up; an
		// image is changed or deleted by its uploader or an editor).
		{
			role := matrixRole[caller]
			mayUpload := role == models.RoleAuthor || role == models.RoleEditor || role == models.RoleAdministrator
			editor := role == models.RoleEditor || role == models.RoleAdministrator
			req := uploadRequest(t, "m.png", imagetest.PNG(40, 30), "alt")
			if caller != "" {
				req.Header.Set("Authorization", auth[caller])
			}
			res, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			mb, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			check(name+"/media/upload", mayUpload, res.StatusCode == http.StatusCreated, fmt.Sprint(res.StatusCode, string(mb)))
			status, body := matrixCall(t, app, auth, caller, "GET", "/cal/events/v1/media", "")
			check(name+"/media/list", mayUpload, status == http.StatusOK, fmt.Sprint(status, body))
			theirs, err := db.CreateMedia(ctx, users["author2"], models.MediaUpload{FileName: "theirs.png", Data: imagetest.PNG(20, 20)})
			if err != nil {
				t.Fatal(err)
			}
			item := fmt.Sprintf("/cal/events/v1/media/%d", theirs.ID)
			status, body = matrixCall(t, app, auth, caller, "GET", item, "")
			check(name+"/media/read", true, status == http.StatusOK, fmt.Sprint(status, body))
			status, body = matrixCall(t, app, auth, caller, "PATCH", item, `{"alt_text":"x"}`)
			check(name+"/media/update others'", editor, status == http.StatusOK, fmt.Sprint(status, body))
			status, body = matrixCall(t, app, auth, caller, "DELETE", item, "")
			check(name+"/media/delete others'", editor, status == http.StatusOK, fmt.Sprint(status, body))
			// Deleting one's own image "with unlink" while another user's
			// event shows it edits that event: editors only (issue 28).
			if mayUpload {
				var own struct{ ID int64 }
				_ = json.Unmarshal(mb, &own)
				title, start, end, image := "uses "+name, "2031-04-01 10:00:00", "2031-04-01 11:00:00", fmt.Sprint(own.ID)
				if _, err := db.CreateEvent(ctx, users["author2"], models.EventInput{Title: &title, StartDate: &start, EndDate: &end, ImageURL: &image}); err != nil {
					t.Fatal(err)
				}
				status, body = matrixCall(t, app, auth, caller, "DELETE", fmt.Sprintf("/cal/events/v1/media/%d?unlink=true", own.ID), "")
				check(name+"/media/delete own with unlink, used by others'", editor, status == http.StatusOK, fmt.Sprint(status, body))
			}
		}
		// Terms (SPEC §6: authors manage categories, editors also tags;
		// everyone reads them): create, read, update, delete.
		for _, tax := range []string{"categories", "tags"} {
			role := matrixRole[caller]
			may := role == models.RoleEditor || role == models.RoleAdministrator || (tax == "categories" && role == models.RoleAuthor)
			coll := "/cal/events/v1/" + tax
			status, body := matrixCall(t, app, auth, caller, "POST", coll, fmt.Sprintf(`{"name":"term %s %s"}`, name, tax))
			check(fmt.Sprintf("%s/%s/create", name, tax), may, status == http.StatusCreated, fmt.Sprint(status, body))
			// A term made by the console, so every caller has one to work on.
			term, err := db.CreateTerm(ctx, models.Console, map[string]string{"categories": models.TaxCategory, "tags": models.TaxTag}[tax],
				models.TermInput{Name: ptrOf(fmt.Sprintf("fixed %s %s", name, tax))}, "en")
			if err != nil {
				t.Fatal(err)
			}
			item := fmt.Sprintf("%s/%d", coll, term.ID)
			status, body = matrixCall(t, app, auth, caller, "GET", item, "")
			check(fmt.Sprintf("%s/%s/read", name, tax), true, status == http.StatusOK, fmt.Sprint(status, body))
			status, body = matrixCall(t, app, auth, caller, "POST", item, `{"description":"changed"}`)
			check(fmt.Sprintf("%s/%s/update", name, tax), may, status == http.StatusOK, fmt.Sprint(status, body))
			status, body = matrixCall(t, app, auth, caller, "DELETE", item, "")
			check(fmt.Sprintf("%s/%s/delete", name, tax), may, status == http.StatusOK, fmt.Sprint(status, body))
		}
	}
	t.Logf("role × route matrix: %d cells, %d differ from SPEC §6", tally.Cells, tally.Failed)

	// Nothing that is not published reaches an anonymous caller: searches,
	// the default list, the feed, the public list page, the sitemap, and
	// term counts. The anonymous caller's records are the matrix's last
	// untouched set: create one more set and look for its words.
	recs := matrixRecords(t, db, users, "events", "leak")
	for _, path := range []string{ev + "?per_page=100&start_date=2000-01-01", ev + "?search=mxevleak&per_page=100", "/events.ics",
		"/events/", "/sitemap.xml", "/sitemap-events-1.xml", "/cal/events/v1/events?per_page=100&start_date=2000-01-01&search=mxevleak"} {
		for round := range 2 { // the second answer may come from the response cache
			status, body := matrixCall(t, app, auth, "", "GET", path, "")
			for _, r := range recs {
				if r.status != models.StatusPublish && strings.Contains(body, r.word) {
					t.Errorf("anonymous %s (round %d, %d) shows the %s event %s", path, round, status, r.status, r.word)
				}
			}
		}
	}
}

// matrixApp is the assembled app on db with the write limit off (the
// matrices make hundreds of writes per user, TestWritesPerUserAreLimited
// covers the limit), a user per role of matrixRole and an application
// password for each, as HTTP Basic credentials by login.
func matrixApp(t *testing.T, db *models.DB) (*fiber.App, map[string]*models.User, map[string]string) {
	t.Helper()
	limits := models.DefaultLimits()
	limits.WritesPerMinute = 0
	// The response cache is on (read the generation at every request), so
	// a cached answer made for one caller that reached another would show.
	cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500, Limits: limits,
		CacheSize: 8 << 20, CacheCheck: time.Millisecond}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	users := map[string]*models.User{}
	auth := map[string]string{}
	for login, role := range matrixRole {
		u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: login, Password: "correct horse battery", Role: role})
		if err != nil {
			t.Fatal(err)
		}
		pw, _, err := db.CreateAppPassword(ctx, u.ID, "matrix")
		if err != nil {
			t.Fatal(err)
		}
		users[login], auth[login] = u, "Basic "+basic(login, pw)
	}
	return app, users, auth
}

// The status-code matrix (events): each caller (anonymous and the five
// roles) × each event (the caller's own, for the roles that write, and
// another author's) × each of the six statuses × read by id, list by
// status, PATCH and DELETE, compared by status code, one subtest per cell
// named caller/op/own|others/status; plus creates asking for each status.
// Where TestRoleRouteMatrix says allowed or refused, this says which
// refusal: 400, 401, 403 or 410.

// codeOwners says whose events a caller meets: its own (contributors and
// up; a subscriber's or anonymous caller's own records do not exist in
// SPEC §6's terms) and another author's ("others").
func codeOwners(caller string) []string {
	if caller == "" || caller == "subscriber" {
		return []string{"author2"}
	}
	return []string{caller, "author2"}
}

// wantCode is SPEC §6 (with §5's answers and WordPress's as tec-rest-v1.md
// §1.2, §3 and §9 give them where SPEC is silent) for one cell: the status
// code of op by caller on an event of its own (own) or another author's in
// status, and for "list" whether the event is in the list asked with
// ?status=<status>. The trashed events were drafts before the trash.
//
//   - read (GET /events/{id}): publish is public (200). A trashed event is
//     403 event-no-longer-available for everyone, editors too (§5, TEC
//     §3.2). Any other status is read by editors and administrators and by
//     its owner when a contributor or author (§6 table, TEC §9 "GET single
//     draft/pending/private"); anyone else gets 403 event-not-accessible
//     (§5), anonymous callers included (the check is the handler's, not a
//     permission callback, so no 401).
//   - list (?status=S): anonymous callers and subscribers may ask for
//     publish only, another status is 400 (§6). Otherwise 200, and the event
//     is listed when published (publish; a scheduled one is not "published"
//     until it is), or the caller is an editor, or it is the contributor's
//     or author's own; status=trash lists trashed events to who could edit
//     them (§6), i.e. the same rule for a trashed draft.
//   - update (PATCH): anonymous 401, logged in but not allowed 403 (§9 last
//     row, TEC §1.2 step 7). Allowed: editors everything; authors their own
//     in any status; contributors their own unpublished ones (not publish,
//     not future: WordPress's edit_published_posts covers both), which
//     includes a trashed draft (WordPress checks edit_post against the
//     status it had before the trash). A trashed event is updatable (TEC
//     §3.4 has no trash check; an update is how it leaves the trash).
//   - delete (DELETE, to the trash): the permission as for update first
//     (401/403); then an event already in the trash is 410
//     event-is-in-trash (§5); else 200.
func wantCode(caller, op string, own bool, status string) (code int, listed bool) {
	role := matrixRole[caller]
	editor := role == models.RoleEditor || role == models.RoleAdministrator
	owner := own && (role == models.RoleContributor || role == models.RoleAuthor)
	published := status == models.StatusPublish || status == models.StatusFuture
	mayEdit := editor || (own && role == models.RoleAuthor) || (own && role == models.RoleContributor && !published)
	refused := http.StatusForbidden
	if caller == "" {
		refused = http.StatusUnauthorized
	}
	switch op {
	case "read":
		switch {
		case status == models.StatusPublish:
			return http.StatusOK, false
		case status == models.StatusTrash:
			return http.StatusForbidden, false
		case editor || owner:
			return http.StatusOK, false
		}
		return http.StatusForbidden, false
	case "list":
		if status != models.StatusPublish && (caller == "" || role == models.RoleSubscriber) {
			return http.StatusBadRequest, false
		}
		return http.StatusOK, status == models.StatusPublish || editor || owner
	case "update":
		if !mayEdit {
			return refused, false
		}
		return http.StatusOK, false
	case "delete":
		switch {
		case !mayEdit:
			return refused, false
		case status == models.StatusTrash:
			return http.StatusGone, false
		}
		return http.StatusOK, false
	}
	panic(op)
}

// codeEvent is one event of the status-code matrix.
type codeEvent struct {
	id                 int64
	slug, word         string
	owner, status, rel string
}

// codeEventSpec is what matrixEvent creates.
type codeEventSpec struct {
	owner, status, word string
	start               time.Time
	categories          []int64
	trashedFrom         string // the status a trashed event had before
}

// matrixEvent creates one event as its owner through the store (the
// console sets a status the owner may not give, such as a contributor's
// publish, and the author of a record the owner may not create), then
// trashes it as its owner when its status is trash.
func matrixEvent(t *testing.T, db *models.DB, users map[string]*models.User, s codeEventSpec) codeEvent {
	t.Helper()
	ctx := context.Background()
	owner := users[s.owner]
	st := s.status
	if st == models.StatusTrash {
		st = s.trashedFrom
	}
	in := models.EventInput{Title: ptrOf(s.word), StartDate: ptrOf(s.start.Format("2006-01-02 15:04")),
		EndDate: ptrOf(s.start.Add(time.Hour).Format("2006-01-02 15:04")), Lang: "en"}
	in.AuthorID, in.Status = &owner.ID, &st
	if st == models.StatusFuture {
		in.Date = ptrOf("2035-01-01 09:00:00")
	}
	if s.categories != nil {
		refs := []models.TermRef{}
		for _, id := range s.categories {
			refs = append(refs, models.TermRef{ID: id})
		}
		in.Categories = &refs
	}
	e, err := db.CreateEvent(ctx, owner, in)
	if err != nil {
		t.Fatalf("create %s as %s: %v", s.word, s.owner, err)
	}
	if e.Status != st { // scaled back (a contributor's publish): the console sets it
		if e, err = db.UpdateEvent(ctx, models.Console, models.ByID(e.ID), models.EventInput{PostInput: models.PostInput{Status: &st, Date: in.Date}, Lang: "en"}); err != nil {
			t.Fatalf("status of %s: %v", s.word, err)
		}
	}
	if s.status == models.StatusTrash {
		if e, err = db.TrashEvent(ctx, owner, models.ByID(e.ID), "en"); err != nil {
			t.Fatalf("trash %s as %s: %v", s.word, s.owner, err)
		}
	}
	if e.Status != s.status {
		t.Fatalf("%s is %s, want %s", s.word, e.Status, s.status)
	}
	return codeEvent{id: e.ID, slug: e.Slug, word: s.word, owner: s.owner, status: s.status}
}

func TestRoleRouteMatrixStatusCodes(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, roleRouteCodes)
}

func roleRouteCodes(t *testing.T, db *models.DB) {
	app, users, auth := matrixApp(t, db)
	ev := "/cal/events/v1/events"
	start := time.Date(2031, 2, 1, 10, 0, 0, 0, time.UTC)
	cells := 0
	class := func(code int) string {
		switch {
		case code >= 200 && code < 300:
			return "2xx"
		case code == 400, code == 401, code == 403, code == 404, code == 410:
			return fmt.Sprint(code)
		}
		return fmt.Sprintf("other %d", code)
	}
	for _, caller := range matrixCallers {
		name := caller
		if name == "" {
			name = "anonymous"
		}
		var recs []codeEvent
		for _, owner := range codeOwners(caller) {
			for _, status := range models.Statuses {
				r := matrixEvent(t, db, users, codeEventSpec{owner: owner, status: status, trashedFrom: models.StatusDraft, start: start,
					word: fmt.Sprintf("mxcode%s%s%sword", strings.ReplaceAll(name, "administrator", "admin"), owner, status)})
				r.rel = "others"
				if owner == caller {
					r.rel = "own"
				}
				recs = append(recs, r)
			}
		}
		for _, r := range recs {
			own := r.rel == "own"
			item := fmt.Sprintf("%s/%d", ev, r.id)
			for _, op := range []string{"read", "list", "update", "delete"} {
				want, listed := wantCode(caller, op, own, r.status)
				cells++
				t.Run(fmt.Sprintf("%s/%s/%s/%s", name, op, r.rel, r.status), func(t *testing.T) {
					var code int
					var body string
					switch op {
					case "read":
						code, body = matrixCall(t, app, auth, caller, "GET", item, "")
					case "list":
						code, body = matrixCall(t, app, auth, caller, "GET", ev+"?per_page=500&start_date=2031-01-01&end_date=2031-12-31&status="+r.status, "")
					case "update":
						code, body = matrixCall(t, app, auth, caller, "PATCH", item, `{"title":"x"}`)
					case "delete":
						code, body = matrixCall(t, app, auth, caller, "DELETE", item, "")
					}
					if class(code) != class(want) {
						t.Errorf("got %d, want %s (%.200s)", code, class(want), body)
						return
					}
					if op == "list" && code == http.StatusOK && strings.Contains(body, r.word) != listed {
						t.Errorf("listed %v, want %v", !listed, listed)
					}
				})
			}
		}
		// Creates asking for each status (SPEC §6: contributors and up;
		// a contributor's publish or future is stored as pending, another
		// status as asked).
		for _, asked := range []string{models.StatusPublish, models.StatusFuture, models.StatusDraft, models.StatusPending, models.StatusPrivate} {
			role := matrixRole[caller]
			want, stored := http.StatusCreated, asked
			switch {
			case caller == "":
				want = http.StatusUnauthorized
			case role == models.RoleSubscriber:
				want = http.StatusForbidden
			case role == models.RoleContributor && (asked == models.StatusPublish || asked == models.StatusFuture):
				stored = models.StatusPending
			}
			cells++
			t.Run(fmt.Sprintf("%s/create/%s", name, asked), func(t *testing.T) {
				date := ""
				if asked == models.StatusFuture {
					date = `,"date":"2035-01-01 09:00:00"`
				}
				code, body := matrixCall(t, app, auth, caller, "POST", ev,
					fmt.Sprintf(`{"title":"new %s %s","start_date":"2031-03-01 10:00","end_date":"2031-03-01 11:00","status":%q%s}`, name, asked, asked, date))
				if class(code) != class(want) {
					t.Fatalf("got %d, want %s (%.200s)", code, class(want), body)
				}
				if code == http.StatusCreated {
					var e struct {
						Status string `json:"status"`
					}
					if err := json.Unmarshal([]byte(body), &e); err != nil || e.Status != stored {
						t.Errorf("stored %q, want %q (%v)", e.Status, stored, err)
					}
				}
			})
		}
	}
	t.Logf("status-code matrix: %d cells", cells)
}

// The anonymous leak checks: events of the author and of another author in
// every status, each with a unique word in its title (and so in its slug),
// in a category shared with the published ones and in one of their own,
// starting next week (inside every default window). No surface an
// anonymous caller reaches may show a word of an event that is not
// published, or count it: the API lists (every status filter, searches for
// each word, category filters, include), /events.ics, the public list and
// month pages, the event pages, /sitemap.xml, the category pages and the
// category counts of /cal/events/v1/categories (WordPress counts published
// posts only). Each URL is asked by an editor first, so a response cache
// that kept the editor's answer for everyone would show. The published
// words must show, so that no check passes on an empty page. The trashed
// events were published before the trash (their counts must have gone).
func TestRoleRouteMatrixLeaks(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, roleRouteLeaks)
}

func roleRouteLeaks(t *testing.T, db *models.DB) {
	app, users, auth := matrixApp(t, db)
	ctx := context.Background()
	term := func(name string) *models.Term {
		c, err := db.CreateTerm(ctx, models.Console, models.TaxCategory, models.TermInput{Name: ptrOf(name)}, "en")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	shared, hiddenOnly := term("Leakshared"), term("Leakhidden")
	start := time.Now().UTC().Truncate(time.Hour).AddDate(0, 0, 7)
	var published, hidden []codeEvent
	for _, owner := range []string{"author", "author2"} {
		for _, status := range models.Statuses {
			cats := []int64{shared.ID}
			if status != models.StatusPublish {
				cats = append(cats, hiddenOnly.ID)
			}
			r := matrixEvent(t, db, users, codeEventSpec{owner: owner, status: status, trashedFrom: models.StatusPublish, start: start,
				categories: cats, word: fmt.Sprintf("leak%s%sword", owner, status)})
			if status == models.StatusPublish {
				published = append(published, r)
			} else {
				hidden = append(hidden, r)
			}
		}
	}
	ev := "/cal/events/v1/events"
	cells := 0
	// get asks path as an editor (to fill any cache), then twice as an
	// anonymous caller, and returns the anonymous answers.
	get := func(t *testing.T, path string) (codes []int, bodies []string) {
		t.Helper()
		matrixCall(t, app, auth, "editor", "GET", path, "")
		for range 2 {
			code, body := matrixCall(t, app, auth, "", "GET", path, "")
			codes, bodies = append(codes, code), append(bodies, body)
		}
		return codes, bodies
	}
	// shows is one cell: path, asked anonymously, shows the published
	// records (when public) and none of the others, by key (word or slug).
	shows := func(name, path string, public bool, key func(codeEvent) string) {
		cells++
		t.Run("anonymous/leak/"+name, func(t *testing.T) {
			codes, bodies := get(t, path)
			for i, body := range bodies {
				for _, r := range hidden {
					if strings.Contains(body, key(r)) {
						t.Errorf("%s (answer %d, %d) shows the %s event of %s %q", path, i+1, codes[i], r.status, r.owner, key(r))
					}
				}
				for _, r := range published {
					if public && !strings.Contains(body, key(r)) {
						t.Errorf("%s (answer %d, %d) lacks the published event %q: the check sees nothing (%.300s)", path, i+1, codes[i], key(r), body)
					}
				}
			}
		})
	}
	word := func(r codeEvent) string { return r.word }
	page := func(r codeEvent) string { return "/event/" + r.slug + "/" }
	dates := "&start_date=2000-01-01&end_date=2099-12-31"
	shows("api/list", ev+"?per_page=500", true, word)
	shows("api/list all dates", ev+"?per_page=500"+dates, true, word)
	for _, s := range models.Statuses {
		shows("api/list status="+s, ev+"?per_page=500"+dates+"&status="+s, s == models.StatusPublish, word)
	}
	shows("api/list categories=shared", fmt.Sprintf("%s?per_page=500%s&categories=%d", ev, dates, shared.ID), true, word)
	shows("api/list categories=hidden", fmt.Sprintf("%s?per_page=500%s&categories=%d", ev, dates, hiddenOnly.ID), false, word)
	var ids []string
	for _, r := range append(append([]codeEvent{}, published...), hidden...) {
		ids = append(ids, fmt.Sprint(r.id))
	}
	shows("api/list include", ev+"?per_page=500&include="+strings.Join(ids, ","), true, word)
	shows("events.ics", "/events.ics", true, word)
	shows("events.ics all dates", "/events.ics?start_date=2000-01-01&end_date=2099-12-31", true, word)
	shows("events page", "/events/", true, page)
	shows("month page", "/events/?view=month&month="+start.Format("2006-01"), true, page)
	shows("category page shared", "/events/category/"+shared.Slug+"/", true, page)
	shows("category page hidden", "/events/category/"+hiddenOnly.Slug+"/", false, page)
	shows("sitemap", "/sitemap-events-1.xml", true, page) // the child of the first 10,000 ids: every event here
	// Searches for each word: the list echoes the search in its links, so
	// the answer is read: no event, a total of 0 (1 for a published word).
	for _, r := range append(append([]codeEvent{}, published...), hidden...) {
		want := 0
		if r.status == models.StatusPublish {
			want = 1
		}
		cells++
		t.Run(fmt.Sprintf("anonymous/leak/api search/%s/%s", r.owner, r.status), func(t *testing.T) {
			codes, bodies := get(t, ev+"?per_page=500"+dates+"&search="+r.word)
			for i, body := range bodies {
				var l struct {
					Events []struct {
						ID int64 `json:"id"`
					} `json:"events"`
					Total int `json:"total"`
				}
				if err := json.Unmarshal([]byte(body), &l); err != nil || codes[i] != http.StatusOK || len(l.Events) != want || l.Total != want {
					t.Errorf("answer %d: %d events, total %d, want %d (%d %v %.300s)", i+1, len(l.Events), l.Total, want, codes[i], err, body)
				}
			}
		})
		cells++
		t.Run(fmt.Sprintf("anonymous/leak/ics search/%s/%s", r.owner, r.status), func(t *testing.T) {
			_, bodies := get(t, "/events.ics?start_date=2000-01-01&end_date=2099-12-31&search="+r.word)
			for i, body := range bodies {
				if n := strings.Count(body, "BEGIN:VEVENT"); n != want {
					t.Errorf("answer %d: %d events, want %d", i+1, n, want)
				}
			}
		})
		cells++
		t.Run(fmt.Sprintf("anonymous/leak/page search/%s/%s", r.owner, r.status), func(t *testing.T) {
			_, bodies := get(t, "/events/?search="+r.word)
			for i, body := range bodies {
				if strings.Contains(body, page(r)) != (want == 1) {
					t.Errorf("answer %d: shows %s: %v, want %v", i+1, page(r), want != 1, want == 1)
				}
			}
		})
		// The event's own pages: a published one is there, another is not
		// found (SPEC §5 gives the API's 403 to the API only).
		for surface, p := range map[string]string{"event page": page(r), "event ics": "/event/" + r.slug + ".ics"} {
			cells++
			t.Run(fmt.Sprintf("anonymous/leak/%s/%s/%s", surface, r.owner, r.status), func(t *testing.T) {
				codes, bodies := get(t, p)
				for i, code := range codes {
					if (code == http.StatusOK) != (want == 1) || want == 0 && code != http.StatusNotFound {
						t.Errorf("%s answer %d: %d (%.200s)", p, i+1, code, bodies[i])
					}
				}
			})
		}
	}
	// Category counts: the shared category counts the two published events,
	// the other none (and is hidden from the default list, hide_empty).
	for _, c := range []struct {
		path  string
		terms map[int64]int // term id → count; -1: absent
	}{
		{"/cal/events/v1/categories?per_page=100&hide_empty=false", map[int64]int{shared.ID: len(published), hiddenOnly.ID: 0}},
		{"/cal/events/v1/categories?per_page=100", map[int64]int{shared.ID: len(published), hiddenOnly.ID: -1}},
		{"/cal/events/v1/categories?per_page=100&search=leak", map[int64]int{shared.ID: len(published), hiddenOnly.ID: -1}},
	} {
		cells++
		t.Run("anonymous/leak/category counts "+strings.TrimPrefix(c.path, "/cal/events/v1/"), func(t *testing.T) {
			codes, bodies := get(t, c.path)
			for i, body := range bodies {
				var l struct {
					Categories []struct {
						ID    int64 `json:"id"`
						Count int   `json:"count"`
					} `json:"categories"`
				}
				if err := json.Unmarshal([]byte(body), &l); err != nil || codes[i] != http.StatusOK {
					t.Fatalf("answer %d: %d %v %.300s", i+1, codes[i], err, body)
				}
				got := map[int64]int{shared.ID: -1, hiddenOnly.ID: -1}
				for _, term := range l.Categories {
					if _, ok := got[term.ID]; ok {
						got[term.ID] = term.Count
					}
				}
				for id, want := range c.terms {
					if got[id] != want {
						t.Errorf("answer %d: term %d count %d, want %d (-1: absent)", i+1, id, got[id], want)
					}
				}
			}
		})
	}
	for _, c := range []struct {
		term *models.Term
		want int
	}{{shared, len(published)}, {hiddenOnly, 0}} {
		cells++
		t.Run("anonymous/leak/category count "+c.term.Slug, func(t *testing.T) {
			codes, bodies := get(t, fmt.Sprintf("/cal/events/v1/categories/%d", c.term.ID))
			for i, body := range bodies {
				var term struct {
					Count int `json:"count"`
				}
				if err := json.Unmarshal([]byte(body), &term); err != nil || codes[i] != http.StatusOK || term.Count != c.want {
					t.Errorf("answer %d: count %d, want %d (%d %v)", i+1, term.Count, c.want, codes[i], err)
				}
			}
		})
	}
	t.Logf("leak checks: %d cells", cells)
}
