package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

const recordForm = `[data-testid="record-form"]`

// recordIDOf is the id in a record's edit path under /admin/{kind}/.
func recordIDOf(t *testing.T, kind, path string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(path, "/admin/"+kind+"/")
	id, ok2 := strings.CutSuffix(rest, "/edit")
	if !ok || !ok2 {
		t.Fatalf("not a %s edit page: %s", kind, path)
	}
	return id
}

func apiRecord(t *testing.T, srv *browsertest.Server, a browsertest.Account, path string) map[string]any {
	t.Helper()
	st, body := srv.API(t, a, http.MethodGet, path, nil)
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, st, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A venue made, corrected, translated into Chinese, trashed and restored
// in the admin, read back through the API at each step.
func TestVenueLifecycleInTheAdmin(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	p.ClickAndWait(`[data-testid="nav-venues"]`)
	if st := p.ClickAndWait(`[data-testid="new-record"]`); st != http.StatusOK {
		t.Fatalf("new venue: status %d", st)
	}
	p.Fill(recordForm, "venue", "Harbour Hall")
	p.Fill(recordForm, "city", "Yokohama")
	p.Fill(recordForm, "country", "Japan")
	p.Fill(recordForm, "geo_lat", "35.4437")
	p.Fill(recordForm, "geo_lng", "139.6380")
	if st := p.Submit(recordForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	id := recordIDOf(t, "venues", p.Path())
	v := apiRecord(t, srv, ed, "/venues/"+id)
	if v["venue"] != "Harbour Hall" || v["city"] != "Yokohama" || v["status"] != "publish" {
		t.Errorf("through the API: %v / %v / %v", v["venue"], v["city"], v["status"])
	}
	p.Visit("/admin/venues")
	if got := p.Text(`[data-testid="record-` + id + `"] .cell-title a`); got != "Harbour Hall" {
		t.Errorf("list shows %q", got)
	}

	p.Visit("/admin/venues/" + id + "/edit")
	p.Fill(recordForm, "website", "not a url")
	p.Fill(recordForm, "geo_lat", "north")
	if st := p.Submit(recordForm); st != http.StatusUnprocessableEntity {
		t.Fatalf("bad website: status %d, want 422", st)
	}
	for _, f := range []string{"website", "geo_lat"} {
		if p.Text(`[data-testid="error-`+f+`"]`) == "" {
			t.Errorf("no message next to %s:\n%s", f, p.Text("main"))
		}
	}
	if got := browsertest.Eval[string](p, `document.querySelector('#website').value`); got != "not a url" {
		t.Errorf("website after the failure %q, want the input kept", got)
	}

	p.Visit("/admin/venues/" + id + "/translations/zh-hans")
	p.Fill(`[data-testid="translation-form"]`, "venue", "港湾大厅")
	p.Fill(`[data-testid="translation-form"]`, "city", "横滨")
	if st := p.Submit(`[data-testid="translation-form"]`); st != http.StatusOK {
		t.Fatalf("save translation: status %d", st)
	}
	zh := apiRecord(t, srv, ed, "/venues/"+id+"?ml_language=zh-hans")
	if zh["venue"] != "港湾大厅" || zh["city"] != "横滨" {
		t.Errorf("in zh-hans through the API: %v, %v", zh["venue"], zh["city"])
	}
	if en := apiRecord(t, srv, ed, "/venues/"+id); en["venue"] != "Harbour Hall" {
		t.Errorf("the source name became %v", en["venue"])
	}

	p.Visit("/admin/venues")
	p.ClickAndWait(`[data-testid="trash-` + id + `"]`)
	p.Visit("/admin/venues?status=trash")
	if p.Count(`[data-testid="record-`+id+`"]`) != 1 {
		t.Fatalf("the trash does not list the venue")
	}
	p.ClickAndWait(`[data-testid="restore-` + id + `"]`)
	if got := apiRecord(t, srv, ed, "/venues/"+id)["status"]; got != "draft" {
		t.Errorf("restored venue status %v", got)
	}
}

// An organizer with a bad e-mail address is refused next to the field; a
// contributor's organizer is a draft or pending, never published.
func TestOrganizerFormErrorsAndAContributorsStatus(t *testing.T) {
	srv := browsertest.StartServer(t)
	con := srv.User(t, models.RoleContributor)
	p := srv.Page(t)
	p.SignIn(con)
	p.Visit("/admin/organizers/new")
	if p.Count(`#status option[value="publish"]`) != 0 {
		t.Errorf("a contributor is offered publish")
	}
	p.Fill(recordForm, "organizer", "Friends of the Pier")
	p.Fill(recordForm, "email", "friends-at-example")
	if st := p.Submit(recordForm); st != http.StatusUnprocessableEntity {
		t.Fatalf("bad e-mail: status %d, want 422", st)
	}
	if p.Text(`[data-testid="error-email"]`) == "" || p.Attr(`#email`, "aria-invalid") != "true" {
		t.Errorf("no message by the e-mail field:\n%s", p.Text("main"))
	}
	p.Fill(recordForm, "email", "friends@example.test")
	if st := p.Submit(recordForm); st != http.StatusOK {
		t.Fatalf("create: status %d", st)
	}
	id := recordIDOf(t, "organizers", p.Path())
	if got := apiRecord(t, srv, con, "/organizers/"+id)["status"]; got != "draft" {
		t.Errorf("contributor's organizer status %v, want draft", got)
	}
}
