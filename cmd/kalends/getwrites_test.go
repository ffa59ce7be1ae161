package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
	"github.com/kalends/kalends/web/ui"
)

// moving are the columns a GET may change: a session's last-seen time
// (and the expiry that slides with it) is the one exception (issue 28).
var moving = map[string][]string{"sessions": {"last_seen_at", "expires_at", "ip"}}

// TestNoGETWrites (issue 28, item 6: GET /admin/…?lang= stored a setting,
// admin lists past the series horizon wrote occurrences): every GET route
// of the assembled app (the API, the admin, the public site, feeds,
// media, assets), each asked by a signed-in administrator and anonymously,
// with query strings that once wrote (?lang=, windows past the series
// horizon), leaves every table as it was. The routes come from the app
// itself, so a new GET route fails here until the walk knows its URLs.
func TestNoGETWrites(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		w := newWalkSite(t, app, db)
		before := snapshot(t, db)
		var urls []string
		for _, r := range app.GetRoutes(true) {
			if r.Method != fiber.MethodGet {
				continue
			}
			us, ok := w.urls(r.Path)
			if !ok {
				t.Errorf("GET %s: the walk does not know this route; give it URLs in walkSite.urls", r.Path)
				continue
			}
			urls = append(urls, us...)
		}
		urls = append(urls, w.extra()...)
		slices.Sort(urls)
		urls = slices.Compact(urls)
		if len(urls) < 150 {
			t.Fatalf("only %d URLs to walk: is the route list broken?", len(urls))
		}
		statuses := map[int]int{}
		for _, u := range urls {
			for _, who := range []string{"administrator", ""} {
				req := httptest.NewRequest(http.MethodGet, u, nil)
				if who != "" {
					for k, v := range w.cookies {
						req.AddCookie(&http.Cookie{Name: k, Value: v})
					}
				}
				release := func() {}
				if who == "" {
					// Anonymous reads must not wait for a writer either:
					// a transaction of their own would queue behind it
					// on SQLite (modelstest.HoldWrite).
					release = modelstest.HoldWrite(t, db, nil)
				}
				res, _ := do(t, app, req)
				release()
				statuses[res.StatusCode]++
				if res.StatusCode >= 500 {
					t.Errorf("GET %s (%q): %d", u, who, res.StatusCode)
				}
			}
			if after := snapshot(t, db); !maps2Equal(before, after) {
				t.Errorf("GET %s changed %v", u, changedTables(before, after))
				before = after
			}
		}
		t.Logf("%d URLs, statuses %v", len(urls), statuses)
		if statuses[http.StatusOK] < len(urls) {
			t.Errorf("statuses %v over %d URLs: too few pages answered 200 for the walk to mean much", statuses, len(urls))
		}
	})
}

// walkSite is a small calendar with one record of every kind, made
// through the API, and an administrator's admin session.
type walkSite struct {
	t                          *testing.T
	app                        *fiber.App
	auth                       string
	cookies                    map[string]string
	adminID                    int64
	event, series, draft       walkRecord
	venue, organizer           walkRecord
	category, tag              walkRecord
	media                      int64
	mediaPath                  string
	eventRev, venueRev, orgRev int64
	occurrence                 int64
	csvImport                  int64 // a CSV import of the administrator, not started
	webhook                    int64 // a webhook endpoint with a delivery
}

type walkRecord struct {
	id   int64
	slug string
}

func newWalkSite(t *testing.T, app *fiber.App, db *models.DB) *walkSite {
	t.Helper()
	ctx := context.Background()
	root, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "root", Password: "password-root",
		Role: models.RoleAdministrator, DisplayName: "Root"})
	if err != nil {
		t.Fatal(err)
	}
	pw, _, err := db.CreateAppPassword(ctx, root.ID, "walk")
	if err != nil {
		t.Fatal(err)
	}
	w := &walkSite{t: t, app: app, auth: "Basic " + basic("root", pw), adminID: root.ID}
	w.venue = w.post("/venues", `{"venue":"東京ドーム","city":"東京","address":"文京区後楽1-3-61","geo_lat":35.7056,"geo_lng":139.7519}`)
	w.organizer = w.post("/organizers", `{"organizer":"김민지","email":"minji@example.test"}`)
	w.category = w.post("/categories", `{"name":"音乐"}`)
	w.tag = w.post("/tags", `{"name":"fête de la musique"}`)
	w.media, w.mediaPath = w.upload()
	w.event = w.post("/events", fmt.Sprintf(`{"title":"春季音乐节","description":"<p>户外</p>","start_date":"2027-04-03 18:00:00",
		"end_date":"2027-04-03 21:00:00","timezone":"Asia/Shanghai","venue":%d,"organizer":[%d],"categories":[%d],
		"tags":[%d],"image":%d,"cost":"120","status":"publish"}`, w.venue.id, w.organizer.id, w.category.id, w.tag.id, w.media))
	w.series = w.post("/events", `{"title":"朝会","start_date":"2027-01-04 09:00:00","end_date":"2027-01-04 09:15:00",
		"recurrence":"FREQ=WEEKLY;BYDAY=MO","status":"publish"}`)
	w.draft = w.post("/events", `{"title":"Brouillon d'été","start_date":"2027-07-01","end_date":"2027-07-01","all_day":true,"status":"draft"}`)
	// A translation, and an update of each post-like kind (revisions).
	w.api("POST", fmt.Sprintf("/events/%d", w.event.id), `{"title":"春の音楽祭","ml_language":"ja"}`, http.StatusOK)
	w.api("POST", fmt.Sprintf("/events/%d", w.event.id), `{"excerpt":"屋外のコンサート"}`, http.StatusOK)
	w.api("POST", fmt.Sprintf("/venues/%d", w.venue.id), `{"city":"東京都"}`, http.StatusOK)
	w.api("POST", fmt.Sprintf("/organizers/%d", w.organizer.id), `{"phone":"+82 2 000 0000"}`, http.StatusOK)
	w.eventRev = w.revision("events", w.event.id)
	w.venueRev = w.revision("venues", w.venue.id)
	w.orgRev = w.revision("organizers", w.organizer.id)
	var occ struct {
		Events []struct {
			ID int64 `json:"id"`
		} `json:"events"`
	}
	_ = json.Unmarshal([]byte(w.api("GET", fmt.Sprintf("/events?post_parent=%d&per_page=5", w.series.id), "", http.StatusOK)), &occ)
	if len(occ.Events) < 2 {
		t.Fatalf("series %d: %d occurrences", w.series.id, len(occ.Events))
	}
	w.occurrence = occ.Events[1].ID
	// A spreadsheet uploaded for import, waiting to be set up (its page
	// guesses the mapping and must not store it on a GET).
	job, err := db.CreateCSVImport(ctx, root, "イベント.csv", "events", "mdy",
		[]byte("Event Name,Event Start Date,Event Venue Name\n夏祭り,08/01/2027,東京ドーム\n"))
	if err != nil {
		t.Fatal(err)
	}
	w.csvImport = job.ID
	hook, err := db.AddWebhook(ctx, root, "https://hooks.example/東京", "検索インデックス", []string{"event.updated"}, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := db.IDB().NewInsert().Model(&models.WebhookDelivery{EndpointID: hook.ID, MsgID: "msg_walk", Type: "event.updated",
		Kind: "event", RecordID: w.event.id, Body: "{}", Status: models.DeliveryFailed, Attempts: 3, NextAt: now,
		LastStatus: 500, LastResponse: "エラー", CreatedAt: now, UpdatedAt: now}).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	w.webhook = hook.ID
	w.cookies, _ = signInForTest(t, app, "root", "password-root")
	return w
}

// api sends a request to the API as the administrator and returns the
// body, failing unless the status is want.
func (w *walkSite) api(method, path, body string, want int) string {
	w.t.Helper()
	req := httptest.NewRequest(method, "/cal/events/v1"+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", w.auth)
	res, text := do(w.t, w.app, req)
	defer func() { _ = res.Body.Close() }() // read and closed by do
	if res.StatusCode != want {
		w.t.Fatalf("%s %s: %d %.500s", method, path, res.StatusCode, text)
	}
	return text
}

// post creates a record through the API and returns its id and slug.
func (w *walkSite) post(path, body string) walkRecord {
	w.t.Helper()
	var rec struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
	}
	if err := json.Unmarshal([]byte(w.api("POST", path, body, http.StatusCreated)), &rec); err != nil || rec.ID == 0 {
		w.t.Fatalf("POST %s: %v", path, err)
	}
	return walkRecord{rec.ID, rec.Slug}
}

// upload adds an image to the media library and returns its id and the
// path of its full size.
func (w *walkSite) upload() (int64, string) {
	w.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "会場.png")
	_, _ = fw.Write(imagetest.PNG(640, 480))
	_ = mw.WriteField("alt_text", "会場の写真")
	_ = mw.Close()
	req := httptest.NewRequest("POST", "/cal/events/v1/media", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", w.auth)
	res, text := do(w.t, w.app, req)
	defer func() { _ = res.Body.Close() }() // read and closed by do
	var m struct {
		ID        int64  `json:"id"`
		SourceURL string `json:"source_url"`
	}
	if err := json.Unmarshal([]byte(text), &m); err != nil || res.StatusCode != http.StatusCreated {
		w.t.Fatalf("upload: %d %.300s", res.StatusCode, text)
	}
	return m.ID, "/media/" + strconv.FormatInt(m.ID, 10) + "/full.png"
}

// revision returns the id of the newest revision of a record.
func (w *walkSite) revision(kind string, id int64) int64 {
	w.t.Helper()
	var revs struct {
		Revisions []struct {
			ID int64 `json:"id"`
		} `json:"revisions"`
	}
	if err := json.Unmarshal([]byte(w.api("GET", fmt.Sprintf("/%s/%d/revisions", kind, id), "", http.StatusOK)), &revs); err != nil || len(revs.Revisions) == 0 {
		w.t.Fatalf("revisions of %s %d: %v (%d)", kind, id, err, len(revs.Revisions))
	}
	return revs.Revisions[0].ID
}

// urls returns the URLs of a GET route pattern of the app, or false when
// the walk does not know the route.
func (w *walkSite) urls(route string) ([]string, bool) {
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	// Public pages under a language prefix are the same routes.
	prefix := ""
	for _, code := range i18n.Codes {
		if p := "/" + code; strings.HasPrefix(route, p+"/") || route == p {
			prefix, route = p, strings.TrimPrefix(route, p)
			break
		}
	}
	with := func(us ...string) ([]string, bool) {
		for i := range us {
			us[i] = prefix + us[i]
		}
		return us, true
	}
	switch route {
	case "/events": // its views (issue 36)
		return with("/events/", "/events/?past=1", "/events/?view=month&month=2027-04", "/events/?view=day&date=2027-04-03",
			"/events/?view=photo&featured=1&search="+url.QueryEscape("音乐"))
	case "/events/list", "/events/photo", "/events/month", "/events/today": // TEC's views: 301
		return with(route + "/")
	case "/events/month/:ym":
		return with("/events/month/2027-04/")
	case "/events/:date":
		return with("/events/2027-04-03/")
	case "", "/", "/healthz", "/events.ics", "/sitemap.xml", "/cal/events/v1":
		return with(route + "/")
	case "/robots.txt", "/embed.js":
		return with(route)
	case "/embed/events", "/embed/events/month":
		return with(route+"/", route+"/?categories="+w.category.slug)
	case "/embed/event/:slug":
		return with("/embed/event/"+w.event.slug+"/", "/embed/event/"+w.draft.slug+"/")
	case "/oembed":
		return with("/oembed?format=json&url=" + url.QueryEscape("http://example.test/event/"+w.event.slug+"/"))
	case ui.StylesheetPrefix + ":hash":
		return with(ui.StylesheetPrefix + "0123456789abcdef.css")
	case "/sitemap-:name":
		return with("/sitemap-pages-1.xml", "/sitemap-events-1.xml", "/sitemap-tags-1.xml", "/sitemap-events-2.xml")
	case "/cal/events/v1/*":
		var out []string
		for _, p := range []string{"", "doc", "events", "events/" + id(w.event.id), "events/by-slug/" + w.event.slug,
			"events/" + id(w.event.id) + "/revisions", "events/" + id(w.event.id) + "/revisions/" + id(w.eventRev),
			"events?start_date=2035-01-01&end_date=2035-12-31", "events?starts_before=2036-01-01&ends_after=2035-01-01",
			"events?recurrence=series&start_date=2035-01-01&end_date=2035-12-31",
			"events/" + id(w.draft.id), "events/" + id(w.occurrence),
			"venues", "venues/" + id(w.venue.id), "venues/by-slug/" + w.venue.slug, "venues/" + id(w.venue.id) + "/revisions",
			"organizers", "organizers/" + id(w.organizer.id), "organizers/" + id(w.organizer.id) + "/revisions",
			"categories", "categories/" + id(w.category.id), "tags", "tags/" + id(w.tag.id),
			"media", "media/" + id(w.media)} {
			out = append(out, "/cal/events/v1/"+p)
		}
		return with(out...)
	case "/assets/*":
		return []string{assets.URL("css/admin.css"), assets.URL("js/calendar.js")}, true
	case "/media/:id/:file":
		return []string{w.mediaPath, strings.Replace(w.mediaPath, "full", "thumbnail", 1)}, true
	case "/event/:slug":
		return with("/event/"+w.event.slug+"/", "/event/"+w.draft.slug+"/", "/event/"+w.series.slug+"/")
	case "/event/:slug.ics":
		return with("/event/"+w.event.slug+".ics", "/event/"+w.series.slug+".ics")
	case "/venue/:slug":
		return with("/venue/" + w.venue.slug + "/")
	case "/organizer/:slug":
		return with("/organizer/" + w.organizer.slug + "/")
	case "/events/category/:slug":
		return with("/events/category/" + w.category.slug + "/")
	case "/tag/:slug":
		return with("/tag/" + w.tag.slug + "/")
	}
	if !strings.HasPrefix(route, "/admin") {
		return nil, false
	}
	// The admin: each :id by the kind its path names.
	ids := map[string]string{"events": id(w.event.id), "venues": id(w.venue.id), "organizers": id(w.organizer.id),
		"users": id(w.adminID), "categories": id(w.category.id), "tags": id(w.tag.id), "media": id(w.media),
		"csv": id(w.csvImport), "webhooks": id(w.webhook)}
	revs := map[string]string{"events": id(w.eventRev), "venues": id(w.venueRev), "organizers": id(w.orgRev)}
	parts := strings.Split(route, "/")
	for i, p := range parts {
		switch p {
		case ":id":
			v, ok := ids[parts[i-1]]
			if !ok {
				return nil, false
			}
			parts[i] = v
		case ":rev":
			v, ok := revs[parts[i-3]]
			if !ok {
				return nil, false
			}
			parts[i] = v
		case ":lang":
			parts[i] = "ja"
		default:
			if strings.HasPrefix(p, ":") || strings.Contains(p, "*") {
				return nil, false
			}
		}
	}
	u := strings.Join(parts, "/")
	out := []string{u, u + "?lang=ko"}
	if strings.HasPrefix(route, "/admin/events/:id") {
		// The same pages of an occurrence of the series.
		out = append(out, strings.Replace(u, "/"+id(w.event.id)+"/", "/"+id(w.occurrence)+"/", 1))
	}
	return out, true
}

// extra are the query strings that once wrote, and other views of the
// pages the routes name.
func (w *walkSite) extra() []string {
	return []string{
		"/admin/events?start_date=2035-01-01&end_date=2035-12-31", "/admin/events?status=draft&lang=zh-hans",
		"/admin/events?search=音乐", "/admin/calendar?view=month&date=2035-06-01", "/admin/calendar?view=list&date=2027-04-01",
		"/admin/calendar?view=week&date=2035-06-04", "/admin/events/venue-options?search=東京", "/admin/?lang=ja",
		"/events/?view=month&month=2035-06", "/ja/events/?view=month&month=2027-04", "/events/?search=朝会",
		"/events.ics?start_date=2035-01-01&end_date=2035-12-31", "/events.ics?categories=" + w.category.slug,
		"/admin/login?lang=zh-hans", "/?p=" + strconv.FormatInt(w.draft.id, 10) + "&post_type=tribe_events",
	}
}

// snapshot is a checksum of every table's rows (in any order), the moving
// columns left out.
func snapshot(t *testing.T, db *models.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if db.Dialect() == models.MySQL {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
	}
	var tables []string
	if err := db.Bun.NewRaw(q).Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, table := range tables {
		out[table] = tableSum(t, db, table)
	}
	return out
}

// tableSum is the number of rows of table and a checksum of them, in any
// order, the moving columns left out.
func tableSum(t *testing.T, db *models.DB, table string) string {
	t.Helper()
	rows, err := db.Bun.QueryContext(context.Background(), "SELECT * FROM "+table)
	if err != nil {
		t.Fatalf("%s: %v", table, err)
	}
	defer func() { _ = rows.Close() }()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, c := range cols {
			if !slices.Contains(moving[table], c) {
				b.WriteString(c + "=" + string(vals[i]) + "\x00")
			}
		}
		lines = append(lines, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return strconv.Itoa(len(lines)) + " rows " + hex.EncodeToString(sum[:8])
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// changedTables names the tables whose rows differ, with their counts.
func changedTables(a, b map[string]string) []string {
	var out []string
	for k, v := range b {
		if a[k] != v {
			out = append(out, k+": "+a[k]+" → "+v)
		}
	}
	slices.Sort(out)
	return out
}
