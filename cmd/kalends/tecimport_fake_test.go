package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/imagetest"
)

// A fake The Events Calendar site: TEC-shaped answers (the captured
// samples of testdata/tec, with their values replaced) over a calendar
// with what the samples lack: more than 50 records of every kind (TEC
// clamps per_page to 50 and names the next page in next_rest_url, with
// the spaces of its dates unencoded), non-ASCII slugs percent-encoded in
// lower case as WordPress stores them, featured images (some behind a
// redirect), events hidden from listings (which the archive never lists:
// only WordPress's /wp/v2/tribe_events has their ids), drafts shown only
// with credentials, a three-level category tree, a default window of
// upcoming events, hide_empty=true on term lists, and one 429 answer.

const (
	fakeTECUser     = "importer"
	fakeTECPassword = "abcd efgh ijkl mnop"
)

type fakeTEC struct {
	t       *testing.T
	cats    []map[string]any // category objects (as /categories lists them)
	tags    []map[string]any
	venues  []map[string]any
	orgs    []map[string]any
	events  []map[string]any // every event, drafts and hidden ones included
	images  map[string][]byte
	once429 atomic.Bool
	hits    sync.Map // path → count
}

// sample reads a captured TEC answer.
func sample(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tec", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// wpSlug is a slug as WordPress stores it: ASCII letters lower-cased,
// spaces as "-", every other byte of a non-ASCII character percent-encoded
// in lower case.
func wpSlug(s string) string {
	var b strings.Builder
	for _, c := range []byte(strings.ToLower(s)) {
		switch {
		case c == ' ':
			b.WriteByte('-')
		case c >= 0x80:
			fmt.Fprintf(&b, "%%%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// base is the site's address in every URL the fake writes.
const fakeBase = "http://tec.invalid"

var fakeWords = []string{"夏祭り", "Konzert im Park", "서울 재즈", "展览 开幕", "Café crème", "花火大会", "Marché de Noël"}

func newFakeTEC(t *testing.T, events int) *fakeTEC {
	f := &fakeTEC{t: t, images: map[string][]byte{}}
	catT, tagT, venT, orgT, evT := sample(t, "25-category-single.200.json"), sample(t, "27-tag-single.200.json"),
		sample(t, "21-venue-single.200.json"), sample(t, "23-organizer-single.200.json"), sample(t, "17-event-single.200.json")
	delete(catT, "_links")
	delete(tagT, "_links")
	term := func(tmpl map[string]any, taxonomy, coll string, id, parent int, name string) map[string]any {
		m := clone(tmpl)
		m["id"], m["name"], m["slug"], m["parent"], m["taxonomy"] = id, name, wpSlug(name), parent, taxonomy
		m["description"] = "<p>" + name + " の説明</p>"
		if taxonomy == "post_tag" {
			m["url"] = fakeBase + "/tag/" + wpSlug(name) + "/"
		} else {
			m["url"] = fakeBase + "/events/category/" + wpSlug(name) + "/"
		}
		m["urls"] = map[string]any{"self": fmt.Sprintf("%s/wp-json/tribe/events/v1/%s/%d", fakeBase, coll, id),
			"collection": fakeBase + "/wp-json/tribe/events/v1/" + coll}
		return m
	}
	// 60 categories: 6 roots, 18 children, 36 grandchildren.
	for i := range 60 {
		parent := 0
		switch {
		case i >= 24:
			parent = 1000 + 6 + (i-24)%18
		case i >= 6:
			parent = 1000 + (i-6)%6
		}
		f.cats = append(f.cats, term(catT, "tribe_events_cat", "categories", 1000+i, parent, fmt.Sprintf("%s %d", fakeWords[i%len(fakeWords)], i)))
	}
	for i := range 55 {
		m := term(tagT, "post_tag", "tags", 2000+i, 0, fmt.Sprintf("タグ %s %d", fakeWords[(i+3)%len(fakeWords)], i))
		f.tags = append(f.tags, m)
	}
	for i := range 55 {
		m := clone(venT)
		name := fmt.Sprintf("%s ホール %d", fakeWords[i%len(fakeWords)], i)
		m["id"], m["venue"], m["slug"] = 3000+i, name, wpSlug(name)
		m["url"] = fakeBase + "/venue/" + wpSlug(name) + "/"
		m["address"], m["city"], m["zip"], m["phone"] = fmt.Sprintf("%d 丁目 %d", i%9+1, i), []string{"東京", "서울", "上海", "Paris"}[i%4], fmt.Sprintf("1%04d", i), fmt.Sprintf("+81-3-%04d", i)
		m["website"] = fmt.Sprintf("https://venue%d.example.org", i)
		m["description"] = fmt.Sprintf("<p>会場 %d</p>", i)
		delete(m, "json_ld")
		f.venues = append(f.venues, m)
	}
	for i := range 55 {
		m := clone(orgT)
		name := fmt.Sprintf("%s 実行委員会 %d", fakeWords[(i+1)%len(fakeWords)], i)
		m["id"], m["organizer"], m["slug"] = 4000+i, name, wpSlug(name)
		m["url"] = fakeBase + "/organizer/" + wpSlug(name) + "/"
		m["email"], m["phone"], m["website"] = fmt.Sprintf("org%d@example.jp", i), fmt.Sprintf("+82-2-%04d", i), fmt.Sprintf("https://org%d.example.jp", i)
		m["description"] = fmt.Sprintf("<p>主催 %d</p>", i)
		delete(m, "json_ld")
		f.orgs = append(f.orgs, m)
	}
	zones := []string{"Asia/Tokyo", "America/New_York", "UTC", "Europe/Paris"}
	for i := range events {
		m := clone(evT)
		title := fmt.Sprintf("%s %d", fakeWords[i%len(fakeWords)], i)
		id := 5000 + i
		m["id"], m["title"], m["slug"] = id, title, wpSlug(title)
		m["url"] = fakeBase + "/event/" + wpSlug(title) + "/"
		m["rest_url"] = fmt.Sprintf("%s/wp-json/tribe/events/v1/events/%d", fakeBase, id)
		m["description"] = fmt.Sprintf("<p>%s の詳細 %d</p>", title, i)
		m["excerpt"] = fmt.Sprintf("<p>概要 %d</p>", i)
		m["author"] = strconv.Itoa(1 + i%3)
		status := "publish"
		if i%20 == 7 {
			status = "draft"
		}
		m["status"] = status
		day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i*7) // past and future
		date := day.AddDate(0, -2, 0).Format(time.DateTime)
		m["date"], m["date_utc"], m["modified"], m["modified_utc"] = date, date, date, date
		zone := zones[i%len(zones)]
		loc, _ := time.LoadLocation(zone)
		start := time.Date(day.Year(), day.Month(), day.Day(), 18, 30, 0, 0, loc)
		end := start.Add(150 * time.Minute)
		allDay := i%9 == 0
		if allDay {
			start = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
			end = time.Date(day.Year(), day.Month(), day.Day(), 23, 59, 59, 0, loc)
		}
		m["all_day"], m["timezone"] = allDay, zone
		m["timezone_abbr"] = start.Format("MST")
		setDate := func(key string, t time.Time) {
			m[key] = t.Format(time.DateTime)
			m[key+"_details"] = map[string]any{"year": t.Format("2006"), "month": t.Format("01"), "day": t.Format("02"),
				"hour": t.Format("15"), "minutes": t.Format("04"), "seconds": t.Format("05")}
		}
		setDate("start_date", start)
		setDate("end_date", end)
		setDate("utc_start_date", start.UTC())
		setDate("utc_end_date", end.UTC())
		if i%3 == 0 {
			m["cost"] = ""
			m["cost_details"] = map[string]any{"currency_symbol": "", "currency_code": "", "currency_position": "", "values": []any{}}
		} else {
			v := strconv.Itoa(500 * (i%7 + 1))
			m["cost"] = "¥" + v
			m["cost_details"] = map[string]any{"currency_symbol": "¥", "currency_code": "JPY", "currency_position": "prefix", "values": []any{v}}
		}
		m["website"] = fmt.Sprintf("https://event%d.example.jp/", i)
		m["show_map"], m["show_map_link"], m["featured"], m["sticky"] = i%2 == 0, i%3 == 0, i%5 == 0, i%11 == 0
		m["hide_from_listings"] = i%25 == 3
		// Embedded terms as the event sample has them: no url, no meta.
		embed := func(t map[string]any) map[string]any {
			e := maps.Clone(t)
			delete(e, "url")
			delete(e, "meta")
			return e
		}
		cats := []any{}
		for _, c := range []int{i % 60, (i*7 + 30) % 60} {
			if len(cats) == 0 || cats[0].(map[string]any)["id"] != f.cats[c]["id"] {
				cats = append(cats, embed(f.cats[c]))
			}
		}
		m["categories"] = cats
		m["tags"] = []any{embed(f.tags[i%55])}
		if i%13 == 12 {
			m["venue"] = []any{}
		} else {
			m["venue"] = f.venues[i%55]
		}
		m["organizer"] = []any{f.orgs[i%55], f.orgs[(i+20)%55]}
		m["image"] = false
		if i%10 == 0 {
			name := fmt.Sprintf("ポスター-%d.png", i)
			path := "/wp-content/uploads/2026/11/" + url.PathEscape(name)
			if i%20 == 0 {
				path = "/wp-content/uploads/old/" + url.PathEscape(name) // answers with a redirect
			}
			f.images["/wp-content/uploads/2026/11/"+url.PathEscape(name)] = imagetest.PNG(320+i, 200)
			m["image"] = map[string]any{"url": fakeBase + path, "id": 9000 + i, "extension": "png", "width": 320 + i, "height": 200}
		}
		delete(m, "json_ld")
		f.events = append(f.events, m)
	}
	// Numbers as JSON has them (float64), like an answer read back.
	for _, list := range [][]map[string]any{f.cats, f.tags, f.venues, f.orgs, f.events} {
		for i := range list {
			list[i] = clone(list[i])
		}
	}
	return f
}

// render writes v as JSON with the fake's base replaced by the host the
// request came to.
func (f *fakeTEC) render(w http.ResponseWriter, r *http.Request, status int, v any, headers map[string]string) {
	b, _ := json.Marshal(v)
	b = []byte(strings.ReplaceAll(string(b), fakeBase, "http://"+r.Host))
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	for k, v := range headers {
		w.Header().Set(k, v)
	}
	w.WriteHeader(status)
	_, _ = w.Write(b) //nolint:gosec // G705: the test's fake site answers JSON it built.
}

func (f *fakeTEC) authed(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	return ok && u == fakeTECUser && p == fakeTECPassword
}

func wpError(code string, status int) map[string]any {
	return map[string]any{"code": code, "message": code, "data": map[string]any{"status": status}}
}

// page answers a TEC list: per_page clamped to 50, next_rest_url as TEC
// writes it.
func (f *fakeTEC) page(w http.ResponseWriter, r *http.Request, key string, items []map[string]any) {
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 10
	}
	per = min(per, 50)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	total := len(items)
	pages := max((total+per-1)/per, 1)
	if page > pages {
		f.render(w, r, 404, wpError("rest_event_invalid_page_number", 404), nil)
		return
	}
	from, to := (page-1)*per, min(page*per, total)
	body := map[string]any{key: items[from:to], "total": total, "total_pages": pages}
	self := func(p int) string {
		parts := []string{"page=" + strconv.Itoa(p), "per_page=" + strconv.Itoa(per)}
		for _, k := range slices.Sorted(maps.Keys(q)) {
			if k != "page" && k != "per_page" {
				parts = append(parts, k+"="+q.Get(k)) // unencoded, as TEC
			}
		}
		return fakeBase + r.URL.Path + "?" + strings.Join(parts, "&")
	}
	body["rest_url"] = self(page)
	if page < pages {
		body["next_rest_url"] = self(page + 1)
	}
	f.render(w, r, 200, body, map[string]string{"X-TEC-Total": strconv.Itoa(total), "X-TEC-TotalPages": strconv.Itoa(pages)})
}

func (f *fakeTEC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, _ := f.hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	p := r.URL.Path
	q := r.URL.Query()
	const ns = "/wp-json/tribe/events/v1"
	visible := func(m map[string]any) bool { return m["status"] == "publish" || f.authed(r) }
	switch {
	case p == ns+"/":
		f.render(w, r, 200, map[string]any{"namespace": "tribe/events/v1", "routes": map[string]any{}}, nil)
	case p == ns+"/events":
		var list []map[string]any
		from := time.Now().UTC().Add(-24 * time.Hour).Format(time.DateTime) // TEC's default: upcoming only
		if q.Get("start_date") != "" {
			from = q.Get("start_date")
		}
		for _, e := range f.events {
			if visible(e) && e["hide_from_listings"] != true && e["utc_end_date"].(string) >= from {
				list = append(list, e)
			}
		}
		f.page(w, r, "events", list)
	case strings.HasPrefix(p, ns+"/events/"):
		id, _ := strconv.Atoi(strings.TrimPrefix(p, ns+"/events/"))
		for _, e := range f.events {
			if e["id"] == float64(id) {
				if !visible(e) {
					f.render(w, r, 401, wpError("rest_forbidden", 401), nil)
					return
				}
				f.render(w, r, 200, e, nil)
				return
			}
		}
		f.render(w, r, 404, wpError("rest_event_invalid_id", 404), nil)
	case p == ns+"/venues", p == ns+"/organizers":
		if p == ns+"/organizers" && q.Get("page") == "2" && f.once429.CompareAndSwap(false, true) {
			f.render(w, r, 429, wpError("too_many_requests", 429), map[string]string{"Retry-After": "0"})
			return
		}
		if p == ns+"/venues" {
			f.page(w, r, "venues", f.venues)
		} else {
			f.page(w, r, "organizers", f.orgs)
		}
	case p == ns+"/categories", p == ns+"/tags":
		terms, key := f.cats, "categories"
		if p == ns+"/tags" {
			terms, key = f.tags, "tags"
		}
		if q.Get("hide_empty") != "false" { // TEC's default: only terms with events
			var used []map[string]any
			for _, t := range terms {
				if f.termUsed(key, t["id"]) {
					used = append(used, t)
				}
			}
			terms = used
		}
		f.page(w, r, key, terms)
	case p == "/wp-json/wp/v2/tribe_events":
		if q.Get("status") == "any" && !f.authed(r) {
			f.render(w, r, 400, wpError("rest_invalid_param", 400), nil)
			return
		}
		var ids []map[string]any
		for _, e := range f.events {
			if visible(e) {
				ids = append(ids, map[string]any{"id": e["id"]})
			}
		}
		per, _ := strconv.Atoi(q.Get("per_page"))
		page, _ := strconv.Atoi(q.Get("page"))
		per, page = min(max(per, 1), 100), max(page, 1)
		pages := (len(ids) + per - 1) / per
		if page > pages {
			f.render(w, r, 400, wpError("rest_post_invalid_page_number", 400), nil)
			return
		}
		f.render(w, r, 200, ids[(page-1)*per:min(page*per, len(ids))], map[string]string{"X-WP-TotalPages": strconv.Itoa(pages)})
	case strings.HasPrefix(p, "/wp-json/wp/v2/users/"):
		users := map[string]map[string]any{
			"1": {"id": 1, "slug": "admin", "username": "admin", "email": "admin@example.org"},
			"2": {"id": 2, "slug": "kenji-tanaka", "username": "kenji.tanaka", "email": "Kenji@Example.jp"},
			"3": {"id": 3, "slug": "someone-else", "username": "someone", "email": "someone@example.org"},
		}
		u, ok := users[strings.TrimPrefix(p, "/wp-json/wp/v2/users/")]
		if !ok {
			f.render(w, r, 404, wpError("rest_user_invalid_id", 404), nil)
			return
		}
		u = maps.Clone(u)
		if q.Get("context") != "edit" || !f.authed(r) {
			delete(u, "username")
			delete(u, "email")
		}
		f.render(w, r, 200, u, nil)
	case strings.HasPrefix(p, "/wp-content/uploads/old/"):
		//nolint:gosec // G710: the fake site redirects to its own path, as WordPress does for a moved upload.
		http.Redirect(w, r, "/wp-content/uploads/2026/11/"+strings.TrimPrefix(r.URL.EscapedPath(), "/wp-content/uploads/old/"), http.StatusMovedPermanently)
	case strings.HasPrefix(p, "/wp-content/uploads/"):
		b, ok := f.images[r.URL.EscapedPath()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(b)
	default:
		f.render(w, r, 404, wpError("rest_no_route", 404), nil)
	}
}

func (f *fakeTEC) termUsed(key string, id any) bool {
	for _, e := range f.events {
		for _, t := range e[key].([]any) {
			if t.(map[string]any)["id"] == id {
				return true
			}
		}
	}
	return false
}

func basicHeader(login, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(login+":"+password))
}
