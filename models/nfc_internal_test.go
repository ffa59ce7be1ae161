package models

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// Sanitized HTML is stored in NFC, and composing it never changes its
// markup: U+0338 right after a tag's '>' would join it into ≯ and make the
// text after it the tag's attributes (an event handler), so it is kept as
// a character reference.
func TestSanitizedHTMLIsComposedAndStaysSafe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{norm.NFD.String("<p>Café <b>서울</b></p>"), "<p>Café <b>서울</b></p>"},
		{"<p>Cafe&#x301; &#x1112;&#x1161;&#x11ab;</p>", "<p>Café 한</p>"},
		{"<b>&#x338; onmouseover=alert(1) x</b>", "<b>&#x338; onmouseover=alert(1) x</b>"},
		{"<b>&#x338;&#x301;onclick=alert(1)</b>", "<b>&#x338;&#x301;onclick=alert(1)</b>"},
		{"<b>\u0338 onmouseover=alert(1)</b>", ""},
		{"<p>a &gt;&#x338; b =&#x338; c &#x338;</p>", "<p>a &gt;\u0338 b =&#x338; c \u0338</p>"},
	} {
		got := *sanitizeHTML(&tt.in)
		if !norm.NFC.IsNormalString(got) {
			t.Errorf("sanitizeHTML(%+q) = %+q: not NFC", tt.in, got)
		}
		if got != tt.want {
			t.Errorf("sanitizeHTML(%+q) = %+q, want %+q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "≯") && strings.Contains(got, "<b≯") {
			t.Errorf("sanitizeHTML(%+q) = %+q: a tag lost its end", tt.in, got)
		}
	}
	// What was stored before, sanitized but decomposed, is composed by
	// the migration with the same care.
	if got := nfcHTML("<b>\u0338 onmouseover=alert(1)</b>"); got != "<b>&#x338; onmouseover=alert(1)</b>" {
		t.Errorf("nfcHTML = %+q", got)
	}
}
