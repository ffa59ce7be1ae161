package admin

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

var revisionLinkRE = regexp.MustCompile(`href="(/admin/[a-z]+/\d+/revisions/\d+)"`)

// TestRevisionsInTheAdmin: after an edit, the edit page lists a revision
// (who, which fields); its page shows the old title beside the new one
// (in Japanese here); one click restores it, with a flash, and the
// restore is itself listed. A contributor cannot open the page of an
// editor's event's revision. Venues too.
func TestRevisionsInTheAdmin(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		ctx := context.Background()
		ed := account(t, db, "editor", models.RoleEditor)
		account(t, db, "contrib", models.RoleContributor)
		s := func(v string) *string { return &v }
		in := models.EventInput{Title: s("Morning run"), StartDate: s("2031-05-01 07:00"), EndDate: s("2031-05-01 08:00"), Lang: "en"}
		in.Status = s(models.StatusPublish)
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Title: s("Evening run"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t, app)
		b.header.Set("Accept-Language", "ja")
		b.signIn("editor", "password-editor")
		edit := eventPath(e.ID, "/edit")
		_, page := b.get(edit)
		if !strings.Contains(page, `data-testid="revisions"`) || !strings.Contains(page, "Editor") {
			t.Fatalf("the edit page lists no revision:\n%.3000s", page)
		}
		m := revisionLinkRE.FindStringSubmatch(page)
		if m == nil {
			t.Fatal("no link to the revision")
		}
		resp, page := b.get(m[1])
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Morning run") || !strings.Contains(page, "Evening run") || !strings.Contains(page, "リビジョン") {
			t.Fatalf("revision page: %d\n%.3000s", resp.StatusCode, page)
		}
		resp, _ = b.send(http.MethodPost, m[1]+"/restore", url.Values{"_csrf": {csrfOf(t, page)}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != edit {
			t.Fatalf("restore: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		_, page = b.get(edit)
		if !strings.Contains(page, "リビジョンを復元しました") || !strings.Contains(page, `value="Morning run"`) {
			t.Errorf("after the restore:\n%.3000s", page)
		}
		if n := len(revisionLinkRE.FindAllString(page, -1)); n != 2 {
			t.Errorf("%d revisions listed after the restore, want 2", n)
		}

		c := newBrowser(t, app)
		c.signIn("contrib", "password-contrib")
		if resp, _ := c.get(m[1]); resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotFound {
			t.Errorf("a contributor opens a revision of an editor's event: %d", resp.StatusCode)
		}

		v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: s("Park")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Venues().Update(ctx, ed, models.ByID(v.ID), models.VenueInput{Venue: s("Big park")}, "en"); err != nil {
			t.Fatal(err)
		}
		_, page = b.get("/admin/venues/" + strconv.FormatInt(v.ID, 10) + "/edit")
		m = revisionLinkRE.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the venue's edit page lists no revision:\n%.3000s", page)
		}
		if resp, page := b.get(m[1]); resp.StatusCode != http.StatusOK || !strings.Contains(page, "Big park") || !strings.Contains(page, ">Park<") {
			t.Errorf("venue revision page: %d\n%.3000s", resp.StatusCode, page)
		}
	})
}
