package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// publicFixture is one record of each kind, translated into every
// language, and a draft event.
type publicFixture struct {
	event, venue, organizer, draft int64
	category, tag                  int64
}

func seedPublic(t *testing.T, db *models.DB) publicFixture {
	t.Helper()
	ctx := context.Background()
	admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "correct horse battery", Role: models.RoleAdministrator})
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	lat, lng := 35.6586, 139.7454
	v, _, err := db.Venues().Create(ctx, admin, models.VenueInput{Venue: s("Hall"), City: s("Tokyo"), GeoLat: &lat, GeoLng: &lng}, "en")
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := db.Organizers().Create(ctx, admin, models.OrganizerInput{Organizer: s("Crew"), Email: s("crew@example.test")}, "en")
	if err != nil {
		t.Fatal(err)
	}
	in := models.EventInput{Title: s("Concert"), Description: s("<p>Music & more</p>"), StartDate: s("2030-05-01 19:00"),
		EndDate: s("2030-05-01 21:00"), Timezone: s("Asia/Tokyo"), Cost: s(`"2000"`), Lang: "en",
		Categories: &[]models.TermRef{{Name: "Music"}}, Tags: &[]models.TermRef{{Name: "live"}},
		Venues: &[]models.VenueRef{{ID: v.ID}}, Organizers: &[]models.OrganizerRef{{ID: o.ID}}}
	in.Status = s(models.StatusPublish)
	e, err := db.CreateEvent(ctx, admin, in)
	if err != nil {
		t.Fatal(err)
	}
	draftIn := models.EventInput{Title: s("Secret"), StartDate: s("2030-05-02 10:00"), EndDate: s("2030-05-02 11:00"), Lang: "en"}
	draftIn.Status = s(models.StatusDraft)
	d, err := db.CreateEvent(ctx, admin, draftIn)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range i18n.Codes {
		if lang == "en" {
			continue
		}
		name := func(base string) *string { return s(base + " " + lang) }
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(e.ID), models.EventInput{Title: name("Concert"), Lang: lang}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Venues().Update(ctx, admin, models.ByID(v.ID), models.VenueInput{Venue: name("Hall")}, lang); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Organizers().Update(ctx, admin, models.ByID(o.ID), models.OrganizerInput{Organizer: name("Crew")}, lang); err != nil {
			t.Fatal(err)
		}
		for _, tm := range []*models.Term{e.Categories[0], e.Tags[0]} {
			if _, err := db.UpdateTerm(ctx, admin, tm.Taxonomy, tm.ID, models.TermInput{Name: name(tm.Name)}, lang); err != nil {
				t.Fatal(err)
			}
		}
	}
	return publicFixture{event: e.ID, venue: v.ID, organizer: o.ID, draft: d.ID, category: e.Categories[0].ID, tag: e.Tags[0].ID}
}

// apiJSON GETs an API path and decodes the object.
func apiJSON(t *testing.T, app interface {
	Test(*http.Request, ...int) (*http.Response, error)
}, path string) map[string]any {
	t.Helper()
	res, err := app.Test(httptest.NewRequest("GET", path, nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return m
}

var (
	ldRE       = regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`)
	h1RE       = regexp.MustCompile(`(?s)<h1>(.*?)</h1>`)
	hreflangRE = regexp.MustCompile(`<link rel="alternate" hreflang="([^"]+)" href="([^"]+)"`)
)

// TestEveryRecordURLLeadsToItsPublicPage follows the url the API gives each
// kind of record, in every language (by path prefix and by ml_language): a
// 200 page with the record's title in that language, its JSON-LD (equal to
// the API's json_ld where the API has one) and hreflang links to all four
// languages. Drafts have no page.
func TestEveryRecordURLLeadsToItsPublicPage(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		fx := seedPublic(t, db)
		const base = "http://example.test"
		type kind struct {
			name, path, titleKey string
			base                 string // the title in English
		}
		kinds := []kind{
			{"event", "/cal/events/v1/events/" + itoa(fx.event), "title", "Concert"},
			{"venue", "/cal/events/v1/venues/" + itoa(fx.venue), "venue", "Hall"},
			{"organizer", "/cal/events/v1/organizers/" + itoa(fx.organizer), "organizer", "Crew"},
			{"category", "/cal/events/v1/categories/" + itoa(fx.category), "name", "Music"},
			{"tag", "/cal/events/v1/tags/" + itoa(fx.tag), "name", "live"},
		}
		for _, lang := range i18n.Codes {
			for _, how := range []string{"prefix", "ml_language"} {
				for _, k := range kinds {
					path := k.path + "?ml_language=" + lang
					if how == "prefix" {
						path = "/" + lang + k.path
					}
					rec := apiJSON(t, app, path)
					u, _ := rec["url"].(string)
					if !strings.HasPrefix(u, base+"/") {
						t.Fatalf("%s %s: url %q", lang, k.name, u)
					}
					res, page := do(t, app, httptest.NewRequest("GET", strings.TrimPrefix(u, base), nil))
					if res.StatusCode != http.StatusOK {
						t.Fatalf("%s (%s) %s: GET %s: %d", lang, how, k.name, u, res.StatusCode)
					}
					want := k.base
					if lang != "en" {
						want += " " + lang
					}
					if m := h1RE.FindStringSubmatch(page); m == nil || html.UnescapeString(m[1]) != want {
						t.Errorf("%s (%s) %s: title %q, want %q", lang, how, k.name, m, want)
					}
					if got := rec[k.titleKey]; got != want {
						t.Errorf("%s (%s) %s: API %s %v, want %q", lang, how, k.name, k.titleKey, got, want)
					}
					if !strings.Contains(page, `<html lang="`+i18n.Tag(lang).String()+`"`) {
						t.Errorf("%s %s: no <html lang>", lang, k.name)
					}
					langs := map[string]bool{}
					for _, m := range hreflangRE.FindAllStringSubmatch(page, -1) {
						langs[m[1]] = true
					}
					for _, code := range i18n.Codes {
						if !langs[i18n.Tag(code).String()] {
							t.Errorf("%s %s: no hreflang %s (have %v)", lang, k.name, i18n.Tag(code), langs)
						}
					}
					m := ldRE.FindStringSubmatch(page)
					if m == nil {
						t.Fatalf("%s %s: no JSON-LD", lang, k.name)
					}
					var ld map[string]any
					if err := json.Unmarshal([]byte(m[1]), &ld); err != nil {
						t.Fatalf("%s %s: JSON-LD does not parse: %v\n%s", lang, k.name, err, m[1])
					}
					if k.name == "event" || k.name == "venue" || k.name == "organizer" {
						single := apiJSON(t, app, path) // single reads carry json_ld
						apiLD, _ := single["json_ld"].(map[string]any)
						if k.name != "event" { // the page's object adds the @context the embedded one omits
							delete(ld, "@context")
						}
						if !reflect.DeepEqual(ld, apiLD) {
							t.Errorf("%s (%s) %s: page JSON-LD\n%v\nAPI json_ld\n%v", lang, how, k.name, ld, apiLD)
						}
					}
				}
			}
		}

		// A draft: 404 by its url, to the public.
		res, _ := do(t, app, httptest.NewRequest("GET", "/?post_type=tribe_events&p="+itoa(fx.draft), nil))
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("draft url: %d, want 404", res.StatusCode)
		}
		d, err := db.GetEvent(context.Background(), models.Console, models.ByID(fx.draft), "en")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"/event/" + d.Slug + "/", "/ja/event/" + d.Slug + "/", "/event/no-such-event/", "/venue/nope/", "/tag/nope/"} {
			if res, _ := do(t, app, httptest.NewRequest("GET", p, nil)); res.StatusCode != http.StatusNotFound {
				t.Errorf("%s: %d, want 404", p, res.StatusCode)
			}
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestPublicSiteRootSitemapAndValidators: / leads to the list, the sitemap
// lists public records only, pages answer If-None-Match with 304 and
// carry the API discovery link, bad arguments never give a 500.
func TestPublicSiteRootSitemapAndValidators(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		fx := seedPublic(t, db)
		res, _ := do(t, app, httptest.NewRequest("GET", "/", nil))
		if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/events/" {
			t.Errorf("/: %d to %q, want 302 to /events/", res.StatusCode, res.Header.Get("Location"))
		}
		res, _ = do(t, app, httptest.NewRequest("GET", "/ja/", nil))
		if res.Header.Get("Location") != "/ja/events/" {
			t.Errorf("/ja/: to %q, want /ja/events/", res.Header.Get("Location"))
		}
		res, page := do(t, app, httptest.NewRequest("GET", "/events/", nil))
		if res.StatusCode != http.StatusOK || !strings.Contains(page, "Concert") || strings.Contains(page, "Secret") {
			t.Errorf("/events/: %d, lists the concert and not the draft?\n%s", res.StatusCode, page)
		}
		if l := res.Header.Get("Link"); !strings.Contains(l, `/cal/events/v1/>; rel="https://api.w.org/"`) {
			t.Errorf("Link header %q", l)
		}
		tag := res.Header.Get("ETag")
		req := httptest.NewRequest("GET", "/events/", nil)
		req.Header.Set("If-None-Match", tag)
		if res, _ := do(t, app, req); tag == "" || res.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match %q: %d, want 304", tag, res.StatusCode)
		}
		for _, p := range []string{"/events/?page=abc", "/events/?page=99999999999", "/events/?categories=nope", "/events/?venue=x",
			"/events/?search=" + strings.Repeat("a", 300), "/?post_type=tribe_events&p=abc", "/?post_type=nope&p=1",
			"/venue/" + strings.Repeat("x", 3000) + "/"} {
			res, _ := do(t, app, httptest.NewRequest("GET", p, nil))
			if res.StatusCode >= 500 {
				t.Errorf("%s: %d", p[:min(len(p), 60)], res.StatusCode)
			}
		}
		res, page = do(t, app, httptest.NewRequest("GET", "/ja/events/?view=month&month=2030-05", nil))
		if res.StatusCode != http.StatusOK || !strings.Contains(page, "2030年5月") || !strings.Contains(page, "Concert ja") ||
			!strings.Contains(page, `data-testid="month-grid"`) {
			t.Errorf("month grid: %d", res.StatusCode)
		}
		for _, m := range []string{"2030-13", "x", "99999-01"} {
			if res, _ := do(t, app, httptest.NewRequest("GET", "/events/?view=month&month="+m, nil)); res.StatusCode != http.StatusNotFound {
				t.Errorf("month %s: %d, want 404", m, res.StatusCode)
			}
		}
		res, page = do(t, app, httptest.NewRequest("GET", "/events/?search=concert", nil))
		if res.StatusCode != http.StatusOK || !strings.Contains(page, "Concert") {
			t.Errorf("search: %d", res.StatusCode)
		}
		// The sitemap is an index: its children list the pages.
		res, body := do(t, app, httptest.NewRequest("GET", "/sitemap.xml", nil))
		var index struct {
			Sitemaps []struct {
				Loc string `xml:"loc"`
			} `xml:"sitemap"`
		}
		if err := xml.Unmarshal([]byte(body), &index); err != nil || res.StatusCode != http.StatusOK || len(index.Sitemaps) == 0 {
			t.Fatalf("sitemap: %d, %v\n%s", res.StatusCode, err, body)
		}
		locs := map[string]bool{}
		for _, sm := range index.Sitemaps {
			res, child := do(t, app, httptest.NewRequest("GET", strings.TrimPrefix(sm.Loc, "http://example.test"), nil))
			var set struct {
				URLs []struct {
					Loc string `xml:"loc"`
				} `xml:"url"`
			}
			if err := xml.Unmarshal([]byte(child), &set); err != nil || res.StatusCode != http.StatusOK {
				t.Fatalf("sitemap %s: %d, %v", sm.Loc, res.StatusCode, err)
			}
			for _, u := range set.URLs {
				locs[u.Loc] = true
			}
			body += child
		}
		ev, err := db.GetEvent(context.Background(), models.Console, models.ByID(fx.event), "en")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"/event/" + ev.Slug + "/", "/venue/hall/", "/organizer/crew/", "/events/category/music/", "/tag/live/"} {
			if !locs["http://example.test"+want] {
				t.Errorf("sitemap lacks %s (has %v)", want, locs)
			}
		}
		if strings.Contains(body, "secret") {
			t.Error("the sitemap lists the draft")
		}
	})
}
