package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
)

// TestLongWindowTotalsFollowWritesThroughTheAPI: the totals of windows that
// hold whole months (read from the month buckets) and of windows inside
// one month (day buckets only) equal the events the API lists, before and
// after a date moved to another month and an event trashed through the
// API, for the default window and for a category named in French (typed
// decomposed) and in Japanese, with pages of one so that every total is
// counted, not told by a short page.
func TestLongWindowTotalsFollowWritesThroughTheAPI(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		first := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)
		cats := []string{"Musique d’été", "夏祭り"}
		ids := make([]int64, 0, 12)
		for i := range 12 {
			s := first.AddDate(0, 0, 17*i).Add(time.Duration(9+i%10) * time.Hour)
			ev := e.createEvent(t, map[string]any{"title": fmt.Sprint("Fête de la musique nº", i), "description": "<p>서울 아트센터</p>",
				"start_date": s.Format(time.DateTime), "end_date": s.Add(2 * time.Hour).Format(time.DateTime),
				"categories": []any{map[string]any{"name": cats[i%2]}}, "venue": map[string]any{"venue": "서울 아트센터"}})
			ids = append(ids, eventIDOf(ev))
		}
		mid := first.AddDate(0, 0, 9) // a window from the middle of a month
		windows := []string{
			"", // the default window: yesterday and the next 24 months
			fmt.Sprintf("start_date=%s&end_date=%s", mid.Format(time.DateOnly), first.AddDate(0, 7, 0).Format(time.DateOnly)),
			fmt.Sprintf("start_date=%s&end_date=%s", mid.Format(time.DateOnly), mid.AddDate(0, 0, 10).Format(time.DateOnly)),
		}
		check := func(step string) {
			t.Helper()
			for _, w := range windows {
				for _, cat := range append([]string{""}, cats...) {
					args := []string{}
					if w != "" {
						args = append(args, w)
					}
					if cat != "" {
						args = append(args, "categories="+url.QueryEscape(norm.NFD.String(cat)))
					}
					q := strings.Join(args, "&")
					n, _ := e.listTotal(t, "per_page=1&"+q, "")
					_, all := e.listTotal(t, "per_page=100&"+q, "")
					if want := len(all["events"].([]any)); n != want {
						t.Errorf("%s, %q: total %d, %d events listed", step, q, n, want)
					}
				}
			}
		}
		check("created")
		moved := first.AddDate(0, 3, 1).Add(20 * time.Hour)
		r := e.do(t, "POST", fmt.Sprintf("/cal/events/v1/events/%d", ids[1]), map[string]any{
			"start_date": moved.Format(time.DateTime), "end_date": moved.Add(time.Hour).Format(time.DateTime)}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusOK)
		check("a date moved to another month")
		r = e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d", ids[6]), nil, models.RoleAdministrator)
		mustStatus(t, r, http.StatusOK)
		check("an event trashed")
		if n, _ := e.listTotal(t, "per_page=1", ""); n != 11 {
			t.Errorf("default window after the trash: %d events, want 11", n)
		}
	})
}
