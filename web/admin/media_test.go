package admin

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestMediaTextsAreEditedPerLanguage: the image page has a tab per
// language; in Japanese its fields are the translation (empty, with the
// site language's text as placeholder), and saving them writes the
// translation, not the image's own texts.
func TestMediaTextsAreEditedPerLanguage(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		ctx := context.Background()
		ed := account(t, db, "editor", models.RoleEditor)
		m, err := db.CreateMedia(ctx, ed, models.MediaUpload{FileName: "hall.png", Title: "Hall", AltText: "The hall", Data: imagetest.PNG(300, 200)})
		if err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t, app)
		b.signIn("editor", "password-editor")
		page := "/admin/media/" + strconv.FormatInt(m.ID, 10)
		_, html := b.get(page + "?lang=ja")
		if !strings.Contains(html, `data-testid="media-langs"`) || !strings.Contains(html, `placeholder="The hall"`) ||
			!strings.Contains(html, `name="lang" value="ja"`) {
			t.Fatalf("the Japanese tab:\n%.4000s", html)
		}
		resp, _ := b.send(http.MethodPost, page, url.Values{"_csrf": {csrfOf(t, html)}, "lang": {"ja"}, "title": {"ホール"}, "alt_text": {"ホールの外観"}})
		if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), "lang=ja") {
			t.Fatalf("save: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		ja, err := db.MediaIn(ctx, m.ID, "ja")
		if err != nil || ja.AltText != "ホールの外観" || ja.Title != "ホール" {
			t.Errorf("in Japanese: %+v %v", ja, err)
		}
		en, err := db.MediaIn(ctx, m.ID, "en")
		if err != nil || en.AltText != "The hall" || en.Title != "Hall" {
			t.Errorf("the image's own texts changed: %+v %v", en, err)
		}
		_, html = b.get(page + "?lang=ja")
		if !strings.Contains(html, "ホールの外観</textarea>") {
			t.Errorf("the saved translation is not in the form:\n%.4000s", html)
		}
		// An author sees another's image without the save and delete buttons.
		account(t, db, "writer", models.RoleAuthor)
		w := newBrowser(t, app)
		w.signIn("writer", "password-writer")
		resp, html = w.get(page)
		if resp.StatusCode != http.StatusOK || !strings.Contains(html, `data-testid="media-not-yours"`) || strings.Contains(html, `data-testid="media-delete-form"`) {
			t.Errorf("an author on an editor's image: %d\n%.3000s", resp.StatusCode, html)
		}
	})
}
