package e2e

import (
	"context"
	"encoding/json"
	"fmt"
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

// libraryImages puts n images in the media library, titled with title and
// their number, the first with alt text alt.
func libraryImages(t *testing.T, srv *browsertest.Server, by browsertest.Account, n int, title, alt string) []*models.Media {
	t.Helper()
	var out []*models.Media
	for i := range n {
		a := ""
		if i == 0 {
			a = alt
		}
		m, err := srv.DB.CreateMedia(context.Background(), by.User, models.MediaUpload{FileName: fmt.Sprintf("pic-%d.png", i),
			Title: fmt.Sprintf("%s %d", title, i+1), AltText: a, Data: imagetest.PNG(40+i, 30)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// An editor picks an event's image from the media library: the picker
// opens over the form, pages through the library and searches it, closes
// with Escape giving focus back to its button; an upload in place (with
// its alt text) is chosen at once and previewed; the saved event carries
// the image's URL. A contributor, who may not use the library, gets the
// URL field only, and a pasted URL is previewed too.
func TestImagePickerChoosesFromTheLibrary(t *testing.T) {
	srv := browsertest.StartServer(t, "--media-store", "db") // images made here through srv.DB
	ed := srv.User(t, models.RoleEditor)
	libraryImages(t, srv, ed, 14, "祭り Matsuri", "")
	harbour := libraryImages(t, srv, ed, 1, "港 Harbour", "夕暮れの港")[0]

	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/events/new")
	p.Click(`[data-testid="image-pick"]`)
	p.WaitVisible(`[data-testid="image-picker"] [data-testid="picker-items"]`)
	if !browsertest.Eval[bool](p, `document.getElementById("image-picker").open`) {
		t.Fatal("the picker is not open")
	}
	if n := p.Count(`[data-testid="picker-items"] li`); n != 12 {
		t.Errorf("first page: %d images, want 12", n)
	}
	p.Click(`[data-testid="picker-next"]`)
	browsertest.WaitUntil(p, `document.querySelectorAll('[data-testid="picker-items"] li').length === 3`)
	p.Type(`[data-testid="picker-search"]`, "港")
	browsertest.WaitUntil(p, `document.querySelectorAll('[data-testid="picker-items"] li').length === 1`)
	// Escape in the search box empties it (the browser's own rule for
	// search fields); the next closes the picker.
	p.Press(browsertest.KeyEscape, false)
	browsertest.WaitUntil(p, `document.getElementById("picker-search").value === ""`)
	p.Press(browsertest.KeyEscape, false)
	browsertest.WaitUntil(p, `!document.getElementById("image-picker").open`)
	p.WaitFocus(`[data-testid="image-pick"]`)

	// Chosen from the grid: the URL and a preview with its alt text.
	p.Click(`[data-testid="image-pick"]`)
	p.Click(fmt.Sprintf(`[data-testid="pick-%d"]`, harbour.ID))
	browsertest.WaitUntil(p, `!document.getElementById("image-picker").open`)
	if got := browsertest.Eval[string](p, `document.getElementById("image").value`); got != harbour.Path("full") {
		t.Errorf("image field = %q, want %q", got, harbour.Path("full"))
	}
	p.WaitVisible(`[data-testid="image-preview"] img`)
	if alt := p.Text(`[data-testid="image-preview"] [data-image-alt]`); !strings.Contains(alt, "夕暮れの港") {
		t.Errorf("preview's alt text: %q", alt)
	}

	// Uploaded in place: chosen at once.
	file := filepath.Join(t.TempDir(), "灯籠.jpg")
	if err := os.WriteFile(file, imagetest.JPEG(640, 480), 0o600); err != nil {
		t.Fatal(err)
	}
	p.Click(`[data-testid="image-pick"]`)
	p.Click(`[data-testid="picker-upload"] summary`)
	p.SetFiles(`[data-testid="picker-file"]`, file)
	p.Type(`[data-testid="picker-alt"]`, "Lanterns by the river")
	p.Click(`[data-testid="picker-upload-submit"]`)
	browsertest.WaitUntil(p, `!document.getElementById("image-picker").open && document.getElementById("image").value.endsWith(".jpg")`)
	p.WaitFocus(`[data-testid="image-pick"]`)
	if alt := p.Text(`[data-testid="image-preview"] [data-image-alt]`); !strings.Contains(alt, "Lanterns by the river") {
		t.Errorf("preview's alt text after the upload: %q", alt)
	}
	url := browsertest.Eval[string](p, `document.getElementById("image").value`)
	p.Fill(`[data-testid="event-form"]`, "title", "灯籠流し Tōrō nagashi")
	if st := p.Submit(`[data-testid="event-form"]`); st != http.StatusOK {
		t.Fatalf("save: %d", st)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(p.Path(), "/admin/events/"), "/edit")
	st, body := srv.API(t, ed, http.MethodGet, "/events/"+id, nil)
	if st != http.StatusOK || !strings.Contains(string(body), url) {
		t.Errorf("the saved event's image: %d %s, want %s", st, body, url)
	}

	// A contributor: the URL field only; a pasted URL is previewed.
	co := srv.User(t, models.RoleContributor)
	q := srv.Page(t)
	q.SignIn(co)
	q.Visit("/admin/events/new")
	if n := q.Count(`[data-testid="image-pick"]`) + q.Count(`#image-picker`); n != 0 {
		t.Errorf("a contributor sees the picker (%d elements)", n)
	}
	q.Fill(`[data-testid="event-form"]`, "image", harbour.Path("full"))
	q.WaitVisible(`[data-testid="image-preview"] img`)
	if _, err := strconv.Atoi(id); err != nil {
		t.Errorf("the saved event's path: %s", p.Path())
	}

	// The description's "Image" button opens the same picker; the image
	// chosen goes into the text at the caret, and is saved with it.
	p.Visit("/admin/events/new")
	p.Fill(`[data-testid="event-form"]`, "title", "港の夕べ")
	p.Click(`.rich:has(+ #description) [data-rich-cmd="image"]`)
	p.WaitVisible(`[data-testid="image-picker"] [data-testid="picker-items"]`)
	p.Click(fmt.Sprintf(`[data-testid="pick-%d"]`, harbour.ID))
	browsertest.WaitUntil(p, `!document.getElementById("image-picker").open`)
	wantImg := fmt.Sprintf(`<img src="%s" alt="夕暮れの港">`, harbour.Path("full"))
	browsertest.WaitUntil(p, fmt.Sprintf(`document.getElementById("description").value.includes(%q)`, wantImg))
	if got := browsertest.Eval[string](p, `document.getElementById("image").value`); got != "" {
		t.Errorf("an image for the description went into the featured image field: %q", got)
	}
	if st := p.Submit(`[data-testid="event-form"]`); st != http.StatusOK {
		t.Fatalf("save: %d", st)
	}
	id = strings.TrimSuffix(strings.TrimPrefix(p.Path(), "/admin/events/"), "/edit")
	st, body = srv.API(t, ed, http.MethodGet, "/events/"+id, nil)
	var ev struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(body, &ev); st != http.StatusOK || err != nil || !strings.Contains(ev.Description, wantImg) {
		t.Errorf("the saved description: %d %q (%v), want it to hold %s", st, ev.Description, err, wantImg)
	}
}

// Preview in the event form opens the public page in a new tab with the
// form's unsaved title, a banner and noindex; the event is not changed.
func TestPreviewOpensTheUnsavedPage(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	s := func(v string) *string { return &v }
	e, err := srv.DB.CreateEvent(context.Background(), ed.User, models.EventInput{Title: s("Moon viewing"),
		StartDate: s("2031-09-20 19:00"), EndDate: s("2031-09-20 21:00"), PostInput: models.PostInput{Status: s(models.StatusDraft)}})
	if err != nil {
		t.Fatal(err)
	}
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit(fmt.Sprintf("/admin/events/%d/edit", e.ID))
	p.Fill(`[data-testid="event-form"]`, "title", "お月見 Tsukimi (unsaved)")
	tab := p.NewTabAfter(func() { p.Click(`[data-testid="preview"]`) })
	tab.WaitVisible(`[data-testid="preview-banner"]`)
	if h1 := tab.Text(`[data-testid="public-event"] h1`); h1 != "お月見 Tsukimi (unsaved)" {
		t.Errorf("preview's title: %q", h1)
	}
	if robots := tab.Attr(`meta[name="robots"]`, "content"); robots != "noindex" {
		t.Errorf("preview's robots: %q", robots)
	}
	// The form is still there, unsaved, and the event unchanged.
	if got := browsertest.Eval[string](p, `document.getElementById("title").value`); got != "お月見 Tsukimi (unsaved)" {
		t.Errorf("the form after the preview: %q", got)
	}
	got, err := srv.DB.GetEvent(context.Background(), ed.User, models.ByID(e.ID), "")
	if err != nil || got.Title != "Moon viewing" {
		t.Errorf("the event after the preview: %v %v", got.Title, err)
	}
	p.TakeProblems() // leaving the changed form asks (beforeunload) when the test closes it
}

// Leaving a changed form asks first: a link (refused here: the page
// stays), the quick-create dialog's Escape; saving, the Cancel button and
// an unchanged form do not.
func TestUnsavedChangesAskBeforeLeaving(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	b := bundle(t)
	question := b.T("en", "admin.form.unsaved", nil)
	p := srv.Page(t)
	p.SignIn(ed)

	// Unchanged: a link leaves without a word.
	p.Visit("/admin/venues/new")
	if st := p.ClickAndWait(`[data-testid="nav-events"]`); st != http.StatusOK {
		t.Fatalf("leaving an unchanged form: %d", st)
	}
	if probs := p.TakeProblems(); len(probs) != 0 {
		t.Errorf("an unchanged form asked: %v", probs)
	}

	// Changed: the link asks, and the refusal keeps the page.
	p.Visit("/admin/venues/new")
	p.Type(`#venue`, "本町ホール")
	p.Click(`[data-testid="nav-events"]`)
	if probs := waitProblems(t, p, 1); len(probs) != 1 || !strings.Contains(probs[0], "confirm dialog") || !strings.Contains(probs[0], question) {
		t.Errorf("leaving a changed form by a link: %v", probs)
	}
	if p.Path() != "/admin/venues/new" || browsertest.Eval[string](p, `document.getElementById("venue").value`) != "本町ホール" {
		t.Errorf("after refusing to leave: on %s", p.Path())
	}
	// Saving does not ask.
	if st := p.Submit(`[data-testid="record-form"]`); st != http.StatusOK {
		t.Fatalf("save: %d", st)
	}
	if probs := p.TakeProblems(); len(probs) != 0 {
		t.Errorf("saving asked: %v", probs)
	}

	// The calendar's quick-create: Escape on a changed form asks (and
	// the refusal keeps it open); Cancel does not.
	calendarReady(p, "en", "/admin/calendar?view=month&date=2031-05-01")
	p.Click(`#calendar td[data-date="2031-05-13"] .fc-daygrid-day-frame`)
	p.WaitVisible(`[data-testid="quick-create"]`)
	p.Type(`#q-title`, "Rehearsal リハーサル")
	p.Press(browsertest.KeyEscape, false)
	if probs := waitProblems(t, p, 1); len(probs) != 1 || !strings.Contains(probs[0], question) {
		t.Errorf("Escape on a changed quick-create: %v", probs)
	}
	if !browsertest.Eval[bool](p, `document.getElementById("quick-create").open`) {
		t.Error("the refused Escape closed the quick-create dialog")
	}
	p.Click(`[data-testid="quick-create"] [data-close]`)
	browsertest.WaitUntil(p, `!document.getElementById("quick-create").open`)
	if probs := p.TakeProblems(); len(probs) != 0 {
		t.Errorf("Cancel asked: %v", probs)
	}
}

// waitProblems collects what the page reported (dialogs among them) until
// there are n, or the action timeout passes.
func waitProblems(t *testing.T, p *browsertest.Page, n int) []string {
	t.Helper()
	var out []string
	deadline := time.Now().Add(browsertest.ActionTimeout)
	for len(out) < n && time.Now().Before(deadline) {
		out = append(out, p.TakeProblems()...)
		browsertest.EvalAwait[bool](p, `new Promise(r => setTimeout(() => r(true), 20))`)
	}
	return out
}
