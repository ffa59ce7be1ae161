package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	xhtml "golang.org/x/net/html"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// crawlBase is the site's base URL in the crawl: links to it are the site's.
const crawlBase = "http://example.test"

// crawlCap bounds the crawl: a site of these few records has far fewer
// addresses, so reaching it means the crawl found a trap.
const crawlCap = 20_000

// crawlRecord is one public record and the title its page shows in each
// language.
type crawlRecord struct {
	kind, api string // the API's item path
	titles    map[string]string
}

// seedCrawl seeds records of every kind named in Chinese, Japanese,
// Korean, accented Latin and ASCII, each translated into Japanese, a
// weekly series with no end, and a draft; it returns the draft's slug.
func seedCrawl(t *testing.T, db *models.DB) (draftSlug string) {
	t.Helper()
	ctx := context.Background()
	admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "correct horse battery", Role: models.RoleAdministrator})
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	ja := func(name string) *string { return s(name + "（日本語）") }
	venues := []string{"北京音乐厅", "東京ホール", "서울 아트센터", "Café Crème", "Main Hall"}
	organizers := []string{"音乐协会", "さくら企画", "한빛 기획", "Société Générale", "City Arts"}
	categories := []string{"音乐", "演劇", "공연", "Théâtre", "Sports"}
	tags := []string{"户外", "無料", "가족", "été", "kids"}
	titles := []string{"春季音乐节", "夏祭り", "한여름 밤의 콘서트", "Fête de la Musique", "Jazz Night"}
	var vids, oids []int64
	for i := range venues {
		v, _, err := db.Venues().Create(ctx, admin, models.VenueInput{Venue: s(venues[i]), City: s("Zürich"),
			Description: s("<p>" + venues[i] + "</p>")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Venues().Update(ctx, admin, models.ByID(v.ID), models.VenueInput{Venue: ja(venues[i])}, "ja"); err != nil {
			t.Fatal(err)
		}
		o, _, err := db.Organizers().Create(ctx, admin, models.OrganizerInput{Organizer: s(organizers[i]), Email: s("crew@example.test")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Organizers().Update(ctx, admin, models.ByID(o.ID), models.OrganizerInput{Organizer: ja(organizers[i])}, "ja"); err != nil {
			t.Fatal(err)
		}
		vids, oids = append(vids, v.ID), append(oids, o.ID)
	}
	now := time.Now().UTC()
	day := func(d int) string { return now.AddDate(0, 0, d).Format("2006-01-02") }
	for i, title := range titles {
		in := models.EventInput{Title: s(title), Description: s("<p>" + title + " & more</p>"), StartDate: s(day(10*i+3) + " 19:00"),
			EndDate: s(day(10*i+3) + " 21:00"), Lang: "en",
			Categories: &[]models.TermRef{{Name: categories[i]}, {Name: categories[(i+1)%5]}}, Tags: &[]models.TermRef{{Name: tags[i]}},
			Venues: &[]models.VenueRef{{ID: vids[i]}}, Organizers: &[]models.OrganizerRef{{ID: oids[i]}}}
		in.Status = s(models.StatusPublish)
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(e.ID), models.EventInput{Title: ja(title), Lang: "ja"}); err != nil {
			t.Fatal(err)
		}
	}
	// Every term gets a Japanese name.
	for _, tax := range []string{models.TaxCategory, models.TaxTag} {
		p, err := db.ListTerms(ctx, admin, models.TermFilter{Taxonomy: tax, PerPage: 100, Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		for _, tm := range p.Items {
			if _, err := db.UpdateTerm(ctx, admin, tax, tm.ID, models.TermInput{Name: ja(tm.Name)}, "ja"); err != nil {
				t.Fatal(err)
			}
		}
	}
	series := models.EventInput{Title: s("毎週の朝市"), StartDate: s(day(-20) + " 08:00"), EndDate: s(day(-20) + " 11:00"), Lang: "en",
		Recurrence: s("FREQ=WEEKLY"), Venues: &[]models.VenueRef{{ID: vids[1]}}, Categories: &[]models.TermRef{{Name: categories[1]}}}
	series.Status = s(models.StatusPublish)
	se, err := db.CreateEvent(ctx, admin, series)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateEvent(ctx, admin, models.ByID(se.ID), models.EventInput{Title: ja("毎週の朝市"), Lang: "ja"}); err != nil {
		t.Fatal(err)
	}
	draft := models.EventInput{Title: s("非公開の下書き"), StartDate: s(day(5) + " 10:00"), EndDate: s(day(5) + " 11:00"), Lang: "en",
		Venues: &[]models.VenueRef{{ID: vids[0]}}}
	draft.Status = s(models.StatusDraft)
	d, err := db.CreateEvent(ctx, admin, draft)
	if err != nil {
		t.Fatal(err)
	}
	return d.Slug
}

// crawler walks the site as a search engine does.
type crawler struct {
	t       *testing.T
	app     *fiber.App
	queue   []string
	seen    map[string]string // address: where it was found
	broken  []string
	visited int
	pages   map[string]string // address of an HTML page: its body
	feeds   map[string]string // address of a calendar: its body
	maps    map[string]string // address of a sitemap: its body
}

func (c *crawler) add(target, from string) {
	u, err := url.Parse(target)
	if err != nil {
		c.broken = append(c.broken, fmt.Sprintf("%q (from %s): %v", target, from, err))
		return
	}
	base := crawlBase + "/"
	if strings.HasPrefix(from, "/") {
		base = crawlBase + from
	}
	if f, err := url.Parse(base); err == nil {
		u = f.ResolveReference(u)
	}
	if u.Scheme != "http" || u.Host != "example.test" {
		return // another site, mailto:, webcal: (the same feed as its http address)
	}
	u.Fragment = ""
	addr := u.RequestURI()
	if strings.HasPrefix(addr, "/admin/") || addr == "/admin" {
		return
	}
	if _, ok := c.seen[addr]; ok {
		return
	}
	c.seen[addr] = from
	c.queue = append(c.queue, addr)
}

var (
	crawlRobotsRE = regexp.MustCompile(`(?i)<meta name="robots" content="([^"]*)"`)
	icsURLRE      = regexp.MustCompile(`(?m)^URL(?:;[^:]*)?:(.*)$`)
	xmlLinkRE     = regexp.MustCompile(`<loc>([^<]*)</loc>|href="([^"]*)"`)
)

func (c *crawler) run() {
	for len(c.queue) > 0 {
		if c.visited >= crawlCap {
			c.t.Fatalf("the crawl did not end after %d addresses: a trap? (next: %s, from %s)", c.visited, c.queue[0], c.seen[c.queue[0]])
		}
		addr := c.queue[0]
		c.queue = c.queue[1:]
		c.visited++
		req := httptest.NewRequest("GET", "/", nil)
		req.RequestURI = addr
		res, err := c.app.Test(req, -1)
		if err != nil {
			c.t.Fatalf("GET %s: %v", addr, err)
		}
		body, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		switch {
		case res.StatusCode >= 300 && res.StatusCode < 400:
			loc := res.Header.Get("Location")
			if u, err := url.Parse(loc); err != nil || u.Host != "" && u.Host != "example.test" {
				c.broken = append(c.broken, fmt.Sprintf("%s (from %s): redirects off the site to %q", addr, c.seen[addr], loc))
				continue
			}
			c.add(loc, addr)
			continue
		case res.StatusCode != http.StatusOK:
			c.broken = append(c.broken, fmt.Sprintf("%s (from %s): %d", addr, c.seen[addr], res.StatusCode))
			continue
		}
		ct := res.Header.Get("Content-Type")
		switch {
		case strings.HasPrefix(ct, "text/html"):
			c.pages[addr] = string(body)
			c.links(addr, body)
		case strings.HasPrefix(ct, "text/calendar"):
			c.feeds[addr] = string(body)
			unfolded := strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n ", ""), "\r\n", "\n")
			for _, m := range icsURLRE.FindAllStringSubmatch(unfolded, -1) {
				c.add(strings.TrimSpace(m[1]), addr)
			}
		case strings.Contains(ct, "xml"):
			c.maps[addr] = string(body)
			for _, m := range xmlLinkRE.FindAllStringSubmatch(string(body), -1) {
				c.add(html.UnescapeString(m[1]+m[2]), addr)
			}
		}
	}
}

// links queues what a search engine follows on a page: every href and
// src, except rel="nofollow" ones and all of a page whose robots meta says
// nofollow; and the URLs of its JSON-LD.
func (c *crawler) links(addr string, body []byte) {
	if m := crawlRobotsRE.FindSubmatch(body); m != nil && strings.Contains(strings.ToLower(string(m[1])), "nofollow") {
		return
	}
	z := xhtml.NewTokenizer(bytes.NewReader(body))
	inLD := false
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return
		case xhtml.TextToken:
			if inLD {
				var v any
				if err := json.Unmarshal(z.Text(), &v); err != nil {
					c.broken = append(c.broken, fmt.Sprintf("%s: JSON-LD does not parse: %v", addr, err))
				}
				walkStrings(v, func(s string) {
					if strings.HasPrefix(s, crawlBase+"/") {
						c.add(s, addr)
					}
				})
			}
		case xhtml.EndTagToken:
			inLD = false
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			attrs := map[string]string{}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				attrs[string(k)] = string(v)
			}
			if string(name) == "script" && attrs["type"] == "application/ld+json" {
				inLD = true
			}
			if strings.Contains(" "+attrs["rel"]+" ", " nofollow ") {
				continue
			}
			for _, k := range []string{"href", "src"} {
				if v, ok := attrs[k]; ok && v != "" {
					c.add(v, addr)
				}
			}
		}
	}
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case map[string]any:
		for _, e := range x {
			walkStrings(e, f)
		}
	}
}

// TestCrawlFindsNoBrokenAddress crawls the public site anonymously, as a
// search engine would, from its entry points, the sitemap, the feeds and
// every url and link the API gives in every language: every address
// answers 200 or redirects on the site to one that does, each record's
// page shows its title in its language, the crawl ends by itself, and the
// draft is nowhere.
func TestCrawlFindsNoBrokenAddress(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		cfg := &Config{BaseURL: crawlBase, Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500, SeriesHorizonDays: 120}
		site := siteOf(cfg)
		db.UseSite(site)
		app, err := newApp(db, site, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		draft := seedCrawl(t, db)
		c := &crawler{t: t, app: app, seen: map[string]string{}, pages: map[string]string{}, feeds: map[string]string{}, maps: map[string]string{}}
		for _, p := range []string{"/", "/events/", "/sitemap.xml", "/robots.txt", "/events.ics"} {
			c.add(p, "(start)")
		}
		var records []crawlRecord
		for _, lang := range i18n.Codes {
			c.add("/"+lang+"/events/", "(start)")
			c.add("/"+lang+"/events.ics", "(start)")
			for _, l := range []struct{ path, key, title string }{
				{"events", "events", "title"}, {"venues", "venues", "venue"}, {"organizers", "organizers", "organizer"},
				{"categories", "categories", "name"}, {"tags", "tags", "name"},
			} {
				list := apiJSON(t, app, "/cal/events/v1/"+l.path+"?per_page=50&ml_language="+lang)
				items, _ := list[l.key].([]any)
				if len(items) < 5 {
					t.Fatalf("%s in %s: %d records", l.path, lang, len(items))
				}
				for _, it := range items {
					m := it.(map[string]any)
					for _, k := range []string{"url", "link"} {
						if u, ok := m[k].(string); ok && u != "" {
							if !strings.HasPrefix(u, crawlBase+"/") {
								t.Errorf("%s %v: %s %q is not on the site", l.path, m["id"], k, u)
								continue
							}
							c.add(u, "API "+l.path+" "+lang)
							if l.path == "events" && k == "url" { // its "add to calendar" link (nofollow on the page)
								c.add(strings.TrimSuffix(u, "/")+".ics", "API "+l.path+" "+lang)
							}
						}
					}
					if lang == "en" || lang == "ja" {
						u, _ := m["url"].(string)
						records = append(records, crawlRecord{kind: l.path, api: strings.TrimPrefix(u, crawlBase),
							titles: map[string]string{lang: html.UnescapeString(fmt.Sprint(m[l.title]))}})
					}
				}
			}
		}
		// A writer holds its transaction open through the whole crawl: no
		// anonymous read may wait for it. On SQLite a transaction takes
		// the write lock at BEGIN, so a read that opened one (a list
		// filtered by a term's name did) would wait out the busy timeout
		// and fail: a broken address below.
		release := modelstest.HoldWrite(t, db, nil)
		c.run()
		release()
		t.Logf("crawled %d addresses: %d pages, %d calendars, %d sitemaps; %d broken", c.visited, len(c.pages), len(c.feeds), len(c.maps), len(c.broken))
		for _, b := range c.broken {
			t.Errorf("broken: %s", b)
		}
		// Each record's page shows its title.
		h1 := regexp.MustCompile(`(?s)<h1[^>]*>(.*?)</h1>`)
		for _, r := range records {
			for lang, title := range r.titles {
				page, ok := c.pages[r.api]
				if !ok {
					t.Errorf("%s %s: page %s not crawled", r.kind, lang, r.api)
					continue
				}
				m := h1.FindStringSubmatch(page)
				if m == nil || strings.TrimSpace(html.UnescapeString(m[1])) != title {
					t.Errorf("%s: title %q, want %q", r.api, m, title)
				}
			}
		}
		if len(c.maps) < 2 {
			t.Errorf("sitemaps crawled: %d, want the index and its children", len(c.maps))
		}
		// The draft: 404 at its address, and nowhere in the sitemap or feeds.
		esc := url.PathEscape(draft)
		res, _ := do(t, app, httptest.NewRequest("GET", "/event/"+esc+"/", nil))
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("draft page: %d, want 404", res.StatusCode)
		}
		for addr, body := range mergeMaps(c.maps, c.feeds, c.pages) {
			if strings.Contains(body, esc) || strings.Contains(body, draft) || strings.Contains(body, "非公開の下書き") {
				t.Errorf("%s shows the draft", addr)
			}
		}
	})
}

func mergeMaps(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
