package admin

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The calendar's feed gives the events of the range asked (those that
// overlap it), as the user may read them, with the API's keys the
// calendar draws and the days each event is on in the site's zone; a
// range it cannot read is 400 with a message in the user's language.
func TestCalendarFeedGivesTheRangeAsTheUserMayReadIt(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	ctx := context.Background()
	ed := account(t, db, "ed", models.RoleEditor)
	carl := account(t, db, "carl", models.RoleContributor)
	account(t, db, "dora", models.RoleContributor)
	create := func(u *models.User, title, status, start, end string, allDay bool) int64 {
		t.Helper()
		in := models.EventInput{PostInput: models.PostInput{Status: &status}, Title: &title, StartDate: &start, EndDate: &end, AllDay: &allDay, Lang: "en"}
		e, err := db.CreateEvent(ctx, u, in)
		if err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	night := create(ed, "Nuit blanche 白夜", models.StatusPublish, "2030-05-10 22:00:00", "2030-05-11 02:00:00", false)
	fair := create(ed, "Book fair 책 축제", models.StatusPublish, "2030-05-20", "2030-05-21", true)
	create(ed, "Next month", models.StatusPublish, "2030-06-20 10:00:00", "2030-06-20 11:00:00", false)
	draft := create(carl, "Carl's draft", models.StatusDraft, "2030-05-12 10:00:00", "2030-05-12 11:00:00", false)

	type feed struct {
		Events []struct {
			ID        int64     `json:"id"`
			Title     string    `json:"title"`
			Status    string    `json:"status"`
			AllDay    bool      `json:"all_day"`
			StartDate string    `json:"start_date"`
			UTCStart  string    `json:"utc_start_date"`
			Days      [2]string `json:"days"`
		} `json:"events"`
		Total      int `json:"total"`
		TotalPages int `json:"total_pages"`
	}
	read := func(login, query string) (int, feed, string) {
		b := newBrowser(t, app)
		b.signIn(login, "password-"+login)
		resp, body := b.get(calendarEventsPath + "?" + query)
		var f feed
		if resp.StatusCode == 200 {
			if err := json.Unmarshal([]byte(body), &f); err != nil {
				t.Fatalf("%s: %v in %.300s", login, err, body)
			}
		}
		return resp.StatusCode, f, body
	}
	may := url.Values{"ends_after": {"2030-04-28T00:00:00Z"}, "starts_before": {"2030-06-09T00:00:00Z"}}.Encode()
	st, f, body := read("ed", may+"&status=publish,future,draft,pending,private")
	if st != 200 || f.Total != 3 || f.TotalPages != 1 || len(f.Events) != 3 { // not June 20, after the range
		t.Fatalf("editor's month: %d %s", st, body)
	}
	byID := map[int64]int{}
	for i, e := range f.Events {
		byID[e.ID] = i
	}
	if e := f.Events[byID[night]]; e.Days != [2]string{"2030-05-10", "2030-05-11"} || e.UTCStart != "2030-05-10 22:00:00" || e.AllDay {
		t.Errorf("the night event: %+v", e)
	}
	if e := f.Events[byID[fair]]; e.Days != [2]string{"2030-05-20", "2030-05-21"} || !e.AllDay {
		t.Errorf("the two-day fair: %+v", e)
	}
	if _, ok := byID[draft]; !ok {
		t.Error("the editor does not see the contributor's draft")
	}
	// A range of one day: the events that overlap it.
	st, f, _ = read("ed", url.Values{"ends_after": {"2030-05-11T00:00:00Z"}, "starts_before": {"2030-05-12T00:00:00Z"}}.Encode())
	if st != 200 || f.Total != 1 || f.Events[0].ID != night {
		t.Errorf("May 11: %d %+v, want the night that ends on it", st, f)
	}
	// Another contributor does not see Carl's draft.
	_, f, _ = read("dora", may)
	for _, e := range f.Events {
		if e.ID == draft {
			t.Error("a contributor sees another's draft in the feed")
		}
	}
	// Paged as asked.
	_, f, _ = read("ed", may+"&per_page=2&page=2")
	if f.Total != 3 || f.TotalPages != 2 || len(f.Events) != 1 {
		t.Errorf("page 2 of 2 a page: %+v", f)
	}
	for _, q := range []string{"", "ends_after=yesterday&starts_before=2030-06-09T00:00:00Z",
		url.Values{"ends_after": {"2030-06-09T00:00:00Z"}, "starts_before": {"2030-04-28T00:00:00Z"}}.Encode(), may + "&venue=abc"} {
		if st, _, body := read("ed", q); st != 400 || len(body) < 20 {
			t.Errorf("%q: %d %s, want 400 with a message", q, st, body)
		}
	}
}
