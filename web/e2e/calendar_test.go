package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

// calendarReady opens the calendar at path and waits until FullCalendar
// has loaded the range (the page marks it on #calendar).
func calendarReady(p *browsertest.Page, lang, path string) {
	p.VisitIn(lang, path)
	p.WaitVisible(`#calendar .fc-view-harness`)
	browsertest.WaitUntil(p, `document.querySelector('#calendar').dataset.loaded !== undefined`)
}

// dayOf is the date of the day cell an event's element is in.
func dayOf(p *browsertest.Page, id int64) string {
	return browsertest.Eval[string](p, fmt.Sprintf(`(() => { const e = document.querySelector('#calendar [data-event-id="%d"]');
		const td = e && e.closest('td[data-date]'); return td ? td.dataset.date : ''; })()`, id))
}

// eventRange is an event's start and (exclusive) end as the calendar holds them.
func eventRange(p *browsertest.Page, id int64) string {
	return browsertest.Eval[string](p, fmt.Sprintf(`(() => { const e = window.kalendsCalendar.getEventById('%d');
		return e ? e.startStr + ' ' + e.endStr : ''; })()`, id))
}

// Events sit on their days across a month boundary, in the site zone; an
// all-day event ending on the 3rd covers the 3rd and not the 4th; one
// request loads the range; Japanese shows Japanese month names.
func TestCalendarPlacesEventsOnTheirDays(t *testing.T) {
	srv := browsertest.StartServer(t, "--timezone", "Asia/Tokyo")
	ed := srv.User(t, models.RoleEditor)
	// 23:30 on Jan 31 in Tokyo is 14:30 UTC: the 31st, not the 30th or Feb 1.
	late := srv.CreateEvent(t, ed, map[string]any{"title": "Late show", "start_date": "2030-01-31 23:30:00", "end_date": "2030-01-31 23:59:00"})
	fest := srv.CreateEvent(t, ed, map[string]any{"title": "Festival", "all_day": true, "start_date": "2030-02-01", "end_date": "2030-02-03"})
	hidden := srv.CreateEvent(t, ed, map[string]any{"title": "Staff meeting", "hide_from_listings": true, "start_date": "2030-02-05 10:00:00", "end_date": "2030-02-05 11:00:00"})
	draft := srv.CreateEvent(t, ed, map[string]any{"title": "Idea", "status": "draft", "start_date": "2030-02-06 10:00:00", "end_date": "2030-02-06 11:00:00"})
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-02-01")
	if got := dayOf(p, late); got != "2030-01-31" {
		t.Errorf("the 23:30 event is on %q, want 2030-01-31", got)
	}
	if got := eventRange(p, fest); got != "2030-02-01 2030-02-04" {
		t.Errorf("the all-day event spans %q, want 2030-02-01 to the exclusive 2030-02-04", got)
	}
	for _, id := range []int64{hidden, draft} {
		if dayOf(p, id) == "" {
			t.Errorf("event %d (hidden from listings or draft) is not shown to an editor", id)
		}
	}
	if p.Count(fmt.Sprintf(`#calendar [data-event-id="%d"].kal-draft`, draft)) != 1 {
		t.Errorf("the draft is not marked")
	}
	if got := p.Attr("#calendar", "data-requests"); got != "1" {
		t.Errorf("%s requests for the month, want 1", got)
	}
	if !strings.Contains(p.URL(), "view=month") || !strings.Contains(p.URL(), "date=2030-02-01") {
		t.Errorf("view and date not in the URL: %s", p.URL())
	}
	calendarReady(p, "ja", "/admin/calendar?view=month&date=2030-02-01")
	if got := p.Text(`#calendar .fc-toolbar-title`); got != "2030年2月" {
		t.Errorf("Japanese title %q, want 2030年2月", got)
	}
	if got := p.Text(`#calendar .fc-col-header-cell`); got != "日" {
		t.Errorf("first day name %q, want 日 (Sunday)", got)
	}
}

// Across a DST change the events keep their wall-clock times in the site
// zone (New York, March).
func TestCalendarAcrossDST(t *testing.T) {
	srv := browsertest.StartServer(t, "--timezone", "America/New_York")
	ed := srv.User(t, models.RoleEditor)
	before := srv.CreateEvent(t, ed, map[string]any{"title": "Before", "start_date": "2030-03-09 10:00:00", "end_date": "2030-03-09 11:00:00"})
	after := srv.CreateEvent(t, ed, map[string]any{"title": "After", "start_date": "2030-03-11 10:00:00", "end_date": "2030-03-11 11:00:00"})
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-03-10")
	for id, want := range map[int64]string{before: "2030-03-09T10:00:00-05:00", after: "2030-03-11T10:00:00-04:00"} {
		if got := eventRange(p, id); !strings.HasPrefix(got, want) {
			t.Errorf("event %d at %q, want %s", id, got, want)
		}
	}
}

// Dragging an event to another day moves it through the API; a
// contributor's drag of an event that was published meanwhile is refused
// by the API and snaps back with the API's message; an event someone moved
// meanwhile is not overwritten but reloaded.
func TestCalendarDragMovesThroughTheAPI(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	id := srv.CreateEvent(t, ed, map[string]any{"title": "Movable", "start_date": "2030-02-05 10:00:00", "end_date": "2030-02-05 11:00:00"})
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-02-01")
	p.Drag(fmt.Sprintf(`#calendar [data-event-id="%d"]`, id), `#calendar td[data-date="2030-02-07"] .fc-daygrid-day-frame`)
	p.WaitVisible(`[data-testid="calendar-message"]`)
	e := apiEvent(t, srv, ed, strconv.FormatInt(id, 10), "en")
	if e["start_date"] != "2030-02-07 10:00:00" || e["end_date"] != "2030-02-07 11:00:00" {
		t.Errorf("after the drag: %v – %v, want the 7th, same hours", e["start_date"], e["end_date"])
	}

	con := srv.User(t, models.RoleContributor)
	mine := srv.CreateEvent(t, con, map[string]any{"title": "Mine", "status": "pending", "start_date": "2030-02-12 10:00:00", "end_date": "2030-02-12 11:00:00"})
	q := srv.Page(t)
	q.SignIn(con)
	calendarReady(q, "en", "/admin/calendar?view=month&date=2030-02-01")
	if st, body := srv.API(t, ed, http.MethodPost, fmt.Sprintf("/events/%d", mine), map[string]any{"status": "publish"}); st != http.StatusOK {
		t.Fatalf("publish: %d %s", st, body)
	}
	q.Drag(fmt.Sprintf(`#calendar [data-event-id="%d"]`, mine), `#calendar td[data-date="2030-02-14"] .fc-daygrid-day-frame`)
	q.WaitVisible(`[data-testid="calendar-message"].alert`)
	if got, want := q.Text(`[data-testid="calendar-message"]`), bundle(t).T("en", "error.rest_forbidden.user", nil); got != want {
		t.Errorf("refusal message %q, want the API's %q", got, want)
	}
	if got := dayOf(q, mine); got != "2030-02-12" {
		t.Errorf("the refused drag left the event on %q, want it back on the 12th", got)
	}
	if got := apiEvent(t, srv, ed, strconv.FormatInt(mine, 10), "en")["start_date"]; got != "2030-02-12 10:00:00" {
		t.Errorf("the refused drag moved the event to %v", got)
	}
	for _, pr := range q.TakeProblems() { // the API's 403, expected
		if !strings.Contains(pr, "403") {
			t.Errorf("unexpected browser problem: %s", pr)
		}
	}

	// Moved by someone else since the calendar loaded it: reloaded, not
	// overwritten.
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-02-01")
	if st, body := srv.API(t, ed, http.MethodPost, fmt.Sprintf("/events/%d", id), map[string]any{
		"start_date": "2030-02-20 10:00:00", "end_date": "2030-02-20 11:00:00"}); st != http.StatusOK {
		t.Fatalf("move through the API: %d %s", st, body)
	}
	p.Drag(fmt.Sprintf(`#calendar [data-event-id="%d"]`, id), `#calendar td[data-date="2030-02-08"] .fc-daygrid-day-frame`)
	browsertest.WaitUntil(p, fmt.Sprintf(`(() => { const td = document.querySelector('#calendar [data-event-id="%d"]');
		return td && td.closest('td[data-date]') && td.closest('td[data-date]').dataset.date === '2030-02-20'; })()`, id))
	if got := apiEvent(t, srv, ed, strconv.FormatInt(id, 10), "en")["start_date"]; got != "2030-02-20 10:00:00" {
		t.Errorf("the stale drag overwrote the other move: %v", got)
	}
}

// Selecting an empty day opens the quick-create form for that day; saving
// it makes the event there and comes back to the calendar.
func TestCalendarQuickCreate(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-02-01")
	p.Click(`#calendar td[data-date="2030-02-20"] .fc-daygrid-day-frame`)
	p.WaitVisible(`[data-testid="quick-create"]`)
	if got := browsertest.Eval[string](p, `document.querySelector('#q-start').value`); got != "2030-02-20" {
		t.Errorf("quick-create start %q, want the clicked day", got)
	}
	p.Fill(`[data-testid="quick-create"] form`, "title", "Quick one")
	p.ClickAndWait(`[data-testid="quick-save"]`)
	if !strings.HasPrefix(p.Path(), "/admin/calendar") {
		t.Errorf("after quick-create: %s, want the calendar", p.Path())
	}
	st, body := srv.API(t, ed, http.MethodGet, "/events?search=Quick&start_date=2030-02-01&end_date=2030-03-01&status=draft", nil)
	if st != http.StatusOK || !strings.Contains(string(body), `"start_date":"2030-02-20 00:00:00"`) {
		t.Errorf("the quick event through the API: %d %.300s", st, body)
	}
}

// Europe/Berlin leaves summer time on the last Sunday of October: events
// before and after keep their wall clock.
func TestCalendarAcrossDSTInBerlin(t *testing.T) {
	srv := browsertest.StartServer(t, "--timezone", "Europe/Berlin")
	ed := srv.User(t, models.RoleEditor)
	before := srv.CreateEvent(t, ed, map[string]any{"title": "Before", "start_date": "2030-10-26 09:00:00", "end_date": "2030-10-26 10:00:00"})
	after := srv.CreateEvent(t, ed, map[string]any{"title": "After", "start_date": "2030-10-28 09:00:00", "end_date": "2030-10-28 10:00:00"})
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-10-15")
	for id, want := range map[int64]string{before: "2030-10-26T09:00:00+02:00", after: "2030-10-28T09:00:00+01:00"} {
		if got := eventRange(p, id); !strings.HasPrefix(got, want) {
			t.Errorf("event %d at %q, want %s", id, got, want)
		}
	}
}

// Resizing an all-day event to a later day changes its end through the
// API (the API's end stays inclusive).
func TestCalendarResizeChangesTheEnd(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	id := srv.CreateEvent(t, ed, map[string]any{"title": "Fair", "all_day": true, "start_date": "2030-02-11", "end_date": "2030-02-11"})
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-02-01")
	p.Hover(fmt.Sprintf(`#calendar [data-event-id="%d"]`, id))
	p.Drag(fmt.Sprintf(`#calendar [data-event-id="%d"] .fc-event-resizer-end`, id), `#calendar td[data-date="2030-02-13"] .fc-daygrid-day-frame`)
	p.WaitVisible(`[data-testid="calendar-message"]`)
	e := apiEvent(t, srv, ed, strconv.FormatInt(id, 10), "en")
	if e["start_date"] != "2030-02-11 00:00:00" || !strings.HasPrefix(fmt.Sprint(e["end_date"]), "2030-02-13") {
		t.Errorf("after the resize: %v – %v, want the 11th to the 13th", e["start_date"], e["end_date"])
	}
}

// The list view is a table with edit and move links; the move form changes
// the dates without dragging and comes back to the calendar.
func TestCalendarListViewMovesWithoutDragging(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	id := srv.CreateEvent(t, ed, map[string]any{"title": "Talk", "start_date": "2030-02-05 10:00:00", "end_date": "2030-02-05 11:00:00"})
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/calendar?view=list&date=2030-02-01")
	if p.Count(fmt.Sprintf(`[data-testid="calendar-list"] [data-testid="event-%d"]`, id)) != 1 {
		t.Fatalf("the list view does not list the event:\n%s", p.Text("main"))
	}
	p.ClickAndWait(fmt.Sprintf(`[data-testid="move-%d"]`, id))
	p.Fill(`[data-testid="move-form"]`, "start_date", "2030-02-09T14:00")
	p.Fill(`[data-testid="move-form"]`, "end_date", "2030-02-09T15:30")
	if st := p.Submit(`[data-testid="move-form"]`); st != http.StatusOK || !strings.HasPrefix(p.Path(), "/admin/calendar") {
		t.Fatalf("move: status %d on %s", st, p.Path())
	}
	e := apiEvent(t, srv, ed, strconv.FormatInt(id, 10), "en")
	if e["start_date"] != "2030-02-09 14:00:00" || e["end_date"] != "2030-02-09 15:30:00" {
		t.Errorf("after the move: %v – %v", e["start_date"], e["end_date"])
	}
}

// rangeRequestsJS lists the ranges the calendar asked the API for, from
// the page's resource timings: each /events request's ends_after and
// starts_before, and whether they equal the current view's active range.
const rangeRequestsJS = `(() => {
  const v = window.kalendsCalendar.view;
  return performance.getEntriesByType("resource").filter(e => /\/events\?/.test(e.name)).map(e => {
    const q = new URL(e.name).searchParams;
    return {from: q.get("ends_after"), to: q.get("starts_before"), page: q.get("page"),
      start: Math.round(e.startTime), end: Math.round(e.responseEnd), bytes: e.encodedBodySize, size: e.decodedBodySize,
      match: Date.parse(q.get("ends_after")) === v.activeStart.getTime() && Date.parse(q.get("starts_before")) === v.activeEnd.getTime()};
  });
})()`

type rangeRequest struct {
	From, To, Page          string
	Start, End, Bytes, Size int
	Match                   bool
}

// The calendar at scale (issue 32 item 7): 4,000 events in one month, the
// density of a 100,000-event calendar (`kalends seed --events 100000`
// spreads them over two years, about 4,000 a month; seeding all of them
// takes a minute and a half, so only the month looked at is seeded). The
// month view loads only its visible range, in ceil(events / per_page)
// requests, is drawn (how soon is logged: speed is a goal of make bench,
// not an assertion here, so a busy machine does not fail it), and shows a few
// events a day with a "+N more" link that opens the rest; the week view
// likewise loads only its week and caps the events side by side. The
// events list counts them in the reader's digit grouping.
func TestCalendarMonthAtScale(t *testing.T) {
	const events = 4000
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	o := models.DefaultSeedOptions(time.Date(2030, 5, 1, 0, 0, 0, 0, time.UTC))
	o.Events, o.From, o.To, o.AuthorID = events, time.Date(2030, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 5, 31, 0, 0, 0, 0, time.UTC), ed.ID
	o.MultiDay = 0 // every event starts and ends in May
	seeded := time.Now()
	if _, err := srv.DB.Seed(context.Background(), o, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d events in %v", events, time.Since(seeded).Round(time.Millisecond))
	p := srv.Page(t)
	p.SignIn(ed)
	// Once to warm the server's caches and the browser's (as a reader who
	// comes back), then measured.
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-05-01")
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-05-01")
	browsertest.WaitUntil(p, `document.querySelector('#calendar').dataset.renderedAt !== undefined`)
	loaded, _ := strconv.Atoi(p.Attr("#calendar", "data-loaded"))
	requests, _ := strconv.Atoi(p.Attr("#calendar", "data-requests"))
	perPage, _ := strconv.Atoi(p.Attr("#calendar", "data-per-page"))
	drawn, _ := strconv.Atoi(p.Attr("#calendar", "data-rendered-at"))
	t.Logf("month view with %d events drawn %d ms after navigation, loaded at %s ms (%d requests of %d)", loaded, drawn, p.Attr("#calendar", "data-fetched-at"), requests, perPage)
	if loaded != events {
		t.Errorf("%d events loaded, want the %d of May", loaded, events)
	}
	if want := max(1, (loaded+perPage-1)/perPage); requests != want {
		t.Errorf("%d requests for %d events at %d a page, want %d", requests, loaded, perPage, want)
	}
	if drawn <= 0 {
		t.Errorf("the month view was never drawn (rendered at %d ms)", drawn)
	}
	reqs := browsertest.Eval[[]rangeRequest](p, rangeRequestsJS)
	for _, r := range reqs {
		t.Logf("  page %s: %d–%d ms, %d bytes (%d decoded)", r.Page, r.Start, r.End, r.Bytes, r.Size)
	}
	if len(reqs) != requests {
		t.Errorf("%d range requests seen, the calendar counted %d", len(reqs), requests)
	}
	for _, r := range reqs {
		if !r.Match {
			t.Errorf("a request for %s – %s (page %s) is not the month view's visible range", r.From, r.To, r.Page)
		}
	}
	// A few events a day, the rest behind "+N more".
	type day struct {
		Date        string
		Shown, More int
	}
	days := browsertest.Eval[[]day](p, `Array.from(document.querySelectorAll('#calendar td.fc-daygrid-day[data-date^="2030-05"]'), td => ({
		date: td.dataset.date,
		shown: Array.from(td.querySelectorAll('.fc-daygrid-event-harness')).filter(h => getComputedStyle(h).visibility !== 'hidden' && h.offsetHeight > 0).length,
		more: (() => { const a = td.querySelector('.fc-daygrid-more-link'); return a ? Number((a.textContent.match(/\d+/) || ["0"])[0]) : 0; })()
	}))`)
	if len(days) != 31 {
		t.Fatalf("%d day cells of May, want 31", len(days))
	}
	for _, d := range days {
		if d.Shown == 0 || d.Shown > 3 || d.Shown+d.More < 30 {
			t.Errorf("%s shows %d events and \"+%d more\", want a few and a link to the rest", d.Date, d.Shown, d.More)
		}
	}
	// "+N more" opens the day, which loads its own range in full.
	browsertest.Eval[bool](p, `(performance.clearResourceTimings(), delete document.querySelector('#calendar').dataset.loaded, true)`)
	p.Click(`#calendar td[data-date="2030-05-15"] .fc-daygrid-more-link`)
	browsertest.WaitUntil(p, `window.kalendsCalendar.view.type === "timeGridDay" && document.querySelector('#calendar').dataset.loaded !== undefined && !!document.querySelector('#calendar .fc-timegrid-event')`)
	if n, _ := strconv.Atoi(p.Attr("#calendar", "data-loaded")); n < days[14].Shown+days[14].More {
		t.Errorf("the day view of May 15 loaded %d events, want the %d of the day", n, days[14].Shown+days[14].More)
	}
	for _, r := range browsertest.Eval[[]rangeRequest](p, rangeRequestsJS) {
		if !r.Match {
			t.Errorf("a day view request for %s – %s (page %s) is not the day's range", r.From, r.To, r.Page)
		}
	}

	// The week view: its own range only, and at most three events side by
	// side in a slot (the rest behind "+N").
	calendarReady(p, "en", "/admin/calendar?view=week&date=2030-05-15")
	browsertest.WaitUntil(p, `!!document.querySelector('#calendar .fc-timegrid-event')`)
	reqs = browsertest.Eval[[]rangeRequest](p, rangeRequestsJS)
	if len(reqs) == 0 {
		t.Error("the week view made no request")
	}
	for _, r := range reqs {
		if !r.Match {
			t.Errorf("a week request for %s – %s (page %s) is not the week view's visible range", r.From, r.To, r.Page)
		}
	}
	if n := p.Count(`#calendar .fc-timegrid-more-link`); n == 0 {
		t.Error("the busy week shows no \"+N\" link in its time grid")
	}
	if n := p.Count(`#calendar .fc-timegrid-event-harness`); n > events/4 {
		t.Errorf("the week view drew %d events: the cap per slot does not hold", n)
	}

	// The lists count in the reader's digit grouping.
	for lang, want := range map[string]string{"en": "4,000 in all", "ja": "全 4,000 件"} {
		p.VisitIn(lang, "/admin/events")
		if got := p.Text(`[data-testid="total"]`); got != want {
			t.Errorf("%s: events list total %q, want %q", lang, got, want)
		}
		if got := p.Text(`.tab-count`); got != "4,000" {
			t.Errorf("%s: the All tab counts %q, want 4,000", lang, got)
		}
	}
}

// Clicking an event opens its popover with the details and the links to
// edit, duplicate and trash it; the event's own zone is named when it is
// not the site's.
func TestCalendarEventPopover(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	id := srv.CreateEvent(t, ed, map[string]any{"title": "Tokyo talk", "timezone": "Asia/Tokyo",
		"start_date": "2030-02-05 19:00:00", "end_date": "2030-02-05 20:00:00", "venue": map[string]any{"venue": "Hall 7"}})
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-02-01")
	p.Click(fmt.Sprintf(`#calendar [data-event-id="%d"]`, id))
	p.WaitVisible(`[data-testid="event-popover"]`)
	if got := p.Text(`#event-popover [data-field=title]`); got != "Tokyo talk" {
		t.Errorf("popover title %q", got)
	}
	if got := p.Text(`#event-popover [data-field=zone]`); !strings.Contains(got, "Asia/Tokyo") {
		t.Errorf("popover zone %q, want the event's own zone", got)
	}
	if got := p.Attr(`[data-testid="popover-edit"]`, "href"); got != fmt.Sprintf("/admin/events/%d/edit", id) {
		t.Errorf("edit link %q", got)
	}
	if got := p.Attr(`#event-popover form[data-action=duplicate]`, "action"); !strings.HasSuffix(got, fmt.Sprintf("/admin/events/%d/duplicate", id)) {
		t.Errorf("duplicate form posts to %q", got)
	}
	p.ClickAndWait(`#event-popover form[data-action=trash] button`)
	if st, _ := srv.API(t, ed, http.MethodGet, fmt.Sprintf("/events/%d", id), nil); st != http.StatusForbidden {
		t.Errorf("after trash from the popover the event reads %d, want 403 (in the trash)", st)
	}
	if !strings.HasPrefix(p.Path(), "/admin/calendar") {
		t.Errorf("after trash: on %s, want the calendar", p.Path())
	}
}

// The quick-create form is checked by the same handler as the full form:
// an end before the start comes back in the dialog (htmx) and nothing is
// created.
func TestCalendarQuickCreateErrorsStayInTheDialog(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	calendarReady(p, "en", "/admin/calendar?view=month&date=2030-02-01")
	p.Click(`#calendar td[data-date="2030-02-20"] .fc-daygrid-day-frame`)
	p.WaitVisible(`[data-testid="quick-create"]`)
	form := `[data-testid="quick-create"] form`
	p.Fill(form, "title", "Backwards")
	p.Fill(form, "end_date", "2030-02-18")
	p.Click(`[data-testid="quick-save"]`)
	p.WaitVisible(`#quick-errors [data-testid="error-summary"]`)
	if !strings.HasPrefix(p.Path(), "/admin/calendar") {
		t.Errorf("the failed quick-create left the calendar for %s", p.Path())
	}
	for _, pr := range p.TakeProblems() { // the 422, expected
		if !strings.Contains(pr, "422") {
			t.Errorf("unexpected browser problem: %s", pr)
		}
	}
	st, body := srv.API(t, ed, http.MethodGet, "/events?search=Backwards&start_date=2030-02-01&end_date=2030-03-01&status=draft", nil)
	if st != http.StatusOK || !strings.Contains(string(body), `"total":0`) {
		t.Errorf("the refused quick-create made an event: %d %.200s", st, body)
	}
}
