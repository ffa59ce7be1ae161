package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

// seriesDates lists the local start dates and titles of series id through
// the API, as a reads them.
func seriesDates(t *testing.T, srv *browsertest.Server, a browsertest.Account, id string) []string {
	t.Helper()
	st, body := srv.API(t, a, http.MethodGet, "/events?per_page=100&start_date=2030-01-01&end_date=2031-12-31&status=publish,draft&post_parent="+id, nil)
	if st != http.StatusOK {
		t.Fatalf("occurrences of %s: %d %s", id, st, body)
	}
	var list struct {
		Events []struct {
			Title     string `json:"title"`
			StartDate string `json:"start_date"`
		} `json:"events"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Events {
		out = append(out, e.StartDate[:10]+" "+e.Title)
	}
	return out
}

// occurrenceOn is the id of the occurrence of series id on day.
func occurrenceOn(t *testing.T, srv *browsertest.Server, a browsertest.Account, id, day string) int64 {
	t.Helper()
	st, body := srv.API(t, a, http.MethodGet, "/events?start_date="+day+"&end_date="+day+"&post_parent="+id, nil)
	var list struct {
		Events []struct{ ID int64 } `json:"events"`
	}
	if err := json.Unmarshal(body, &list); st != http.StatusOK || err != nil || len(list.Events) != 1 {
		t.Fatalf("the occurrence of %s on %s: %d %s", id, day, st, body)
	}
	return list.Events[0].ID
}

// An editor makes a weekly series in the form: only the weekly choices
// show, the preview says the rule in words and lists its dates before
// saving; then edits one occurrence and the following ones, chosen in the
// form; the list marks the series.
func TestRecurrenceEditorPreviewsAndScopesEdits(t *testing.T) {
	srv := browsertest.StartServer(t, seriesFarAhead...)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/events/new")
	p.Fill(eventForm, "title", "Pottery class")
	p.Fill(eventForm, "start_date", "2030-06-04T19:00") // a Tuesday
	p.Fill(eventForm, "end_date", "2030-06-04T21:00")
	p.Fill(eventForm, "status", "publish")
	if n := p.Count(`[data-repeat-for]:not([hidden])`); n != 0 {
		t.Errorf("%d recurrence fields show for an event that does not repeat", n)
	}
	p.Fill(eventForm, "repeat_freq", "WEEKLY")
	if !browsertest.Eval[bool](p, `!document.querySelector('.weekday-picks').closest('[data-repeat-for]').hidden && document.querySelector('#repeat_custom').closest('[data-repeat-for]').hidden`) {
		t.Errorf("weekly: the weekday choices should show and the custom rule not")
	}
	p.Choose(eventForm, "repeat_day", "TU", "TH")
	p.Fill(eventForm, "repeat_end", "count")
	p.Fill(eventForm, "repeat_count", "6")
	browsertest.WaitUntil(p, `(document.querySelector('[data-testid="repeat-sentence"]') || {}).innerText === "Every week on Tuesday and Thursday, 6 times"`)
	if got := p.Texts(`[data-testid="repeat-dates"] li`); len(got) != 6 || !strings.HasPrefix(got[1], "Thu") {
		t.Errorf("preview dates: %v", got)
	}
	// A rule the models refuse says why in the preview, before saving.
	p.Fill(eventForm, "repeat_freq", "custom")
	p.Fill(eventForm, "repeat_custom", "FREQ=WEEKLY;BYDAY=XX")
	browsertest.WaitUntil(p, `(document.querySelector('[data-testid="repeat-error"]') || {}).innerText?.includes("BYDAY=XX")`)
	p.Fill(eventForm, "repeat_freq", "WEEKLY")
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("create: status %d\n%s", st, p.Text("main"))
	}
	id := eventIDOf(t, p.Path())
	want := []string{"2030-06-04 Pottery class", "2030-06-06 Pottery class", "2030-06-11 Pottery class",
		"2030-06-13 Pottery class", "2030-06-18 Pottery class", "2030-06-20 Pottery class"}
	if got := seriesDates(t, srv, ed, id); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("series after create:\n got %v\nwant %v", got, want)
	}
	// The series' own form shows its rule as the choices it was made with.
	if got := p.Attr(`#repeat_freq option[selected]`, "value"); got != "WEEKLY" {
		t.Errorf("the series' form shows frequency %q", got)
	}

	// An occurrence's form asks what the save changes.
	occ := fmt.Sprint(occurrenceOn(t, srv, ed, id, "2030-06-11"))
	p.Visit("/admin/events/" + occ + "/edit")
	if p.Count(`[data-testid="scope"] input[type=radio]`) != 3 || p.Text(`[data-testid="occurrence-note"]`) == "" {
		t.Fatalf("the occurrence's form has no scope choice:\n%s", p.Text("main"))
	}
	p.Fill(eventForm, "title", "Pottery class: glazing")
	if st := p.Submit(eventForm); st != http.StatusOK { // this (the default)
		t.Fatalf("save this: status %d\n%s", st, p.Text("main"))
	}
	p.Visit("/admin/events/" + occ + "/edit")
	p.Fill(eventForm, "title", "Pottery class II")
	p.Fill(eventForm, "scope", "following")
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("save following: status %d\n%s", st, p.Text("main"))
	}
	if got := seriesDates(t, srv, ed, id); strings.Join(got, "|") != "2030-06-04 Pottery class|2030-06-06 Pottery class" {
		t.Errorf("the first part after the split: %v", got)
	}
	if got := seriesDates(t, srv, ed, occ); strings.Join(got, "|") != "2030-06-11 Pottery class II|2030-06-13 Pottery class II|2030-06-18 Pottery class II|2030-06-20 Pottery class II" {
		t.Errorf("the new series after the split: %v", got)
	}
	p.Visit("/admin/events?when=all")
	if n := p.Count(`[data-testid="series-badge"]`); n != 6 {
		t.Errorf("%d rows with the series badge, want 6", n)
	}
	// One row per series: the two parts of the split series.
	p.Fill(`form.filters`, "series", "1")
	p.Submit(`form.filters`)
	if n := p.Count(`[data-testid="series-badge"]`); n != 2 || !strings.Contains(p.URL(), "series=1") {
		t.Errorf("one row per series: %d rows with the badge at %s, want 2", n, p.URL())
	}
}

// Dragging an occurrence in the calendar asks which occurrences move:
// cancel puts it back; "all" moves the whole series by as much, and the
// calendar shows every occurrence moved.
func TestCalendarDragOfAnOccurrenceAsksTheScope(t *testing.T) {
	srv := browsertest.StartServer(t, seriesFarAhead...)
	ed := srv.User(t, models.RoleEditor)
	id := srv.CreateEvent(t, ed, map[string]any{"title": "Standup", "start_date": "2030-02-04 09:00:00", "end_date": "2030-02-04 09:15:00",
		"recurrence": "FREQ=WEEKLY;COUNT=3"})
	series := fmt.Sprint(id)
	occ := seriesDates(t, srv, ed, series)
	if len(occ) != 3 {
		t.Fatalf("series: %v", occ)
	}
	sec := occurrenceOn(t, srv, ed, series, "2030-02-11")
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-02-01")
	p.Drag(fmt.Sprintf(`#calendar [data-event-id="%d"]`, sec), `#calendar td[data-date="2030-02-13"] .fc-daygrid-day-frame`)
	p.WaitVisible(`[data-testid="scope-dialog"]`)
	p.Click(`[data-testid="scope-cancel"]`)
	browsertest.WaitUntil(p, fmt.Sprintf(`(() => { const e = document.querySelector('#calendar [data-event-id="%d"]');
		return e && e.closest('td[data-date]').dataset.date === '2030-02-11'; })()`, sec))
	if got := seriesDates(t, srv, ed, series); strings.Join(got, "|") != strings.Join(occ, "|") {
		t.Errorf("a cancelled drag changed the series: %v", got)
	}

	p.Drag(fmt.Sprintf(`#calendar [data-event-id="%d"]`, sec), `#calendar td[data-date="2030-02-13"] .fc-daygrid-day-frame`)
	p.WaitVisible(`[data-testid="scope-dialog"]`)
	p.Click(`[data-testid="scope-all"]`)
	p.WaitVisible(`[data-testid="calendar-message"]`)
	want := "2030-02-06 Standup|2030-02-13 Standup|2030-02-20 Standup"
	if got := seriesDates(t, srv, ed, series); strings.Join(got, "|") != want {
		t.Errorf("after moving all: %v, want %s", got, want)
	}
	browsertest.WaitUntil(p, fmt.Sprintf(`(() => { const e = document.querySelector('#calendar [data-event-id="%s"]');
		return e && e.closest('td[data-date]').dataset.date === '2030-02-06'; })()`, series))

	// The move form (the list view's, without dragging) asks the same.
	last := occurrenceOn(t, srv, ed, series, "2030-02-20")
	p.Visit(fmt.Sprintf("/admin/events/%d/move", last))
	if p.Count(`[data-testid="move-form"] [data-testid="scope"] input[type=radio]`) != 3 {
		t.Fatalf("the move form of an occurrence has no scope choice:\n%s", p.Text("main"))
	}
	p.Fill(`[data-testid="move-form"]`, "start_date", "2030-02-21T09:00")
	p.Fill(`[data-testid="move-form"]`, "end_date", "2030-02-21T09:15")
	p.Fill(`[data-testid="move-form"]`, "scope", "following")
	if st := p.Submit(`[data-testid="move-form"]`); st != http.StatusOK {
		t.Fatalf("move: %d\n%s", st, p.Text("main"))
	}
	if got := seriesDates(t, srv, ed, series); strings.Join(got, "|") != "2030-02-06 Standup|2030-02-13 Standup" {
		t.Errorf("after moving the last and following: the old series holds %v", got)
	}
	if got := seriesDates(t, srv, ed, fmt.Sprint(last)); strings.Join(got, "|") != "2030-02-21 Standup" {
		t.Errorf("the moved part: %v", got)
	}
}

// seriesFarAhead keeps occurrences ten years ahead: the series of these
// tests lie in 2030, past the default horizon, and only the scheduled job
// or a write materializes occurrences (a GET never does).
var seriesFarAhead = []string{"--series-horizon-days", "3660"}
