package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

const sessionRowSel = `[data-testid="sessions-table"] tr[data-testid="session-row"]`

// seedSessions gives a sessions of other devices, signed in and last seen
// some time ago, written through models as a sign-in and later uses would
// write them.
func seedSessions(t *testing.T, srv *browsertest.Server, a browsertest.Account) []string {
	t.Helper()
	ctx := context.Background()
	at := func(ago time.Duration) {
		site := models.DefaultSite()
		site.Clock = func() time.Time { return time.Now().Add(-ago) }
		srv.DB.UseSite(site)
	}
	defer srv.DB.UseSite(models.DefaultSite())
	var ids []string
	for _, s := range []struct {
		ua, ip         string
		signedIn, seen time.Duration
	}{
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
			"2001:db8:85a3:8d3:1319:8a2e:370:7348", 3 * 24 * time.Hour, 2 * time.Hour},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Whale/3.26.244.21 Safari/537.36",
			"198.51.100.20", 26 * 24 * time.Hour, 20 * time.Hour},
	} {
		at(s.signedIn)
		_, sess, err := srv.DB.StartSession(ctx, a.ID, models.DefaultSessionMaxAge, models.SessionClient{UserAgent: s.ua, IP: s.ip})
		if err != nil {
			t.Fatal(err)
		}
		at(s.seen)
		if _, err := srv.DB.TouchSession(ctx, sess, 7*24*time.Hour, s.ip); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID)
	}
	return ids
}

// An editor signed in on two browsers (and, earlier, on a phone and
// another computer) sees the four sessions on the profile, this one first
// and marked, each with an end button that names it; ends the other
// browser's session with its button (that browser is signed out), then all
// the others, then this one (which signs out). With KALENDS_SCREENSHOTS
// set, the list is photographed in English and Japanese, desktop and
// phone, light and dark, into that folder.
func TestProfileSessionsInTheBrowser(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	ed := srv.User(t, models.RoleEditor)
	p, q := srv.Page(t), srv.Page(t)
	p.SignIn(ed)
	q.SignIn(ed)
	seeded := seedSessions(t, srv, ed)

	if st := p.Visit("/admin/profile"); st != http.StatusOK {
		t.Fatalf("profile: %d", st)
	}
	if n := p.Count(sessionRowSel); n != 4 {
		t.Fatalf("%d sessions listed, want 4", n)
	}
	if p.Count(sessionRowSel+`:first-child[data-current] [data-testid="session-current"]`) != 1 {
		t.Error("the first row is not this browser's, marked")
	}
	browsers := p.Texts(sessionRowSel + ` [data-testid="session-browser"]`)
	if !strings.Contains(strings.Join(browsers, "|"), "Safari on iPhone") || strings.Contains(strings.Join(browsers, "|"), "Mozilla") {
		t.Errorf("browsers listed: %q", browsers)
	}
	if got := p.Count(`[data-testid="sessions-table"] thead th[scope="col"]`); got != 5 {
		t.Errorf("%d column headers, want 5", got)
	}
	// Every button's accessible name starts with its visible label and
	// names the session (WCAG 2.5.3).
	if bad := browsertest.Eval[[]string](p, `[...document.querySelectorAll('[data-testid="session-end"]')]
		.filter(b => !b.getAttribute('aria-label').startsWith(b.textContent.trim() + ':')).map(b => b.outerHTML)`); len(bad) > 0 {
		t.Errorf("end buttons whose name does not start with their label: %q", bad)
	}

	if dir := os.Getenv(EnvScreenshots); dir != "" {
		for _, lang := range []string{"en", "ja"} {
			for _, sc := range screens {
				for _, scheme := range []string{"light", "dark"} {
					p.Viewport(sc.width, sc.height)
					p.ColorScheme(scheme)
					if st := p.VisitIn(lang, "/admin/profile"); st != http.StatusOK {
						t.Fatalf("profile in %s: %d", lang, st)
					}
					file := filepath.Join(dir, fmt.Sprintf("profile-sessions-%s-%s-%s.png", lang, sc.name, scheme))
					p.Screenshot(file)
					checkPNG(t, file, int(sc.width))
				}
			}
		}
		p.Viewport(screens[0].width, screens[0].height)
		p.ColorScheme("light")
		p.VisitIn("en", "/admin/profile")
	}

	// End q's session with its own button: the one that is neither this
	// browser's nor seeded.
	var theirs string
	for _, id := range browsertest.Eval[[]string](p, `[...document.querySelectorAll('`+sessionRowSel+`:not([data-current]) input[name="session"]')].map(i => i.value)`) {
		if id != seeded[0] && id != seeded[1] {
			theirs = id
		}
	}
	if theirs == "" {
		t.Fatal("the other browser's session is not listed")
	}
	if st := p.ClickAndWait(sessionRowSel + `:has(input[value="` + theirs + `"]) [data-testid="session-end"]`); st != http.StatusOK {
		t.Fatalf("end a session: %d", st)
	}
	if got := p.Text(`[data-testid="flash"]`); got != b.T("en", "admin.flash.session_ended", nil) || p.Count(sessionRowSel) != 3 {
		t.Errorf("after ending a session: flash %q, %d rows", got, p.Count(sessionRowSel))
	}
	if q.Visit("/admin/"); q.Path() != "/admin/login" {
		t.Errorf("the ended browser is on %s, want the sign-in page", q.Path())
	}

	if st := p.ClickAndWait(`[data-testid="sessions-end-others"]`); st != http.StatusOK {
		t.Fatalf("end all others: %d", st)
	}
	if p.Count(sessionRowSel) != 1 || p.Count(`[data-testid="sessions-only-this"]`) != 1 || p.Count(`[data-testid="sessions-end-others"]`) != 0 {
		t.Errorf("after ending all others: %d rows", p.Count(sessionRowSel))
	}
	if st := p.ClickAndWait(sessionRowSel + ` [data-testid="session-end"]`); st != http.StatusOK || p.Path() != "/admin/login" {
		t.Errorf("ending this session: %d on %s, want the sign-in page", st, p.Path())
	}
}
