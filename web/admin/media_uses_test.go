package admin

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func strPtr(s string) *string { return &s }

// usedImage uploads an image as up and returns its id as an image field.
func usedImage(t *testing.T, db *models.DB, up *models.User, name string) (*models.Media, *string) {
	t.Helper()
	m, err := db.CreateMedia(context.Background(), up, models.MediaUpload{FileName: name, Title: "Hall", Data: imagetest.PNG(300, 200)})
	if err != nil {
		t.Fatal(err)
	}
	return m, strPtr(strconv.FormatInt(m.ID, 10))
}

func eventWithImage(t *testing.T, db *models.DB, as *models.User, title, status string, image *string) int64 {
	t.Helper()
	in := models.EventInput{Title: &title, StartDate: strPtr("2031-03-01 19:00:00"), EndDate: strPtr("2031-03-01 21:00:00"), ImageURL: image, Lang: "en"}
	in.Status = &status
	e, err := db.CreateEvent(context.Background(), as, in)
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// mainOf is the main part of a page, for failure messages.
func mainOf(html string) string {
	if i := strings.Index(html, `<main`); i >= 0 {
		html = html[i:]
	}
	return html
}

// imageRow is what a record keeps of a change: its image, when and by whom.
type imageRow struct {
	ImageURL   string    `bun:"image_url"`
	UpdatedAt  time.Time `bun:"updated_at"`
	ModifiedBy int64     `bun:"modified_by"`
}

func imageRowOf(t *testing.T, db *models.DB, table string, id int64) imageRow {
	t.Helper()
	var r imageRow
	if err := db.Bun.NewSelect().TableExpr(table).Column("image_url", "updated_at", "modified_by").Where("id = ?", id).Scan(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMediaPageHidesRecordsTheViewerMayNotRead (issue 28, finding 7): an
// author on the page of an image that another user's draft event, an
// editor's private venue and a published event show sees the published
// event by title and the other two as a count, on the page and on the
// in-use refusal; an editor sees all three.
func TestMediaPageHidesRecordsTheViewerMayNotRead(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		ctx := context.Background()
		author := account(t, db, "author", models.RoleAuthor)
		other := account(t, db, "author2", models.RoleAuthor)
		ed := account(t, db, "editor", models.RoleEditor)
		m, image := usedImage(t, db, author, "hall.png")
		draft := eventWithImage(t, db, other, "秘密の下書き Brouillon", models.StatusDraft, image)
		published := eventWithImage(t, db, ed, "공개 음악회 Öffentliches Konzert", models.StatusPublish, image)
		v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{PostInput: models.PostInput{Status: strPtr(models.StatusPrivate)},
			Venue: strPtr("Salle privée 私人场地"), ImageURL: image}, "en")
		if err != nil {
			t.Fatal(err)
		}
		page := "/admin/media/" + strconv.FormatInt(m.ID, 10)
		hidden := []string{"秘密の下書き", "Salle privée", "/admin/events/" + strconv.FormatInt(draft, 10) + "/edit",
			"/admin/venues/" + strconv.FormatInt(v.ID, 10) + "/edit"}

		b := newBrowser(t, app)
		csrf := b.signIn("author", "password-author")
		resp, html := b.get(page)
		if resp.StatusCode != http.StatusOK || !strings.Contains(html, "공개 음악회 Öffentliches Konzert") ||
			!strings.Contains(html, "/admin/events/"+strconv.FormatInt(published, 10)+"/edit") {
			t.Fatalf("the published event is not listed: %d\n%.4000s", resp.StatusCode, mainOf(html))
		}
		for _, s := range hidden {
			if strings.Contains(html, s) {
				t.Errorf("the page shows the author %q", s)
			}
		}
		if !strings.Contains(html, "…and 2 more records you cannot see.") {
			t.Errorf("no count of the hidden records:\n%.4000s", mainOf(html))
		}
		_, html = b.get(page + "?lang=ja")
		if !strings.Contains(html, "閲覧できないレコードがほかに 2 件あります") {
			t.Errorf("no count of the hidden records in Japanese:\n%.4000s", mainOf(html))
		}

		// Deleting it without removing it from them: refused (still in
		// use), and the refusal names no more than the page.
		resp, html = b.send(http.MethodPost, page+"/delete?lang=en", url.Values{"_csrf": {csrf}})
		if resp.StatusCode != http.StatusConflict || !strings.Contains(html, `data-testid="media-error"`) {
			t.Fatalf("delete in use: %d\n%.3000s", resp.StatusCode, mainOf(html))
		}
		for _, s := range hidden {
			if strings.Contains(html, s) {
				t.Errorf("the in-use refusal shows the author %q", s)
			}
		}
		if !strings.Contains(html, "still shown by 3 records") {
			t.Errorf("the in-use refusal does not count every record:\n%.3000s", mainOf(html))
		}

		// An editor may read all three.
		e := newBrowser(t, app)
		e.signIn("editor", "password-editor")
		_, html = e.get(page)
		for _, s := range append(hidden, "공개 음악회") {
			if !strings.Contains(html, s) {
				t.Errorf("the editor does not see %q", s)
			}
		}
		if strings.Contains(html, "cannot see") {
			t.Errorf("the editor is told of records hidden from them")
		}
	})
}

// TestDeleteWithUnlinkNeedsEditPermission (issue 28, finding 8): the
// uploader of an image, an author, may not delete it "with unlink" while
// records they may not edit show it: 403, the count in their language, and
// nothing changed (not even their own record). An editor may: each record
// loses the image as in an update (a revision, modified and modified_by).
func TestDeleteWithUnlinkNeedsEditPermission(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		ctx := context.Background()
		author := account(t, db, "author", models.RoleAuthor)
		ed := account(t, db, "editor", models.RoleEditor)
		m, image := usedImage(t, db, author, "hall.png")
		edEvent := eventWithImage(t, db, ed, "編集者のイベント", models.StatusPublish, image)
		ownEvent := eventWithImage(t, db, author, "Mon événement", models.StatusDraft, image)
		v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: strPtr("서울 홀"), ImageURL: image}, "en")
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := db.Organizers().Create(ctx, author, models.OrganizerInput{Organizer: strPtr("Ünïon 主办方"), ImageURL: image}, "en")
		if err != nil {
			t.Fatal(err)
		}
		records := []struct {
			table string
			kind  models.Kind
			id    int64
		}{{"events", models.KindEvent, edEvent}, {"events", models.KindEvent, ownEvent}, {"venues", models.KindVenue, v.ID}, {"organizers", models.KindOrganizer, o.ID}}
		// Written long ago, so a new modified time shows.
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		for _, r := range records {
			if _, err := db.Bun.NewUpdate().TableExpr(r.table).Set("updated_at = ?", old).Where("id = ?", r.id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		page := "/admin/media/" + strconv.FormatInt(m.ID, 10)

		b := newBrowser(t, app)
		csrf := b.signIn("author", "password-author")
		// The page offers the author no delete it would refuse…
		_, html := b.get(page + "?lang=en")
		if !strings.Contains(html, `data-testid="media-delete-blocked"`) || !strings.Contains(html, "2 records that show it are not yours") ||
			strings.Contains(html, `data-testid="media-delete-form"`) {
			t.Errorf("the author's page offers the delete:\n%.3000s", mainOf(html))
		}
		// …and a form sent anyway (a page from before the records used it)
		// is refused.
		resp, html := b.send(http.MethodPost, page+"/delete?lang=ja", url.Values{"_csrf": {csrf}, "unlink": {"1"}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(html, "2 件") {
			t.Fatalf("the author's delete with unlink: %d\n%.3000s", resp.StatusCode, mainOf(html))
		}
		resp, html = b.send(http.MethodPost, page+"/delete?lang=en", url.Values{"_csrf": {csrf}, "unlink": {"1"}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(html, "2 records") {
			t.Fatalf("the author's delete with unlink (en): %d\n%.3000s", resp.StatusCode, mainOf(html))
		}
		if _, err := db.Media(ctx, m.ID); err != nil {
			t.Fatalf("the image is gone after a refusal: %v", err)
		}
		for _, r := range records {
			if got := imageRowOf(t, db, r.table, r.id); got.ImageURL != m.Path("full") || !got.UpdatedAt.Equal(old) {
				t.Errorf("%s %d changed by a refused delete: %+v", r.kind, r.id, got)
			}
			if _, revs, err := db.Revisions(ctx, ed, r.kind, models.ByID(r.id)); err != nil || len(revs) != 0 {
				t.Errorf("%s %d: revisions after a refused delete: %v %d", r.kind, r.id, err, len(revs))
			}
		}

		e := newBrowser(t, app)
		csrf = e.signIn("editor", "password-editor")
		if _, html = e.get(page + "?lang=en"); !strings.Contains(html, `data-testid="media-delete-unlink"`) {
			t.Errorf("the editor is not offered the delete:\n%.3000s", mainOf(html))
		}
		resp, html = e.send(http.MethodPost, page+"/delete", url.Values{"_csrf": {csrf}, "unlink": {"1"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("the editor's delete with unlink: %d\n%.3000s", resp.StatusCode, mainOf(html))
		}
		if _, err := db.Media(ctx, m.ID); err == nil {
			t.Error("the image is still there")
		}
		for _, r := range records {
			got := imageRowOf(t, db, r.table, r.id)
			if got.ImageURL != "" || got.UpdatedAt.Equal(old) || got.ModifiedBy != ed.ID {
				t.Errorf("%s %d after the unlink: %+v (editor %d)", r.kind, r.id, got, ed.ID)
			}
			_, revs, err := db.Revisions(ctx, ed, r.kind, models.ByID(r.id))
			if err != nil || len(revs) != 1 || revs[0].AuthorID != ed.ID || !contains(revs[0].Fields, "image_url") {
				t.Errorf("%s %d: revisions %v %+v", r.kind, r.id, err, revs)
			}
		}
	})
}

// TestMediaPageAnswersRefusalsWith403 (issue 28, Deliver 7): an author who
// did not upload an image is refused its save and its delete with 403 and
// the refusal's message (the save answered 422 and the delete 409 for any
// error); an invalid field stays 422.
func TestMediaPageAnswersRefusalsWith403(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		ed := account(t, db, "editor", models.RoleEditor)
		account(t, db, "author", models.RoleAuthor)
		m, _ := usedImage(t, db, ed, "hall.png")
		page := "/admin/media/" + strconv.FormatInt(m.ID, 10)
		b := newBrowser(t, app)
		csrf := b.signIn("author", "password-author")
		resp, html := b.send(http.MethodPost, page+"?lang=en", url.Values{"_csrf": {csrf}, "title": {"Mine now"}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(html, `data-testid="media-error"`) {
			t.Errorf("save of another's image: %d\n%.2000s", resp.StatusCode, mainOf(html))
		}
		resp, html = b.send(http.MethodPost, page+"/delete?lang=en", url.Values{"_csrf": {csrf}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(html, `data-testid="media-error"`) {
			t.Errorf("delete of another's image: %d\n%.2000s", resp.StatusCode, mainOf(html))
		}
		if got, err := db.Media(context.Background(), m.ID); err != nil || got.Title != "Hall" {
			t.Errorf("the image after the refusals: %+v %v", got, err)
		}
		e := newBrowser(t, app)
		csrf = e.signIn("editor", "password-editor")
		resp, html = e.send(http.MethodPost, page+"?lang=en", url.Values{"_csrf": {csrf}, "title": {strings.Repeat("x", 300)}})
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("a title too long: %d\n%.2000s", resp.StatusCode, mainOf(html))
		}
	})
}
