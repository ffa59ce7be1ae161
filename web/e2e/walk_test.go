package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

// maxPages bounds the walk of one language.
const maxPages = 60

// Every admin page in Chinese, Japanese and Korean (issue 13 item 10): an
// administrator (who sees every page) signs in, the walk starts at the
// dashboard, follows every admin link once per page shape, and fails on a
// missing message, a raw message id, or a text that is an English message
// whose translation differs; the sign-in page (signed out, with a failed
// attempt) and the error page too.
func TestEveryAdminPageInEveryLanguage(t *testing.T) {
	srv := browsertest.StartServer(t)
	locales := browsertest.LoadLocales(t)
	admin := srv.User(t, models.RoleAdministrator)
	ed := srv.User(t, models.RoleEditor)
	srv.CreateEvent(t, ed, map[string]any{"title": "Walk test event", "tags": []string{"Walk test tag"},
		"venue": map[string]any{"venue": "Walk test venue"}, "organizer": []any{map[string]any{"organizer": "Walk test organizer"}}})
	srv.CreateEvent(t, ed, map[string]any{"title": "Walk test draft", "status": "draft"})
	category(t, srv, ed, "Walk test category")
	ignore := []string{"Walk test event", "Walk test draft", "Walk test category", "Walk test tag", "Walk test venue", "Walk test organizer", admin.User.DisplayName, ed.User.DisplayName}

	out := srv.Page(t)
	p := srv.Page(t)
	p.SignIn(admin)
	for _, lang := range []string{"zh-hans", "ja", "ko"} {
		var findings []string
		out.VisitIn(lang, "/admin/login")
		for _, f := range out.Audit(locales, lang) {
			findings = append(findings, "/admin/login: "+f)
		}
		out.Fill(loginForm, "login", "nobody")
		out.Fill(loginForm, "password", "wrong-password")
		out.Submit(loginForm)
		for _, f := range out.Audit(locales, lang, "nobody") {
			findings = append(findings, "/admin/login after a failure: "+f)
		}

		visited, found := p.Walk(locales, lang, "/admin/", maxPages, ignore...)
		findings = append(findings, found...)
		if st := p.Visit("/admin/no-such-page"); st != 404 {
			findings = append(findings, fmt.Sprintf("/admin/no-such-page: status %d, want 404", st))
		}
		for _, f := range p.Audit(locales, lang, ignore...) {
			findings = append(findings, "/admin/no-such-page: "+f)
		}
		t.Logf("%s: %d pages: %s", lang, len(visited), strings.Join(visited, " "))
		if len(findings) > 0 {
			t.Errorf("%s:\n  %s", lang, strings.Join(findings, "\n  "))
		}
	}
}
