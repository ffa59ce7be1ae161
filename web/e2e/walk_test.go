package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
)

// maxPages bounds the walk of one language.
const maxPages = 60

// Every admin page in Chinese, Japanese and Korean (issue 13 item 10): the
// walk starts at the dashboard, follows every admin link once per page
// shape, and fails on a missing message, a raw message id, or a text that
// is an English message whose translation differs; error pages too.
func TestEveryAdminPageInEveryLanguage(t *testing.T) {
	srv := browsertest.StartServer(t)
	locales := browsertest.LoadLocales(t)
	p := srv.Page(t)
	for _, lang := range []string{"zh-hans", "ja", "ko"} {
		visited, findings := p.Walk(locales, lang, "/admin/", maxPages)
		if st := p.Visit("/admin/no-such-page"); st != 404 {
			findings = append(findings, fmt.Sprintf("/admin/no-such-page: status %d, want 404", st))
		}
		for _, f := range p.Audit(locales, lang) {
			findings = append(findings, "/admin/no-such-page: "+f)
		}
		t.Logf("%s: %d pages: %s", lang, len(visited), strings.Join(visited, " "))
		if len(findings) > 0 {
			t.Errorf("%s:\n  %s", lang, strings.Join(findings, "\n  "))
		}
	}
}
