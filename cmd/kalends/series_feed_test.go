package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/ical"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestSeriesFeedExpandsInIcalJSToTheAPIsDates: the feed writes a series
// as one VEVENT with RRULE, RDATE and EXDATE and one VEVENT per exception
// (RECURRENCE-ID), not one per occurrence; ical.js expands it, across a
// daylight saving change, to the very dates and titles the API lists to
// an anonymous caller (an unpublished exception is an EXDATE there); and
// importing the feed into an empty site gives the same series back.
func TestSeriesFeedExpandsInIcalJSToTheAPIsDates(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := testApp(t, db, io.Discard)
		admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "correct horse battery", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		s := func(v string) *string { return &v }
		in := models.EventInput{Title: s("Choir"), StartDate: s("2027-03-02 09:00:00"), EndDate: s("2027-03-02 10:30:00"),
			Timezone: s("America/New_York"), Lang: "en",
			Recurrence: s("RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=8\nEXDATE:20270316T090000\nRDATE:20270327T140000")}
		series, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		occ, err := db.ListEvents(ctx, admin, models.EventFilter{ParentID: &series.ID, PerPage: 50})
		if err != nil || len(occ.Items) != 8 {
			t.Fatalf("%d occurrences (%v)", len(occ.Items), err)
		}
		// An exception moved to the evening, one made a draft, one trashed.
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(occ.Items[2].ID), models.EventInput{Title: s("Choir: concert"),
			StartDate: s("2027-03-23 19:00:00"), EndDate: s("2027-03-23 21:00:00"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		draft := models.EventInput{Lang: "en"}
		draft.Status = s(models.StatusDraft)
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(occ.Items[4].ID), draft); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TrashEvent(ctx, admin, models.ByID(occ.Items[6].ID), "en"); err != nil {
			t.Fatal(err)
		}

		// What the API lists to anyone.
		res, body := do(t, app, httptest.NewRequest("GET", "/cal/events/v1/events?per_page=50&start_date=2027-01-01&end_date=2027-12-31&post_parent="+
			strconv.FormatInt(series.ID, 10), nil))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("API: %d %s", res.StatusCode, body)
		}
		var list struct {
			Events []struct {
				Title        string `json:"title"`
				UTCStartDate string `json:"utc_start_date"`
			} `json:"events"`
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, e := range list.Events {
			want = append(want, strings.Replace(e.UTCStartDate, " ", "T", 1)+".000Z "+e.Title)
		}
		if len(want) != 6 { // 8 Tuesdays + 1 RDATE − EXDATE − draft − trashed
			t.Fatalf("the API lists %d occurrences: %v", len(want), want)
		}

		res, feed := do(t, app, httptest.NewRequest("GET", "/events.ics?start_date=2027-01-01&end_date=2027-12-31", nil))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("feed: %d %s", res.StatusCode, feed)
		}
		checkLines(t, "events.ics", []byte(feed))
		if n := strings.Count(feed, "BEGIN:VEVENT"); n != 2 {
			t.Errorf("%d VEVENTs, want the series and its one published exception:\n%s", n, feed)
		}
		for _, line := range []string{"RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=8", "RDATE;TZID=America/New_York:20270327T140000",
			"EXDATE;TZID=America/New_York:20270316T090000", "EXDATE;TZID=America/New_York:20270330T090000",
			"EXDATE;TZID=America/New_York:20270413T090000", "RECURRENCE-ID;TZID=America/New_York:20270323T090000"} {
			if !strings.Contains(feed, line+"\r\n") {
				t.Errorf("feed lacks %s:\n%s", line, feed)
			}
		}
		f := filepath.Join(t.TempDir(), "series.ics")
		if err := os.WriteFile(f, []byte(feed), 0o600); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range parseWithIcalJS(t, []string{f})[0].Events {
			for _, o := range e.Occurrences {
				got = append(got, o.Start+" "+o.Summary)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("ical.js expands to\n%s\nthe API lists\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}

		// An occurrence's public page says how the event repeats and lists
		// the next dates, itself unlinked, in the page's language.
		for lang, sentence := range map[string]string{"": "Every week on Tuesday, 8 times", "/ja": "毎週火曜日、8回"} {
			res, page := do(t, app, httptest.NewRequest("GET", lang+"/event/"+occ.Items[1].Slug+"/", nil))
			if res.StatusCode != http.StatusOK || !strings.Contains(page, sentence) {
				t.Errorf("%s page: %d, no %q:\n%s", lang, res.StatusCode, sentence, page)
			}
			_, next, ok := strings.Cut(page, `data-testid="next-dates"`)
			if !ok {
				t.Errorf("%s page: no next dates", lang)
				continue
			}
			next, _, _ = strings.Cut(next, "</ul>")
			if n := strings.Count(next, "<li"); n != 6 {
				t.Errorf("%s page: %d next dates, want 6", lang, n)
			}
			if !strings.Contains(page, `aria-current="true"`) || strings.Contains(page, "/event/"+occ.Items[4].Slug+"/") {
				t.Errorf("%s page: the current date is linked, or the draft one is listed", lang)
			}
		}

		// The feed imported into an empty site is the same series.
		other := modelstest.Open(t, db.Dialect())
		importer, err := other.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "correct horse battery", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		items, err := ical.Read(strings.NewReader(feed))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ical.Import(ctx, other, importer, items, "en"); err != nil {
			t.Fatal(err)
		}
		first, err := other.ListEvents(ctx, importer, models.EventFilter{PerPage: 10, Recurrence: models.RecurrenceFirst})
		if err != nil || len(first.Items) != 1 || !first.Items[0].IsSeries() {
			t.Fatalf("imported: %v (%v)", first, err)
		}
		back, err := other.ListEvents(ctx, nil, models.EventFilter{PerPage: 50, ParentID: &first.Items[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		var again []string
		for _, e := range back.Items {
			again = append(again, e.StartAt.UTC().Format(time.RFC3339)[:19]+".000Z "+e.Title)
		}
		if strings.Join(again, "\n") != strings.Join(want, "\n") {
			t.Errorf("imported series\n%s\nwant\n%s", strings.Join(again, "\n"), strings.Join(want, "\n"))
		}
	})
}
