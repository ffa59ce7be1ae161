package admin

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// hostileTargets are places a request may name that must never be
// followed: other sites, in the spellings browsers accept, and paths that
// carry control characters or escape with dot segments.
var hostileTargets = []string{
	"", "evil.com", "admin/events", "//evil.com", "///evil.com", "/\\evil.com", "\\/evil.com", "/\\/evil.com",
	"https://evil.com", "https:evil.com", "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x",
	"/\tevil.com", "/\t/evil.com", "/\n/evil.com", "/\r\n/evil.com", "/admin/events\x00", "/admin/events\x7f",
	"/admin/events\u0085", "/%2F%2Fevil.com/../", "/admin/events/../../evil", "/admin/events/%2e%2e/%2e%2e/evil",
	"/admin/events/./x", "/%5Cevil.com", "/%09/evil.com", "/admin/events%0d%0aSet-Cookie:x=1",
	"/" + string(make([]byte, maxRedirectLen)),
}

func TestSafeRedirectRefusesHostileTargets(t *testing.T) {
	t.Parallel()
	for _, target := range hostileTargets {
		if got := backTo(target, eventsPath, eventsPath, calendarPath); got != eventsPath {
			t.Errorf("backTo(%q) = %q, want %q", target, got, eventsPath)
		}
	}
	for _, target := range []string{"", "//evil.com", "/\\evil.com", "https://evil.com", "/\tevil.com", "/x\u0085", "/%5Cevil.com"} {
		if safeRedirect(target) {
			t.Errorf("safeRedirect(%q) = true", target)
		}
	}
	for target, want := range map[string]string{
		"/admin/events": "/admin/events",
		"/admin/events?status=draft&search=東京":      "/admin/events?status=draft&search=東京",
		"/admin/events/12/edit":                     "/admin/events/12/edit",
		"/admin/calendar?view=week&date=2026-03-01": "/admin/calendar?view=week&date=2026-03-01",
		"/admin/eventsx":                            eventsPath, // another page that shares the prefix
		"/admin/venues":                             eventsPath, // an admin page, not one the caller allows
		"/events/":                                  eventsPath, // a public page
		"/admin/events#frag":                        "/admin/events#frag",
		"/admin/events?q=%2F/":                      "/admin/events?q=%2F/",
	} {
		if got := backTo(target, eventsPath, eventsPath, calendarPath); got != want {
			t.Errorf("backTo(%q) = %q, want %q", target, got, want)
		}
	}
	if got := backTo("/admin/venues?page=2", "/admin/venues"); got != "/admin/venues?page=2" {
		t.Errorf("backTo with the default as its only prefix: %q", got)
	}
}

// Every list's bulk form goes back only to its own list: a hostile back
// leads to the list instead.
func TestFormsGoBackOnlyToTheirOwnPages(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	account(t, db, "ann", models.RoleAdministrator)
	b := newBrowser(t, app)
	csrf := b.signIn("ann", "password-ann")
	for _, back := range []string{"/admin/events/../../evil", "/admin/eventsx", "/admin/calendar\x01", "/admin/events/%2e%2e/x", "//evil.com"} {
		for path, want := range map[string]string{
			eventsPath + "/bulk": eventsPath,
			"/admin/venues/bulk": "/admin/venues",
		} {
			resp, body := b.send(http.MethodPost, path, url.Values{"_csrf": {csrf}, "action": {"trash"}, "back": {back}})
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
				t.Errorf("POST %s back=%q: %d to %q, want %q\n%.500s", path, back, resp.StatusCode, resp.Header.Get("Location"), want, body)
			}
		}
	}
}
