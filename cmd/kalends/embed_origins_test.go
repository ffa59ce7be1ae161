package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// --embed-origins is checked at start: exact origins (written as CSP
// sources: lower case, no final slash) or * alone.
func TestEmbedOriginsAreCheckedAtStart(t *testing.T) {
	t.Parallel()
	c, err := parseCommand([]string{"--embed-origins", "https://Example.ORG/, http://127.0.0.1:8081"}, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://example.org", "http://127.0.0.1:8081"}; !slices.Equal(c.cfg.EmbedOrigins, want) {
		t.Errorf("origins %q, want %q", c.cfg.EmbedOrigins, want)
	}
	if c, err := parseCommand([]string{"--embed-origins", "*"}, envOf(nil), io.Discard); err != nil || !slices.Equal(c.cfg.EmbedOrigins, []string{"*"}) {
		t.Errorf("*: %v", err)
	}
	for _, bad := range []string{"example.org", "https://example.org/calendar", "ftp://example.org", "https://*.example.org",
		"https://example.org?x=1", "*, https://example.org", "https://a.example 'unsafe-inline'", "https://user@example.org"} {
		if _, err := parseCommand([]string{"--embed-origins", bad}, envOf(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "--embed-origins") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
