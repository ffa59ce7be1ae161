package e2e

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
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

// shot is one page of the screenshots: a name and how to get there.
type shot struct {
	name   string
	status int // expected HTTP status
	open   func(t *testing.T, p *browsertest.Page) int
}

// shots are the main pages that exist so far.
func shots() []shot {
	visit := func(path string) func(*testing.T, *browsertest.Page) int {
		return func(_ *testing.T, p *browsertest.Page) int { return p.Visit(path) }
	}
	return []shot{
		{"dashboard", 200, visit("/admin/")},
		{"not-found", 404, visit("/admin/no-such-page")},
	}
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
	} else {
		old, _ := filepath.Glob(filepath.Join(dir, "*.png"))
		for _, f := range old {
			if err := os.Remove(f); err != nil { //nolint:gosec // G703: the PNGs of the folder the tester named.
				t.Fatal(err)
			}
		}
	}
	srv := browsertest.StartServer(t)
	for _, lang := range langs {
		for _, sc := range scr {
			for _, scheme := range schemes {
				p := srv.Page(t)
				p.Viewport(sc.width, sc.height)
				p.ColorScheme(scheme)
				p.VisitIn(lang, "/admin/")
				for _, s := range shots() {
					if st := s.open(t, p); st != s.status {
						t.Errorf("%s: status %d, want %d", s.name, st, s.status)
					}
					file := filepath.Join(dir, fmt.Sprintf("%s-%s-%s-%s.png", s.name, lang, sc.name, scheme))
					p.Screenshot(file)
					checkPNG(t, file, int(sc.width))
				}
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
