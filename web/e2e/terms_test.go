package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

const termForm = `[data-testid="term-form"]`

// apiTerm reads a term through the API as a (path below the API root) and
// returns the status and the decoded body.
func apiTerm(t *testing.T, srv *browsertest.Server, a browsertest.Account, path string) (int, map[string]any) {
	t.Helper()
	st, body := srv.API(t, a, http.MethodGet, path, nil)
	var m map[string]any
	if st == http.StatusOK {
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("GET %s: %v %s", path, err, body)
		}
	}
	return st, m
}

// termIDOf is the id in a term's edit path under base ("/admin/categories").
func termIDOf(t *testing.T, base, path string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(path, base+"/")
	id, ok2 := strings.CutSuffix(rest, "/edit")
	if !ok || !ok2 {
		t.Fatalf("not an edit page of %s: %s", base, path)
	}
	return id
}

// rowOrder lists the data-testid of the list's rows, top to bottom.
func rowOrder(p *browsertest.Page) []string {
	s := browsertest.Eval[string](p, `[...document.querySelectorAll('tbody tr')].map(r => r.dataset.testid).join(',')`)
	return strings.Split(s, ",")
}

// An editor creates a category under a parent, finds it under its parent
// in the list, fails to save it without a name (the message next to the
// field, the input kept), translates it into Korean and reads it back
// through the API, then deletes it (after the confirmation step).
func TestCreateTranslateAndDeleteACategory(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	music := category(t, srv, ed, "Music")
	category(t, srv, ed, "Art")
	p := srv.Page(t)
	p.SignIn(ed)

	p.Visit("/admin/categories")
	if p.Count(`[data-testid="new-term"]`) != 1 {
		t.Fatalf("an editor sees no New button")
	}
	if st := p.ClickAndWait(`[data-testid="new-term"]`); st != http.StatusOK {
		t.Fatalf("new category form: status %d", st)
	}
	p.Fill(termForm, "name", "Jazz")
	p.Fill(termForm, "parent", music)
	p.Fill(termForm, "description", "Small bands, late nights.")
	if st := p.Submit(termForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	id := termIDOf(t, "/admin/categories", p.Path())
	if p.Text(`[data-testid="flash"]`) == "" {
		t.Errorf("no flash message after creating")
	}
	st, c := apiTerm(t, srv, ed, "/categories/"+id)
	if st != http.StatusOK || c["name"] != "Jazz" || c["slug"] != "jazz" || fmt.Sprint(c["parent"]) != music {
		t.Errorf("through the API: %d %v", st, c)
	}

	p.Visit("/admin/categories")
	rows := rowOrder(p)
	i, j := slices.Index(rows, "term-"+music), slices.Index(rows, "term-"+id)
	if i < 0 || j != i+1 {
		t.Errorf("Jazz is not right under Music: %v", rows)
	}
	if got := p.Attr(`[data-testid="term-`+id+`"]`, "data-depth"); got != "1" {
		t.Errorf("Jazz at depth %q, want 1", got)
	}
	if got := p.Text(`[data-testid="term-` + id + `"] .cell-title a`); got != "Jazz" {
		t.Errorf("the list shows %q", got)
	}
	if p.Count(`[data-testid="term-`+id+`"] .lang-flag.is-missing`) != 3 {
		t.Errorf("want three missing translations flagged")
	}

	p.Visit("/admin/categories/" + id + "/edit")
	if p.Count(`#parent option[value="`+id+`"]`) != 0 {
		t.Errorf("a category is offered as its own parent")
	}
	p.Fill(termForm, "name", "")
	p.Fill(termForm, "description", "Kept after the failure.")
	if st := p.Submit(termForm); st != http.StatusUnprocessableEntity {
		t.Fatalf("empty name: status %d, want 422", st)
	}
	if p.Text(`[data-testid="error-name"]`) == "" {
		t.Errorf("no message next to name:\n%s", p.Text("main"))
	}
	if got := p.Attr(`#name`, "aria-invalid"); got != "true" {
		t.Errorf("name aria-invalid=%q", got)
	}
	if got := p.Attr(`#name`, "aria-describedby"); got != "name-error" {
		t.Errorf("name aria-describedby=%q", got)
	}
	if p.Count(`[role="alert"]`) == 0 {
		t.Errorf("no summary of the errors")
	}
	if got := browsertest.Eval[string](p, `document.querySelector('#description').value`); got != "Kept after the failure." {
		t.Errorf("description after the failed save %q, want the input kept", got)
	}
	if got := browsertest.Eval[string](p, `document.querySelector('#parent').value`); got != music {
		t.Errorf("parent after the failed save %q, want %s", got, music)
	}
	if _, c := apiTerm(t, srv, ed, "/categories/"+id); c["name"] != "Jazz" {
		t.Errorf("the failed save changed the name to %v", c["name"])
	}

	p.Visit("/admin/categories/" + id + "/edit")
	if st := p.ClickAndWait(`[data-testid="translate-ko"]`); st != http.StatusOK {
		t.Fatalf("translation page: status %d", st)
	}
	if got := p.Text(`[data-testid="source-name"]`); got != "Jazz" {
		t.Errorf("source name beside the translation %q", got)
	}
	p.Fill(`[data-testid="translation-form"]`, "name", "재즈")
	p.Fill(`[data-testid="translation-form"]`, "description", "작은 밴드, 늦은 밤.")
	if st := p.Submit(`[data-testid="translation-form"]`); st != http.StatusOK {
		t.Fatalf("save translation: status %d", st)
	}
	if _, ko := apiTerm(t, srv, ed, "/categories/"+id+"?ml_language=ko"); ko["name"] != "재즈" || !strings.Contains(ko["description"].(string), "밴드") {
		t.Errorf("through the API in ko: %v", ko)
	}
	if _, en := apiTerm(t, srv, ed, "/categories/"+id+"?ml_language=en"); en["name"] != "Jazz" {
		t.Errorf("the English name became %v", en["name"])
	}

	p.Visit("/admin/categories/" + id + "/edit")
	if st := p.ClickAndWait(`[data-testid="delete"]`); st != http.StatusOK {
		t.Fatalf("delete, first step: status %d", st)
	}
	if got := p.Text(`[data-testid="confirm-names"]`); got != "Jazz" {
		t.Errorf("the confirmation names %q", got)
	}
	if st, _ := apiTerm(t, srv, ed, "/categories/"+id); st != http.StatusOK {
		t.Fatalf("the first step deleted the category already (%d)", st)
	}
	if st := p.ClickAndWait(`[data-testid="confirm-delete"]`); st != http.StatusOK {
		t.Fatalf("delete: status %d", st)
	}
	if p.Path() != "/admin/categories" || p.Text(`[data-testid="flash"]`) == "" {
		t.Errorf("after deleting: %s, flash %q", p.Path(), p.Text(`[data-testid="flash"]`))
	}
	if st, _ := apiTerm(t, srv, ed, "/categories/"+id); st != http.StatusNotFound {
		t.Errorf("GET the deleted category: %d, want 404", st)
	}
}

// A tag created in the admin is in the API's list; deleted from the list
// (bulk, confirmed), it is gone.
func TestTagCreatedInTheAdminIsInTheAPI(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/tags")
	if p.Count(`[data-testid="empty"]`) != 1 {
		t.Errorf("no empty state on an empty tag list")
	}
	p.Visit("/admin/tags/new")
	if p.Count(`#parent`) != 0 {
		t.Errorf("a tag form offers a parent")
	}
	p.Fill(termForm, "name", "Outdoor")
	p.Fill(termForm, "slug", "open-air")
	if st := p.Submit(termForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	id := termIDOf(t, "/admin/tags", p.Path())
	listed := func() bool {
		st, body := srv.API(t, ed, http.MethodGet, "/tags?hide_empty=false", nil)
		if st != http.StatusOK {
			t.Fatalf("GET /tags: %d %s", st, body)
		}
		return strings.Contains(string(body), `"slug":"open-air"`) && strings.Contains(string(body), `"name":"Outdoor"`)
	}
	if !listed() {
		t.Fatalf("GET /tags does not list the new tag")
	}

	p.Visit("/admin/tags?search=outd")
	if p.Count(`[data-testid="term-`+id+`"]`) != 1 {
		t.Fatalf("the search does not find the tag:\n%s", p.Text("main"))
	}
	p.Fill("", "ids", "1")
	if st := p.Submit(`[data-testid="bulk-form"]`); st != http.StatusOK {
		t.Fatalf("bulk delete, first step: status %d", st)
	}
	if !listed() {
		t.Fatalf("the first step deleted the tag already")
	}
	if st := p.ClickAndWait(`[data-testid="confirm-delete"]`); st != http.StatusOK {
		t.Fatalf("bulk delete: status %d", st)
	}
	if listed() {
		t.Errorf("the deleted tag is still listed by the API")
	}
	if got := p.Text(`[data-testid="flash"]`); !strings.Contains(got, "1") {
		t.Errorf("flash after the bulk delete %q", got)
	}
}

// A contributor sees the categories but no New button, and a create
// posted anyway is refused with 403, as the API refuses it.
func TestContributorCannotCreateCategories(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	con := srv.User(t, models.RoleContributor)
	category(t, srv, ed, "Music")
	p := srv.Page(t)
	p.SignIn(con)
	if st := p.Visit("/admin/categories"); st != http.StatusOK {
		t.Fatalf("list: status %d", st)
	}
	if n := p.Count(`[data-testid="new-term"]`) + p.Count(`[data-testid="bulk-form"]`); n != 0 {
		t.Errorf("a contributor is offered %d controls to create or delete", n)
	}
	browsertest.Eval[bool](p, `(() => {
		const f = document.createElement('form'); f.method = 'post'; f.action = '/admin/categories'; f.id = 'forged';
		for (const [k, v] of [['_csrf', document.querySelector('input[name=_csrf]').value], ['name', 'Forged']]) {
			const i = document.createElement('input'); i.type = 'hidden'; i.name = k; i.value = v; f.append(i);
		}
		const b = document.createElement('button'); b.type = 'submit'; b.textContent = 'go'; f.append(b);
		document.querySelector('main').prepend(f); return true })()`)
	if st := p.ClickAndWait(`#forged button`); st != http.StatusForbidden {
		t.Fatalf("create as a contributor: status %d, want 403", st)
	}
	if want := bundle(t).T("en", "error.rest_forbidden.user", nil); !strings.Contains(p.Text("main"), want) {
		t.Errorf("the refusal does not say %q:\n%s", want, p.Text("main"))
	}
	st, body := srv.API(t, ed, http.MethodGet, "/categories?hide_empty=false", nil)
	if st != http.StatusOK || strings.Contains(string(body), "Forged") {
		t.Errorf("after the refusal: %d %s", st, body)
	}
}
