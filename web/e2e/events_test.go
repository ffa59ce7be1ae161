package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

const eventForm = `[data-testid="event-form"]`

// category creates an event category through the API and returns its id.
func category(t *testing.T, srv *browsertest.Server, a browsertest.Account, name string) string {
	t.Helper()
	st, body := srv.API(t, a, http.MethodPost, "/categories", map[string]any{"name": name})
	if st != http.StatusCreated {
		t.Fatalf("create category %q: %d %s", name, st, body)
	}
	var c struct{ ID int64 }
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(c.ID, 10)
}

// apiEvent reads event id through the API as a, in lang.
func apiEvent(t *testing.T, srv *browsertest.Server, a browsertest.Account, id, lang string) map[string]any {
	t.Helper()
	st, body := srv.API(t, a, http.MethodGet, "/events/"+id+"?ml_language="+lang, nil)
	if st != http.StatusOK {
		t.Fatalf("GET event %s: %d %s", id, st, body)
	}
	var e map[string]any
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// eventIDOf is the id in an event's edit path.
func eventIDOf(t *testing.T, path string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(path, "/admin/events/")
	id, ok2 := strings.CutSuffix(rest, "/edit")
	if !ok || !ok2 {
		t.Fatalf("not an event's edit page: %s", path)
	}
	return id
}

// An editor's day with one event, as issue 13 item 9 says: create it with
// a new venue and two categories, see it listed, fail to save an end
// before its start (the message next to the field, the input kept),
// translate it into Japanese and read it back through the API, then trash
// and restore it.
func TestCreateEditTranslateAndTrashAnEvent(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	music, jazz := category(t, srv, ed, "Music"), category(t, srv, ed, "Jazz")
	p := srv.Page(t)
	p.SignIn(ed)

	if st := p.Visit("/admin/events/new"); st != http.StatusOK {
		t.Fatalf("new event form: status %d", st)
	}
	if got := p.Attr(`#timezone`, "value"); got == "" {
		t.Errorf("the time zone of a new event is empty, want the site zone")
	}
	p.Fill(eventForm, "title", "Harbour jazz night")
	p.Fill(eventForm, "description", "Three bands on the pier.\n\nBring a coat.")
	p.Fill(eventForm, "start_date", "2030-06-01T19:00")
	p.Fill(eventForm, "end_date", "2030-06-01T22:30")
	p.Fill(eventForm, "new_venue", "Pier 4 Hall")
	p.Choose(eventForm, "categories", music, jazz)
	p.Fill(eventForm, "status", "publish")
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	id := eventIDOf(t, p.Path())
	if p.Text(`[data-testid="flash"]`) == "" {
		t.Errorf("no flash message after creating")
	}
	e := apiEvent(t, srv, ed, id, "en")
	if e["title"] != "Harbour jazz night" || e["status"] != "publish" || e["start_date"] != "2030-06-01 19:00:00" {
		t.Errorf("created event through the API: title %v, status %v, start %v", e["title"], e["status"], e["start_date"])
	}
	if v, _ := e["venue"].(map[string]any); v == nil || v["venue"] != "Pier 4 Hall" {
		t.Errorf("venue %v, want the new Pier 4 Hall", e["venue"])
	}
	if cats, _ := e["categories"].([]any); len(cats) != 2 {
		t.Errorf("%d categories, want 2", len(cats))
	}

	p.Visit("/admin/events?when=all")
	if got := p.Text(`[data-testid="event-` + id + `"] .cell-title a`); got != "Harbour jazz night" {
		t.Errorf("the list shows %q for the event", got)
	}

	p.Visit("/admin/events/" + id + "/edit")
	p.Fill(eventForm, "title", "Harbour jazz night (late)")
	p.Fill(eventForm, "end_date", "2030-06-01T18:00")
	if st := p.Submit(eventForm); st != http.StatusUnprocessableEntity {
		t.Fatalf("end before start: status %d, want 422", st)
	}
	if p.Text(`[data-testid="error-end_date"]`) == "" {
		t.Errorf("no message next to end_date:\n%s", p.Text("main"))
	}
	if got := p.Attr(`#end_date`, "aria-invalid"); got != "true" {
		t.Errorf("end_date aria-invalid=%q", got)
	}
	if got := p.Attr(`#end_date`, "aria-describedby"); got != "end_date-error" {
		t.Errorf("end_date aria-describedby=%q", got)
	}
	if p.Count(`[role="alert"]`) == 0 {
		t.Errorf("no summary of the errors")
	}
	if got := browsertest.Eval[string](p, `document.querySelector('#title').value`); got != "Harbour jazz night (late)" {
		t.Errorf("title after the failed save %q, want the input kept", got)
	}
	if got := apiEvent(t, srv, ed, id, "en")["title"]; got != "Harbour jazz night" {
		t.Errorf("the failed save changed the title to %v", got)
	}

	p.Visit("/admin/events/" + id + "/edit")
	if st := p.ClickAndWait(`[data-testid="translate-ja"]`); st != http.StatusOK {
		t.Fatalf("translation page: status %d", st)
	}
	if got := p.Text(`[data-testid="source-title"]`); got != "Harbour jazz night" {
		t.Errorf("source title beside the translation %q", got)
	}
	p.Fill(`[data-testid="translation-form"]`, "title", "港のジャズナイト")
	p.Fill(`[data-testid="translation-form"]`, "description", "桟橋で三つのバンドが演奏します。")
	if st := p.Submit(`[data-testid="translation-form"]`); st != http.StatusOK {
		t.Fatalf("save translation: status %d", st)
	}
	ja := apiEvent(t, srv, ed, id, "ja")
	if ja["title"] != "港のジャズナイト" || !strings.Contains(fmt.Sprint(ja["description"]), "桟橋") {
		t.Errorf("through the API in ja: title %v, description %v", ja["title"], ja["description"])
	}
	if got := apiEvent(t, srv, ed, id, "en")["title"]; got != "Harbour jazz night" {
		t.Errorf("the English title became %v", got)
	}

	p.Visit("/admin/events?when=all")
	if st := p.ClickAndWait(`[data-testid="trash-` + id + `"]`); st != http.StatusOK {
		t.Fatalf("trash: status %d", st)
	}
	if p.Count(`[data-testid="event-`+id+`"]`) != 0 {
		t.Errorf("the trashed event is still listed")
	}
	p.Visit("/admin/events?status=trash&when=all")
	if p.Count(`[data-testid="event-`+id+`"]`) != 1 {
		t.Fatalf("the trash view does not list the event:\n%s", p.Text("main"))
	}
	p.ClickAndWait(`[data-testid="restore-` + id + `"]`)
	if got := apiEvent(t, srv, ed, id, "en")["status"]; got != "draft" {
		t.Errorf("restored event status %v, want draft", got)
	}
}

// A contributor cannot choose to publish; asking for it anyway (the form
// changed in the browser) stores the event as pending, as the API does.
func TestContributorsPublishRequestIsStoredPending(t *testing.T) {
	srv := browsertest.StartServer(t)
	con := srv.User(t, models.RoleContributor)
	p := srv.Page(t)
	p.SignIn(con)
	p.Visit("/admin/events/new")
	if got := p.Count(`#status option[value="publish"]`); got != 0 {
		t.Errorf("a contributor is offered publish")
	}
	p.Fill(eventForm, "title", "Poetry reading")
	browsertest.Eval[bool](p, `(() => { const o = document.createElement('option'); o.value = 'publish'; o.textContent = 'publish';
		document.querySelector('#status').append(o); document.querySelector('#status').value = 'publish'; return true })()`)
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	id := eventIDOf(t, p.Path())
	if got := apiEvent(t, srv, con, id, "en")["status"]; got != "pending" {
		t.Errorf("status %v, want pending", got)
	}
	if st := p.Visit("/admin/events?status=trash"); st != http.StatusOK {
		t.Errorf("a contributor's trash view: status %d", st)
	}
}

// A title made of HTML typed into the form is stored as typed and shown as
// text in the list and the form; it never runs (the harness fails on any
// dialog, script error or CSP violation).
func TestHTMLTypedIntoTheFormNeverRuns(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	const title = `<img src=x onerror=alert(1)>`
	p.Visit("/admin/events/new")
	p.Fill(eventForm, "title", title)
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("create: status %d", st)
	}
	id := eventIDOf(t, p.Path())
	p.Visit("/admin/events?when=all")
	if got := p.Text(`[data-testid="event-` + id + `"] .cell-title a`); got != title {
		t.Errorf("list shows %q, want the title as text", got)
	}
	if n := p.Count(`main img[src="x"]`); n != 0 {
		t.Errorf("%d elements made of the title", n)
	}
}

// created makes a record through the API and returns its id.
func created(t *testing.T, srv *browsertest.Server, a browsertest.Account, path string, body map[string]any) string {
	t.Helper()
	st, b := srv.API(t, a, http.MethodPost, path, body)
	if st != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, st, b)
	}
	var r struct{ ID int64 }
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(r.ID, 10)
}

// The venue and organizer pickers search as one types (htmx), keep what is
// already chosen, and the event is saved with the choices.
func TestVenueAndOrganizerPickersSearchAsYouType(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	harbour := created(t, srv, ed, "/venues", map[string]any{"venue": "Harbour Hall", "city": "Yokohama"})
	river := created(t, srv, ed, "/venues", map[string]any{"venue": "Riverside Club", "city": "Osaka"})
	friends := created(t, srv, ed, "/organizers", map[string]any{"organizer": "Friends of the Pier"})
	choir := created(t, srv, ed, "/organizers", map[string]any{"organizer": "City Choir"})
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/events/new")
	p.Fill(eventForm, "title", "Choir by the river")
	p.Choose(eventForm, "organizer", friends)
	p.Fill(eventForm, "venue_search", "Osaka")
	p.WaitGone(`#venue option[value="` + harbour + `"]`)
	p.Fill(eventForm, "venue", river)
	p.Fill(eventForm, "organizer_search", "choir")
	p.WaitVisible(`#organizer-list input[value="` + choir + `"]`)
	if p.Count(`#organizer-list input[value="`+friends+`"]:checked`) != 1 {
		t.Errorf("the search dropped the organizer already checked")
	}
	p.Choose(eventForm, "organizer", friends, choir)
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	e := apiEvent(t, srv, ed, eventIDOf(t, p.Path()), "en")
	if v, _ := e["venue"].(map[string]any); v == nil || fmt.Sprint(v["id"]) != river {
		t.Errorf("venue %v, want Riverside Club (%s)", e["venue"], river)
	}
	if orgs, _ := e["organizer"].([]any); len(orgs) != 2 {
		t.Errorf("%d organizers, want 2", len(orgs))
	}
}

// The list's filters are the API's arguments, kept in the URL: a tag, an
// organizer, featured events, and the past.
func TestEventListFiltersByTagOrganizerFeaturedAndPast(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	org := created(t, srv, ed, "/organizers", map[string]any{"organizer": "City Choir"})
	tag := created(t, srv, ed, "/tags", map[string]any{"name": "outdoor"})
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format("2006-01-02") + " 10:00:00" }
	a := srv.CreateEvent(t, ed, map[string]any{"title": "Tagged", "tags": []string{tag}, "start_date": day(3), "end_date": day(3)})
	b := srv.CreateEvent(t, ed, map[string]any{"title": "Organized", "organizer": []string{org}, "start_date": day(4), "end_date": day(4)})
	c := srv.CreateEvent(t, ed, map[string]any{"title": "Featured", "featured": true, "start_date": day(5), "end_date": day(5)})
	d := srv.CreateEvent(t, ed, map[string]any{"title": "Past", "start_date": day(-5), "end_date": day(-5)})
	p := srv.Page(t)
	p.SignIn(ed)
	rows := func() []string { return p.Texts(`[data-testid="events-table"] .cell-title a`) }
	for _, tt := range []struct {
		name, query string
		want        []int64
	}{
		{"upcoming", "", []int64{a, b, c}},
		{"tag", "?tags=" + tag, []int64{a}},
		{"organizer", "?organizer=" + org, []int64{b}},
		{"featured", "?featured=true", []int64{c}},
		{"past", "?when=past", []int64{d}},
	} {
		p.Visit("/admin/events" + tt.query)
		got := p.Count(`[data-testid="events-table"] tbody tr`)
		if got != len(tt.want) {
			t.Errorf("%s: %d rows %v, want %d", tt.name, got, rows(), len(tt.want))
			continue
		}
		for _, id := range tt.want {
			if p.Count(fmt.Sprintf(`[data-testid="event-%d"]`, id)) != 1 {
				t.Errorf("%s: event %d not listed: %v", tt.name, id, rows())
			}
		}
	}
	// The filter form sets the same arguments.
	p.Visit("/admin/events")
	p.Fill(`[data-testid="filters"]`, "featured", "true")
	p.Submit(`[data-testid="filters"]`)
	if !strings.Contains(p.URL(), "featured=true") || p.Count(fmt.Sprintf(`[data-testid="event-%d"]`, c)) != 1 {
		t.Errorf("the filter form gave %s", p.URL())
	}
}

// Saving a form loaded before someone else's change is refused (409) with
// who changed it, what saving would change, and the choice to reload or to
// save over it.
func TestSavingOverANewerVersionAsksFirst(t *testing.T) {
	srv := browsertest.StartServer(t)
	ann := srv.User(t, models.RoleEditor)
	bob := srv.User(t, models.RoleEditor)
	id := srv.CreateEvent(t, ann, map[string]any{"title": "Jazz"})
	p := srv.Page(t)
	p.SignIn(ann)
	p.Visit(fmt.Sprintf("/admin/events/%d/edit", id))
	// Within the same second as the form was loaded: the version is the
	// record's content, not only its time.
	if st, body := srv.API(t, bob, http.MethodPost, fmt.Sprintf("/events/%d", id), map[string]any{"title": "Jazz (bob)"}); st != http.StatusOK {
		t.Fatalf("bob's change: %d %s", st, body)
	}
	p.Fill(eventForm, "title", "Jazz (ann)")
	if st := p.Submit(eventForm); st != http.StatusConflict {
		t.Fatalf("save over bob's change: status %d, want 409", st)
	}
	if got := p.Text(`[data-testid="conflict-by"]`); !strings.Contains(got, bob.User.DisplayName) {
		t.Errorf("conflict message %q does not name %s", got, bob.User.DisplayName)
	}
	if !strings.Contains(p.Text(`[data-testid="conflict"]`), bundle(t).T("en", "admin.event.field.title", nil)) {
		t.Errorf("the conflict does not say the title would change: %s", p.Text(`[data-testid="conflict"]`))
	}
	if got := apiEvent(t, srv, ann, strconv.FormatInt(id, 10), "en")["title"]; got != "Jazz (bob)" {
		t.Errorf("the refused save wrote %v", got)
	}
	if st := p.ClickAndWait(`[data-testid="overwrite"]`); st != http.StatusOK {
		t.Fatalf("overwrite: status %d", st)
	}
	if got := apiEvent(t, srv, ann, strconv.FormatInt(id, 10), "en")["title"]; got != "Jazz (ann)" {
		t.Errorf("after overwriting: %v", got)
	}
}

// Enter in the tags field ticks an existing tag by its name and adds a new
// one, without sending the form; both are saved.
func TestTagsAreAddedWithEnter(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	created(t, srv, ed, "/tags", map[string]any{"name": "Outdoor"})
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/events/new")
	p.Fill(eventForm, "title", "Picnic concert")
	p.Type(`#new_tags`, "outdoor, open air\r")
	if p.Path() != "/admin/events/new" {
		t.Fatalf("Enter sent the form: now on %s", p.Path())
	}
	if got := p.Count(`#tag-list input:checked`); got != 2 {
		t.Errorf("%d tags ticked, want 2 (Outdoor and the new open air)", got)
	}
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	e := apiEvent(t, srv, ed, eventIDOf(t, p.Path()), "en")
	var names []string
	for _, tg := range e["tags"].([]any) {
		names = append(names, fmt.Sprint(tg.(map[string]any)["name"]))
	}
	if strings.Join(names, ",") != "open air,Outdoor" && strings.Join(names, ",") != "Outdoor,open air" {
		t.Errorf("tags %v, want Outdoor and open air", names)
	}
}

// The form takes every field the API takes: image, slug, publication
// date and the event's own currency; saving an unchanged form changes
// nothing.
func TestEventFormTakesEveryAPIField(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/events/new")
	p.Fill(eventForm, "title", "Tea ceremony")
	p.Fill(eventForm, "cost", "3000")
	p.Fill(eventForm, "currency_symbol", "円")
	p.Fill(eventForm, "currency_code", "jpy")
	p.Fill(eventForm, "currency_position", "postfix")
	p.Fill(eventForm, "image", "https://example.test/tea.jpg")
	p.Fill(eventForm, "slug", "sado")
	p.Fill(eventForm, "date", "2026-01-02T03:04:05")
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	id := eventIDOf(t, p.Path())
	before := apiEvent(t, srv, ed, id, "en")
	d := before["cost_details"].(map[string]any)
	if before["cost"] != "3000円" || d["currency_code"] != "JPY" || before["slug"] != "sado" || before["date"] != "2026-01-02 03:04:05" ||
		before["image"].(map[string]any)["url"] != "https://example.test/tea.jpg" {
		t.Errorf("through the API: cost %v, details %v, slug %v, date %v, image %v", before["cost"], d, before["slug"], before["date"], before["image"])
	}
	p.Visit("/admin/events/" + id + "/edit")
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("save unchanged: status %d", st)
	}
	after := apiEvent(t, srv, ed, id, "en")
	for _, k := range []string{"date", "cost", "slug", "start_date", "end_date", "cost_details"} {
		if fmt.Sprint(after[k]) != fmt.Sprint(before[k]) {
			t.Errorf("saving the unchanged form changed %s: %v -> %v", k, before[k], after[k])
		}
	}
}
