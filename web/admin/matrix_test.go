package admin

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The admin's side of the role × route matrix (issue 17; the API's is
// cmd/kalends/matrix_test.go). SPEC §10: the admin goes through the same
// rules as the API, "nobody can do in a form what the API would refuse
// them". For every caller (signed out, and signed in as each role), on
// events, venues and organizers of a contributor, an author and another
// author in every status: the edit page and its save, the translation page
// and its save (for who may edit the record, never for one in the trash),
// the trash action, and on trashed records the restore and delete actions
// (SPEC §6's edit, trash and force-delete rules). Then the users page (administrators) and the
// category create form (authors and up).

var adminCallers = []string{"", "subscriber", "contributor", "author", "editor", "administrator"}

var adminRoles = map[string]models.Role{"subscriber": models.RoleSubscriber, "contributor": models.RoleContributor,
	"author": models.RoleAuthor, "author2": models.RoleAuthor, "editor": models.RoleEditor, "administrator": models.RoleAdministrator}

// adminExpect is SPEC §6 for one admin cell.
func adminExpect(caller, op, owner, status string) bool {
	role := adminRoles[caller]
	own := caller == owner
	editor := role == models.RoleEditor || role == models.RoleAdministrator
	published := status == models.StatusPublish || status == models.StatusFuture
	mayEdit := editor || (role == models.RoleAuthor && own) || (role == models.RoleContributor && own && !published)
	switch op {
	case "restore":
		// Out of the trash (the fixture's trashed records were drafts): who
		// could edit it.
		return mayEdit
	case "delete":
		// For good: editors and administrators (SPEC §6, force delete).
		return editor
	case "edit page", "save", "translation page", "translation save":
		// The edit form is for who may edit the record (WordPress's edit
		// screen checks edit_post); a record in the trash is restored first
		// (WordPress: "You can't edit this item because it is in the
		// Trash"), from the list's trash view.
		return status != models.StatusTrash && mayEdit
	case "trash":
		return status != models.StatusTrash && mayEdit
	}
	panic(op)
}

type adminRecord struct {
	kind, owner, status string
	id                  int64
}

func adminFixture(t *testing.T, db *models.DB, users map[string]*models.User) []adminRecord {
	t.Helper()
	ctx := context.Background()
	var out []adminRecord
	for _, kind := range []string{"events", "venues", "organizers"} {
		for _, owner := range []string{"contributor", "author", "author2"} {
			for _, status := range models.Statuses {
				st := status
				post := models.PostInput{AuthorID: &users[owner].ID, Status: &st}
				switch status {
				case models.StatusTrash:
					st = models.StatusDraft
				case models.StatusFuture:
					d := "2035-01-01 09:00:00"
					post.Date = &d
				}
				name := fmt.Sprintf("%s %s %s", kind, owner, status)
				var id int64
				var err error
				switch kind {
				case "events":
					start, end := "2031-02-01 10:00", "2031-02-01 11:00"
					in := models.EventInput{Title: &name, StartDate: &start, EndDate: &end, Lang: "en"}
					in.PostInput = post
					var e *models.Event
					if e, err = db.CreateEvent(ctx, models.Console, in); err == nil {
						id = e.ID
						if status == models.StatusTrash {
							_, err = db.TrashEvent(ctx, models.Console, models.ByID(id), "en")
						}
					}
				case "venues":
					var v *models.Venue
					if v, _, err = db.Venues().Create(ctx, models.Console, models.VenueInput{PostInput: post, Venue: &name}, "en"); err == nil {
						id = v.ID
						if status == models.StatusTrash {
							_, err = db.Venues().Trash(ctx, models.Console, models.ByID(id), "en")
						}
					}
				case "organizers":
					var o *models.Organizer
					if o, _, err = db.Organizers().Create(ctx, models.Console, models.OrganizerInput{PostInput: post, Organizer: &name}, "en"); err == nil {
						id = o.ID
						if status == models.StatusTrash {
							_, err = db.Organizers().Trash(ctx, models.Console, models.ByID(id), "en")
						}
					}
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out = append(out, adminRecord{kind: kind, owner: owner, status: status, id: id})
			}
		}
	}
	return out
}

func TestAdminRoleMatrix(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		// Over a hundred form posts per user: the per-user write limit is
		// off here (it has its own test).
		lim := models.DefaultLimits()
		lim.WritesPerMinute = 0
		db.Site().Limits = &lim
		users := map[string]*models.User{}
		for login := range adminRoles {
			users[login] = account(t, db, login, adminRoles[login])
		}
		tally := modelstest.NewMatrix(t)
		check := tally.Check
		// A CSV import of another author: its pages are its owner's only.
		others, err := db.CreateCSVImport(context.Background(), users["author2"], "others.csv", "events", "mdy",
			[]byte("Event Name,Event Start Date\n夏祭り,2031-08-01\n"))
		if err != nil {
			t.Fatal(err)
		}
		othersPath := fmt.Sprintf("/admin/import/csv/%d", others.ID)
		hook, err := db.AddWebhook(context.Background(), models.Console, "https://hooks.example/パートナー", "", nil, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
		if err != nil {
			t.Fatal(err)
		}
		for _, caller := range adminCallers {
			name := caller
			b := newBrowser(t, app)
			csrf := ""
			if caller == "" {
				name = "signed out"
			} else {
				csrf = b.signIn(caller, "password-"+caller)
			}
			posted := func(resp *reply) bool {
				loc := resp.Header.Get("Location")
				return resp.StatusCode == http.StatusSeeOther && !strings.HasPrefix(loc, "/admin/login")
			}
			for _, r := range adminFixture(t, db, users) {
				rel := "others"
				if caller == r.owner {
					rel = "own"
				}
				cell := func(op string) string {
					return fmt.Sprintf("%s/%s/%s/%s(%s)/%s", name, r.kind, op, rel, r.owner, r.status)
				}
				base := fmt.Sprintf("/admin/%s/%d", r.kind, r.id)
				resp, body := b.get(base + "/edit")
				check(cell("edit page"), adminExpect(caller, "edit page", r.owner, r.status), resp.StatusCode == http.StatusOK, fmt.Sprint(resp.StatusCode, body))
				form := url.Values{"_csrf": {csrf}, "_overwrite": {"1"}, "status": {r.status}}
				switch r.kind {
				case "events":
					form.Set("title", "saved "+cell("save"))
					form.Set("start_date", "2031-02-01T10:00")
					form.Set("end_date", "2031-02-01T11:00")
				case "venues":
					form.Set("venue", "saved "+cell("save"))
				case "organizers":
					form.Set("organizer", "saved "+cell("save"))
				}
				resp, body = b.send(http.MethodPost, base, form)
				check(cell("save"), adminExpect(caller, "save", r.owner, r.status), posted(resp), fmt.Sprint(resp.StatusCode, resp.Header.Get("Location"), body))
				resp, body = b.get(base + "/translations/ja")
				check(cell("translation page"), adminExpect(caller, "translation page", r.owner, r.status), resp.StatusCode == http.StatusOK, fmt.Sprint(resp.StatusCode, body))
				field := map[string]string{"events": "title", "venues": "venue", "organizers": "organizer"}[r.kind]
				resp, body = b.send(http.MethodPost, base+"/translations/ja", url.Values{"_csrf": {csrf}, field: {"翻訳 " + cell("translation")}})
				check(cell("translation save"), adminExpect(caller, "translation save", r.owner, r.status), posted(resp), fmt.Sprint(resp.StatusCode, resp.Header.Get("Location"), body))
				resp, body = b.send(http.MethodPost, base+"/trash", url.Values{"_csrf": {csrf}})
				check(cell("trash"), adminExpect(caller, "trash", r.owner, r.status), posted(resp), fmt.Sprint(resp.StatusCode, resp.Header.Get("Location"), body))
				if r.status == models.StatusTrash {
					resp, body = b.send(http.MethodPost, base+"/restore", url.Values{"_csrf": {csrf}})
					check(cell("restore"), adminExpect(caller, "restore", r.owner, r.status), posted(resp), fmt.Sprint(resp.StatusCode, resp.Header.Get("Location"), body))
					resp, body = b.send(http.MethodPost, base+"/delete", url.Values{"_csrf": {csrf}})
					check(cell("delete"), adminExpect(caller, "delete", r.owner, r.status), posted(resp), fmt.Sprint(resp.StatusCode, resp.Header.Get("Location"), body))
				}
			}
			role := adminRoles[caller]
			resp, _ := b.get("/admin/users")
			check(name+"/users page", role == models.RoleAdministrator, resp.StatusCode == http.StatusOK, fmt.Sprint(resp.StatusCode))
			// The site's settings (issue 36): administrators only, the
			// page and its save (a refused save leaves the name as it is).
			resp, _ = b.get("/admin/settings")
			check(name+"/settings page", role == models.RoleAdministrator, resp.StatusCode == http.StatusOK, fmt.Sprint(resp.StatusCode))
			resp, body := b.send(http.MethodPost, "/admin/settings", url.Values{"_csrf": {csrf}, "name_en": {"Site of " + name}})
			check(name+"/settings save", role == models.RoleAdministrator, posted(resp), fmt.Sprint(resp.StatusCode, body))
			// Webhooks (issue 34): administrators only, the list, adding an
			// endpoint, and its page.
			resp, _ = b.get("/admin/webhooks")
			check(name+"/webhooks page", role == models.RoleAdministrator, resp.StatusCode == http.StatusOK, fmt.Sprint(resp.StatusCode))
			resp, body = b.send(http.MethodPost, "/admin/webhooks", url.Values{"_csrf": {csrf}, "url": {"https://hooks.example/" + url.PathEscape(name)}})
			check(name+"/webhook add", role == models.RoleAdministrator, resp.StatusCode == http.StatusOK && strings.Contains(body, "whsec_"), fmt.Sprint(resp.StatusCode))
			resp, _ = b.get(fmt.Sprintf("/admin/webhooks/%d", hook.ID))
			check(name+"/webhook page", role == models.RoleAdministrator, resp.StatusCode == http.StatusOK, fmt.Sprint(resp.StatusCode))
			resp, _ = b.send(http.MethodPost, fmt.Sprintf("/admin/webhooks/%d/pause", hook.ID), url.Values{"_csrf": {csrf}})
			check(name+"/webhook pause", role == models.RoleAdministrator, posted(resp), fmt.Sprint(resp.StatusCode))
			resp, body = b.send(http.MethodPost, "/admin/categories", url.Values{"_csrf": {csrf}, "name": {"cat " + name}})
			mayTerms := role == models.RoleAuthor || role == models.RoleEditor || role == models.RoleAdministrator
			check(name+"/category create", mayTerms, posted(resp), fmt.Sprint(resp.StatusCode, body))
			// CSV import (issue 33): who may import events (contributors and
			// up) uploads and sees their own import; nobody sees another's.
			mayImport := role == models.RoleContributor || role == models.RoleAuthor || mayTerms
			resp, body = b.upload("/admin/import/csv", csrf, "événements.csv", []byte("Event Name,Event Start Date\nFête,2031-06-21\n"))
			own := resp.Header.Get("Location")
			check(name+"/csv upload", mayImport, posted(resp) && strings.HasPrefix(own, "/admin/import/csv/"), fmt.Sprint(resp.StatusCode, own, body))
			if posted(resp) {
				resp, body = b.get(own)
				check(name+"/csv own page", mayImport, resp.StatusCode == http.StatusOK && strings.Contains(body, `data-testid="csv-setup"`), fmt.Sprint(resp.StatusCode))
			}
			resp, _ = b.get(othersPath)
			check(name+"/csv others' page", false, resp.StatusCode == http.StatusOK, fmt.Sprint(resp.StatusCode))
			resp, _ = b.get(othersPath + "/progress")
			check(name+"/csv others' progress", false, resp.StatusCode == http.StatusOK, fmt.Sprint(resp.StatusCode))
			resp, _ = b.send(http.MethodPost, othersPath, url.Values{"_csrf": {csrf}, "action": {"import"}})
			check(name+"/csv others' import", false, resp.StatusCode == http.StatusSeeOther && !strings.HasPrefix(resp.Header.Get("Location"), "/admin/login"), fmt.Sprint(resp.StatusCode))
		}
		t.Logf("admin role matrix: %d cells, %d differ from SPEC §6", tally.Cells, tally.Failed)
	})
}
