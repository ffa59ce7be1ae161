package api

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/models"
)

// feedOf follows GET /changes from cursor as role until it stops moving,
// returning "kind:id:action" items and the last cursor.
func (e *testEnv) feedOf(t *testing.T, cursor string, as models.Role) ([]string, string) {
	t.Helper()
	var out []string
	for range 100 {
		r := e.do(t, "GET", nsURL+"/changes?per_page=2&cursor="+url.QueryEscape(cursor), nil, as)
		if r.Status != 200 {
			t.Fatalf("changes: %d %s", r.Status, r.Body)
		}
		m := r.Map(t)
		for _, it := range m["changes"].([]any) {
			c := it.(map[string]any)
			out = append(out, fmt.Sprintf("%s:%v:%s", c["kind"], c["id"], c["action"]))
			if _, has := c["rest_url"]; has == (c["action"] == "removed") {
				t.Errorf("rest_url on %v", c)
			}
		}
		next := m["cursor"].(string)
		if r.Header.Get(ChangesCursorHeader) != next {
			t.Errorf("header %q, cursor %q", r.Header.Get(ChangesCursorHeader), next)
		}
		if next == cursor {
			return out, next
		}
		cursor = next
	}
	t.Fatal("the feed never stopped")
	return nil, ""
}

// TestChangeFeedPerReader: from the cursor of a list answer, an anonymous
// reader sees a draft's publication as created, its move to the trash as
// removed, and nothing of a draft; an editor sees every step; a translation
// is an update of its event; a venue trashed is removed for both. A cursor
// older than what is kept answers 410, a forged one 400.
func TestChangeFeedPerReader(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		r := e.do(t, "GET", nsURL+"/events", nil, "")
		start := r.Header.Get(ChangesCursorHeader)
		if start == "" {
			t.Fatalf("no cursor on a list answer: %v", r.Header)
		}
		ev := e.createEvent(t, map[string]any{"title": "下書きの祭り", "status": "draft", "start_date": "2031-05-01 10:00:00", "end_date": "2031-05-01 12:00:00"})
		id := eventIDOf(ev)
		expect(t, "publish", e.do(t, "POST", fmt.Sprintf("%s/events/%d", nsURL, id), map[string]any{"status": "publish"}, models.RoleEditor), 200, "")
		expect(t, "translate", e.do(t, "POST", fmt.Sprintf("%s/events/%d?ml_language=ko", nsURL, id), map[string]any{"title": "초안 축제"}, models.RoleEditor), 200, "")
		expect(t, "trash", e.do(t, "DELETE", fmt.Sprintf("%s/events/%d", nsURL, id), nil, models.RoleEditor), 200, "")
		v := idOf(t, e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "Salle Pleyel"}, models.RoleEditor))
		expect(t, "trash venue", e.do(t, "DELETE", fmt.Sprintf("%s/venues/%d", nsURL, v), nil, models.RoleEditor), 200, "")
		other := eventIDOf(e.createEvent(t, map[string]any{"title": "Brouillon", "status": "draft", "start_date": "2031-05-02 10:00:00", "end_date": "2031-05-02 12:00:00"}))

		anon, _ := e.feedOf(t, start, "")
		ev1, ev2 := fmt.Sprintf("event:%d:", id), fmt.Sprintf("venue:%d:", v)
		wantAnon := []string{ev1 + "created", ev1 + "updated", ev1 + "removed", ev2 + "created", ev2 + "removed"}
		if got := withoutTerms(anon); !reflect.DeepEqual(got, wantAnon) {
			t.Errorf("anonymous feed\n got %v\nwant %v", got, wantAnon)
		}
		ed, last := e.feedOf(t, start, models.RoleEditor)
		got := withoutTerms(ed)
		if len(got) < 6 || got[0] != ev1+"created" || got[len(got)-1] != fmt.Sprintf("event:%d:created", other) {
			t.Errorf("editor feed %v", got)
		}
		if want := []string{ev1 + "created", ev1 + "updated", ev1 + "removed", ev2 + "created", ev2 + "removed", fmt.Sprintf("event:%d:created", other)}; !reflect.DeepEqual(got, want) {
			// The trash is out of an editor's lists too.
			t.Errorf("editor feed\n got %v\nwant %v", got, want)
		}
		// Nothing new: the same cursor back, no change.
		if more, again := e.feedOf(t, last, models.RoleEditor); len(more) != 0 || again != last {
			t.Errorf("after the end: %v %q", more, again)
		}
		// Forget everything: the old cursor is gone.
		if _, err := e.DB.PruneChanges(context.Background(), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		expect(t, "expired cursor", e.do(t, "GET", nsURL+"/changes?cursor="+url.QueryEscape(start), nil, ""), 410, "rest_changes_cursor_expired")
		expect(t, "forged cursor", e.do(t, "GET", nsURL+"/changes?cursor=abc", nil, ""), 400, "rest_invalid_param")
		expect(t, "per_page too big", e.do(t, "GET", nsURL+"/changes?per_page=501", nil, ""), 400, "")
		if more, _ := e.feedOf(t, "", ""); len(more) != 0 {
			t.Errorf("from the oldest kept after a prune: %v", more)
		}
	})
}

// withoutTerms drops term changes (term counts move with publications)
// and repeats (one write may change a record and its translation).
func withoutTerms(items []string) []string {
	var out []string
	for _, s := range items {
		if strings.HasPrefix(s, "tag:") || strings.HasPrefix(s, "category:") || (len(out) > 0 && out[len(out)-1] == s) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// TestListCursorIsNoFresherThanItsParts: an instance that checks the
// cache generation rarely serves a list from parts made before another
// instance's write; the cursor it gives with that list is the one read
// with their generation, so following the feed from it still brings the
// write. (A cursor read at the time of the answer would skip it.)
func TestListCursorIsNoFresherThanItsParts(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		slow := *e
		d := *e.Deps
		d.Parts = NewPartCache(cachegen.New(e.DB, time.Hour), 8<<20)
		slow.Deps, slow.App = &d, newTestApp(&d, Routes())
		id := eventIDOf(e.createEvent(t, map[string]any{"title": "初版", "start_date": "2031-07-01 10:00:00", "end_date": "2031-07-01 12:00:00"}))
		list := func() (string, string) {
			r := slow.do(t, "GET", nsURL+"/events?start_date=2031-01-01&end_date=2031-12-31", nil, "")
			if r.Status != 200 {
				t.Fatalf("list: %d %s", r.Status, r.Body)
			}
			return string(r.Body), r.Header.Get(ChangesCursorHeader)
		}
		list() // the parts of this generation
		expect(t, "update", e.do(t, "PATCH", fmt.Sprintf("%s/events/%d", nsURL, id), map[string]any{"title": "第二版"}, models.RoleEditor), 200, "")
		body, cursor := list()
		if !strings.Contains(body, "初版") {
			t.Fatalf("the slow instance did not answer from its parts: %.300s", body)
		}
		feed, _ := e.feedOf(t, cursor, "")
		if want := fmt.Sprintf("event:%d:updated", id); !slices.Contains(feed, want) {
			t.Errorf("the feed from the list's cursor %v lacks %s: the update is lost to this client", feed, want)
		}
	})
}
