package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

const settingsForm = `[data-testid="settings-form"]`

// An administrator sets the site's identity in Japanese: refusals (a pale
// accent, CSS that imports, a link that is not http) come back next to
// their fields in the editor's language, the input kept; once fixed, the
// name shows in the admin header and the public pages' titles, and the
// accent in the generated stylesheet. In English the same refusal is in
// English. Editors do not see the page.
func TestSettingsForm(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	admin := srv.User(t, models.RoleAdministrator)
	p := srv.Page(t)
	p.SignIn(admin)
	p.SetLanguage("ja")
	if st := p.ClickAndWait(`[data-testid="nav-settings"]`); st != http.StatusOK || p.Path() != "/admin/settings" {
		t.Fatalf("settings link: %d on %s", st, p.Path())
	}
	p.Fill(settingsForm, "name_ja", "川辺のカレンダー")
	p.Fill(settingsForm, "tagline_ja", "町の催しをひと目で")
	p.Fill(settingsForm, "accent_light", "#88ccff")
	p.Fill(settingsForm, "custom_css", `@\69mport "https://evil.example/x.css";`)
	p.Fill(settingsForm, "link_label_0", "川辺町")
	p.Fill(settingsForm, "link_url_0", "javascript:alert(1)")
	if st := p.Submit(settingsForm); st != http.StatusUnprocessableEntity {
		t.Fatalf("refused settings: %d", st)
	}
	for field, id := range map[string]string{"custom_css": "settings.error.css_import", "link_url_0": "settings.error.link_url"} {
		if got, want := p.Text(`[data-testid="error-`+field+`"]`), b.T("ja", id, nil); got != want {
			t.Errorf("%s: %q, want %q", field, got, want)
		}
	}
	if got := p.Text(`[data-testid="error-accent_light"]`); !strings.Contains(got, "コントラスト") || !strings.Contains(got, "4.5:1") {
		t.Errorf("accent message %q", got)
	}
	if got := browsertest.Eval[string](p, `document.querySelector('#name_ja').value`); got != "川辺のカレンダー" {
		t.Errorf("the name was not kept: %q", got)
	}
	p.Fill(settingsForm, "accent_light", "#7a2e8f")
	p.Fill(settingsForm, "custom_css", ".site-name { letter-spacing: .05em; }")
	p.Fill(settingsForm, "link_url_0", "https://kawabe.example/")
	if st := p.Submit(settingsForm); st != http.StatusOK || p.Path() != "/admin/settings" {
		t.Fatalf("saved settings: %d on %s", st, p.Path())
	}
	if got := p.Text(`[data-testid="admin-site-name"]`); got != "川辺のカレンダー" {
		t.Errorf("admin header %q", got)
	}
	p.Visit("/ja/events/")
	if title := p.Title(); !strings.HasSuffix(title, "· 川辺のカレンダー") {
		t.Errorf("public title %q", title)
	}
	if p.Text(`[data-testid="site-tagline"]`) != "町の催しをひと目で" || p.Attr(`[data-testid="site-links"] a`, "href") != "https://kawabe.example/" {
		t.Error("tagline or link missing")
	}
	if got := browsertest.Eval[string](p, `getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()`); got != "#7a2e8f" {
		t.Errorf("--accent is %q", got)
	}

	p.Visit("/admin/settings")
	p.SetLanguage("en")
	p.Fill(settingsForm, "accent_dark", "#0b5cad")
	if st := p.Submit(settingsForm); st != http.StatusUnprocessableEntity {
		t.Fatalf("refused dark accent: %d", st)
	}
	if got := p.Text(`[data-testid="error-accent_dark"]`); !strings.HasPrefix(got, "Too little contrast") {
		t.Errorf("English message %q", got)
	}

	ed := srv.User(t, models.RoleEditor)
	q := srv.Page(t)
	q.SignIn(ed)
	if q.Count(`[data-testid="nav-settings"]`) != 0 {
		t.Error("an editor sees the settings link")
	}
	if st := q.Visit("/admin/settings"); st != http.StatusForbidden {
		t.Errorf("an editor gets %d", st)
	}
}
