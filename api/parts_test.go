package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
)

// partsPair is one host's two instances on the test database: one renders
// every answer afresh, the other assembles lists from its parts cache. The
// writes go through the test env's own app (a third instance), so the
// parts instance learns of them only through the cache generation, as an
// instance behind the same database would.
type partsPair struct {
	host    string
	off, on *fiber.App
	parts   *PartCache
}

// partsBench is the fixture of the parts tests: the pairs of two hosts and
// the ids the paths name.
type partsBench struct {
	e        *testEnv
	pairs    []partsPair
	window   string
	events   []int64
	venue    int64
	org      int64
	category int64
	tag      int64
	seen     map[string][2]string // the last body and ETag of each read on the parts instance
}

func newPartsBench(t *testing.T, e *testEnv) *partsBench {
	t.Helper()
	b := &partsBench{e: e, seen: map[string][2]string{}}
	for _, host := range []string{"http://example.test", "https://カレンダー.example:8443/sub"} {
		site := *e.Deps.Site
		site.BaseURL = host
		off := *e.Deps
		off.Site = &site
		off.Parts = nil
		on := off
		// The generation is read at every request: a write through
		// another instance shows at once, and a part kept across a write
		// shows only if the write moved no generation.
		on.Parts = NewPartCache(cachegen.New(e.DB, time.Nanosecond), 8<<20)
		b.pairs = append(b.pairs, partsPair{host: host, off: newTestApp(&off, Routes()), on: newTestApp(&on, Routes()), parts: on.Parts})
	}
	return b
}

// ok sends a write through the test env's app and wants a 2xx.
func (b *partsBench) ok(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	res := b.e.do(t, method, "/"+Namespace+path, body, models.RoleAdministrator)
	if res.Status/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
	}
	m, _ := res.JSON(t).(map[string]any)
	return m
}

// readers are who reads: anonymous, a contributor (who sees their own
// drafts, venues included) and an editor (who sees every status), each in
// a language of their own (by path prefix or by ml_language).
var partsReaders = []struct {
	as     models.Role
	prefix string // language path prefix
	query  string // ml_language argument
}{
	{"", "", ""},
	{"", "/ja", ""},
	{"", "", "ja"},
	{"", "", "zh-hans"},
	{models.RoleContributor, "/ko", ""},
	{models.RoleEditor, "", ""},
	{models.RoleEditor, "", "ja"},
}

// paths are the reads compared: every list route, paged and filtered, and
// the single reads of the fixture's records.
func (b *partsBench) paths() []string {
	p := []string{
		"/events?per_page=50&" + b.window,
		"/events",
		"/events?per_page=2&page=2&" + b.window,
		"/events?status=draft,publish,private&per_page=50&" + b.window,
		fmt.Sprintf("/events?categories=%d&venue=%d&%s", b.category, b.venue, b.window),
		"/venues", "/organizers", "/categories", "/tags",
		fmt.Sprintf("/venues/%d", b.venue), fmt.Sprintf("/organizers/%d", b.org),
		fmt.Sprintf("/categories/%d", b.category), fmt.Sprintf("/tags/%d", b.tag),
	}
	for _, id := range b.events {
		p = append(p, fmt.Sprintf("/events/%d", id))
	}
	return p
}

// get reads path from app as role: status, body and ETag.
func (b *partsBench) get(t *testing.T, app *fiber.App, target string, as models.Role) (int, string, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	if as != "" {
		req.SetBasicAuth(string(as), b.e.passwords[as])
	}
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return res.StatusCode, string(body), res.Header.Get(fiber.HeaderETag)
}

// differences compares every path for every reader on both instances of
// each host, and returns what differs (empty when all agree).
func (b *partsBench) differences(t *testing.T) []string {
	t.Helper()
	var diffs []string
	for hi, pair := range b.pairs {
		for _, rd := range partsReaders {
			if hi > 0 && (rd.as != "" || rd.query != "") { // the second host: anonymous readers by path prefix
				continue
			}
			paths := b.paths()
			if hi > 0 { // the second host: its links, on a list and a single read
				paths = []string{paths[0], paths[len(paths)-1]}
			}
			for _, path := range paths {
				target := rd.prefix + "/" + Namespace + path
				if rd.query != "" {
					target += map[bool]string{true: "&", false: "?"}[strings.Contains(target, "?")] + "ml_language=" + rd.query
				}
				so, off, _ := b.get(t, pair.off, target, rd.as)
				sn, on, tag := b.get(t, pair.on, target, rd.as)
				if so != sn || off != on {
					diffs = append(diffs, fmt.Sprintf("%s %s as %q: %d/%d\n  fresh: %.400s\n  parts: %.400s", pair.host, target, rd.as, so, sn, off, on))
				}
				// The ETag of an answer made of parts changes with its
				// body, and only then.
				key := pair.host + " " + target + " " + string(rd.as)
				if last, ok := b.seen[key]; ok && sn == http.StatusOK && (last[0] == on) != (last[1] == tag) {
					diffs = append(diffs, fmt.Sprintf("%s: same body %v, same ETag %v (%s)", key, last[0] == on, last[1] == tag, tag))
				}
				if sn == http.StatusOK {
					b.seen[key] = [2]string{on, tag}
				}
			}
		}
	}
	return diffs
}

// same fails the test when the two instances disagree anywhere.
func (b *partsBench) same(t *testing.T, after string) {
	t.Helper()
	diffs := b.differences(t)
	for i, d := range diffs {
		if i == 5 {
			t.Errorf("after %s: and %d more", after, len(diffs)-5)
			break
		}
		t.Errorf("after %s: %s", after, d)
	}
}

// fixture writes a small calendar: events near today (so the default list
// shows them) with a venue, an organizer, a subcategory and a tag, in
// several languages, one of them recurring.
func (b *partsBench) fixture(t *testing.T) {
	t.Helper()
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(time.DateOnly) }
	b.window = "start_date=" + day(-1) + "&end_date=" + day(90)
	parent := b.ok(t, "POST", "/categories", map[string]any{"name": "Fêtes"})
	b.category = eventIDOf(b.ok(t, "POST", "/categories", map[string]any{"name": "Musique été", "parent": eventIDOf(parent)}))
	b.tag = eventIDOf(b.ok(t, "POST", "/tags", map[string]any{"name": "屋外"}))
	b.venue = eventIDOf(b.ok(t, "POST", "/venues", map[string]any{"venue": "Salle Église", "city": "Genève", "geo_lat": 46.2, "geo_lng": 6.14}))
	b.org = eventIDOf(b.ok(t, "POST", "/organizers", map[string]any{"organizer": "Chœur Zoë", "email": "zoe@example.test"}))
	b.ok(t, "PATCH", fmt.Sprintf("/venues/%d?ml_language=ja", b.venue), map[string]any{"venue": "教会ホール", "city": "ジュネーブ"})
	b.ok(t, "PATCH", fmt.Sprintf("/categories/%d?ml_language=ja", b.category), map[string]any{"name": "夏の音楽"})
	for i, title := range []string{"Concert d'été", "夏祭り", "Récital à l'église"} {
		ev := b.ok(t, "POST", "/events", map[string]any{"title": title, "description": "Première partie\n\nSeconde partie",
			"start_date": day(2+i) + " 19:00:00", "end_date": day(2+i) + " 21:00:00", "venue": b.venue, "organizer": []any{b.org},
			"categories": []any{b.category}, "tags": []any{b.tag}, "cost": "10"})
		b.events = append(b.events, eventIDOf(ev))
	}
	b.ok(t, "PATCH", fmt.Sprintf("/events/%d?ml_language=ja", b.events[0]), map[string]any{"title": "夏のコンサート"})
	b.ok(t, "PATCH", fmt.Sprintf("/events/%d?ml_language=zh-hans", b.events[0]), map[string]any{"title": "夏季音乐会"})
	series := b.ok(t, "POST", "/events", map[string]any{"title": "Atelier hebdomadaire", "start_date": day(1) + " 10:00:00",
		"end_date": day(1) + " 11:00:00", "recurrence": "FREQ=WEEKLY;COUNT=3", "venue": b.venue})
	b.events = append(b.events, eventIDOf(series))
	// A contributor's draft venue on a published event: the contributor
	// sees it embedded, others do not.
	own := b.e.do(t, "POST", "/"+Namespace+"/venues", map[string]any{"venue": "Mon atelier", "status": "draft"}, models.RoleContributor)
	if own.Status/100 != 2 {
		t.Fatalf("contributor's venue: %d %s", own.Status, own.Body)
	}
	b.ok(t, "PATCH", fmt.Sprintf("/events/%d", b.events[2]), map[string]any{"venue": []any{b.venue, idOf(t, own)}})
}

// TestPartsCacheBodies: every list and single read is the same, byte for
// byte, whether lists are assembled from the parts cache or made afresh,
// for anonymous and signed-in readers in several languages on two hosts,
// after every kind of write. Both dialects.
func TestPartsCacheBodies(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		b := newPartsBench(t, e)
		b.fixture(t)
		b.same(t, "the fixture")
		if b.pairs[0].parts.Len() == 0 {
			t.Fatal("the parts cache kept nothing: the test compares nothing")
		}
		ctx := context.Background()
		admin := e.Users[models.RoleAdministrator]
		ev := func(i int) string { return fmt.Sprintf("/events/%d", b.events[i]) }
		var media int64
		writes := []struct {
			name  string
			write func(t *testing.T)
		}{
			{"an event's update", func(t *testing.T) {
				b.ok(t, "PATCH", ev(1), map[string]any{"title": "Fête de la musique", "cost": "5"})
			}},
			{"an event's translation", func(t *testing.T) {
				b.ok(t, "PATCH", ev(1)+"?ml_language=ja", map[string]any{"title": "音楽の祭日", "description": "第一部"})
			}},
			{"a new event", func(t *testing.T) {
				b.events = append(b.events, eventIDOf(b.ok(t, "POST", "/events", map[string]any{"title": "Nouveauté", "start_date": time.Now().UTC().AddDate(0, 0, 4).Format(time.DateOnly) + " 08:00:00",
					"end_date": time.Now().UTC().AddDate(0, 0, 4).Format(time.DateOnly) + " 09:00:00", "organizer": []any{b.org}})))
			}},
			{"a venue's update", func(t *testing.T) {
				b.ok(t, "PATCH", fmt.Sprintf("/venues/%d", b.venue), map[string]any{"venue": "Salle Église (rénovée)", "phone": "022 000"})
			}},
			{"a venue's translation", func(t *testing.T) {
				b.ok(t, "PATCH", fmt.Sprintf("/venues/%d?ml_language=ja", b.venue), map[string]any{"venue": "新しい教会ホール"})
			}},
			{"an organizer's update", func(t *testing.T) {
				b.ok(t, "PATCH", fmt.Sprintf("/organizers/%d", b.org), map[string]any{"organizer": "Chœur Zoë & amis"})
			}},
			{"an organizer's translation", func(t *testing.T) {
				b.ok(t, "PATCH", fmt.Sprintf("/organizers/%d?ml_language=zh-hans", b.org), map[string]any{"organizer": "佐伊合唱团"})
			}},
			{"a category's rename", func(t *testing.T) {
				b.ok(t, "PATCH", fmt.Sprintf("/categories/%d", b.category), map[string]any{"name": "Musique d'été"})
			}},
			{"a category's translation", func(t *testing.T) {
				b.ok(t, "PATCH", fmt.Sprintf("/categories/%d?ml_language=ja", b.category), map[string]any{"name": "夏のおんがく"})
			}},
			{"a category's new parent", func(t *testing.T) {
				b.ok(t, "PATCH", fmt.Sprintf("/categories/%d", b.category), map[string]any{"parent": 0})
			}},
			{"a tag's rename", func(t *testing.T) { b.ok(t, "PATCH", fmt.Sprintf("/tags/%d", b.tag), map[string]any{"name": "野外"}) }},
			{"a new image on an event", func(t *testing.T) {
				m, err := e.DB.CreateMedia(ctx, admin, models.MediaUpload{FileName: "affiche.png", Title: "Affiche", Data: imagetest.PNG(40, 30)})
				if err != nil {
					t.Fatal(err)
				}
				media = m.ID
				b.ok(t, "PATCH", ev(0), map[string]any{"image": fmt.Sprint(media)})
			}},
			{"an image's texts", func(t *testing.T) {
				alt := "Affiche du concert"
				if _, err := e.DB.UpdateMedia(ctx, admin, media, models.MediaText{AltText: &alt}); err != nil {
					t.Fatal(err)
				}
			}},
			{"an image's deletion", func(t *testing.T) { b.ok(t, "DELETE", fmt.Sprintf("/media/%d?force=true&unlink=true", media), nil) }},
			{"an event's status", func(t *testing.T) { b.ok(t, "PATCH", ev(2), map[string]any{"status": "draft"}) }},
			{"a venue's status", func(t *testing.T) {
				b.ok(t, "PATCH", fmt.Sprintf("/venues/%d", b.venue), map[string]any{"status": "draft"})
			}},
			{"a series edit", func(t *testing.T) {
				b.ok(t, "PATCH", ev(3), map[string]any{"title": "Atelier du mardi", "scope": "all"})
			}},
			{"an event to the trash", func(t *testing.T) { b.ok(t, "DELETE", ev(1), nil) }},
			{"an event deleted", func(t *testing.T) { b.ok(t, "DELETE", ev(1)+"?force=true", nil) }},
			{"an organizer deleted", func(t *testing.T) { b.ok(t, "DELETE", fmt.Sprintf("/organizers/%d?force=true", b.org), nil) }},
			{"a tag deleted", func(t *testing.T) { b.ok(t, "DELETE", fmt.Sprintf("/tags/%d?force=true", b.tag), nil) }},
		}
		for _, w := range writes {
			w.write(t)
			b.same(t, w.name)
		}
	})
}

// TestPartsCacheSeesMissedInvalidation shows that the comparison of
// TestPartsCacheBodies catches a write that moves no generation: with the
// update triggers of events and their translations dropped, a translated
// title is not
// seen by the parts cache, and the bodies differ.
func TestPartsCacheSeesMissedInvalidation(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		b := newPartsBench(t, e)
		b.fixture(t)
		b.same(t, "the fixture")
		for _, trig := range []string{"events_gen_upd", "event_translations_gen_ins", "event_translations_gen_upd"} {
			if _, err := e.DB.Bun.ExecContext(context.Background(), "DROP TRIGGER "+trig); err != nil {
				t.Fatal(err)
			}
		}
		b.ok(t, "PATCH", fmt.Sprintf("/events/%d?ml_language=ja", b.events[1]), map[string]any{"title": "誰も知らない題"})
		if len(b.differences(t)) == 0 {
			t.Error("a write that moved no generation left no trace: the comparison cannot catch a missed invalidation")
		}
	})
}

// queryLog keeps the SQL of the queries run through a bun.DB.
type queryLog struct{ queries []string }

func (l *queryLog) BeforeQuery(ctx context.Context, q *bun.QueryEvent) context.Context {
	l.queries = append(l.queries, q.Query)
	return ctx
}

func (l *queryLog) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestPartsListReadsIDsAndTotalOnly: once its events are parts, a list of
// events runs the page query (ids) and the count, and nothing for rows,
// translations, venues, organizers or terms. (That a page runs as many
// queries whatever per_page, parts or not, is
// TestEventListCostsTheSameQueriesWhateverPerPage, with parts on.)
func TestPartsListReadsIDsAndTotalOnly(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		b := newPartsBench(t, e)
		b.fixture(t)
		log := &queryLog{}
		e.DB.AddQueryHook(log)
		list := func(perPage int) []string {
			log.queries = nil
			res := e.do(t, "GET", fmt.Sprintf("/%s/events?per_page=%d&ml_language=ja&%s", Namespace, perPage, b.window), nil, "")
			mustStatus(t, res, http.StatusOK)
			return log.queries
		}
		list(1)          // one event becomes a part
		some := list(3)  // one part, two not
		again := list(3) // all parts
		for _, q := range again {
			for _, table := range []string{"translations", "venues", "organizers", "terms"} {
				if strings.Contains(q, table) && !strings.Contains(q, "cache_generation") {
					t.Errorf("a page of parts queried %s: %.200s", table, q)
				}
			}
		}
		if len(again) >= len(some) {
			t.Errorf("a page of parts ran %d queries, as many as one without (%d)", len(again), len(some))
		}
		t.Logf("queries: %d for a page without parts, %d for a page of parts", len(some), len(again))
	})
}
