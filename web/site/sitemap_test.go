package site

import (
	"context"
	"encoding/xml"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/internal/respcache"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
	"github.com/kalends/kalends/web/ui"
)

// sitemapBase is the base URL of the sitemap tests' site: under a path,
// so that no URL is built from the request's host.
const sitemapBase = "https://events.example/calendar"

// newSitemapApp is the public site alone (fiber's own error handler:
// the tests read statuses) with the response cache on (as kalends serve
// runs it) and the site's default language Japanese, so the sitemap's
// URLs without a language prefix are the Japanese pages.
func newSitemapApp(t *testing.T, db *models.DB) *fiber.App {
	t.Helper()
	b, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := models.DefaultSite()
	site.BaseURL, site.DefaultLanguage = sitemapBase, "ja"
	db.UseSite(site)
	d := &ui.Deps{DB: db, I18n: b, Logger: slog.New(slog.DiscardHandler), Site: site,
		Cache: respcache.New(cachegen.New(db, 0), site, 32<<20)} // the tests write through the store, not this instance: read the generation on every request
	app := fiber.New(fiber.Config{Immutable: true})
	Register(app, d)
	return app
}

type sitemapIndexDoc struct {
	XMLName  xml.Name
	Sitemaps []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"sitemap"`
}

type sitemapURLSet struct {
	XMLName xml.Name
	URLs    []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
		Links   []struct {
			Rel      string `xml:"rel,attr"`
			Hreflang string `xml:"hreflang,attr"`
			Href     string `xml:"href,attr"`
		} `xml:"http://www.w3.org/1999/xhtml link"`
	} `xml:"url"`
}

const sitemapNS = "http://www.sitemaps.org/schemas/sitemap/0.9"

// sitemapFixture is a calendar with a public record of every kind named in
// Chinese, Japanese, Korean and accented Latin (one typed decomposed), a
// weekly series, an event hidden from listings, and records that no
// anonymous reader may see.
type sitemapFixture struct {
	public map[string]time.Time // page path (no prefix, percent-encoded) → modified (zero: none shown)
	secret []string             // slugs of records without a public page
}

func seedSitemap(t *testing.T, db *models.DB) sitemapFixture {
	t.Helper()
	ctx := context.Background()
	s := func(v string) *string { return &v }
	fx := sitemapFixture{public: map[string]time.Time{"/events/": {}}}
	page := func(prefix, slug string) string { return prefix + url.PathEscape(slug) + "/" }
	post := func(status string) models.PostInput { return models.PostInput{Status: s(status)} }
	for i, name := range []string{"東京文化会館", "세종문화회관", "Théâtre du Châtelet", "Cafe\u0301 de la Gare", "上海大剧院"} {
		v, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{PostInput: post(models.StatusPublish), Venue: s(name), City: s("Tokyo")}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		fx.public[page("/venue/", v.Slug)] = v.UpdatedAt
		o, _, err := db.Organizers().Create(ctx, models.Console, models.OrganizerInput{PostInput: post(models.StatusPublish),
			Organizer: s(fmt.Sprintf("%s 実行委員会 %d", name, i))}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		fx.public[page("/organizer/", o.Slug)] = o.UpdatedAt
	}
	for _, status := range []string{models.StatusDraft, models.StatusPending, models.StatusPrivate} {
		v, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{PostInput: post(status), Venue: s("秘密の会場 " + status)}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := db.Organizers().Create(ctx, models.Console, models.OrganizerInput{PostInput: post(status), Organizer: s("秘密の主催 " + status)}, "ja")
		if err != nil {
			t.Fatal(err)
		}
		fx.secret = append(fx.secret, v.Slug, o.Slug)
	}
	tv, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{PostInput: post(models.StatusPublish), Venue: s("捨てた会場")}, "ja")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Venues().Trash(ctx, models.Console, models.ByID(tv.ID), "ja"); err != nil {
		t.Fatal(err)
	}
	fx.secret = append(fx.secret, tv.Slug)

	event := func(title, start, status string, hidden bool, rule string) *models.Event {
		t.Helper()
		in := models.EventInput{Title: s(title), StartDate: s(start), EndDate: s(start), Timezone: s("Asia/Tokyo"), Lang: "ja",
			HideFromListings: &hidden, Categories: &[]models.TermRef{{Name: "音楽"}, {Name: "Música"}, {Name: "공연"}, {Name: "Chanson franc\u0327aise"}},
			Tags: &[]models.TermRef{{Name: "ライブ"}, {Name: "야외"}, {Name: "cafe\u0301"}, {Name: "户外"}}}
		in.Status = s(status)
		if status == models.StatusFuture {
			in.DateUTC = s(time.Now().UTC().AddDate(1, 0, 0).Format(time.DateTime))
		}
		if rule != "" {
			in.Recurrence = s(rule)
		}
		e, err := db.CreateEvent(ctx, models.Console, in)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, e := range []struct{ title, start string }{{"春季音乐节", "2030-04-05 18:00"}, {"夏祭り", "2030-07-20 17:00"},
		{"여름 축제", "2030-08-01 19:00"}, {"Fête de la musique", "2030-06-21 18:00"}, {"Nuit blanche", "2019-10-05 19:00"}} {
		event(e.title, e.start, models.StatusPublish, false, "")
	}
	event("非公開の宴", "2030-05-05 18:00", models.StatusPublish, true, "") // hidden from listings: its page is public
	// Within the series horizon, so that its occurrences are stored.
	event("毎週の朝会", time.Now().AddDate(0, 0, 7).Format(time.DateOnly)+" 08:00", models.StatusPublish, false, "FREQ=WEEKLY;COUNT=5")
	for _, status := range []string{models.StatusDraft, models.StatusPending, models.StatusPrivate, models.StatusFuture} {
		fx.secret = append(fx.secret, event("秘密の集い "+status, "2030-05-10 10:00", status, false, "").Slug)
	}
	trashed := event("捨てた集い", "2030-05-11 10:00", models.StatusPublish, false, "")
	if _, err := db.TrashEvent(ctx, models.Console, models.ByID(trashed.ID), "ja"); err != nil {
		t.Fatal(err)
	}
	fx.secret = append(fx.secret, trashed.Slug)

	// Every published event, each occurrence of the series and the hidden
	// one included: all have a public page.
	all, err := db.ListEvents(ctx, models.Console, models.EventFilter{Statuses: []string{models.StatusPublish}, IncludeHidden: true, PerPage: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Items) != 11 {
		t.Fatalf("%d published events, want 11 (five, the hidden one, five of the series)", len(all.Items))
	}
	for _, e := range all.Items {
		fx.public[page("/event/", e.Slug)] = e.UpdatedAt
	}
	for _, tax := range []string{models.TaxCategory, models.TaxTag} {
		terms, err := db.ListTerms(ctx, nil, models.TermFilter{Taxonomy: tax, PerPage: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, tm := range terms.Items {
			fx.public[page(map[string]string{models.TaxCategory: "/events/category/", models.TaxTag: "/tag/"}[tax], tm.Slug)] = time.Time{}
		}
	}
	return fx
}

// sitemapGet asks path anonymously: its status, content type and body.
func sitemapGet(t *testing.T, app *fiber.App, path string) (int, string, string) {
	t.Helper()
	res, body := do(t, app, path)
	return res.StatusCode, res.Header.Get(fiber.HeaderContentType), body
}

var sitemapChildRE = regexp.MustCompile(`^` + regexp.QuoteMeta(sitemapBase) + `/sitemap-([a-z]+)-([1-9][0-9]*)\.xml$`)

// TestSitemapIndexListsEveryPublicRecord (issue 29, item 5): /sitemap.xml is
// a sitemap index; its children, per kind and at most sitemapPerChild URLs
// each (lowered to 3 here, so each kind spans several children), together
// list every public record exactly once, as its percent-encoded page in the
// site's default language with its pages in the four languages and, for
// events, venues and organizers, its modified time; no draft, pending,
// private, scheduled or trashed record. A child that lists nothing (past
// the end, or a run of ids of other records) is 404. Both are answered
// from the response cache the second time.
func TestSitemapIndexListsEveryPublicRecord(t *testing.T) {
	saved := sitemapPerChild
	sitemapPerChild = 3
	t.Cleanup(func() { sitemapPerChild = saved })
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		fx := seedSitemap(t, db)
		app := newSitemapApp(t, db)

		status, ctype, body := sitemapGet(t, app, "/sitemap.xml")
		var index sitemapIndexDoc
		if err := xml.Unmarshal([]byte(body), &index); err != nil || status != http.StatusOK ||
			index.XMLName != (xml.Name{Space: sitemapNS, Local: "sitemapindex"}) {
			t.Fatalf("/sitemap.xml: %d %v, root %v, want a sitemapindex:\n%.600s", status, err, index.XMLName, body)
		}
		if ctype != "application/xml; charset=utf-8" {
			t.Errorf("/sitemap.xml: Content-Type %q", ctype)
		}
		listed := map[string][]int{} // kind → child numbers in the index
		seen := map[string]string{}  // loc → the child that lists it
		for _, sm := range index.Sitemaps {
			m := sitemapChildRE.FindStringSubmatch(sm.Loc)
			if m == nil {
				t.Errorf("index entry %q is not a child of this site", sm.Loc)
				continue
			}
			n, _ := strconv.Atoi(m[2])
			listed[m[1]] = append(listed[m[1]], n)
			path := strings.TrimPrefix(sm.Loc, sitemapBase)
			status, ctype, body := sitemapGet(t, app, path)
			var set sitemapURLSet
			if err := xml.Unmarshal([]byte(body), &set); err != nil || status != http.StatusOK ||
				set.XMLName != (xml.Name{Space: sitemapNS, Local: "urlset"}) || ctype != "application/xml; charset=utf-8" {
				t.Errorf("%s: %d %q %v, root %v:\n%.600s", path, status, ctype, err, set.XMLName, body)
				continue
			}
			if len(set.URLs) == 0 || len(set.URLs) > 3 {
				t.Errorf("%s lists %d URLs, want 1 to 3", path, len(set.URLs))
			}
			for _, secret := range fx.secret {
				if strings.Contains(body, url.PathEscape(secret)) {
					t.Errorf("%s lists %q, which has no public page", path, secret)
				}
			}
			for _, u := range set.URLs {
				if other, ok := seen[u.Loc]; ok {
					t.Errorf("%s is listed by %s and %s", u.Loc, other, path)
				}
				seen[u.Loc] = path
				page := strings.TrimPrefix(u.Loc, sitemapBase)
				mod, ok := fx.public[page]
				if !ok {
					t.Errorf("%s lists %s, which is no public page", path, u.Loc)
					continue
				}
				if want := ""; !mod.IsZero() {
					want = mod.UTC().Format(time.RFC3339)
					if u.LastMod != want {
						t.Errorf("%s: lastmod %q, want %q", u.Loc, u.LastMod, want)
					}
				} else if u.LastMod != "" {
					t.Errorf("%s: lastmod %q, want none", u.Loc, u.LastMod)
				}
				var alts []string
				for _, l := range u.Links {
					alts = append(alts, l.Rel+" "+l.Hreflang+" "+l.Href)
				}
				want := []string{"alternate zh-Hans " + sitemapBase + "/zh-hans" + page, "alternate en " + sitemapBase + "/en" + page,
					"alternate ja " + sitemapBase + page, "alternate ko " + sitemapBase + "/ko" + page}
				if strings.Join(alts, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s: alternates\n%s\nwant\n%s", u.Loc, strings.Join(alts, "\n"), strings.Join(want, "\n"))
				}
			}
		}
		for page := range fx.public {
			if _, ok := seen[sitemapBase+page]; !ok {
				t.Errorf("no child lists the public page %s", page)
			}
		}
		// Names in every script are percent-encoded, as the pages' own URLs.
		for _, want := range []string{"/event/" + url.PathEscape("春季音乐节") + "/", "/venue/" + url.PathEscape("세종문화회관") + "/",
			"/events/category/" + url.PathEscape("音楽") + "/", "/tag/" + url.PathEscape("ライブ") + "/"} {
			if _, ok := seen[sitemapBase+want]; !ok {
				t.Errorf("no child lists %s", want)
			}
		}
		for _, kind := range []string{"events", "venues", "organizers", "categories", "tags"} {
			if len(listed[kind]) < 2 {
				t.Errorf("the index has %d children of %s, want several at 3 URLs each", len(listed[kind]), kind)
			}
		}
		// Every child the index does not list is 404: past the end, and the
		// runs of ids that hold other kinds or only records without a page.
		for _, kind := range []string{"pages", "events", "venues", "organizers", "categories", "tags"} {
			has := map[int]bool{}
			for _, n := range listed[kind] {
				has[n] = true
			}
			last := 0
			if ns := listed[kind]; len(ns) > 0 {
				last = ns[len(ns)-1]
			}
			for n := 1; n <= last+2; n++ {
				if has[n] {
					continue
				}
				path := fmt.Sprintf("/sitemap-%s-%d.xml", kind, n)
				if status, _, _ := sitemapGet(t, app, path); status != http.StatusNotFound {
					t.Errorf("%s: %d, want 404 (not in the index)", path, status)
				}
			}
		}
		for _, path := range []string{"/sitemap-events-0.xml", "/sitemap-events-01.xml", "/sitemap-events-1", "/sitemap-events-x.xml",
			"/sitemap-events--1.xml", "/sitemap-events-99999999999999999999.xml", "/sitemap-events-2147483648.xml", "/sitemap-nope-1.xml",
			"/sitemap-.xml", "/sitemap-1.xml", "/sitemap-events-1.xml.gz"} {
			if status, _, _ := sitemapGet(t, app, path); status != http.StatusNotFound {
				t.Errorf("%s: %d, want 404", path, status)
			}
		}
		// The response cache answers both the second time.
		for _, path := range []string{"/sitemap.xml", fmt.Sprintf("/sitemap-events-%d.xml", listed["events"][0]),
			fmt.Sprintf("/sitemap-tags-%d.xml", listed["tags"][0])} {
			do(t, app, path)
			if res, _ := do(t, app, path); res.Header.Get("X-Kalends-Cache") != "hit" {
				t.Errorf("%s: X-Kalends-Cache %q the second time, want hit", path, res.Header.Get("X-Kalends-Cache"))
			}
		}
	})
}

// TestSitemapFollowsWrites: a record published, renamed or trashed shows in
// the sitemap as it is now (the cache is emptied by the write), in the same
// child: children are runs of ids, so a change never moves a record.
func TestSitemapFollowsWrites(t *testing.T) {
	saved := sitemapPerChild
	sitemapPerChild = 3
	t.Cleanup(func() { sitemapPerChild = saved })
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := newSitemapApp(t, db)
		s := func(v string) *string { return &v }
		var ids []int64
		for _, title := range []string{"一月の集い", "二月の集い", "三月の集い", "四月の集い", "五月の集い"} {
			in := models.EventInput{Title: s(title), StartDate: s("2030-01-10 10:00"), EndDate: s("2030-01-10 12:00"), Lang: "ja"}
			in.Status = s(models.StatusDraft)
			e, err := db.CreateEvent(ctx, models.Console, in)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, e.ID)
		}
		children := func() []string {
			t.Helper()
			_, _, body := sitemapGet(t, app, "/sitemap.xml")
			var index sitemapIndexDoc
			if err := xml.Unmarshal([]byte(body), &index); err != nil {
				t.Fatalf("index: %v\n%.300s", err, body)
			}
			var out []string
			for _, sm := range index.Sitemaps {
				if strings.Contains(sm.Loc, "/sitemap-events-") {
					out = append(out, strings.TrimPrefix(sm.Loc, sitemapBase))
				}
			}
			return out
		}
		if got := children(); len(got) != 0 {
			t.Fatalf("drafts only: children of events %v, want none", got)
		}
		child := fmt.Sprintf("/sitemap-events-%d.xml", (ids[4]-1)/3+1)
		if status, _, _ := sitemapGet(t, app, child); status != http.StatusNotFound {
			t.Errorf("%s of drafts: %d, want 404", child, status)
		}
		pub := models.EventInput{}
		pub.Status = s(models.StatusPublish)
		e, err := db.UpdateEvent(ctx, models.Console, models.ByID(ids[4]), pub)
		if err != nil {
			t.Fatal(err)
		}
		if got := children(); len(got) != 1 || got[0] != child {
			t.Errorf("one published: children %v, want [%s]", got, child)
		}
		_, _, body := sitemapGet(t, app, child)
		if !strings.Contains(body, "/event/"+url.PathEscape(e.Slug)+"/") {
			t.Errorf("%s lacks the published event %q:\n%s", child, e.Slug, body)
		}
		renamed, err := db.UpdateEvent(ctx, models.Console, models.ByID(ids[4]), models.EventInput{Slug: s("五月の大集会"), Lang: "ja"})
		if err != nil {
			t.Fatal(err)
		}
		_, _, body = sitemapGet(t, app, child)
		if !strings.Contains(body, "/event/"+url.PathEscape(renamed.Slug)+"/") || strings.Contains(body, url.PathEscape(e.Slug)+"/") {
			t.Errorf("%s after the rename to %q:\n%s", child, renamed.Slug, body)
		}
		if _, err := db.TrashEvent(ctx, models.Console, models.ByID(ids[4]), "ja"); err != nil {
			t.Fatal(err)
		}
		if got := children(); len(got) != 0 {
			t.Errorf("trashed: children %v, want none", got)
		}
		if status, _, _ := sitemapGet(t, app, child); status != http.StatusNotFound {
			t.Errorf("%s after the trash: %d, want 404", child, status)
		}
	})
}

// TestRobotsTxt (issue 29, item 4): /robots.txt names the sitemap and keeps
// crawlers out of the admin, as plain text from the response cache.
func TestRobotsTxt(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newSitemapApp(t, db)
		status, ctype, body := sitemapGet(t, app, "/robots.txt")
		want := "User-agent: *\nDisallow: /admin/\n\nSitemap: " + sitemapBase + "/sitemap.xml\n"
		if status != http.StatusOK || ctype != "text/plain; charset=utf-8" || body != want {
			t.Errorf("/robots.txt: %d %q\n%s\nwant\n%s", status, ctype, body, want)
		}
		if res, _ := do(t, app, "/robots.txt"); res.Header.Get("X-Kalends-Cache") != "hit" {
			t.Errorf("/robots.txt: X-Kalends-Cache %q the second time, want hit", res.Header.Get("X-Kalends-Cache"))
		}
	})
}

// TestSitemapSizeKeepsChildrenUnder50MB: the ids per child give way when
// the longest entries the site could have (255-byte slugs, every byte
// percent-encoded, five URLs) would pass the protocol's 50 MB.
func TestSitemapSizeKeepsChildrenUnder50MB(t *testing.T) {
	for _, base := range []string{"https://e.example", strings.Repeat("https://long.example/", 40)} {
		h := &handler{d: &ui.Deps{Site: &models.Site{BaseURL: base}}}
		size := h.sitemapSize()
		w := h.newSitemapWriter()
		slug := strings.Repeat("\u00e9", sitemapSlugMax/2) // 254 bytes, each percent-encoded
		for range size {
			w.url("/events/category/"+url.PathEscape(slug)+"/", time.Now())
		}
		if n := len(w.done()); n > sitemapMaxBytes || size < 1 || size > sitemapPerChild {
			t.Errorf("base of %d bytes: %d per child, %d bytes at the longest", len(base), size, n)
		}
	}
}
