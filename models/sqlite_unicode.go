package models

import (
	"bytes"
	"database/sql/driver"
	"strings"
	"sync/atomic"
	"unicode"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
	"modernc.org/sqlite"
)

// SQLite's built-in LOWER folds ASCII only, so a search for "église" (or
// even "Église", lowered in Go to "église") missed "Église" on SQLite while
// MySQL's collation found it. Replacing LOWER with a Unicode-aware one for
// every connection makes the search and duplicate conditions (LOWER(col)
// LIKE lower(word)) behave the same on both dialects.
func init() {
	err := sqlite.RegisterDeterministicScalarFunction("lower", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return bytes.ToLower(v), nil
		}
		return args[0], nil // NULL and numbers: nothing to fold
	})
	if err != nil {
		panic("models: register SQLite lower: " + err.Error())
	}
	err = sqlite.RegisterDeterministicScalarFunction("kfold", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return FoldSearch(v), nil
		case []byte:
			return FoldSearch(string(v)), nil
		}
		return args[0], nil
	})
	if err != nil {
		panic("models: register SQLite kfold: " + err.Error())
	}
}

// FoldSearch is the form in which search text is compared, on both
// dialects: compatibility forms made usual (full-width letters and digits,
// half-width katakana), accents and kana voicing marks removed, lower case,
// and katakana as hiragana. That is what MySQL's utf8mb4_unicode_ci
// collation treats as equal character by character in a LIKE (it compares
// primary weights: か = が = カ, é = e, Ａ = a; expansions such as ß = ss
// hold for = but not for LIKE, so neither side has them), so a search finds
// the same records on SQLite (which calls it as kfold on every row it
// searches) and on MySQL. Hangul syllables stay whole, as MySQL compares
// them.
func FoldSearch(s string) string {
	ascii, upper := true, false
	for i := 0; i < len(s) && ascii; i++ {
		c := s[i]
		ascii = c < 0x80
		upper = upper || ('A' <= c && c <= 'Z')
	}
	if ascii {
		if upper {
			return strings.ToLower(s)
		}
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < 0x80:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r)) //nolint:gosec // G115: r < 0x80 here.
		default:
			b.WriteString(foldRune(r))
		}
	}
	return b.String()
}

// foldCache holds the folded form of each character of the Basic
// Multilingual Plane once computed (search folds every row's text).
var foldCache [0x10000]atomic.Pointer[string]

// foldRune is one character as FoldSearch writes it ("" for a mark).
func foldRune(r rune) string {
	if r < 0x10000 {
		if p := foldCache[r].Load(); p != nil {
			return *p
		}
	}
	out := string(unicode.ToLower(r))
	if r < 0xAC00 || r > 0xD7A3 { // Hangul syllables stay whole
		var b strings.Builder
		for _, c := range norm.NFKD.String(width.Fold.String(string(r))) {
			switch {
			case unicode.Is(unicode.Mn, c):
				continue // accents, kana voicing marks and other combining marks
			case c >= 0x30A1 && c <= 0x30F6:
				c -= 0x60 // katakana → hiragana
			}
			b.WriteRune(unicode.ToLower(c))
		}
		out = b.String()
	}
	if r < 0x10000 {
		foldCache[r].Store(&out)
	}
	return out
}
