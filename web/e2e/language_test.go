package e2e

import (
	"testing"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/browsertest"
)

// The admin speaks each language when asked with ?lang=: <html lang> is the
// BCP 47 tag (or browsers pick Chinese glyphs for Japanese) and the texts
// are that language's.
func TestAdminInFourLanguages(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	p := srv.Page(t)
	for _, lang := range i18n.Codes {
		if st := p.VisitIn(lang, "/admin/"); st != 200 {
			t.Fatalf("%s: status %d", lang, st)
		}
		if got, want := p.Lang(), i18n.Tag(lang).String(); got != want {
			t.Errorf("%s: <html lang=%q>, want %q", lang, got, want)
		}
		if got, want := p.Text(`[data-testid="heading"]`), b.T(lang, "admin.home.heading", nil); got != want {
			t.Errorf("%s: heading %q, want %q", lang, got, want)
		}
	}
}

// Switching to Korean changes <html lang> and the texts at once, and the
// choice is remembered on the next page without ?lang=.
func TestLanguageSwitchToKorean(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	p := srv.Page(t)
	p.VisitIn("en", "/admin/")
	if p.Lang() != "en" {
		t.Fatalf("<html lang=%q> in English", p.Lang())
	}
	p.SetLanguage("ko")
	if got := p.Lang(); got != "ko" {
		t.Errorf("<html lang=%q> after switching to Korean", got)
	}
	want := b.T("ko", "admin.home.heading", nil)
	if got := p.Text(`[data-testid="heading"]`); got != want || got == b.T("en", "admin.home.heading", nil) {
		t.Errorf("heading %q after switching to Korean, want %q", got, want)
	}
	p.Visit("/admin/")
	if got := p.Lang(); got != "ko" {
		t.Errorf("<html lang=%q> on the next page: the choice was not remembered", got)
	}
}
