package admin

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/admission"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web/ui"
)

// An admin page asked for at a full gate is a 503 page in the reader's
// language with Retry-After, not a hang; a free slot serves it.
func TestBusyGateAnswersAnHTMLPage(t *testing.T) {
	b, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	gate := admission.New(1, 1, 20*time.Millisecond)
	d := &ui.Deps{I18n: b, Logger: slog.New(slog.DiscardHandler), Site: models.DefaultSite(), Gate: gate}
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(d), Immutable: true})
	Register(app, d)
	br := newBrowser(t, app)
	_, page := br.get("/admin/login")
	token := csrfOf(t, page)
	release, err := gate.Enter()
	if err != nil {
		t.Fatal(err)
	}
	resp, body := do(t, app, "/admin/login", "Accept-Language", "ja")
	want, title := b.T("ja", "error.server_busy", nil), b.T("ja", "admin.error.busy.title", nil)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !strings.Contains(body, want) || !strings.Contains(body, title) ||
		!strings.Contains(body, `<html lang="ja">`) {
		t.Errorf("at a full gate: %d %v, want 503 titled %q with %q:\n%s", resp.StatusCode, resp.Header, title, want, body)
	}
	if retry := `href="/admin/login" data-testid="error-retry">` + b.T("ja", "admin.error.retry", nil) + `</a>`; !strings.Contains(body, retry) {
		t.Errorf("no link to ask for the page again (%s):\n%s", retry, body)
	}
	// A form sent is not offered again as a link (going back keeps what
	// was typed).
	releaseWrite, err := gate.EnterWrite() // writes have slots of their own
	if err != nil {
		t.Fatal(err)
	}
	defer releaseWrite()
	if sent, body := br.send(http.MethodPost, "/admin/login", url.Values{"_csrf": {token}, "login": {"a"}, "password": {"b"}}); sent.StatusCode != 503 ||
		strings.Contains(body, "error-retry") {
		t.Errorf("a form sent at a full gate: %d, want 503 without a link to send it again:\n%s", sent.StatusCode, body)
	}
	release()
	if resp, body := do(t, app, "/admin/login"); resp.StatusCode != 200 {
		t.Errorf("with a free slot: %d\n%s", resp.StatusCode, body)
	}
}
