package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

// An editor with no mouse: signs in, creates an event with a venue, two
// categories, a tag and a picture from the library (through the picker),
// saves it, adds its Japanese translation, and opens it from the calendar,
// with key presses alone (Tab, Shift+Tab, Enter, Space, arrows, Escape,
// typing), sent through the DevTools protocol. Pages are reached by their
// address, never by a click. At every stop the focus is drawn
// (:focus-visible with an outline or a shadow); the picker and the
// calendar's popover keep Tab inside them and give focus back to what
// opened them.
func TestKeyboardOnlyEventWithEverything(t *testing.T) {
	srv := browsertest.StartServer(t, "--media-store", "db")
	ctx := context.Background()
	ed := srv.User(t, models.RoleEditor)
	s := func(v string) *string { return &v }
	venue, _, err := srv.DB.Venues().Create(ctx, ed.User, models.VenueInput{Venue: s("本町ホール Honmachi Hall"),
		PostInput: models.PostInput{Status: s(models.StatusPublish)}}, "")
	if err != nil {
		t.Fatal(err)
	}
	term := func(tax, name string) int64 {
		tm, err := srv.DB.CreateTerm(ctx, ed.User, tax, models.TermInput{Name: s(name)}, "")
		if err != nil {
			t.Fatal(err)
		}
		return tm.ID
	}
	music, festival := term(models.TaxCategory, "音楽 Music"), term(models.TaxCategory, "祭り Festival")
	term(models.TaxCategory, "Théâtre")
	night := term(models.TaxTag, "夜 Night")
	harbour := libraryImages(t, srv, ed, 1, "港 Harbour", "夕暮れの港")[0]

	p := srv.Page(t)
	p.KeyboardOnly()
	// Sign in.
	p.Visit("/admin/login")
	p.TabTo(`#login`, false, 10)
	p.TypeText(ed.Login)
	p.TabTo(`#password`, false, 3)
	p.TypeText(ed.Password)
	p.Press(browsertest.KeyEnter, false)
	p.WaitLoaded(`^/admin/$`)

	// The event: title, venue (a select moved with the arrows), two
	// categories and a tag (Space), the picture.
	p.Visit("/admin/events/new")
	p.KeyboardOnly()
	p.TabTo(`#title`, false, 40)
	p.TypeText("鍵盤だけの夜 Keyboard night")
	p.TabTo(`#venue`, false, 30)
	for range 10 {
		if browsertest.Eval[string](p, `document.getElementById("venue").value`) == strconv.FormatInt(venue.ID, 10) {
			break
		}
		p.Press(browsertest.KeyDown, false)
	}
	if got := browsertest.Eval[string](p, `document.getElementById("venue").value`); got != strconv.FormatInt(venue.ID, 10) {
		t.Fatalf("venue chosen with the arrows: %q", got)
	}
	p.TabTo(`[data-testid="image-pick"]`, false, 40)
	p.Press(browsertest.KeyEnter, false)
	p.WaitFocus(`#picker-search`)
	p.MustSeeFocus("the picker opened")
	p.WaitVisible(`[data-testid="picker-items"]`)
	p.FocusTrapped("image-picker", 8)
	p.TabTo(`#picker-search`, false, 12)
	p.TypeText("港")
	browsertest.WaitUntil(p, `document.querySelectorAll('[data-testid="picker-items"] li').length === 1`)
	p.TabTo(fmt.Sprintf(`[data-testid="pick-%d"]`, harbour.ID), false, 4)
	p.Press(browsertest.KeyEnter, false)
	p.WaitFocus(`[data-testid="image-pick"]`)
	p.MustSeeFocus("back from the picker")
	if got := browsertest.Eval[string](p, `document.getElementById("image").value`); got != harbour.Path("full") {
		t.Errorf("picture chosen: %q", got)
	}
	boxes := []string{"#cat-" + strconv.FormatInt(music, 10), "#cat-" + strconv.FormatInt(festival, 10),
		"#tag-" + strconv.FormatInt(night, 10)}
	// In the order Tab reaches them (the category tree sorts by name).
	slices.SortFunc(boxes, func(a, b string) int {
		return browsertest.Eval[int](p, `document.querySelector("`+a+`").compareDocumentPosition(document.querySelector("`+b+`")) & 4 ? -1 : 1`)
	})
	for _, id := range boxes {
		p.TabTo(id, false, 40)
		p.Press(browsertest.KeySpace, false)
		if !browsertest.Eval[bool](p, `document.querySelector("`+id+`").checked`) {
			t.Errorf("%s: Space did not tick it", id)
		}
	}
	// Back up to Save with Shift+Tab.
	p.TabTo(`[data-testid="save"]`, true, 60)
	p.Press(browsertest.KeyEnter, false)
	p.WaitLoaded(`^/admin/events/\d+/edit$`)
	id, _ := strconv.ParseInt(strings.Split(p.Path(), "/")[3], 10, 64)

	// The Japanese translation.
	p.TabTo(`[data-testid="translate-ja"]`, false, 80)
	p.Press(browsertest.KeyEnter, false)
	p.WaitLoaded(`/translations/ja$`)
	p.TabTo(`#title`, false, 40)
	p.TypeText("鍵盤の夜")
	p.TabTo(`[data-testid="save"]`, false, 40)
	p.Press(browsertest.KeyEnter, false)
	p.WaitLoaded(`^/admin/events/\d+/`)
	p.WaitVisible(`[role="status"]`)

	e, err := srv.DB.GetEvent(ctx, ed.User, models.ByID(id), "")
	if err != nil {
		t.Fatal(err)
	}
	var cats []int64
	for _, c := range e.Categories {
		cats = append(cats, c.ID)
	}
	if e.Title != "鍵盤だけの夜 Keyboard night" || len(e.Venues) != 1 || e.Venues[0].ID != venue.ID || len(cats) != 2 ||
		len(e.Tags) != 1 || e.Tags[0].ID != night || e.ImageURL != harbour.Path("full") {
		t.Errorf("the event made with the keyboard: %q venues %v categories %v tags %d image %q", e.Title, e.Venues, cats, len(e.Tags), e.ImageURL)
	}
	ja, err := srv.DB.GetEvent(ctx, ed.User, models.ByID(id), "ja")
	if err != nil || ja.Title != "鍵盤の夜" {
		t.Errorf("its Japanese title: %v %v", ja, err)
	}

	// The calendar: Tab to the event, Enter opens its popover (focus in
	// it, kept there), Escape closes it and focus is back on the event.
	day := e.StartAt.In(srv.DB.Site().Zone())
	calendarReady(p, "en", fmt.Sprintf("/admin/calendar?view=month&date=%s", day.Format("2006-01-02")))
	ev := fmt.Sprintf(`#calendar [data-event-id="%d"]`, id)
	p.WaitVisible(ev)
	p.TabTo(ev, false, 80)
	p.Press(browsertest.KeyEnter, false)
	p.WaitFocus(`[data-testid="popover-edit"]`)
	p.MustSeeFocus("the popover opened")
	for i := range 8 {
		p.Press(browsertest.KeyTab, i%2 == 1)
		if !browsertest.Eval[bool](p, `document.getElementById("event-popover").contains(document.activeElement)`) {
			t.Fatalf("Tab left the popover: focus on %s", p.Focused())
		}
		p.MustSeeFocus("in the popover")
	}
	p.Press(browsertest.KeyEscape, false)
	p.WaitFocus(ev)
	p.MustSeeFocus("back from the popover")
}
