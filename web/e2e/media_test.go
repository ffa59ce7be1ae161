package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
)

// An author uploads an image in the admin's media library (the file input
// set as a drop would set it; media.js sends it with a progress bar), sees
// it in the grid, and reads it back through the API with its sizes.
func TestMediaUploadInTheAdmin(t *testing.T) {
	srv := browsertest.StartServer(t)
	author := srv.User(t, models.RoleAuthor)
	file := filepath.Join(t.TempDir(), "harbour.jpg")
	if err := os.WriteFile(file, imagetest.JPEG(800, 600), 0o600); err != nil {
		t.Fatal(err)
	}
	p := srv.Page(t)
	p.SignIn(author)
	if st := p.ClickAndWait(`[data-testid="nav-media"]`); st != http.StatusOK {
		t.Fatalf("media page: %d", st)
	}
	p.WaitVisible(`[data-testid="media-empty"]`)
	p.SetFiles(`#media-file`, file)
	p.Fill(`[data-testid="media-form"]`, "alt_text", "The harbour at dusk")
	p.Click(`[data-testid="media-form"] [type=submit]`)
	p.WaitVisible(`[data-testid="media-uploaded"]`)
	p.WaitVisible(`[data-testid="media-grid"] img`)
	browsertest.WaitUntil(p, `document.querySelector('[data-testid="media-grid"] img').naturalWidth === 150`)

	st, body := srv.API(t, author, http.MethodGet, "/media", nil)
	if st != http.StatusOK {
		t.Fatalf("GET /media: %d %s", st, body)
	}
	var list struct {
		Media []struct {
			AltText string `json:"alt_text"`
			Width   int    `json:"width"`
			Sizes   map[string]struct {
				Width int `json:"width"`
			} `json:"sizes"`
		} `json:"media"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Media) != 1 || list.Media[0].AltText != "The harbour at dusk" || list.Media[0].Width != 800 ||
		list.Media[0].Sizes["medium"].Width != 300 || list.Media[0].Sizes["thumbnail"].Width != 150 {
		t.Fatalf("library = %s", body)
	}
}

// An author on the page of their image sees the records that use it and
// that they may read, the others as a count; a delete with unlink sent from
// a page loaded before others' records used the image is refused (403) in
// their language, and the image stays. With KALENDS_SCREENSHOTS set, both
// pages are kept there (desktop and phone) for a look.
func TestMediaPageHidesOthersUsesInTheBrowser(t *testing.T) {
	srv := browsertest.StartServer(t, "--media-store", "db")
	ctx := context.Background()
	b := bundle(t)
	ed := srv.User(t, models.RoleEditor)
	other := srv.User(t, models.RoleAuthor)
	for _, lang := range []string{"en", "ja"} {
		login := "chosha-" + lang
		u, err := srv.DB.CreateUser(ctx, models.Console, models.NewUser{Login: login, Password: "pw-" + login + "-long-enough",
			Role: models.RoleAuthor, Locale: lang, DisplayName: "Author " + lang})
		if err != nil {
			t.Fatal(err)
		}
		author := browsertest.Account{ID: u.ID, Login: login, Password: "pw-" + login + "-long-enough", Role: models.RoleAuthor, User: u}
		m, err := srv.DB.CreateMedia(ctx, u, models.MediaUpload{FileName: "harbour.png", Title: "Harbour at dusk", Data: imagetest.PNG(800, 500)})
		if err != nil {
			t.Fatal(err)
		}
		page := "/admin/media/" + strconv.FormatInt(m.ID, 10)
		use := func(as *models.User, title, status string) {
			in := models.EventInput{Title: &title, StartDate: ptr("2031-06-01 19:00:00"), EndDate: ptr("2031-06-01 21:00:00"),
				ImageURL: ptr(strconv.FormatInt(m.ID, 10))}
			in.Status = &status
			if _, err := srv.DB.CreateEvent(ctx, as, in); err != nil {
				t.Fatal(err)
			}
		}
		use(u, "Atelier photo du port — 港の写真教室", models.StatusDraft)

		p := srv.Page(t)
		p.SignIn(author)
		if st := p.Visit(page); st != 200 {
			t.Fatalf("image page: %d", st)
		}
		p.WaitVisible(`[data-testid="media-delete-unlink"]`)
		// Meanwhile other users' records start showing the image.
		use(other.User, "Secret draft of another author", models.StatusDraft)
		use(ed.User, "Harbour festival 2031 — 港まつり", models.StatusPublish)
		if _, _, err := srv.DB.Venues().Create(ctx, ed.User, models.VenueInput{PostInput: models.PostInput{Status: ptr(models.StatusPrivate)},
			Venue: ptr("Private pier lounge " + lang), ImageURL: ptr(strconv.FormatInt(m.ID, 10))}, "en"); err != nil {
			t.Fatal(err)
		}
		if st := p.ClickAndWait(`[data-testid="media-delete-unlink"]`); st != 403 {
			t.Fatalf("the stale delete with unlink: %d", st)
		}
		want := b.T(lang, "media.error.uses_not_editable", map[string]any{"Count": 3})
		if got := p.Text(`[data-testid="media-error"]`); got != want {
			t.Errorf("refusal = %q, want %q", got, want)
		}
		shots(t, p, "media-delete-refused-"+lang)
		if _, err := srv.DB.Media(ctx, m.ID); err != nil {
			t.Fatalf("the image after the refusal: %v", err)
		}

		if st := p.Visit(page); st != 200 {
			t.Fatalf("image page: %d", st)
		}
		if n := p.Count(`[data-testid="media-use-list"] li`); n != 2 {
			t.Errorf("%d uses listed, want the author's draft and the published event", n)
		}
		if html := p.HTML(); strings.Contains(html, "Secret draft") || strings.Contains(html, "Private pier") {
			t.Error("the page names a record the author may not read")
		}
		if got, want := p.Text(`[data-testid="media-uses-hidden"]`), b.T(lang, "media.admin.uses_hidden_more", map[string]any{"Count": 2}); got != want {
			t.Errorf("hidden = %q, want %q", got, want)
		}
		p.WaitVisible(`[data-testid="media-delete-blocked"]`)
		shots(t, p, "media-uses-hidden-"+lang)

		// An editor reads them all, a series once, and may delete.
		day := time.Now().UTC().AddDate(0, 0, 3).Format(time.DateOnly)
		in := models.EventInput{Title: ptr("Morning yoga on the pier — 朝ヨガ"), StartDate: ptr(day + " 07:00:00"),
			EndDate: ptr(day + " 08:00:00"), ImageURL: ptr(strconv.FormatInt(m.ID, 10)), Recurrence: ptr("FREQ=WEEKLY;COUNT=6")}
		if _, err := srv.DB.CreateEvent(ctx, ed.User, in); err != nil {
			t.Fatal(err)
		}
		pe := srv.Page(t)
		pe.SignIn(ed)
		if st := pe.VisitIn(lang, page); st != 200 {
			t.Fatalf("image page (editor): %d", st)
		}
		if n := pe.Count(`[data-testid="media-use-list"] li`); n != 5 || pe.Count(`[data-testid="media-uses-hidden"]`) != 0 {
			t.Errorf("the editor sees %d uses, want 5 (a series once)", n)
		}
		if got, want := pe.Text(`[data-testid="media-use-list"] .badge-series`), b.T(lang, "media.admin.series_dates", map[string]any{"Count": 6}); got != want {
			t.Errorf("series = %q, want %q", got, want)
		}
		pe.WaitVisible(`[data-testid="media-delete-unlink"]`)
		shots(t, pe, "media-uses-editor-"+lang)
	}
}

// shots keeps the current page in the folder KALENDS_SCREENSHOTS names, if
// any, on a desktop and a phone, then goes back to the desktop.
func shots(t *testing.T, p *browsertest.Page, name string) {
	t.Helper()
	dir := os.Getenv(EnvScreenshots)
	if dir == "" {
		return
	}
	for _, sc := range screens {
		p.Viewport(sc.width, sc.height)
		file := filepath.Join(dir, name+"-"+sc.name+".png")
		p.Screenshot(file)
		checkPNG(t, file, int(sc.width))
	}
	p.Viewport(screens[0].width, screens[0].height)
}

func ptr[T any](v T) *T { return &v }
