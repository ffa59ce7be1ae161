package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// feedEvents creates the events the feed tests check: one across the end
// of daylight saving time in New York, an all-day event over three days,
// and one in Japanese with a description long enough to fold, plus a
// draft. It returns the published ones.
func feedEvents(t *testing.T, db *models.DB) ([]*models.Event, *models.Event) {
	t.Helper()
	ctx := context.Background()
	admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "correct horse battery", Role: models.RoleAdministrator})
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	lat, lng := 35.6586, 139.7454
	v, _, err := db.Venues().Create(ctx, admin, models.VenueInput{Venue: s("東京ホール"), City: s("東京"), GeoLat: &lat, GeoLng: &lng}, "ja")
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := db.Organizers().Create(ctx, admin, models.OrganizerInput{Organizer: s("Crew; Inc, Ltd"), Email: s("crew@example.test")}, "en")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("日本語の説明文です。カレンダーのアプリで折り返しを確かめます。", 12)
	ins := []models.EventInput{
		{Title: s(`Late, late; show \ night`), Description: s("<p>First line</p><p>Second, line</p>"), StartDate: s("2026-11-01 00:30"),
			EndDate: s("2026-11-01 03:30"), Timezone: s("America/New_York"), Lang: "en", Organizers: &[]models.OrganizerRef{{ID: o.ID}}},
		{Title: s("Winter market"), StartDate: s("2026-12-24"), EndDate: s("2026-12-26"), AllDay: ptrOf(true),
			Timezone: s("Europe/Berlin"), Lang: "en", Categories: &[]models.TermRef{{Name: "Markets"}}},
		{Title: s("東京ジャズ祭 2026"), Description: s("<p>" + long + "</p>"), StartDate: s("2026-11-20 18:00"),
			EndDate: s("2026-11-20 21:00"), Timezone: s("Asia/Tokyo"), Lang: "ja",
			Categories: &[]models.TermRef{{Name: "音楽"}}, Venues: &[]models.VenueRef{{ID: v.ID}}},
	}
	var out []*models.Event
	for _, in := range ins {
		in.Status = s(models.StatusPublish)
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	d := models.EventInput{Title: s("Secret"), StartDate: s("2026-11-21 10:00"), EndDate: s("2026-11-21 11:00"), Lang: "en"}
	d.Status = s(models.StatusDraft)
	draft, err := db.CreateEvent(ctx, admin, d)
	if err != nil {
		t.Fatal(err)
	}
	return out, draft
}

// checkLines fails on a content line over 75 octets, a line break other
// than CRLF, or a line that splits a UTF-8 sequence.
func checkLines(t *testing.T, name string, body []byte) {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\r\n")) {
		t.Errorf("%s: does not end in CRLF", name)
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(body, []byte("\r\n")), []byte("\r\n")) {
		if len(l) > 75 {
			t.Errorf("%s line %d: %d octets: %q", name, i+1, len(l), l)
		}
		if bytes.ContainsAny(l, "\r\n") {
			t.Errorf("%s line %d: a bare CR or LF", name, i+1)
		}
		if !utf8.Valid(l) {
			t.Errorf("%s line %d: splits a UTF-8 sequence", name, i+1)
		}
	}
}

type icalJSEvent struct {
	UID, Summary, Description, Location, Start, End, Tzid, Status string
	URL                                                           string `json:"url"`
	AllDay                                                        bool   `json:"allDay"`
	Categories                                                    []string
	Sequence                                                      int
	Organizer                                                     string
	OrganizerCN                                                   string `json:"organizerCN"`
	RecurrenceID                                                  string `json:"recurrenceId"`
	// Occurrences are the expanded dates of a recurring event.
	Occurrences []struct {
		Start, End, Summary string
		RecurrenceID        string `json:"recurrenceId"`
	}
}

type icalJSCalendar struct {
	Name, Calname, Refresh string
	Timezones              []string
	Events                 []icalJSEvent
}

// parseWithIcalJS parses files with ical.js (npm, run by node).
func parseWithIcalJS(t *testing.T, files []string) []icalJSCalendar {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		modelstest.MissingDependency(t, "node (apt-get install nodejs npm), for ical.js")
	}
	if _, err := os.Stat(filepath.Join("..", "..", "node_modules", "ical.js")); err != nil {
		modelstest.MissingDependency(t, "the npm packages (npm ci), for ical.js")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("..", "..", "scripts", "parse-ical.mjs")}, files...)...) //nolint:gosec // G204: our script on our files.
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ical.js: %v\n%s", err, stderr.String())
	}
	var cals []icalJSCalendar
	if err := json.Unmarshal(out, &cals); err != nil {
		t.Fatalf("ical.js output: %v\n%s", err, out)
	}
	return cals
}

// TestFeedsParseInIcalJSAndGo: /events.ics and every /event/<slug>.ics are
// valid iCalendar that ical.js and a Go parser read to the API's fields:
// instants across a DST change, an all-day event's exclusive end, folded
// CJK text, escaped punctuation.
func TestFeedsParseInIcalJSAndGo(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		events, draft := feedEvents(t, db)
		dir := t.TempDir()
		paths := []string{"/events.ics?start_date=2026-10-01&end_date=2027-01-31"}
		for _, e := range events {
			paths = append(paths, "/event/"+e.Slug+".ics")
		}
		var files []string
		for i, p := range paths {
			res, body := do(t, app, httptest.NewRequest("GET", p, nil))
			if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/calendar") {
				t.Fatalf("GET %s: %d %s\n%s", p, res.StatusCode, res.Header.Get("Content-Type"), body)
			}
			checkLines(t, p, []byte(body))
			f := filepath.Join(dir, "feed"+itoa(int64(i))+".ics")
			if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			// The Go parser reads the same text.
			cal, err := ics.ParseCalendar(strings.NewReader(body))
			if err != nil {
				t.Fatalf("%s: golang-ical: %v", p, err)
			}
			if i == 0 && len(cal.Events()) != len(events) {
				t.Errorf("%s: %d events, want %d (no draft)", p, len(cal.Events()), len(events))
			}
			for _, ge := range cal.Events() {
				api := apiJSON(t, app, "/cal/events/v1/events/"+strings.Split(ge.Id(), "@")[0])
				if got := ge.GetProperty(ics.ComponentPropertySummary).Value; unescape(got) != api["title"] {
					t.Errorf("%s: golang-ical SUMMARY %q, API title %q", p, unescape(got), api["title"])
				}
				if api["all_day"] == true {
					continue
				}
				start, err := ge.GetStartAt()
				if err != nil {
					t.Fatalf("%s: DTSTART: %v", p, err)
				}
				if want := utcOf(t, api["utc_start_date"]); !start.Equal(want) {
					t.Errorf("%s %s: golang-ical start %s, API %s", p, api["title"], start.UTC(), want)
				}
			}
		}
		cals := parseWithIcalJS(t, files)
		if len(cals) != len(files) {
			t.Fatalf("ical.js read %d calendars of %d", len(cals), len(files))
		}
		if cals[0].Name == "" || cals[0].Calname != cals[0].Name || cals[0].Refresh != "PT1H" {
			t.Errorf("calendar properties: %+v", cals[0])
		}
		for fi, cal := range cals {
			for _, je := range cal.Events {
				api := apiJSON(t, app, "/cal/events/v1/events/"+strings.Split(je.UID, "@")[0])
				if je.Summary != api["title"] {
					t.Errorf("%d: ical.js summary %q, API %q", fi, je.Summary, api["title"])
				}
				if je.Status != "CONFIRMED" || je.URL != api["url"] {
					t.Errorf("%d %s: status %q url %q", fi, je.Summary, je.Status, je.URL)
				}
				if je.AllDay != (api["all_day"] == true) {
					t.Errorf("%s: all-day %v", je.Summary, je.AllDay)
				}
				if je.AllDay {
					// 24–26 December: DTEND is the day after the last day.
					if je.Start != "2026-12-24" || je.End != "2026-12-27" {
						t.Errorf("all-day: %s – %s, want 2026-12-24 – 2026-12-27", je.Start, je.End)
					}
					if len(je.Categories) != 1 || je.Categories[0] != "Markets" {
						t.Errorf("all-day categories %v", je.Categories)
					}
					continue
				}
				if got, want := je.Start, utcOf(t, api["utc_start_date"]).Format("2006-01-02T15:04:05.000Z"); got != want {
					t.Errorf("%s: ical.js start %s, API %s", je.Summary, got, want)
				}
				if got, want := je.End, utcOf(t, api["utc_end_date"]).Format("2006-01-02T15:04:05.000Z"); got != want {
					t.Errorf("%s: ical.js end %s, API %s", je.Summary, got, want)
				}
				if je.Tzid != api["timezone"] {
					t.Errorf("%s: TZID %q, API zone %q", je.Summary, je.Tzid, api["timezone"])
				}
				switch api["timezone"] {
				case "America/New_York": // 00:30 EDT to 03:30 EST: four hours, not three
					if je.Start != "2026-11-01T04:30:00.000Z" || je.End != "2026-11-01T08:30:00.000Z" {
						t.Errorf("DST-crossing event: %s – %s", je.Start, je.End)
					}
					if je.Description != "First line\n\nSecond, line" {
						t.Errorf("description %q", je.Description)
					}
					if je.OrganizerCN != "Crew; Inc, Ltd" || je.Organizer != "mailto:crew@example.test" {
						t.Errorf("organizer %q %q", je.OrganizerCN, je.Organizer)
					}
				case "Asia/Tokyo":
					if !strings.Contains(je.Description, "日本語の説明文です。") || len(je.Description) < 1000 {
						t.Errorf("CJK description %q", je.Description)
					}
					if !strings.HasPrefix(je.Location, "東京ホール, 東京") || len(je.Categories) != 1 || je.Categories[0] != "音楽" {
						t.Errorf("location %q categories %v", je.Location, je.Categories)
					}
				}
			}
		}

		// Validators, drafts and bad arguments.
		res, _ := do(t, app, httptest.NewRequest("GET", paths[1], nil))
		for _, h := range [][2]string{{"If-None-Match", res.Header.Get("ETag")}, {"If-Modified-Since", res.Header.Get("Last-Modified")}} {
			req := httptest.NewRequest("GET", paths[1], nil)
			req.Header.Set(h[0], h[1])
			if r, _ := do(t, app, req); h[1] == "" || r.StatusCode != http.StatusNotModified {
				t.Errorf("%s %q: %d, want 304", h[0], h[1], r.StatusCode)
			}
		}
		if r, _ := do(t, app, httptest.NewRequest("GET", "/event/"+draft.Slug+".ics", nil)); r.StatusCode != http.StatusNotFound {
			t.Errorf("draft feed: %d", r.StatusCode)
		}
		for _, p := range []string{"/events.ics?venue=x", "/events.ics?start_date=soon", "/events.ics?categories=nope", "/events.ics?ml_language=xx"} {
			if r, _ := do(t, app, httptest.NewRequest("GET", p, nil)); r.StatusCode != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400", p, r.StatusCode)
			}
		}
		if r, body := do(t, app, httptest.NewRequest("GET", "/ja/events.ics?categories=音楽&start_date=2026-10-01&end_date=2027-01-31", nil)); r.StatusCode != http.StatusOK ||
			strings.Count(body, "BEGIN:VEVENT") != 1 || !strings.Contains(body, "/ja/event/") {
			t.Errorf("filtered Japanese feed: %d\n%s", r.StatusCode, body)
		}
	})
}

// unescape undoes the TEXT escapes golang-ical leaves in values.
func unescape(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\;`, ";", `\,`, ",", `\n`, "\n", `\N`, "\n").Replace(s)
}

func utcOf(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	u, err := time.Parse(time.DateTime, s)
	if err != nil {
		t.Fatalf("API time %q: %v", s, err)
	}
	return u
}
