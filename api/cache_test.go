package api

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// withCache rebuilds e's app with a response cache of maxBytes that reads
// the generation at most every check, through the Watch its parts cache
// reads too (as cmd/kalends builds them).
func withCache(e *testEnv, maxBytes int64, check time.Duration) *ResponseCache {
	w := cachegen.New(e.DB, check)
	rc := NewResponseCache(w, e.Deps.Site, maxBytes)
	e.Deps.Cache, e.Deps.Parts = rc, NewPartCache(w, 8<<20)
	e.App = newTestApp(e.Deps, Routes())
	return rc
}

func cacheStatus(r *testResp) string { return r.Header.Get("X-Kalends-Cache") }

// TestCacheServesAnonymousGETsUntilAWrite: a repeated anonymous list is
// answered from memory; a write through the API makes the next answer
// fresh; requests with credentials never touch the cache.
func TestCacheServesAnonymousGETsUntilAWrite(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		withCache(e, 8<<20, time.Hour) // the generation is read only after writes
		e.createEvent(t, map[string]any{"title": "First", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00"})
		url := "/cal/events/v1/events?start_date=2026-12-01&end_date=2027-12-31"
		r1 := e.do(t, "GET", url, nil, "")
		r2 := e.do(t, "GET", url, nil, "")
		if cacheStatus(r1) != "miss" || cacheStatus(r2) != "hit" || string(r1.Body) != string(r2.Body) {
			t.Fatalf("first %q, second %q (same body: %v)", cacheStatus(r1), cacheStatus(r2), string(r1.Body) == string(r2.Body))
		}
		if r2.Header.Get("X-Request-Id") == r1.Header.Get("X-Request-Id") && r1.Header.Get("X-Request-Id") != "" {
			t.Error("a hit repeated the request id of the answer it was made from")
		}
		if r2.Header.Get("X-TEC-Total") != "1" || r2.Header.Get("ETag") == "" || r2.Header.Get("ETag") != r1.Header.Get("ETag") {
			t.Errorf("hit headers: total %q, etag %q vs %q", r2.Header.Get("X-TEC-Total"), r2.Header.Get("ETag"), r1.Header.Get("ETag"))
		}
		// Reordered arguments are the same request.
		if r := e.do(t, "GET", "/cal/events/v1/events?end_date=2027-12-31&start_date=2026-12-01", nil, ""); cacheStatus(r) != "hit" {
			t.Errorf("reordered arguments: %q", cacheStatus(r))
		}
		// Credentials: never from the cache, never stored.
		if r := e.do(t, "GET", url, nil, models.RoleEditor); cacheStatus(r) != "" {
			t.Errorf("an authenticated GET went through the cache: %q", cacheStatus(r))
		}
		e.createEvent(t, map[string]any{"title": "Second", "start_date": "2027-02-01 10:00", "end_date": "2027-02-01 11:00"})
		r3 := e.do(t, "GET", url, nil, "")
		if cacheStatus(r3) != "miss" || r3.Header.Get("X-TEC-Total") != "2" {
			t.Errorf("after a write: %q, total %s", cacheStatus(r3), r3.Header.Get("X-TEC-Total"))
		}
		// Answers that depend on the clock: not cached.
		for _, rel := range []string{"/cal/events/v1/events?start_date=now", "/cal/events/v1/venues?only_with_upcoming=true"} {
			e.do(t, "GET", rel, nil, "")
			if r := e.do(t, "GET", rel, nil, ""); cacheStatus(r) != "" {
				t.Errorf("%s was cached: %q", rel, cacheStatus(r))
			}
		}
	})
}

// TestCacheEntriesEndAtSiteMidnight: the default window moves at midnight
// in the site zone, and so does every entry.
func TestCacheEntriesEndAtSiteMidnight(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		e := newTestEnv(t, db)
		now := time.Date(2027, 3, 10, 23, 59, 0, 0, time.UTC)
		e.Deps.Site.Clock = func() time.Time { return now }
		withCache(e, 8<<20, time.Hour)
		e.do(t, "GET", "/cal/events/v1/events", nil, "")
		if r := e.do(t, "GET", "/cal/events/v1/events", nil, ""); cacheStatus(r) != "hit" {
			t.Fatalf("before midnight: %q", cacheStatus(r))
		}
		now = now.Add(2 * time.Minute)
		if r := e.do(t, "GET", "/cal/events/v1/events", nil, ""); cacheStatus(r) != "miss" {
			t.Errorf("after midnight: %q", cacheStatus(r))
		}
	})
}

// TestCacheStaysWithinItsBytes: filling the cache past its bound evicts
// the least recently used answers.
func TestCacheStaysWithinItsBytes(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		e := newTestEnv(t, db)
		const bound = 64 << 10
		rc := withCache(e, bound, time.Hour)
		for i := 0; i < 30; i++ {
			r := e.do(t, "POST", "/cal/events/v1/categories", map[string]any{"name": fmt.Sprint("Category ", i),
				"description": strings.Repeat("A long description. ", 20)}, models.RoleEditor)
			if r.Status != 201 {
				t.Fatalf("category: %d %s", r.Status, r.Body)
			}
		}
		for i := 0; i < 200; i++ {
			q := fmt.Sprintf("/cal/events/v1/categories?hide_empty=false&per_page=%d&orderby=%s", 1+i%100, []string{"name", "id"}[i/100])
			if r := e.do(t, "GET", q, nil, ""); r.Status != 200 {
				t.Fatalf("list: %d %s", r.Status, r.Body)
			}
			if rc.Bytes() > bound {
				t.Fatalf("cache holds %d bytes, bound %d", rc.Bytes(), bound)
			}
		}
		if rc.Bytes() == 0 {
			t.Error("nothing was cached")
		}
	})
}

// TestCacheSeesWritesOfAnotherInstance: two servers on one database; a
// write through A makes B stop serving its entry within the check
// interval.
func TestCacheSeesWritesOfAnotherInstance(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.MySQL)
	a := newTestEnv(t, db)
	withCache(a, 8<<20, 50*time.Millisecond)
	b := &testEnv{DB: db, Deps: &Deps{DB: db, I18n: a.Deps.I18n, Site: a.Deps.Site, Logger: a.Deps.Logger}, Users: a.Users, passwords: a.passwords}
	withCache(b, 8<<20, 50*time.Millisecond)
	url := "/cal/events/v1/venues"
	b.do(t, "GET", url, nil, "")
	if r := b.do(t, "GET", url, nil, ""); cacheStatus(r) != "hit" {
		t.Fatalf("B did not cache: %q", cacheStatus(r))
	}
	if r := a.do(t, "POST", url, map[string]any{"venue": "New hall"}, models.RoleEditor); r.Status != 201 {
		t.Fatalf("write through A: %d %s", r.Status, r.Body)
	}
	modelstest.WaitFor(t, 5*time.Second, func() error {
		r := b.do(t, "GET", url, nil, "")
		if !strings.Contains(string(r.Body), "New hall") {
			return fmt.Errorf("B still answers without A's venue (%s)", cacheStatus(r))
		}
		return nil
	})
}

// TestETagAnswers304: every GET carries an ETag; If-None-Match with it is
// answered 304 without a body, with or without the cache.
func TestETagAnswers304(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, cached := range []bool{false, true} {
			if cached {
				withCache(e, 8<<20, time.Hour)
			}
			r := e.do(t, "GET", "/cal/events/v1/categories", nil, "")
			tag := r.Header.Get("ETag")
			if r.Status != 200 || !strings.HasPrefix(tag, `"`) {
				t.Fatalf("cached=%v: %d, ETag %q", cached, r.Status, tag)
			}
			req := httptest.NewRequest("GET", "/cal/events/v1/categories", nil)
			req.Header.Set("If-None-Match", `"other", `+tag)
			if r := e.send(t, req); r.Status != 304 || len(r.Body) != 0 || r.Header.Get("ETag") != tag {
				t.Errorf("cached=%v: If-None-Match: %d, %d bytes, ETag %q", cached, r.Status, len(r.Body), r.Header.Get("ETag"))
			}
			req = httptest.NewRequest("GET", "/cal/events/v1/categories", nil)
			req.Header.Set("If-None-Match", `"other"`)
			if r := e.send(t, req); r.Status != 200 {
				t.Errorf("cached=%v: another tag: %d", cached, r.Status)
			}
		}
	})
}

// TestIfMatchRefusesChangesToAChangedRecord: a change sent with the ETag
// of the record as read goes through; sent with an older one it is refused
// with 412 and changes nothing.
func TestIfMatchRefusesChangesToAChangedRecord(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		ev := e.createEvent(t, map[string]any{"title": "Versioned", "start_date": "2027-01-01 10:00", "end_date": "2027-01-01 11:00"})
		url := fmt.Sprint("/cal/events/v1/events/", ev["id"])
		read := e.do(t, "GET", url, nil, models.RoleEditor)
		tag := read.Header.Get("ETag")
		patch := func(tag, title string) *testResp {
			req := httptest.NewRequest("PATCH", url, strings.NewReader(fmt.Sprintf(`{"title":%q}`, title)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("If-Match", tag)
			req.SetBasicAuth(string(models.RoleEditor), e.passwords[models.RoleEditor])
			return e.send(t, req)
		}
		if r := patch(tag, "First edit"); r.Status != 200 {
			t.Fatalf("If-Match with the current tag: %d %s", r.Status, r.Body)
		}
		r := patch(tag, "Second edit") // the tag of the version before the first edit
		if r.Status != 412 || r.Code(t) != "rest_precondition_failed" {
			t.Fatalf("If-Match with a stale tag: %d %s", r.Status, r.Body)
		}
		if got := e.do(t, "GET", url, nil, models.RoleEditor).Map(t)["title"]; got != "First edit" {
			t.Errorf("the refused change was applied: title %v", got)
		}
		if r := patch("*", "Any version"); r.Status != 200 {
			t.Errorf("If-Match *: %d %s", r.Status, r.Body)
		}
		if r := patch(`W/`+tag, "Weak"); r.Status != 412 {
			t.Errorf("a weak tag matched: %d", r.Status)
		}
		req := httptest.NewRequest("DELETE", "/cal/events/v1/events/987654", nil)
		req.Header.Set("If-Match", tag)
		req.SetBasicAuth(string(models.RoleEditor), e.passwords[models.RoleEditor])
		if r := e.send(t, req); r.Status != 404 {
			t.Errorf("If-Match on a record that does not exist: %d, want the 404 of the delete", r.Status)
		}
	})
}
