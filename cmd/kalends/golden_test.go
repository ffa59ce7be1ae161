package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/csvimport"
	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The golden test (issue 30, item 4): every admin page, the answer of
// every admin form to invalid input, the 403 and 404 pages, and every
// public page, feed, sitemap and robots.txt, fetched through the
// assembled app on a seeded database (SQLite and MySQL: both give the
// same bytes) with a fixed clock and the response cache off, and compared
// byte for byte with the files under testdata/golden. It is the proof that moving code changes no page: a
// change that rewrites the files says why in its commit message.
//
//	go test ./cmd/kalends -run Golden -update   rewrites the files
//
// Only secrets made afresh for each session or page are masked, by value,
// wherever they occur: the CSRF tokens (found in the _csrf fields and the
// kalends-csrf meta tag, so also masked in the htmx headers), the API
// nonce (kalends-nonce), the calendar's style nonce (csp-nonce, and in the
// Content-Security-Policy) and the request id (X-Request-Id). Everything else
// is made deterministic rather than masked: the site clock is fixed (and
// moved a minute per record while seeding), and the process-wide source
// of cryptographic randomness is reset to a seed of its own before each
// request (testing/cryptotest), so session ids (the profile lists them),
// and all else drawn from crypto/rand, are the same on every run whatever
// came before. That reset is process-wide, so this test cannot run in
// parallel with the package's other tests: it runs alone, before them.
//
// Languages: each page kind is fetched in one language, rotated across the
// kinds (and across the roles of one admin kind) so that the four languages
// all appear; the four differ only in their text, which the locale tests
// check.

var update = flag.Bool("update", false, "rewrite the golden files of TestGolden (testdata/golden)")

// goldenDir holds one file per fetch.
const goldenDir = "testdata/golden"

// goldenNow is the site clock while the pages are fetched: a Wednesday.
var goldenNow = time.Date(2031, 5, 14, 0, 30, 0, 0, time.UTC)

// goldenZone is the site's time zone: not UTC, so that a date shown in
// the wrong zone shows.
var goldenZone = mustZone("Asia/Seoul")

func mustZone(name string) *time.Location {
	z, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return z
}

// goldenLangs rotates over the kinds: the site's default language (no
// prefix on public pages) first.
var goldenLangs = []string{"en", "zh-hans", "ja", "ko"}

// goldenRoles are the signed-in callers, by login.
var goldenRoles = []string{"admin", "editor", "contributor"}

// goldenPassword is every seeded user's password.
const goldenPassword = "correct horse battery staple"

// goldenUA is every client's User-Agent (the profile shows the browser).
const goldenUA = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"

// goldenClock is the site clock the seed moves.
type goldenClock struct{ now time.Time }

func (c *goldenClock) Now() time.Time { return c.now }

// goldenIDs are the seeded records the fetches name.
type goldenIDs struct {
	event, allDay, korean, accented, occurrence, draft, trashed int64
	slugs                                                       map[string]string // name: slug
	venue, organizer, draftVenue                                int64
	category, tag                                               int64
	media                                                       int64
	mediaFile                                                   string
	editor                                                      int64
	eventRev, venueRev, organizerRev                            int64
	oldSlug                                                     string
	csvNew, csvDone                                             int64 // the editor's CSV imports: not started, finished
}

// seedGolden fills db through the store, one record a minute up to
// goldenNow: users of every role, venues and organizers, categories (one
// under another) and tags, events in Chinese, Japanese, Korean and
// accented Latin (one typed decomposed) with translations, an all-day
// event, a past one, a weekly series, a contributor's draft and pending
// event, a trashed one, an image, revisions and a renamed event.
func seedGolden(t *testing.T, db *models.DB, clock *goldenClock) goldenIDs {
	t.Helper()
	ctx := context.Background()
	clock.now = goldenNow.Add(-24 * time.Hour)
	tick := func() { clock.now = clock.now.Add(time.Minute) }
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("seed %s: %v", what, err)
		}
	}
	s := func(v string) *string { return &v }
	ids := goldenIDs{slugs: map[string]string{}}
	users := map[string]*models.User{}
	for _, u := range []models.NewUser{
		{Login: "admin", Email: "admin@example.test", DisplayName: "김관리", Role: models.RoleAdministrator},
		{Login: "editor", Email: "editor@example.test", DisplayName: "編集 さくら", Role: models.RoleEditor},
		{Login: "author", Email: "author@example.test", DisplayName: "Zoë Auteur", Role: models.RoleAuthor, Locale: "ja"},
		{Login: "contributor", Email: "contributor@example.test", DisplayName: "李小龙", Role: models.RoleContributor},
		{Login: "subscriber", Email: "subscriber@example.test", DisplayName: "José Suscriptor", Role: models.RoleSubscriber, Locale: "ko"},
	} {
		tick()
		u.Password = goldenPassword
		created, err := db.CreateUser(ctx, models.Console, u)
		must("user "+u.Login, err)
		users[u.Login] = created
	}
	admin, contributor := users["admin"], users["contributor"]
	ids.editor = users["editor"].ID
	tick()
	_, _, err := db.CreateAppPassword(ctx, admin.ID, "日历同步")
	must("app password", err)

	// An image, titled in Japanese, used by an event.
	tick()
	m, err := db.CreateMedia(ctx, admin, models.MediaUpload{FileName: "sakura.png", Title: "桜の写真", AltText: "満開の桜", Data: imagetest.PNG(64, 48)})
	must("media", err)
	tick()
	_, err = db.UpdateMedia(ctx, admin, m.ID, models.MediaText{Title: s("벚꽃 사진"), AltText: s("활짝 핀 벚꽃"), Lang: "ko"})
	must("media translation", err)
	ids.media, ids.mediaFile = m.ID, strings.TrimPrefix(m.Path("full"), fmt.Sprintf("/media/%d/", m.ID))

	// Venues and organizers, each with a Japanese translation.
	var venueIDs, organizerIDs []int64
	for i, v := range []models.VenueInput{
		{Venue: s("北京音乐厅"), Address: s("西长安街1号"), City: s("北京"), Country: s("中国"), Phone: s("+86 10 6605 5812"), Website: s("https://concert.example.test/")},
		{Venue: s("東京ホール"), Address: s("丸の内1-1"), City: s("東京"), Country: s("日本"), Zip: s("100-0005")},
		{Venue: s("서울 아트센터"), City: s("서울"), Country: s("대한민국"), Description: s("<p>한강 옆의 <strong>공연장</strong></p>")},
		{Venue: s("Café Crème"), Address: s("Rue de l'Été 3"), City: s("Zürich"), Country: s("Schweiz")},
	} {
		tick()
		created, _, err := db.Venues().Create(ctx, admin, v, "en")
		must("venue", err)
		tick()
		_, err = db.Venues().Update(ctx, admin, models.ByID(created.ID), models.VenueInput{Venue: s(*v.Venue + "（会場）")}, "ja")
		must("venue translation", err)
		venueIDs = append(venueIDs, created.ID)
		if i == 0 {
			ids.venue, ids.slugs["venue"] = created.ID, created.Slug
		}
	}
	for i, o := range []models.OrganizerInput{
		{Organizer: s("音乐协会"), Email: s("music@example.test"), Phone: s("+86 10 1234 5678")},
		{Organizer: s("さくら企画"), Website: s("https://sakura.example.test/")},
		{Organizer: s("한빛 기획"), Description: s("<p>공연 기획사</p>")},
		{Organizer: s("Société Générale des Fêtes")},
	} {
		tick()
		created, _, err := db.Organizers().Create(ctx, admin, o, "en")
		must("organizer", err)
		tick()
		_, err = db.Organizers().Update(ctx, admin, models.ByID(created.ID), models.OrganizerInput{Organizer: s(*o.Organizer + "（主催）")}, "ja")
		must("organizer translation", err)
		organizerIDs = append(organizerIDs, created.ID)
		if i == 0 {
			ids.slugs["organizer"] = created.Slug
		}
	}
	ids.organizer = organizerIDs[0]
	// A contributor's draft venue.
	tick()
	dv, _, err := db.Venues().Create(ctx, contributor, models.VenueInput{Venue: s("未公開の会場")}, "en")
	must("draft venue", err)
	ids.draftVenue = dv.ID

	// Categories (one under another) and tags, translated.
	term := func(key, tax, name string, parent int64, translations map[string]string) int64 {
		t.Helper()
		tick()
		in := models.TermInput{Name: s(name), Description: s("<p>" + name + "</p>")}
		if parent != 0 {
			in.ParentID = &parent
		}
		created, err := db.CreateTerm(ctx, admin, tax, in, "en")
		must("term "+name, err)
		for _, lang := range slices.Sorted(maps.Keys(translations)) {
			tick()
			_, err := db.UpdateTerm(ctx, admin, tax, created.ID, models.TermInput{Name: s(translations[lang])}, lang)
			must("term translation "+name, err)
		}
		if key != "" {
			ids.slugs[key] = created.Slug
		}
		return created.ID
	}
	music := term("category", models.TaxCategory, "音乐", 0, map[string]string{"ja": "音楽", "ko": "음악"})
	jazz := term("subcategory", models.TaxCategory, "Jazz & Blues", music, map[string]string{"zh-hans": "爵士乐"})
	theatre := term("", models.TaxCategory, "Théâtre", 0, map[string]string{"ja": "演劇"})
	outdoor := term("tag", models.TaxTag, "户外", 0, map[string]string{"ja": "屋外"})
	free := term("", models.TaxTag, "無料", 0, nil)
	family := term("", models.TaxTag, "가족", 0, map[string]string{"en": "Family"})
	ids.category, ids.tag = music, outdoor

	// Events.
	day := func(d int, hm string) string {
		return goldenNow.In(goldenZone).AddDate(0, 0, d).Format("2006-01-02") + " " + hm
	}
	event := func(name string, as *models.User, in models.EventInput, translations map[string]string) *models.Event {
		t.Helper()
		tick()
		in.Lang = "en"
		if in.Status == nil {
			in.Status = s(models.StatusPublish)
		}
		e, err := db.CreateEvent(ctx, as, in)
		must("event "+name, err)
		for _, lang := range slices.Sorted(maps.Keys(translations)) {
			tick()
			_, err := db.UpdateEvent(ctx, as, models.ByID(e.ID), models.EventInput{Title: s(translations[lang]), Lang: lang})
			must("event translation "+name, err)
		}
		ids.slugs[name] = e.Slug
		return e
	}
	terms := func(termIDs ...int64) *[]models.TermRef {
		var refs []models.TermRef
		for _, id := range termIDs {
			refs = append(refs, models.TermRef{ID: id})
		}
		return &refs
	}
	e := event("spring", admin, models.EventInput{Title: s("春季音乐节"), Description: s("<p>春天的<strong>音乐</strong> &amp; more</p>"),
		Excerpt: s("三天的音乐"), StartDate: s(day(3, "19:00")), EndDate: s(day(3, "21:30")), Cost: s("¥1,000"), Website: s("https://festival.example.test/"),
		ImageURL: s(fmt.Sprintf("%d", m.ID)), Categories: terms(music, jazz), Tags: terms(outdoor, free),
		Venues: &[]models.VenueRef{{ID: venueIDs[0]}}, Organizers: &[]models.OrganizerRef{{ID: organizerIDs[0]}, {ID: organizerIDs[1]}}},
		map[string]string{"ja": "春の音楽祭", "ko": "봄 음악 축제"})
	ids.event = e.ID
	// A second save: the event has a revision to show.
	tick()
	_, err = db.UpdateEvent(ctx, admin, models.ByID(e.ID), models.EventInput{Excerpt: s("三天的音乐，免费入场"), Lang: "en"})
	must("event update", err)
	ids.allDay = event("matsuri", admin, models.EventInput{Title: s("夏祭り"), AllDay: ptrOf(true), StartDate: s(day(10, "00:00")), EndDate: s(day(11, "23:59")),
		Categories: terms(theatre), Tags: terms(family), Venues: &[]models.VenueRef{{ID: venueIDs[1]}}}, map[string]string{"zh-hans": "夏日祭"}).ID
	ids.korean = event("concert", admin, models.EventInput{Title: s("한여름 밤의 콘서트"), StartDate: s(day(20, "20:00")), EndDate: s(day(20, "22:00")),
		Categories: terms(jazz), Venues: &[]models.VenueRef{{ID: venueIDs[2]}}, Organizers: &[]models.OrganizerRef{{ID: organizerIDs[2]}}}, nil).ID
	// Typed decomposed (e + U+0302), as some keyboards and pastes give it.
	ids.accented = event("fete", admin, models.EventInput{Title: s("Fe\u0302te de la Musique"), StartDate: s(day(38, "18:00")), EndDate: s(day(38, "23:00")),
		Timezone: s("Europe/Paris"), Categories: terms(music, theatre), Tags: terms(outdoor), Venues: &[]models.VenueRef{{ID: venueIDs[3]}},
		Organizers: &[]models.OrganizerRef{{ID: organizerIDs[3]}}}, map[string]string{"ja": "音楽の祭典"}).ID
	event("past", admin, models.EventInput{Title: s("Jazz Night"), StartDate: s(day(-10, "21:00")), EndDate: s(day(-10, "23:00")),
		Categories: terms(jazz)}, nil)
	series := event("market", admin, models.EventInput{Title: s("毎週の朝市"), StartDate: s(day(-6, "08:00")), EndDate: s(day(-6, "11:00")),
		Recurrence: s("FREQ=WEEKLY;COUNT=4"), Venues: &[]models.VenueRef{{ID: venueIDs[1]}}, Tags: terms(free)}, map[string]string{"ko": "매주 아침 시장"})
	ids.occurrence = series.ID
	ids.draft = event("draft", contributor, models.EventInput{Title: s("非公開の下書き"), StartDate: s(day(5, "10:00")), EndDate: s(day(5, "11:00")),
		PostInput: models.PostInput{Status: s(models.StatusDraft)}, Venues: &[]models.VenueRef{{ID: venueIDs[0]}}}, nil).ID
	event("pending", contributor, models.EventInput{Title: s("审核中的活动"), StartDate: s(day(7, "14:00")), EndDate: s(day(7, "15:00")),
		PostInput: models.PostInput{Status: s(models.StatusPending)}}, nil)
	ids.trashed = event("trashed", admin, models.EventInput{Title: s("취소된 행사"), StartDate: s(day(12, "10:00")), EndDate: s(day(12, "12:00"))}, nil).ID
	tick()
	_, err = db.TrashEvent(ctx, admin, models.ByID(ids.trashed), "en")
	must("trash", err)

	// A second save of an organizer.
	tick()
	_, err = db.Organizers().Update(ctx, admin, models.ByID(organizerIDs[0]), models.OrganizerInput{Phone: s("+86 10 8765 4321")}, "en")
	must("organizer update", err)
	// A renamed event: its old slug answers with a redirect.
	ids.oldSlug = ids.slugs["concert"]
	tick()
	renamed, err := db.UpdateEvent(ctx, admin, models.ByID(ids.korean), models.EventInput{Slug: s("한여름-콘서트-2031"), Lang: "en"})
	must("event rename", err)
	ids.slugs["concert"] = renamed.Slug
	// The latest revision of the event, the first venue and the first
	// organizer.
	for _, r := range []struct {
		kind models.Kind
		id   int64
		dst  *int64
	}{{models.KindEvent, ids.event, &ids.eventRev}, {models.KindVenue, ids.venue, &ids.venueRev}, {models.KindOrganizer, ids.organizer, &ids.organizerRev}} {
		_, revs, err := db.Revisions(ctx, admin, r.kind, models.ByID(r.id))
		must("revisions", err)
		if len(revs) == 0 {
			t.Fatalf("seed: no revision of %s %d", r.kind, r.id)
		}
		*r.dst = revs[0].ID
	}
	// The editor's spreadsheets: one uploaded and not set up, one imported
	// whose rows all failed (so that it adds no event to the other pages).
	tick()
	csvNew, err := db.CreateCSVImport(ctx, users["editor"], "祭り.csv", "events", "mdy",
		[]byte("Event Name,Event Start Date,Event Start Time,会場\r\n夏祭り,08/01/2031,午後6時,渋谷公会堂\r\nFête,2031-06-21,19:00,\r\n"))
	must("csv import", err)
	ids.csvNew = csvNew.ID
	tick()
	done, err := db.CreateCSVImport(ctx, users["editor"], "bad.csv", "events", "mdy",
		[]byte("Event Name,Event Start Date,Event Start Time\r\n능의 밤,02/30/2031,19:00\r\n,2031-06-21,25:00\r\n"))
	must("csv import", err)
	done.Mapping, done.Total = `["title","start_date","start_time"]`, 2
	must("csv queue", db.SetCSVImport(ctx, users["editor"], done, true))
	must("csv run", csvimport.RunOnce(ctx, db, "golden", time.Minute))
	ids.csvDone = done.ID
	clock.now = goldenNow
	return ids
}

// goldenFetch is one request and the file its answer is kept in.
type goldenFetch struct {
	file         string // under goldenDir
	role         string // a login of goldenRoles, "" anonymous
	lang         string // Accept-Language of admin pages ("" none: public pages carry theirs in the path)
	method, path string
	form         url.Values // a POST's fields; the session's CSRF token is added unless badCSRF
	badCSRF      bool
}

// goldenTable builds the fetches: it keeps the kinds apart and gives each
// its language.
type goldenTable struct {
	fetches []goldenFetch
	kinds   map[string]bool
}

// langOf is the language of kind for the role at index r: the kind's
// name picks it (so adding a kind moves no other file), the role turns it.
func langOf(kind string, r int) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(kind))
	return goldenLangs[(int(h.Sum32()%1024)+r)%len(goldenLangs)]
}

func (g *goldenTable) add(kind string, f goldenFetch, ext string) {
	role := f.role
	if role == "" {
		role = "anon"
	}
	lang := f.lang
	if lang == "" {
		lang = "en"
		for _, l := range goldenLangs[1:] {
			if strings.HasPrefix(f.path, "/"+l+"/") {
				lang = l
			}
		}
	}
	f.file = fmt.Sprintf("%s_%s_%s.%s", kind, role, lang, ext)
	g.fetches = append(g.fetches, f)
}

func (g *goldenTable) kind(kind string) {
	if g.kinds[kind] {
		panic("golden: kind " + kind + " twice")
	}
	g.kinds[kind] = true
}

// admin fetches path as each role, in the kind's language for that role.
func (g *goldenTable) admin(kind, path string) {
	g.kind(kind)
	for r, role := range goldenRoles {
		g.add(kind, goldenFetch{role: role, lang: langOf(kind, r), method: "GET", path: path}, "html")
	}
}

// post posts form to path as each role (with a valid CSRF token).
func (g *goldenTable) post(kind, path string, form url.Values) {
	g.kind(kind)
	for r, role := range goldenRoles {
		g.add(kind, goldenFetch{role: role, lang: langOf(kind, r), method: "POST", path: path, form: form}, "html")
	}
}

// anon fetches an admin path signed out.
func (g *goldenTable) anon(kind, method, path string, form url.Values) {
	g.kind(kind)
	g.add(kind, goldenFetch{lang: langOf(kind, 0), method: method, path: path, form: form}, "html")
}

// public fetches a public path anonymously, under the language prefix of
// the kind's language (none for the default language).
func (g *goldenTable) public(kind, path, ext string) {
	g.kind(kind)
	if lang := langOf(kind, 0); lang != "en" {
		path = "/" + lang + path
	}
	g.add(kind, goldenFetch{method: "GET", path: path}, ext)
}

// plain fetches path anonymously as it is (no language prefix).
func (g *goldenTable) plain(kind, path, ext string) {
	g.kind(kind)
	g.add(kind, goldenFetch{method: "GET", path: path}, ext)
}

// goldenFetches is every fetch but the sitemap's children, which the
// sitemap names.
func goldenFetches(ids goldenIDs) []goldenFetch {
	g := &goldenTable{kinds: map[string]bool{}}
	id := func(n int64) string { return fmt.Sprint(n) }
	slug := func(name string) string { return url.PathEscape(ids.slugs[name]) }
	const missing = "999999"
	long := strings.Repeat("長", models.MaxNameLen+1)

	// Signed out: the admin's doors.
	g.anon("admin-bare", "GET", "/admin", nil)
	g.anon("admin-login", "GET", "/admin/login", nil)
	g.anon("admin-wall", "GET", "/admin/events?status=draft", nil)
	g.anon("admin-nowhere", "GET", "/admin/nowhere", nil)

	// Every admin page, as each role.
	g.admin("login-signed-in", "/admin/login")
	g.admin("dashboard", "/admin/")
	g.admin("events", "/admin/events")
	g.admin("events-drafts", "/admin/events?status=draft")
	g.admin("events-trash", "/admin/events?status=trash")
	g.admin("events-past", "/admin/events?when=past")
	g.admin("events-all-by-title", "/admin/events?when=all&orderby=title&order=desc")
	g.admin("events-search", "/admin/events?search="+url.QueryEscape("音乐"))
	g.admin("events-filtered", fmt.Sprintf("/admin/events?categories=%d&tags=%d&venue=%d", ids.category, ids.tag, ids.venue))
	g.admin("events-series", "/admin/events?series=1")
	g.admin("events-bad-filter", "/admin/events?venue=abc&categories=x")
	g.admin("events-new", "/admin/events/new")
	g.admin("events-venue-options", "/admin/events/venue-options?venue_search="+url.QueryEscape("東京"))
	g.admin("events-organizer-options", "/admin/events/organizer-options?organizer_search="+url.QueryEscape("한빛"))
	g.admin("event-edit", "/admin/events/"+id(ids.event)+"/edit")
	g.admin("event-edit-all-day", "/admin/events/"+id(ids.allDay)+"/edit")
	g.admin("event-edit-accented", "/admin/events/"+id(ids.accented)+"/edit")
	g.admin("event-edit-series", "/admin/events/"+id(ids.occurrence)+"/edit")
	g.admin("event-edit-draft", "/admin/events/"+id(ids.draft)+"/edit")
	g.admin("event-edit-trashed", "/admin/events/"+id(ids.trashed)+"/edit")
	g.admin("event-edit-missing", "/admin/events/"+missing+"/edit")
	g.admin("event-translation", "/admin/events/"+id(ids.event)+"/translations/ja")
	g.admin("event-translation-new", "/admin/events/"+id(ids.event)+"/translations/zh-hans")
	g.admin("event-move", "/admin/events/"+id(ids.event)+"/move")
	g.admin("event-revision", "/admin/events/"+id(ids.event)+"/revisions/"+id(ids.eventRev))
	g.admin("docs", "/admin/docs")
	g.admin("import", "/admin/import")
	g.admin("csv-import-setup", "/admin/import/csv/"+id(ids.csvNew))
	g.admin("csv-import-done", "/admin/import/csv/"+id(ids.csvDone))
	g.admin("csv-import-progress", "/admin/import/csv/"+id(ids.csvDone)+"/progress")
	g.admin("calendar", "/admin/calendar")
	g.admin("calendar-day", "/admin/calendar?view=timeGridDay&date=2031-05-17")
	g.admin("calendar-bad-filter", "/admin/calendar?venue=abc&categories=x")
	// The calendar's feed (JSON): the month view's range of the seeded
	// month, and a range it cannot read.
	for kind, path := range map[string]string{
		"calendar-feed":           "/admin/calendar/events?ends_after=2031-04-27T00%3A00%3A00Z&starts_before=2031-06-08T00%3A00%3A00Z",
		"calendar-feed-bad-range": "/admin/calendar/events?ends_after=yesterday&starts_before=2031-06-08T00%3A00%3A00Z",
	} {
		g.kind(kind)
		for r, role := range goldenRoles {
			g.add(kind, goldenFetch{role: role, lang: langOf(kind, r), method: "GET", path: path}, "json")
		}
	}
	g.admin("media", "/admin/media")
	g.admin("media-edit", "/admin/media/"+id(ids.media))
	g.admin("media-edit-missing", "/admin/media/"+missing)
	for _, k := range []struct {
		kind string
		id   int64
		rev  int64
	}{{"venues", ids.venue, ids.venueRev}, {"organizers", ids.organizer, ids.organizerRev}} {
		base := "/admin/" + k.kind
		g.admin(k.kind, base)
		g.admin(k.kind+"-drafts", base+"?status=draft")
		g.admin(k.kind+"-search", base+"?search="+url.QueryEscape("音乐"))
		g.admin(k.kind+"-new", base+"/new")
		g.admin(k.kind+"-edit", base+"/"+id(k.id)+"/edit")
		g.admin(k.kind+"-translation", base+"/"+id(k.id)+"/translations/ja")
		g.admin(k.kind+"-revision", base+"/"+id(k.id)+"/revisions/"+id(k.rev))
		g.admin(k.kind+"-edit-missing", base+"/"+missing+"/edit")
	}
	g.admin("venue-edit-draft", "/admin/venues/"+id(ids.draftVenue)+"/edit")
	g.admin("users", "/admin/users")
	g.admin("users-editors", "/admin/users?role=editor")
	g.admin("users-new", "/admin/users/new")
	g.admin("user-edit", "/admin/users/"+id(ids.editor)+"/edit")
	g.admin("user-edit-missing", "/admin/users/"+missing+"/edit")
	g.admin("profile", "/admin/profile")
	g.admin("settings", "/admin/settings")
	g.admin("webhooks", "/admin/webhooks")
	g.admin("webhook-missing", "/admin/webhooks/"+missing)
	for _, k := range []struct {
		kind string
		id   int64
	}{{"categories", ids.category}, {"tags", ids.tag}} {
		base := "/admin/" + k.kind
		g.admin(k.kind, base)
		g.admin(k.kind+"-search", base+"?search="+url.QueryEscape("音"))
		g.admin(k.kind+"-new", base+"/new")
		g.admin(k.kind+"-edit", base+"/"+id(k.id)+"/edit")
		g.admin(k.kind+"-translation", base+"/"+id(k.id)+"/translations/ko")
		g.admin(k.kind+"-edit-missing", base+"/"+missing+"/edit")
	}
	g.admin("nowhere", "/admin/nowhere")

	// Every public page, feed and file, signed out.
	g.plain("root", "/", "html")
	g.plain("root-en", "/en/", "html")
	g.public("root-record", fmt.Sprintf("/?post_type=tribe_events&p=%d", ids.event), "html")
	g.public("events-page", "/events/", "html")
	g.public("events-page-month", "/events/?view=month", "html")
	g.public("events-page-month-next", "/events/?view=month&month=2031-06", "html")
	g.public("events-page-search", "/events/?search="+url.QueryEscape("音乐"), "html")
	g.public("events-page-filtered", "/events/?categories="+url.QueryEscape(ids.slugs["category"])+"&tags="+url.QueryEscape(ids.slugs["tag"]), "html")
	g.public("events-page-venue", fmt.Sprintf("/events/?venue=%d", ids.venue), "html")
	g.public("events-page-bad-filter", "/events/?venue=abc", "html")
	g.public("events-page-page-2", "/events/?page=2", "html")
	g.public("events-page-past", "/events/?past=1", "html")
	g.public("events-page-day", "/events/?view=day&date=2031-06-01", "html")
	g.public("events-page-photo", "/events/?view=photo", "html")
	g.public("events-page-featured", "/events/?featured=1&view=month&month=2031-06", "html")
	// TEC's view addresses answer 301 to ours (issue 36).
	g.public("tec-list", "/events/list/", "html")
	g.public("tec-photo", "/events/photo/", "html")
	g.public("tec-month", "/events/month/", "html")
	g.public("tec-month-of", "/events/month/2031-06/", "html")
	g.public("tec-today", "/events/today/", "html")
	g.public("tec-day", "/events/2031-06-01/", "html")
	for _, name := range []string{"spring", "matsuri", "concert", "fete", "past", "market"} {
		g.public("event-"+name, "/event/"+slug(name)+"/", "html")
	}
	g.public("event-draft", "/event/"+slug("draft")+"/", "html")
	g.public("event-missing", "/event/nowhere/", "html")
	g.public("event-old-slug", "/event/"+url.PathEscape(ids.oldSlug)+"/", "html")
	g.public("event-no-slash", "/event/"+slug("spring"), "html")
	g.public("venue", "/venue/"+slug("venue")+"/", "html")
	g.public("organizer", "/organizer/"+slug("organizer")+"/", "html")
	g.public("category", "/events/category/"+slug("category")+"/", "html")
	g.public("subcategory", "/events/category/"+slug("subcategory")+"/", "html")
	g.public("tag", "/tag/"+slug("tag")+"/", "html")
	g.public("venue-missing", "/venue/nowhere/", "html")
	g.public("feed", "/events.ics", "ics")
	g.public("feed-filtered", "/events.ics?categories="+url.QueryEscape(ids.slugs["category"]), "ics")
	g.public("feed-bad-argument", "/events.ics?start_date=bogus", "txt")
	g.public("feed-bad-filter", "/events.ics?venue=abc", "txt")
	g.plain("feed-ml-language", "/events.ics?ml_language=ja", "ics")
	g.public("event-feed", "/event/"+slug("spring")+".ics", "ics")
	g.public("event-feed-series", "/event/"+slug("market")+".ics", "ics")
	g.plain("sitemap", "/sitemap.xml", "xml")
	g.plain("robots", "/robots.txt", "txt")
	// Without --embed-origins (the default) the embeds and oEmbed are 404;
	// without settings there is no generated stylesheet.
	g.plain("embed-script-off", "/embed.js", "html")
	g.plain("embed-events-off", "/embed/events/", "html")
	g.plain("embed-month-off", "/embed/events/month/", "html")
	g.plain("embed-event-off", "/embed/event/"+slug("spring")+"/", "html")
	g.plain("oembed-off", "/oembed?url="+url.QueryEscape("http://example.test/events/"), "html")
	g.plain("theme-none", "/theme/site-0123456789abcdef.css", "html")
	g.plain("media-file", fmt.Sprintf("/media/%d/%s", ids.media, ids.mediaFile), "txt")
	g.plain("media-file-missing", fmt.Sprintf("/media/%s/%s", missing, ids.mediaFile), "html")

	// Every admin form, posted with invalid input.
	v := func(kv ...string) url.Values {
		out := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	g.post("form-language", "/admin/language", v("lang", "xx"))
	g.post("form-repeat-preview", "/admin/events/repeat-preview", v("start_date", "2031-05-20T10:00", "repeat_freq", "bogus", "repeat_interval", "0"))
	g.post("form-event-create", "/admin/events", v("title", "", "start_date", "bogus", "end_date", "2031-05-20T09:00", "status", "publish"))
	g.post("form-events-bulk", "/admin/events/bulk", v("action", "bogus", "ids", id(ids.event)))
	g.post("form-event-translation", "/admin/events/"+id(ids.event)+"/translations/ja", v("title", long))
	g.post("form-event-move", "/admin/events/"+id(ids.event)+"/move", v("start_date", "2031-05-20T10:00", "end_date", "2031-05-19T10:00"))
	g.post("form-event-revision-restore", "/admin/events/"+id(ids.event)+"/revisions/"+missing+"/restore", nil)
	g.post("form-event-action", "/admin/events/"+id(ids.event)+"/bogus", nil)
	g.post("form-event-save", "/admin/events/"+id(ids.event), v("title", long, "start_date", "2031-05-20T10:00", "end_date", "2031-05-19T10:00",
		"website", "not a url", "status", "publish", "_overwrite", "1"))
	g.post("form-event-save-draft", "/admin/events/"+id(ids.draft), v("title", "", "start_date", "2031-05-20T10:00", "end_date", "2031-05-20T11:00", "status", "draft",
		"_overwrite", "1"))
	// A save from a form older than the record: the conflict page.
	g.post("form-event-save-stale", "/admin/events/"+id(ids.event), v("title", "x", "start_date", "2031-05-20T10:00", "end_date", "2031-05-20T11:00",
		"status", "publish", "_version", "1"))
	g.post("form-import", "/admin/import", nil)
	g.post("form-csv-upload", "/admin/import/csv", nil)
	g.post("form-csv-import", "/admin/import/csv/"+id(ids.csvNew), v("action", "import", "kind", "events", "col0", "title", "col1", "", "col2", "start_time"))
	g.post("form-media-upload", "/admin/media", nil)
	g.post("form-media-save", "/admin/media/"+id(ids.media), v("title", long, "alt_text", "x"))
	g.post("form-media-delete", "/admin/media/"+missing+"/delete", nil)
	g.admin("media-picker", "/admin/media/picker?s="+url.QueryEscape("祭"))
	g.post("form-media-picker-upload", "/admin/media/picker", nil)
	// The previews of the forms (web/site): a new record's invalid form,
	// and a stored record's unsaved changes (what each role may see).
	g.post("form-preview-event-new", "/preview/event", v("title", "", "start_date", "bogus", "status", "publish"))
	g.post("form-preview-event", "/preview/event/"+id(ids.event), v("title", "プレビュー Aperçu", "start_date", "2031-05-20T10:00",
		"end_date", "2031-05-20T11:00", "status", "publish"))
	g.post("form-preview-venue-new", "/preview/venue", v("venue", ""))
	g.post("form-preview-venue", "/preview/venue/"+id(ids.venue), v("venue", "會場 Vorschau", "status", "publish", "image", "/media/1/full.png"))
	g.post("form-preview-organizer-new", "/preview/organizer", v("organizer", ""))
	g.post("form-preview-organizer", "/preview/organizer/"+id(ids.organizer), v("organizer", "미리 보기 주최자", "status", "publish"))
	for _, k := range []struct {
		kind, name string
		id         int64
		rev        int64
	}{{"venues", "venue", ids.venue, ids.venueRev}, {"organizers", "organizer", ids.organizer, ids.organizerRev}} {
		base := "/admin/" + k.kind
		g.post("form-"+k.kind+"-create", base, v(k.name, "", "website", "ftp://example.test", "email", "not an address", "status", "publish"))
		g.post("form-"+k.kind+"-bulk", base+"/bulk", v("action", "bogus"))
		g.post("form-"+k.kind+"-translation", base+"/"+id(k.id)+"/translations/ja", v(k.name, long))
		g.post("form-"+k.kind+"-revision-restore", base+"/"+id(k.id)+"/revisions/"+missing+"/restore", nil)
		g.post("form-"+k.kind+"-action", base+"/"+id(k.id)+"/bogus", nil)
		g.post("form-"+k.kind+"-save", base+"/"+id(k.id), v(k.name, long, "website", "not a url", "email", "@", "status", "publish", "_overwrite", "1"))
	}
	g.post("form-user-create", "/admin/users", v("login", "", "email", "not an address", "password", "short", "role", "bogus"))
	g.post("form-user-save", "/admin/users/"+id(ids.editor), v("display_name", long, "email", "not an address", "role", "editor"))
	g.post("form-user-password", "/admin/users/"+id(ids.editor)+"/password", v("password", "short"))
	g.post("form-user-delete", "/admin/users/"+missing+"/delete", nil)
	g.post("form-user-app-password", "/admin/users/"+id(ids.editor)+"/app-passwords", v("name", long))
	g.post("form-user-app-password-revoke", "/admin/users/"+id(ids.editor)+"/app-passwords/"+missing+"/revoke", nil)
	g.post("form-profile", "/admin/profile", v("display_name", long, "email", "not an address"))
	g.post("form-settings", "/admin/settings", v("name_ja", long, "accent_light", "#ffffff", "custom_css", "@import 'x.css';", "link_url_0", "ftp://example.test/"))
	// Webhooks: an address that is not http(s) with an unknown type; the
	// actions of a missing endpoint.
	g.post("form-webhook-create", "/admin/webhooks", v("url", "ftp://例え.jp/フック", "description", long, "events", "event.deleted"))
	g.post("form-webhook-save", "/admin/webhooks/"+missing, v("description", "x"))
	for _, a := range []string{"pause", "resume", "rotate", "delete", "deliveries/" + missing + "/redeliver"} {
		g.post("form-webhook-"+strings.ReplaceAll(strings.ReplaceAll(a, missing, "x"), "/", "-"), "/admin/webhooks/"+missing+"/"+a, nil)
	}
	g.post("form-profile-password", "/admin/profile/password", v("current_password", "wrong password", "password", "short"))
	g.post("form-profile-app-password", "/admin/profile/app-passwords", v("name", long))
	g.post("form-profile-app-password-revoke", "/admin/profile/app-passwords/"+missing+"/revoke", nil)
	g.post("form-profile-session-end", "/admin/profile/sessions/end", v("session", "bogus"))
	g.post("form-profile-sessions-end-others", "/admin/profile/sessions/end-others", nil)
	for _, k := range []struct {
		kind string
		id   int64
	}{{"categories", ids.category}, {"tags", ids.tag}} {
		base := "/admin/" + k.kind
		g.post("form-"+k.kind+"-create", base, v("name", "", "slug", "!!!"))
		g.post("form-"+k.kind+"-bulk", base+"/bulk", v("action", "bogus"))
		g.post("form-"+k.kind+"-translation", base+"/"+id(k.id)+"/translations/ko", v("name", long))
		g.post("form-"+k.kind+"-delete", base+"/"+missing+"/delete", nil)
		g.post("form-"+k.kind+"-save", base+"/"+id(k.id), v("name", "", "slug", "!!!", "parent", "-1"))
	}
	// A post without a valid CSRF token, and sign-in failures (last: they
	// count on the sign-in limits).
	g.kind("form-logout-bad-csrf")
	g.add("form-logout-bad-csrf", goldenFetch{role: "editor", lang: langOf("form-logout-bad-csrf", 0), method: "POST", path: "/admin/logout", badCSRF: true}, "html")
	g.anon("form-login-wrong-password", "POST", "/admin/login", v("login", "admin", "password", "wrong password"))
	g.anon("form-login-empty", "POST", "/admin/login", v("login", "", "password", ""))

	return g.fetches
}

// goldenClient is one browser: its cookies and its session's secrets.
type goldenClient struct {
	t       *testing.T
	app     *fiber.App
	cookies map[string]string
	csrf    string // the session's CSRF token ("" signed out)
}

// reseed makes the randomness of the next request depend on name only.
func reseed(t *testing.T, name string) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	cryptotest.SetGlobalRandom(t, h.Sum64())
}

// goldenAnswer is an answer read whole.
type goldenAnswer struct {
	status int
	header http.Header
	body   []byte
}

// send makes one request and reads the answer whole.
func (c *goldenClient) send(method, path, lang string, form url.Values) goldenAnswer {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("User-Agent", goldenUA)
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	for _, k := range slices.Sorted(maps.Keys(c.cookies)) {
		req.AddCookie(&http.Cookie{Name: k, Value: c.cookies[k]})
	}
	res, err := c.app.Test(req, -1)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, ck := range res.Cookies() {
		if ck.MaxAge < 0 || ck.Value == "" {
			delete(c.cookies, ck.Name)
		} else {
			c.cookies[ck.Name] = ck.Value
		}
	}
	return goldenAnswer{status: res.StatusCode, header: res.Header, body: b}
}

// signIn signs login in through the sign-in form, as a browser does.
func (c *goldenClient) signIn(login string) {
	c.t.Helper()
	reseed(c.t, "sign-in "+login)
	page := c.send("GET", "/admin/login", "", nil).body
	m := csrfField.FindSubmatch(page)
	if m == nil {
		c.t.Fatalf("no CSRF token in the sign-in form:\n%.1000s", page)
	}
	a := c.send("POST", "/admin/login", "", url.Values{"login": {login}, "password": {goldenPassword}, "_csrf": {string(m[1])}})
	if a.status != http.StatusSeeOther {
		c.t.Fatalf("sign-in of %s: %d %.500s", login, a.status, a.body)
	}
	page = c.send("GET", "/admin/", "", nil).body
	if m = csrfField.FindSubmatch(page); m == nil {
		c.t.Fatalf("signed in as %s, no CSRF token on the dashboard:\n%.1000s", login, page)
	}
	c.csrf = string(m[1])
}

// goldenSecrets find the values masked in an answer, with their masks.
var goldenSecrets = []struct {
	re   *regexp.Regexp
	mask string
}{
	{regexp.MustCompile(`name="_csrf" value="([^"]+)"`), "{{csrf}}"},
	{regexp.MustCompile(`<meta name="kalends-csrf" content="([^"]+)"`), "{{csrf}}"},
	{regexp.MustCompile(`<meta name="kalends-nonce" content="([^"]+)"`), "{{api-nonce}}"},
	{regexp.MustCompile(`<meta name="csp-nonce" content="([^"]+)"`), "{{style-nonce}}"},
	{regexp.MustCompile(`'nonce-([^']+)'`), "{{style-nonce}}"},
}

// goldenSkippedHeaders are not kept: the date is the real clock's, the
// length follows the body, cookies are the session's secrets (the sign-in
// tests check them).
var goldenSkippedHeaders = map[string]bool{"Date": true, "Content-Length": true, "Set-Cookie": true}

// record is the text kept for one answer: the request, then the status,
// the headers and the body, secrets masked.
func record(f goldenFetch, c *goldenClient, a goldenAnswer) []byte {
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s\n", f.method, f.path)
	as := f.role
	if as == "" {
		as = "(signed out)"
	}
	fmt.Fprintf(&head, "As: %s\n", as)
	if f.lang != "" {
		fmt.Fprintf(&head, "Accept-Language: %s\n", f.lang)
	}
	if f.form != nil {
		fmt.Fprintf(&head, "Form: %s\n", f.form.Encode())
	}
	if f.badCSRF {
		fmt.Fprintf(&head, "Form: _csrf=(wrong)\n")
	}
	fmt.Fprintf(&head, "\n%d %s\n", a.status, http.StatusText(a.status))
	for _, k := range slices.Sorted(maps.Keys(a.header)) {
		if goldenSkippedHeaders[k] {
			continue
		}
		for _, v := range a.header[k] {
			fmt.Fprintf(&head, "%s: %s\n", k, v)
		}
	}
	head.WriteString("\n")
	body := a.body
	if !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0 {
		sum := sha256.Sum256(body)
		body = fmt.Appendf(nil, "(%d bytes of binary data, SHA-256 %x)\n", len(body), sum)
	}
	out := append(head.Bytes(), body...)
	// The secrets: those found in this answer and the client's.
	masks := map[string]string{}
	for _, s := range goldenSecrets {
		for _, m := range s.re.FindAllSubmatch(out, -1) {
			masks[string(m[1])] = s.mask
		}
	}
	if c.csrf != "" {
		masks[c.csrf] = "{{csrf}}"
	}
	if id := a.header.Get("X-Request-Id"); id != "" {
		masks[id] = "{{request-id}}"
	}
	for _, v := range slices.Sorted(maps.Keys(masks)) {
		if len(v) < 16 {
			continue // not a random value: never mask page text
		}
		out = bytes.ReplaceAll(out, []byte(v), []byte(masks[v]))
	}
	return out
}

// goldenSitemapLoc reads the addresses a sitemap index names.
var goldenSitemapLoc = regexp.MustCompile(`<sitemap>\s*<loc>([^<]*)</loc>`)

// TestGolden fetches the pages on each dialect; both give the same bytes,
// so one set of files serves both (-update writes SQLite's, and MySQL's
// are compared with them).
func TestGolden(t *testing.T) {
	// Not parallel: the reseeding of crypto/rand is process-wide.
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		got := goldenPages(t, db)
		compareGolden(t, got, *update && db.Dialect() == models.SQLite)
	})
}

// goldenPages seeds db, fetches every page and returns the records by
// file name.
func goldenPages(t *testing.T, db *models.DB) map[string][]byte {
	t.Helper()
	clock := &goldenClock{}
	// The configuration of a server started with its defaults but these.
	settings := newSettings()
	for k, v := range map[string]string{
		"base-url": "http://example.test", "timezone": goldenZone.String(), "db": "sqlite:" + filepath.Join(t.TempDir(), "golden.db"),
		"cache-size":  "0",  // the response cache off: every answer is made afresh
		"write-limit": "0",  // every form is posted by each role within one minute of the fixed clock
		"media-store": "db", // no path of this machine in any page
	} {
		settings.values[k] = v
	}
	cfg, err := settings.config()
	if err != nil {
		t.Fatal(err)
	}
	site := siteOf(cfg)
	site.Clock = clock.Now
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	reseed(t, "seed")
	ids := seedGolden(t, db, clock)
	clients := map[string]*goldenClient{"": {t: t, app: app, cookies: map[string]string{}}}
	for _, role := range goldenRoles {
		c := &goldenClient{t: t, app: app, cookies: map[string]string{}}
		c.signIn(role)
		clients[role] = c
	}
	fetches := goldenFetches(ids)
	got := map[string][]byte{}
	fetch := func(f goldenFetch) []byte {
		t.Helper()
		if _, dup := got[f.file]; dup {
			t.Fatalf("two fetches write %s", f.file)
		}
		c := clients[f.role]
		form := f.form
		if f.method == "POST" {
			form = url.Values{}
			maps.Copy(form, f.form)
			switch {
			case f.badCSRF:
				form.Set("_csrf", "wrong")
			case c.csrf != "":
				form.Set("_csrf", c.csrf)
			default: // signed out: the sign-in form's token
				reseed(t, f.file+" form")
				if m := csrfField.FindSubmatch(c.send("GET", "/admin/login", f.lang, nil).body); m != nil {
					form.Set("_csrf", string(m[1]))
				}
			}
		}
		reseed(t, f.file)
		a := c.send(f.method, f.path, f.lang, form)
		got[f.file] = record(f, c, a)
		return a.body
	}
	for _, f := range fetches {
		body := fetch(f)
		if f.file == "sitemap_anon_en.xml" {
			// The sitemap's children, when it is an index.
			for _, m := range goldenSitemapLoc.FindAllSubmatch(body, -1) {
				u, err := url.Parse(string(m[1]))
				if err != nil {
					t.Fatalf("sitemap index: %v", err)
				}
				name := "sitemap-" + strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(u.RequestURI()), "-"), "-")
				fetches = append(fetches, goldenFetch{file: name + "_anon_en.xml", method: "GET", path: u.RequestURI()})
				fetch(fetches[len(fetches)-1])
			}
		}
	}
	checkGoldenRoutes(t, app, fetches)
	return got
}

// checkGoldenRoutes fails for a GET or POST route of the pages (not the
// API, the assets or /healthz) that no fetch asks for, whatever its
// language prefix.
func checkGoldenRoutes(t *testing.T, app *fiber.App, fetches []goldenFetch) {
	t.Helper()
	prefix := regexp.MustCompile(`^/(` + strings.Join(i18n.Codes, "|") + `)(/|$)`)
	strip := func(p string) string { return prefix.ReplaceAllString(p, "/") }
	var asked []string
	for _, f := range fetches {
		p, _, _ := strings.Cut(f.path, "?")
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
		asked = append(asked, f.method+" "+strip(p))
	}
	seen := map[string]bool{}
	for _, r := range app.GetRoutes(true) {
		if r.Method != "GET" && r.Method != "POST" || strings.Contains(r.Path, "/cal/events/v1") ||
			r.Path == "/healthz" || strings.HasPrefix(r.Path, "/assets/") {
			continue
		}
		route := r.Method + " " + strip(r.Path)
		if seen[route] {
			continue
		}
		seen[route] = true
		re := regexp.MustCompile("^" + regexp.MustCompile(`:[a-z]+|\\\*`).ReplaceAllStringFunc(regexp.QuoteMeta(route), func(string) string { return "[^/]+" }) + "/?$")
		if !slices.ContainsFunc(asked, re.MatchString) {
			t.Errorf("route %s: no golden fetch asks for it; add one to goldenFetches", route)
		}
	}
}

// compareGolden compares the answers with the files, or with -update
// writes them (and removes the files of fetches that are gone).
func compareGolden(t *testing.T, got map[string][]byte, write bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if write {
		if err := os.MkdirAll(goldenDir, 0o750); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if _, ok := got[filepath.Base(f)]; !ok {
				if err := os.Remove(f); err != nil {
					t.Fatal(err)
				}
			}
		}
		for name, b := range got {
			if err := os.WriteFile(filepath.Join(goldenDir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d golden files", len(got))
		return
	}
	for _, f := range files {
		if _, ok := got[filepath.Base(f)]; !ok {
			t.Errorf("%s: no fetch writes it any more (go test ./cmd/kalends -run Golden -update removes it)", f)
		}
	}
	// A change to the layout rewrites every page: the first differences
	// in full, then the names.
	const shown = 8
	var differ []string
	for _, name := range slices.Sorted(maps.Keys(got)) {
		path := filepath.Join(goldenDir, name)
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (go test ./cmd/kalends -run Golden -update writes it)", path, err)
			continue
		}
		if d := firstDifference(want, got[name]); d != "" {
			if differ = append(differ, path); len(differ) <= shown {
				t.Errorf("%s differs:\n%s", path, d)
			}
		}
	}
	if len(differ) > shown {
		t.Errorf("%d more files differ: %s", len(differ)-shown, strings.Join(differ[shown:], " "))
	}
	if len(differ) > 0 {
		t.Errorf("%d golden files differ; if the change is meant, go test ./cmd/kalends -run Golden -update rewrites them, "+
			"and the commit says why", len(differ))
	}
}

// firstDifference describes where got first differs from want: the line
// and column, and the text around it on each side (a page is one long
// line), line breaks shown as ⏎.
func firstDifference(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	for i > 0 && (i < len(want) && !utf8.RuneStart(want[i]) || i < len(got) && !utf8.RuneStart(got[i])) {
		i-- // the whole rune that differs
	}
	line := bytes.Count(want[:i], []byte("\n")) + 1
	col := utf8.RuneCount(want[bytes.LastIndexByte(want[:i], '\n')+1:i]) + 1
	excerpt := func(b []byte) string {
		from, to := max(0, i-100), min(len(b), i+160)
		for from > 0 && !utf8.RuneStart(b[from]) {
			from--
		}
		for to < len(b) && !utf8.RuneStart(b[to]) {
			to++
		}
		return strings.ReplaceAll(string(b[from:i]), "\n", "⏎") + "▶" + strings.ReplaceAll(string(b[i:to]), "\n", "⏎")
	}
	return fmt.Sprintf("  first difference at line %d, character %d (▶), of %d bytes kept and %d bytes now\n  kept: …%s…\n  now:  …%s…",
		line, col, len(want), len(got), excerpt(want), excerpt(got))
}
