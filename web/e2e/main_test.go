// Package e2e holds the admin's browser tests: the real kalends binary on a
// fresh SQLite file, driven by headless Chromium through
// internal/browsertest. The whole package is bounded by browsertest.Budget.
package e2e

import (
	"testing"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// bundle is the message bundle the server renders with, for the texts a
// test expects.
func bundle(t *testing.T) *i18n.Bundle {
	t.Helper()
	b, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
