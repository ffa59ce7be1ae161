package api

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/kalends/kalends/models"
)

// syncClient keeps a copy of the lists one reader can read (events of
// every date, venues), built from a list copy and then the change feed only.
type syncClient struct {
	as     models.Role
	have   map[string]bool // "event:12", "venue:3"
	cursor string
}

// copyLists reads every page of the reader's event and venue lists, and
// the cursor of the first answer.
func (e *testEnv) copyLists(t *testing.T, as models.Role) (map[string]bool, string) {
	t.Helper()
	have := map[string]bool{}
	cursor := ""
	for _, l := range []struct{ path, key, kind string }{
		{"/events?start_date=2000-01-01&end_date=2100-01-01", "events", "event"},
		{"/venues?x=1", "venues", "venue"},
	} {
		for page := 1; ; page++ {
			r := e.do(t, "GET", fmt.Sprintf("%s%s&per_page=100&page=%d", nsURL, l.path, page), nil, as)
			if r.Status == 404 && page > 1 {
				break
			}
			if cursor == "" {
				cursor = r.Header.Get(ChangesCursorHeader)
			}
			ids, total := listIDs(t, r, l.key)
			for _, id := range ids {
				have[fmt.Sprintf("%s:%d", l.kind, id)] = true
			}
			if page*100 >= total {
				break
			}
		}
	}
	return have, cursor
}

// follow applies the feed to the copy: events and venues only (the lists
// it keeps).
func (c *syncClient) follow(t *testing.T, e *testEnv) (applied int) {
	t.Helper()
	for {
		r := e.do(t, "GET", nsURL+"/changes?per_page=500&cursor="+url.QueryEscape(c.cursor), nil, c.as)
		if r.Status != 200 {
			t.Fatalf("changes as %q: %d %s", c.as, r.Status, r.Body)
		}
		m := r.Map(t)
		for _, it := range m["changes"].([]any) {
			ch := it.(map[string]any)
			if ch["kind"] != "event" && ch["kind"] != "venue" {
				continue
			}
			key := fmt.Sprintf("%s:%v", ch["kind"], ch["id"])
			c.have[key] = ch["action"] != models.ChangeRemoved
			if !c.have[key] {
				delete(c.have, key)
			}
			applied++
		}
		next := m["cursor"].(string)
		if next == c.cursor {
			return applied
		}
		c.cursor = next
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestChangeFeedRebuildsTheLists: an anonymous client and an editor each
// copy their lists, then follow only the feed across 1,000 mixed writes
// (creates, updates, drafts, trash, restores, force deletes, series
// edits, venues hidden and shown again); at checkpoints and at the end
// their copies are exactly the lists they can read. On both dialects.
func TestChangeFeedRebuildsTheLists(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		rng := rand.New(rand.NewPCG(34, 2026))
		lim := models.DefaultLimits()
		lim.WritesPerMinute = 0 // a thousand writes in a few seconds
		e.DB.Site().Limits = &lim
		ed := models.RoleEditor
		var events, venues []int64
		pick := func(ids []int64) int64 { return ids[rng.IntN(len(ids))] }
		titles := []string{"夏祭り", "벚꽃 축제", "Fête des Lumières", "音乐节", "Crème brûlée"}
		newVenue := func(status string) {
			r := e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": fmt.Sprintf("%s 会場 %d", titles[rng.IntN(len(titles))], len(venues)), "status": status}, ed)
			venues = append(venues, idOf(t, r))
		}
		for range 3 {
			newVenue("publish")
		}
		clients := []*syncClient{{as: ""}, {as: ed}}
		for _, c := range clients {
			c.have, c.cursor = e.copyLists(t, c.as)
		}
		check := func(when string) {
			t.Helper()
			for _, c := range clients {
				c.follow(t, e)
				want, _ := e.copyLists(t, c.as)
				if got := sortedKeys(c.have); !reflect.DeepEqual(got, sortedKeys(want)) {
					t.Fatalf("%s, reader %q: the copy from the feed differs from the lists\n feed  %v\n lists %v", when, c.as, got, sortedKeys(want))
				}
			}
		}
		counts := map[string]int{}
		ev := func(id int64) string { return fmt.Sprintf("%s/events/%d", nsURL, id) }
		for i := range 1000 {
			op := rng.IntN(10)
			if len(events) == 0 {
				op = 0
			}
			var r *testResp
			switch op {
			case 0, 1: // create, sometimes as a draft, sometimes at a venue
				body := map[string]any{"title": fmt.Sprintf("%s %d", titles[rng.IntN(len(titles))], i),
					"start_date": fmt.Sprintf("2031-%02d-%02d 10:00:00", 1+rng.IntN(12), 1+rng.IntN(28)), "status": []string{"publish", "draft", "publish"}[rng.IntN(3)]}
				body["end_date"] = body["start_date"].(string)[:11] + "12:00:00"
				if rng.IntN(2) == 0 {
					body["venue"] = pick(venues)
				}
				r = e.do(t, "POST", nsURL+"/events", body, ed)
				if r.Status == 201 {
					events = append(events, idOf(t, r))
				}
				counts["create"]++
			case 2: // update
				r = e.do(t, "PATCH", ev(pick(events)), map[string]any{"title": fmt.Sprintf("Mis à jour %d", i)}, ed)
				counts["update"]++
			case 3: // draft
				r = e.do(t, "PATCH", ev(pick(events)), map[string]any{"status": "draft"}, ed)
				counts["draft"]++
			case 4: // trash
				r = e.do(t, "DELETE", ev(pick(events)), nil, ed)
				counts["trash"]++
			case 5: // restore (or publish a draft)
				r = e.do(t, "PATCH", ev(pick(events)), map[string]any{"status": "publish"}, ed)
				counts["restore"]++
			case 6: // force delete
				id := pick(events)
				r = e.do(t, "DELETE", ev(id)+"?force=true", nil, ed)
				if r.Status == 200 {
					events = slices.DeleteFunc(events, func(x int64) bool { return x == id })
				}
				counts["delete"]++
			case 7: // a series, or an edit of every occurrence of one
				if rng.IntN(2) == 0 {
					r = e.do(t, "POST", nsURL+"/events", map[string]any{"title": fmt.Sprintf("연속 %d", i), "start_date": "2031-03-02 10:00:00",
						"end_date": "2031-03-02 11:00:00", "recurrence": "FREQ=WEEKLY;COUNT=4", "status": "publish"}, ed)
					if r.Status == 201 {
						ids, _ := listIDs(t, e.do(t, "GET", fmt.Sprintf("%s/events?post_parent=%d&start_date=2000-01-01&end_date=2100-01-01", nsURL, idOf(t, r)), nil, ed), "events")
						events = append(events, ids...)
					}
				} else {
					r = e.do(t, "PATCH", ev(pick(events)), map[string]any{"title": fmt.Sprintf("Série %d", i), "scope": "all"}, ed)
				}
				counts["series"]++
			case 8: // a venue hidden or shown again
				st := []string{"draft", "publish"}[rng.IntN(2)]
				r = e.do(t, "PATCH", fmt.Sprintf("%s/venues/%d", nsURL, pick(venues)), map[string]any{"status": st}, ed)
				counts["venue"]++
			case 9:
				newVenue([]string{"publish", "draft"}[rng.IntN(2)])
				counts["venue"]++
				continue
			}
			if r.Status >= 500 {
				t.Fatalf("write %d (op %d): %d %s", i, op, r.Status, r.Body)
			}
			if r.Status < 300 {
				counts["ok"]++
			}
			if i%250 == 249 {
				check(fmt.Sprintf("after %d writes", i+1))
			}
		}
		check("at the end")
		t.Logf("writes: %v", counts)
	})
}
