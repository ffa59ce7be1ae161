package models

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gorilla/css/scanner"
)

// The custom CSS of the settings is served in the site's generated
// stylesheet (never inline, never on admin pages). It may not fetch
// anything from elsewhere nor run script: @import, expression( and any
// url() or image-set() whose address is not relative are refused. Escapes
// are decoded first, so `@\69mport` or `\75rl(` do not slip through; the
// text is tokenized both as written and decoded, and a refusal of either
// refuses it.

// CheckCustomCSS returns why css may not be saved, or nil. The error's
// Field is left for the caller to set.
func CheckCustomCSS(css string) *FieldError {
	if css == "" {
		return nil
	}
	fe := func(reason string, data map[string]any) *FieldError {
		return &FieldError{Code: CodeInvalidParam, Reason: reason, Data: data}
	}
	if len(css) > MaxCustomCSS {
		return fe("settings.error.css_too_long", map[string]any{"Max": MaxCustomCSS >> 10})
	}
	if !utf8.ValidString(css) {
		return fe("settings.error.css_unreadable", nil)
	}
	for _, text := range []string{css, decodeCSSEscapes(css)} {
		if reason, what := scanCSS(text); reason != "" {
			return fe(reason, map[string]any{"What": what})
		}
	}
	return nil
}

// imageSets take addresses as their strings; url( and src( take one
// address, quoted or not.
var imageSets = map[string]bool{"image-set(": true, "-webkit-image-set(": true}

// scanCSS returns the first refusal reason of text and the part it
// refuses ("" when text may be saved).
func scanCSS(text string) (reason, what string) {
	s := scanner.New(text)
	var open []string        // the functions and parentheses open, innermost last
	var addr strings.Builder // the text inside an open url( or src(
	inAddr := func() bool { n := len(open); return n > 0 && (open[n-1] == "url(" || open[n-1] == "src(") }
	inSet := func() bool {
		for _, f := range open {
			if imageSets[f] {
				return true
			}
		}
		return false
	}
	for {
		tok := s.Next()
		if inAddr() && tok.Type != scanner.TokenEOF && tok.Type != scanner.TokenError && tok.Value != ")" {
			addr.WriteString(tok.Value)
			continue
		}
		switch tok.Type {
		case scanner.TokenEOF:
			if len(open) > 0 && inAddr() && !relativeURL(unquote(strings.TrimSpace(addr.String()))) {
				return "settings.error.css_url", clip(addr.String())
			}
			return "", ""
		case scanner.TokenError:
			return "settings.error.css_unreadable", clip(tok.Value)
		case scanner.TokenAtKeyword:
			if strings.EqualFold(tok.Value, "@import") {
				return "settings.error.css_import", "@import"
			}
		case scanner.TokenFunction:
			name := strings.ToLower(tok.Value)
			if name == "expression(" {
				return "settings.error.css_expression", "expression("
			}
			open = append(open, name)
			addr.Reset()
		case scanner.TokenURI:
			if !relativeURL(uriValue(tok.Value)) {
				return "settings.error.css_url", clip(tok.Value)
			}
		case scanner.TokenString:
			if inSet() && !relativeURL(unquote(tok.Value)) {
				return "settings.error.css_url", clip(tok.Value)
			}
		case scanner.TokenChar:
			switch tok.Value {
			case "(":
				open = append(open, "(")
			case ")":
				if inAddr() && !relativeURL(unquote(strings.TrimSpace(addr.String()))) {
					return "settings.error.css_url", clip(addr.String())
				}
				if len(open) > 0 {
					open = open[:len(open)-1]
				}
			}
		}
	}
}

// uriValue is the address of a url(…) token.
func uriValue(tok string) string {
	v := strings.TrimSpace(tok[len("url(") : len(tok)-1])
	return unquote(v)
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.\-]*:`)

// relativeURL reports whether addr stays on this site: no scheme (http:,
// data:, javascript:) and not protocol-relative (//host, \\host).
func relativeURL(addr string) bool {
	a := strings.TrimSpace(addr)
	if schemeRE.MatchString(a) {
		return false
	}
	a = strings.ReplaceAll(a, `\`, "/")
	return !strings.HasPrefix(a, "//")
}

func clip(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		return string(r[:60]) + "…"
	}
	return s
}

// decodeCSSEscapes replaces CSS escapes (\ and 1 to 6 hex digits with an
// optional space, or \ and one character) by what they stand for, except
// those standing for a quote, a backslash or a line break, which stay
// escaped so that strings keep their bounds.
func decodeCSSEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i + 1
		for j < len(s) && j-i-1 < 6 && isHex(s[j]) {
			j++
		}
		var r rune
		if j > i+1 {
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			r = rune(n) //nolint:gosec // G115: at most 6 hex digits, below 2^24
			if r == 0 || r > utf8.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
				r = utf8.RuneError
			}
			if j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n') {
				j++
			}
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(s[j:])
			j += size
		}
		if r == '"' || r == '\'' || r == '\\' || r == '\n' || r == '\r' || r == '\f' {
			b.WriteString(s[i:j])
		} else {
			b.WriteRune(r)
		}
		i = j
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
