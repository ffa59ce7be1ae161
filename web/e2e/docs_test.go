package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

// The API docs page shows Swagger UI over /doc in the UI language, loaded
// from our own files under the strict script policy (the harness fails on
// any CSP violation or script error), and "try it out" runs as the
// signed-in user: a draft they wrote is listed for them.
func TestAPIDocsInTheUILanguageRunAsTheUser(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	srv.CreateEvent(t, ed, map[string]any{"title": "Docs draft", "status": "draft"})
	p := srv.Page(t)
	p.SignIn(ed)
	if st := p.VisitIn("ja", "/admin/docs"); st != http.StatusOK {
		t.Fatalf("docs: status %d", st)
	}
	p.WaitVisible(`#swagger-ui .info .title`)
	if got := p.Text(`#swagger-ui .info .title`); !strings.Contains(got, "イベントカレンダー") {
		t.Errorf("Swagger UI title %q, want the Japanese API title", got)
	}
	if n := p.Count(`#swagger-ui .opblock`); n < 10 {
		t.Errorf("%d operations shown, want the API's routes", n)
	}
	// The interceptor's request, as Swagger UI sends it, sees the draft.
	got := browsertest.EvalAwait[string](p, `(async () => {
		const nonce = document.querySelector('meta[name="kalends-nonce"]').content;
		const r = await fetch('/cal/events/v1/events?status=draft', {headers: {'X-WP-Nonce': nonce}, credentials: 'same-origin'});
		return r.status + ' ' + (await r.text());
	})()`)
	if !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "Docs draft") {
		t.Errorf("a signed-in request with the nonce: %.200s", got)
	}
}
