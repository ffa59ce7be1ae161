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
	// The matrix makes hundreds of writes per user: the per-user write
	// limit (TestWritesPerUserAreLimited) is off here.
	limits := models.DefaultLimits()
	limits.WritesPerMinute = 0
	cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500, Limits: limits}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	users := map[string]*models.User{}
	auth := map[string]string{}
	for _, login := range matrixCallers[1:] {
		users[login] = nil
	}
	users["author2"] = nil
	for login := range users {
		u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: login, Password: "correct horse battery", Role: matrixRole[login]})
		if err != nil {
			t.Fatal(err)
		}
		pw, _, err := db.CreateAppPassword(ctx, u.ID, "matrix")
		if err != nil {
			t.Fatal(err)
		}
		users[login], auth[login] = u, "Basic "+basic(login, pw)
	}
	ev := "/cal/events/v1/events"
	var kinds = []string{"events", "venues", "organizers"}
	cells, failed := 0, 0
	check := func(name string, want, got bool, detail string) {
		cells++
		if want != got {
			failed++
			t.Errorf("%s: got %s, want %s (%.200s)", name, map[bool]string{true: "allowed", false: "refused"}[got],
				map[bool]string{true: "allowed", false: "refused"}[want], detail)
		}
	}
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
				cells++
				if e.Status != want {
					failed++
					t.Errorf("%s/create/%s stored %q, want %q", name, asked, e.Status, want)
				}
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
				models.TermInput{Name: ptrTo(fmt.Sprintf("fixed %s %s", name, tax))}, "en")
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
	t.Logf("role × route matrix: %d cells, %d differ from SPEC §6", cells, failed)

	// Nothing that is not published reaches an anonymous caller: searches,
	// the default list, the feed, the public list page, the sitemap, and
	// term counts. The anonymous caller's records are the matrix's last
	// untouched set: create one more set and look for its words.
	recs := matrixRecords(t, db, users, "events", "leak")
	for _, path := range []string{ev + "?per_page=100&start_date=2000-01-01", ev + "?search=mxevleak&per_page=100", "/events.ics",
		"/events/", "/sitemap.xml", "/cal/events/v1/events?per_page=100&start_date=2000-01-01&search=mxevleak"} {
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
