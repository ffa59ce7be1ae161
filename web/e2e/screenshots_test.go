package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
)

// EnvScreenshots names the folder `make screenshots` fills.
const EnvScreenshots = "KALENDS_SCREENSHOTS"

// screen is a viewport of the screenshots (ADMIN-UI.md: 1440 × 900 and
// 390 × 844).
type screen struct {
	name          string
	width, height int64
}

var screens = []screen{{"desktop", 1440, 900}, {"phone", 390, 844}}

// shot is one page of the screenshots: a name and how to get there in a
// language.
type shot struct {
	name   string
	status int // expected HTTP status
	open   func(p *browsertest.Page, lang string) int
}

// viewportShots are taken of what the screen shows rather than the whole
// page: a modal dialog is drawn over the viewport, and a whole-page
// capture puts it and its backdrop halfway down a long form.
var viewportShots = map[string]bool{"image-picker": true}

// failures counts the failed sign-ins of the screenshots.
var failures int

// signedOut and signedIn are the main pages that exist so far, before and
// after signing in.
var signedOut = []shot{
	{"login", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/login") }},
	{"login-error", 401, func(p *browsertest.Page, lang string) int {
		p.VisitIn(lang, "/admin/login")
		// A login of its own per screenshot: five failures on one login
		// make the sign-in refuse it for a while (429).
		failures++
		p.Fill(loginForm, "login", fmt.Sprintf("visitor%d", failures))
		p.Fill(loginForm, "password", "not her password")
		return p.Submit(loginForm)
	}},
}

// publicIn is path on the public site in lang (its /<lang> prefix).
func publicIn(lang, path string) string {
	if lang == "en" {
		return path
	}
	return "/" + lang + path
}

// publicShots are the views of /events/ (issue 36), signed out.
var publicShots = []shot{
	{"public-list", 200, func(p *browsertest.Page, lang string) int { return p.Visit(publicIn(lang, "/events/")) }},
	{"public-month", 200, func(p *browsertest.Page, lang string) int { return p.Visit(publicIn(lang, "/events/?view=month")) }},
	{"public-day", 200, func(p *browsertest.Page, lang string) int { return p.Visit(publicIn(lang, "/events/?view=day")) }},
	{"public-photo", 200, func(p *browsertest.Page, lang string) int {
		st := p.Visit(publicIn(lang, "/events/?view=photo"))
		// The cards' images are lazy: loaded at once for the picture.
		browsertest.Eval[bool](p, `(document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager' }), true)`)
		browsertest.WaitUntil(p, `Array.from(document.images).every(i => i.complete)`)
		return st
	}},
}

var signedIn = []shot{
	{"dashboard", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/") }},
	{"events", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/events") }},
	{"calendar", 200, func(p *browsertest.Page, lang string) int {
		st := p.VisitIn(lang, "/admin/calendar")
		browsertest.WaitUntil(p, `document.querySelector('#calendar').dataset.loaded !== undefined`)
		return st
	}},
	{"event-form-error", 422, func(p *browsertest.Page, lang string) int {
		p.VisitIn(lang, fmt.Sprintf("/admin/events/%d/edit", seededEvent))
		p.Fill(eventForm, "end_date", "2020-01-01T09:00")
		return p.Submit(eventForm)
	}},
	{"event-series", 200, func(p *browsertest.Page, lang string) int {
		st := p.VisitIn(lang, fmt.Sprintf("/admin/events/%d/edit", seriesOccurrence))
		browsertest.WaitUntil(p, `!!document.querySelector('[data-testid="repeat-sentence"]')`)
		return st
	}},
	{"event-series-move", 200, func(p *browsertest.Page, lang string) int {
		return p.VisitIn(lang, fmt.Sprintf("/admin/events/%d/move", seriesOccurrence))
	}},
	{"image-picker", 200, func(p *browsertest.Page, lang string) int {
		st := p.VisitIn(lang, fmt.Sprintf("/admin/events/%d/edit", previewEvent[lang]))
		p.Click(`[data-testid="image-pick"]`)
		p.WaitVisible(`[data-testid="picker-items"]`)
		browsertest.WaitUntil(p, `[...document.querySelectorAll('[data-testid="picker-items"] img')].every(i => i.complete)`)
		return st
	}},
	{"preview", 200, func(p *browsertest.Page, lang string) int {
		p.VisitIn(lang, fmt.Sprintf("/admin/events/%d/edit", previewEvent[lang]))
		p.Fill(eventForm, "title", map[string]string{"en": "Jazz night at the harbour — new line-up (not saved yet)",
			"ja": "夏祭り盆踊り（出演者変更・未保存）"}[lang])
		// The preview opens in a new tab; here in this one, for its picture.
		browsertest.Eval[bool](p, `(() => { document.querySelector('[data-testid="preview"]').formTarget = "_self"; return true; })()`)
		return p.ClickAndWait(`[data-testid="preview"]`)
	}},
	{"translation", 200, func(p *browsertest.Page, lang string) int {
		return p.VisitIn(lang, fmt.Sprintf("/admin/events/%d/translations/ko", seededEvent))
	}},
	{"categories", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/categories") }},
	{"revision", 200, func(p *browsertest.Page, lang string) int {
		return p.VisitIn(lang, fmt.Sprintf("/admin/events/%d/revisions/1", revisedEvent))
	}},
	{"import", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/import") }},
	{"venues", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/venues") }},
	{"media", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/media") }},
	{"docs", 200, func(p *browsertest.Page, lang string) int {
		st := p.VisitIn(lang, "/admin/docs")
		p.WaitVisible(`#swagger-ui .opblock`)
		return st
	}},
	{"not-found", 404, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/no-such-page") }},
	{"users", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/users") }},
	{"user-new-error", 422, func(p *browsertest.Page, lang string) int {
		p.VisitIn(lang, "/admin/users/new")
		p.Fill(userForm, "login", "bad login")
		p.Fill(userForm, "email", "not-an-address")
		return p.Submit(userForm)
	}},
	{"user-edit", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/users/1/edit") }},
	{"settings", 200, func(p *browsertest.Page, lang string) int { return p.VisitIn(lang, "/admin/settings") }},
	{"settings-error", 422, func(p *browsertest.Page, lang string) int {
		p.VisitIn(lang, "/admin/settings")
		p.Fill(settingsForm, "accent_light", "#88ccff")
		p.Fill(settingsForm, "custom_css", `body { background: url(https://example.org/x.png) }`)
		return p.Submit(settingsForm)
	}},
	{"profile-app-password", 200, func(p *browsertest.Page, lang string) int {
		p.VisitIn(lang, "/admin/profile")
		p.Fill(appPasswordForm, "name", "Screenshot")
		return p.Submit(appPasswordForm)
	}},
}

// revisedEvent is an event seed edits once, so it has a revision.
var revisedEvent int64

// seededEvent is the first event seed creates, shown by the form and
// translation screenshots.
var seededEvent int64

// previewEvent is the event of the picker and preview screenshots in each
// language: one written in that language.
var previewEvent = map[string]int64{}

// seriesOccurrence is the second occurrence of the weekly series seed
// creates, whose form shows the recurrence editor and the scope choice.
var seriesOccurrence int64

// seed gives the dashboard something to show: upcoming events, a draft and
// one pending review, in English and Japanese.
func seed(t *testing.T, srv *browsertest.Server, a browsertest.Account) {
	t.Helper()
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format("2006-01-02") }
	for i, e := range []struct{ title, status string }{
		{"Jazz night at the harbour", "publish"},
		{"春の写真展 — Spring photography exhibition", "publish"},
		{"Community garden workday", "publish"},
		{"한국 전통 음악 공연", "draft"},
		{"Board meeting (annual general assembly with a long title that wraps)", "pending"},
	} {
		id := srv.CreateEvent(t, a, map[string]any{"title": e.title, "status": e.status,
			"start_date": day(i+1) + " 19:00:00", "end_date": day(i+1) + " 21:30:00",
			"venue": map[string]any{"venue": "Harbour Hall", "city": "Yokohama"}, "categories": []string{"Music", "Festival"},
			"tags": []string{"live"}, "cost": "¥1,000", "description": "Three bands on the pier.\n\nBring a coat: the wind from the bay is cold after dark."})
		if i == 0 {
			seededEvent, previewEvent["en"] = id, id
		}
		if i == 2 { // an edit, so the event has a revision to show
			if status, body := srv.API(t, a, http.MethodPost, fmt.Sprintf("/events/%d", id), map[string]any{
				"title": "Community garden workday and picnic", "start_date": day(i+1) + " 10:00:00", "end_date": day(i+1) + " 15:00:00",
				"cost": "Free", "tags": []string{"outdoors", "family"}}); status != http.StatusOK {
				t.Fatalf("edit: %d %s", status, body)
			}
			revisedEvent = id
		}
	}
	// A Japanese event with a picture, and pictures in the library (the
	// picker and preview screenshots).
	for i, title := range []string{"港の夕暮れ Harbour at dusk", "提灯 Lanterns", "盆踊り Bon dance", "花火 Fireworks", "屋台 Food stalls"} {
		m, err := srv.DB.CreateMedia(context.Background(), a.User, models.MediaUpload{FileName: fmt.Sprintf("summer-%d.jpg", i),
			Title: title, AltText: title, Data: imagetest.JPEG(640+40*i, 420)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			str := func(v string) *string { return &v }
			e, err := srv.DB.CreateEvent(context.Background(), a.User, models.EventInput{Title: str("夏祭り盆踊り"), Lang: "ja",
				Description: str("<p>浴衣でお越しください。屋台と花火もあります。</p>"), StartDate: str(day(6) + " 18:00"), EndDate: str(day(6) + " 21:00"),
				ImageURL: str(m.Path("full")), PostInput: models.PostInput{Status: str(models.StatusPublish)}})
			if err != nil {
				t.Fatal(err)
			}
			previewEvent["ja"] = e.ID
		}
	}
	series := srv.CreateEvent(t, a, map[string]any{"title": "Morning yoga by the river", "status": "publish",
		"start_date": day(2) + " 07:00:00", "end_date": day(2) + " 08:00:00", "categories": []string{"Sport"},
		"recurrence": map[string]any{"rrule": "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=12", "exdate": []string{day(9) + " 07:00:00"}}})
	status, body := srv.API(t, a, http.MethodGet, fmt.Sprintf("/events?per_page=2&post_parent=%d", series), nil)
	var list struct {
		Events []struct{ ID int64 } `json:"events"`
	}
	if err := json.Unmarshal(body, &list); status != http.StatusOK || err != nil || len(list.Events) < 2 {
		t.Fatalf("occurrences of the seeded series: %d %s", status, body)
	}
	seriesOccurrence = list.Events[1].ID
	seedEditorEvent(t, srv, a)
	seedWebhooks(t, srv)
}

// TestScreenshots takes the main pages in English and Japanese, on a
// desktop and a phone, light and dark, into the folder named by
// KALENDS_SCREENSHOTS (`make screenshots`: docs/screenshots). Without it,
// as part of `make test`, it takes each page once (English, desktop, light)
// into a temporary folder and checks the images.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv(EnvScreenshots)
	langs, scr, schemes := []string{"en", "ja"}, screens, []string{"light", "dark"}
	if dir == "" {
		dir = t.TempDir()
		langs, scr, schemes = langs[:1], scr[:1], schemes[:1]
	} else if os.Getenv("KALENDS_SCREENSHOTS_ONLY") == "" {
		// A whole run replaces the folder's pictures (a page that is gone
		// leaves none behind); a run of some (KALENDS_SCREENSHOTS_ONLY)
		// replaces only those it takes.
		old, _ := filepath.Glob(filepath.Join(dir, "*.png"))
		for _, f := range old {
			if err := os.Remove(f); err != nil { //nolint:gosec // G703: the PNGs of the folder the tester named.
				t.Fatal(err)
			}
		}
	}
	// KALENDS_SCREENSHOTS_ONLY (a regular expression) takes only the
	// shots whose names match.
	var only *regexp.Regexp
	if re := os.Getenv("KALENDS_SCREENSHOTS_ONLY"); re != "" {
		only = regexp.MustCompile(re)
	}
	var calendar string
	host := hostSite(t, &calendar) // another site, which embeds the calendar
	// The library's pictures are made through srv.DB.
	srv := browsertest.StartServer(t, "--media-store", "db", "--embed-origins", host.URL)
	calendar = srv.URL
	ed := srv.User(t, models.RoleEditor)
	admin := srv.User(t, models.RoleAdministrator)
	seed(t, srv, ed)
	seedSessions(t, srv, admin) // the profile lists them
	for _, lang := range langs {
		for _, sc := range scr {
			for _, scheme := range schemes {
				p := srv.Page(t)
				p.Viewport(sc.width, sc.height)
				p.ColorScheme(scheme)
				take := func(shots []shot) {
					for _, s := range shots {
						if only != nil && !only.MatchString(s.name) {
							continue
						}
						if st := s.open(p, lang); st != s.status {
							t.Errorf("%s: status %d, want %d", s.name, st, s.status)
						}
						file := filepath.Join(dir, fmt.Sprintf("%s-%s-%s-%s.png", s.name, lang, sc.name, scheme))
						if viewportShots[s.name] {
							p.ViewportScreenshot(file)
						} else {
							p.Screenshot(file)
						}
						checkPNG(t, file, int(sc.width))
					}
				}
				take(signedOut)
				take(publicShots)
				p.SignIn(admin)
				take(signedIn)
				embedShot(t, host.URL, dir, lang, sc, scheme)
			}
		}
	}
	t.Logf("screenshots in %s", dir)
}

// checkPNG fails unless file is a PNG as wide as the viewport.
func checkPNG(t *testing.T, file string, width int) {
	t.Helper()
	b, err := os.ReadFile(file) //nolint:gosec // G304: the file the test just wrote.
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if cfg.Width != width || cfg.Height < 100 {
		t.Errorf("%s: %d × %d, want %d wide", file, cfg.Width, cfg.Height, width)
	}
}

// embedShot takes the month embedded in another site's page (/embed.js),
// once the frame has its content's height.
func embedShot(t *testing.T, host, dir, lang string, sc screen, scheme string) {
	t.Helper()
	p := browsertest.NewPage(t, host)
	p.Viewport(sc.width, sc.height)
	p.ColorScheme(scheme)
	p.Visit("/?embed=" + url.QueryEscape("view=month&lang="+lang))
	browsertest.WaitUntil(p, `(() => { const f = document.querySelector('div[data-kalends-events] iframe');
		return f && f.dataset.kalendsHeight && f.dataset.kalendsHeight !== "480"; })()`)
	file := filepath.Join(dir, fmt.Sprintf("embed-month-%s-%s-%s.png", lang, sc.name, scheme))
	p.Screenshot(file)
	checkPNG(t, file, int(sc.width))
}
