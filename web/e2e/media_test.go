package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

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
