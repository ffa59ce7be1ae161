package models

import (
	"bytes"
	"database/sql/driver"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
//
// Text is composed (NFC) first, as Kalends stores it: a Korean word typed
// in conjoining jamo (ᄒ + ᅡ + ᆫ, as macOS writes it) is the syllable 한
// and finds it, and a search word sent decomposed folds (and is compared,
// on MySQL too) as the composed one.
func FoldSearch(s string) string {
	// Most text is already in folded form (lower-case ASCII, Chinese
	// characters, hiragana, Hangul) and composed: s itself is returned when
	// no character changes. Searching on SQLite folds every candidate row's
	// title, description and excerpt, so this is the common case of the
	// hottest loop of a search. A character that may compose with the one
	// before it is not in foldSame, so the composed test costs this loop
	// nothing.
	foldOnce.Do(makeFoldTables)
	for i, r := range s {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				return foldFrom(s, i, false)
			}
		} else if !foldSameBMP(r) {
			if mayCompose(s, i, r) {
				return foldFrom(norm.NFC.String(s), 0, true)
			}
			if _, same := foldAt(s, i, r); !same {
				return foldFrom(s, i, false)
			}
		}
	}
	return s
}

// mayCompose tells whether r, the character at s[i:] (r >= 0x80), may
// change when s is composed: one that joins the character before it (a
// combining mark, a Hangul vowel or final jamo) or that NFC replaces. A
// string none of whose characters may is in NFC.
func mayCompose(s string, i int, r rune) bool {
	switch {
	case r == utf8.RuneError:
		return false
	case r < 0x10000:
		return foldCompose[r>>6]&(1<<(r&63)) != 0
	}
	p := norm.NFC.PropertiesString(s[i:])
	return !p.BoundaryBefore() || !norm.NFC.IsNormalString(string(r))
}

// foldFrom folds s, whose first i bytes fold to themselves, copying the
// runs of characters that fold to themselves whole. composed says s is in
// NFC; otherwise it is composed, and folded from the start, at the first
// character that may change so.
func foldFrom(s string, i int, composed bool) string {
	var b strings.Builder
	b.Grow(len(s))
	run := 0 // start of the pending run of characters that fold to themselves
	for j, r := range s[i:] {
		j += i
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				b.WriteString(s[run:j])
				b.WriteByte(byte(r + 'a' - 'A'))
				run = j + 1
			}
			continue
		}
		if foldSameBMP(r) {
			continue
		}
		if !composed && mayCompose(s, j, r) {
			return foldFrom(norm.NFC.String(s), 0, true)
		}
		f, same := foldAt(s, j, r)
		if same {
			continue
		}
		if run < j {
			b.WriteString(s[run:j])
		}
		b.WriteString(f)
		run = j + utf8.RuneLen(r)
		if r == utf8.RuneError && !strings.HasPrefix(s[j:], string(utf8.RuneError)) {
			run = j + 1
		}
	}
	b.WriteString(s[run:])
	return b.String()
}

// foldAt is r, the character at s[i:] (r >= 0x80), as FoldSearch writes it,
// and whether that is its own bytes. A byte that is not UTF-8 (r is
// U+FFFD, one byte long) is not: it becomes U+FFFD, as ranging over a
// string makes it.
func foldAt(s string, i int, r rune) (folded string, same bool) {
	switch {
	case r == utf8.RuneError:
		return string(utf8.RuneError), strings.HasPrefix(s[i:], string(utf8.RuneError))
	case r >= 0x10000:
		return foldRune(r)
	case foldSameBMP(r):
		return "", true
	}
	return foldTo[foldIndex[r]], false
}

// foldSameBMP tells whether r is a character of the Basic Multilingual
// Plane, other than U+FFFD, that folds to itself and may not compose with
// the character before it (short enough to be inlined in FoldSearch's
// loops).
func foldSameBMP(r rune) bool {
	return r < 0x10000 && r != utf8.RuneError && foldSame[r>>6]&(1<<(r&63)) != 0
}

// The fold of the Basic Multilingual Plane, computed once, on the first
// search (about 20 ms): a bit for each character that folds to itself and
// does not compose with the one before it, a bit for each that may
// compose (mayCompose), and the folded form of each of the others (about
// 7,000) by index.
var (
	foldOnce    sync.Once
	foldSame    [0x10000 / 64]uint64
	foldCompose [0x10000 / 64]uint64
	foldIndex   [0x10000]uint16
	foldTo      []string
)

func makeFoldTables() {
	for c := rune(0); c < 0x10000; c++ {
		f, same := foldRune(c)
		composes := false
		if c >= utf8.RuneSelf && utf8.ValidRune(c) {
			s := string(c)
			composes = !norm.NFC.PropertiesString(s).BoundaryBefore() || !norm.NFC.IsNormalString(s)
		}
		if composes {
			foldCompose[c>>6] |= 1 << (c & 63)
		}
		if same && !composes {
			foldSame[c>>6] |= 1 << (c & 63)
			continue
		}
		foldIndex[c] = uint16(len(foldTo)) //nolint:gosec // G115: fewer than 0x10000 entries.
		foldTo = append(foldTo, f)
	}
}

// foldRune is one character as FoldSearch writes it ("" for a mark), and
// whether that is the character itself.
func foldRune(r rune) (folded string, same bool) {
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
	return out, out == string(r)
}
