package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

const loginForm = `[data-testid="login-form"]`

// The sign-in page speaks each language asked for with ?lang=.
func TestSignInPageInFourLanguages(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	p := srv.Page(t)
	for _, lang := range i18n.Codes {
		if st := p.VisitIn(lang, "/admin/login"); st != http.StatusOK {
			t.Fatalf("%s: status %d", lang, st)
		}
		if got, want := p.Lang(), i18n.Tag(lang).String(); got != want {
			t.Errorf("%s: <html lang=%q>, want %q", lang, got, want)
		}
		if got, want := p.Text("h1"), b.T(lang, "admin.login.heading", nil); got != want {
			t.Errorf("%s: heading %q, want %q", lang, got, want)
		}
		if got, want := p.Text(`[data-testid="login-submit"]`), b.T(lang, "admin.login.submit", nil); got != want {
			t.Errorf("%s: button %q, want %q", lang, got, want)
		}
	}
}

// A wrong password re-renders the form (401) with an alert that reads the
// same whether or not the login exists, keeps the login and never shows
// the password.
func TestWrongPasswordShowsAnAlertThatLeaksNothing(t *testing.T) {
	srv := browsertest.StartServer(t)
	ann := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	alerts := map[string]string{}
	for _, login := range []string{ann.Login, "nobody-here"} {
		p.Visit("/admin/login")
		p.Fill(loginForm, "login", login)
		p.Fill(loginForm, "password", "wrong-password-123")
		if st := p.Submit(loginForm); st != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", login, st)
		}
		alerts[login] = p.Text(`[role="alert"]`)
		if p.Path() != "/admin/login" {
			t.Errorf("%s: left the sign-in page for %s", login, p.Path())
		}
		if got := browsertest.Eval[string](p, `document.querySelector('input[name="login"]').value`); got != login {
			t.Errorf("%s: login field %q after the failure", login, got)
		}
		if html := p.HTML(); strings.Contains(html, "wrong-password-123") {
			t.Errorf("%s: the password is in the page", login)
		}
	}
	if alerts[ann.Login] == "" || alerts[ann.Login] != alerts["nobody-here"] {
		t.Errorf("alerts differ (or are empty) for an existing and an unknown login: %q", alerts)
	}
}

// Signing in lands on the dashboard with the user's name in the user menu;
// signing out through the user menu's form ends the session.
func TestSignInThenSignOutThroughTheUserMenu(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	if p.Path() != "/admin/" {
		t.Fatalf("signed in on %s, want the dashboard", p.Path())
	}
	if got := p.Text(`[data-testid="user-menu"] summary`); !strings.Contains(got, ed.User.DisplayName) {
		t.Errorf("user menu %q, want %q", got, ed.User.DisplayName)
	}
	p.Click(`[data-testid="user-menu"] summary`)
	if st := p.ClickAndWait(`[data-testid="sign-out"]`); st != http.StatusOK || p.Path() != "/admin/login" {
		t.Fatalf("sign out: status %d on %s", st, p.Path())
	}
	p.Visit("/admin/")
	if p.Path() != "/admin/login" {
		t.Errorf("after signing out /admin/ shows %s, want the sign-in page", p.Path())
	}
}

// A form posted without its CSRF token is refused (403) and changes
// nothing: the sign-out form with the token removed leaves the user signed
// in.
func TestFormPostWithoutCSRFIsRefused(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	browsertest.Eval[bool](p, `(() => { document.querySelectorAll('input[name="_csrf"]').forEach(e => e.remove()); return true })()`)
	p.Click(`[data-testid="user-menu"] summary`)
	if st := p.ClickAndWait(`[data-testid="sign-out"]`); st != http.StatusForbidden {
		t.Errorf("sign out without the token: status %d, want 403", st)
	}
	if st := p.Visit("/admin/"); st != http.StatusOK || p.Path() != "/admin/" {
		t.Errorf("after the refused sign-out: status %d on %s, want still signed in", st, p.Path())
	}
}

// A title made of HTML, created through the API, shows on the dashboard as
// the text it is and never runs: no element made of it, no dialog (the
// harness fails the test on any dialog, script error or CSP violation).
func TestHTMLInATitleIsShownAsTextAndNeverRuns(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	const title = `<img src=x onerror=alert(1)> & <script>alert(2)</script>`
	srv.CreateEvent(t, ed, map[string]any{"title": title})
	p := srv.Page(t)
	p.SignIn(ed)
	found := false
	for _, s := range p.Texts("main a, main li, main td") {
		found = found || strings.Contains(s, title)
	}
	if !found {
		t.Errorf("the title is not shown as text on the dashboard:\n%s", p.Text("main"))
	}
	if n := p.Count(`main img[src="x"], main script:not([src])`); n != 0 {
		t.Errorf("%d elements made of the title", n)
	}
}

// Switching to Korean through the language switcher changes <html lang>
// and the texts, and is remembered.
func TestLanguageSwitcherToKorean(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	p.Click(`[data-testid="language-switcher"] summary`)
	p.ClickAndWait(`[data-testid="lang-ko"]`)
	if got := p.Lang(); got != "ko" {
		t.Errorf("<html lang=%q> after choosing 한국어", got)
	}
	p.Click(`[data-testid="user-menu"] summary`)
	if got, want := p.Text(`[data-testid="sign-out"]`), b.T("ko", "admin.layout.sign_out", nil); got != want {
		t.Errorf("sign-out button %q, want %q", got, want)
	}
	p.Visit("/admin/")
	if got := p.Lang(); got != "ko" {
		t.Errorf("<html lang=%q> on the next page", got)
	}
}
