package i18n

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/language"
)

var update = flag.Bool("update", false, "rewrite the locale files in canonical form (sorted keys, two-space indent)")

// localeFileNames maps each of Codes to its file in locales/.
var localeFileNames = func() map[string]string {
	m := map[string]string{}
	for _, c := range Codes {
		m[c] = fileName(c)
	}
	return m
}()

// TestLocaleFilesAreTheLanguageList fails when Codes and locales/ disagree:
// a code without its file, a file of a language not in Codes, or a bundle
// that does not speak exactly Codes.
func TestLocaleFilesAreTheLanguageList(t *testing.T) {
	var want []string
	for _, c := range Codes {
		want = append(want, fileName(c))
	}
	sort.Strings(want)
	entries, err := os.ReadDir("locales")
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
	}
	sort.Strings(have)
	if strings.Join(have, " ") != strings.Join(want, " ") {
		t.Errorf("locales/ holds %v; i18n.Codes %v need exactly %v", have, Codes, want)
	}
	if !Valid(Source) || OrSource("") != Source || OrSource("xx") != Source {
		t.Errorf("Source %q is not one of Codes %v", Source, Codes)
	}
	seen := map[string]bool{}
	for _, c := range Codes {
		if seen[c] || Normalize(c) != c || Tag(c) == language.Und {
			t.Errorf("code %q is repeated, not in normal form, or has no BCP 47 tag", c)
		}
		seen[c] = true
	}
	b, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var spoken []string
	for _, tag := range b.b.LanguageTags() {
		spoken = append(spoken, tag.String())
	}
	var tags []string
	for _, c := range Codes {
		tags = append(tags, Tag(c).String())
	}
	sort.Strings(spoken)
	sort.Strings(tags)
	if strings.Join(spoken, " ") != strings.Join(tags, " ") {
		t.Errorf("the bundle speaks %v, Codes are %v", spoken, tags)
	}
	for _, c := range Codes {
		if got := Match(Tag(c).String(), "none"); got != c {
			t.Errorf("Match(%q) = %q, want %q", Tag(c).String(), got, c)
		}
	}
}

var placeholderRE = regexp.MustCompile(`\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

func readLocale(t *testing.T, name string) (map[string]any, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("locales", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m, raw
}

// texts returns the plural forms of a message value (a string is "other").
func texts(v any) map[string]string {
	switch x := v.(type) {
	case string:
		return map[string]string{"other": x}
	case map[string]any:
		out := map[string]string{}
		for k, s := range x {
			if str, ok := s.(string); ok {
				out[k] = str
			}
		}
		return out
	}
	return nil
}

func placeholders(s string) []string {
	set := map[string]bool{}
	for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
		set[m[1]] = true
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestLocaleParity(t *testing.T) {
	en, _ := readLocale(t, localeFileNames[Source])
	for code, name := range localeFileNames {
		m, _ := readLocale(t, name)
		for k, v := range en {
			other, ok := m[k]
			if !ok {
				t.Errorf("%s: missing key %q", name, k)
				continue
			}
			et, ot := texts(v), texts(other)
			if ot == nil {
				t.Errorf("%s: %q is neither a string nor a plural object", name, k)
				continue
			}
			for form, s := range ot {
				if strings.TrimSpace(s) == "" {
					t.Errorf("%s: %q (%s) is empty", name, k, form)
				}
				if got, want := placeholders(s), placeholders(et["other"]); strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%s: %q uses placeholders %v, English uses %v", name, k, got, want)
				}
			}
			if code == Source {
				if _, plural := v.(map[string]any); plural && (et["one"] == "" || et["other"] == "") {
					t.Errorf("en.json: plural %q needs one and other", k)
				}
			} else if _, plural := other.(map[string]any); plural && ot["other"] == "" {
				t.Errorf("%s: plural %q needs other", name, k)
			}
		}
		for k := range m {
			if _, ok := en[k]; !ok {
				t.Errorf("%s: key %q is not in en.json (English is the source)", name, k)
			}
		}
	}
}

// punctuationOnly are the messages that are punctuation in every
// language: the separator of a list of weekdays ("、" in Japanese and
// Chinese, ", " in Korean and English).
var punctuationOnly = map[string]bool{"recurrence.text.list_sep": true}

// TestLocaleScript checks that the messages of every language but the
// source are written in that language's script, not left in English.
func TestLocaleScript(t *testing.T) {
	scripts := map[string]func(rune) bool{
		"zh-hans": func(r rune) bool { return unicode.Is(unicode.Han, r) },
		"ja":      func(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) },
		"ko":      func(r rune) bool { return unicode.Is(unicode.Hangul, r) },
	}
	en, _ := readLocale(t, localeFileNames[Source])
	for _, code := range Codes {
		isScript := scripts[code]
		if code == Source {
			continue
		}
		if isScript == nil {
			t.Errorf("%s: no script rule in TestLocaleScript; add one", code)
			continue
		}
		name := localeFileNames[code]
		m, _ := readLocale(t, name)
		for k, v := range m {
			if punctuationOnly[k] {
				continue
			}
			for form, s := range texts(v) {
				stripped := placeholderRE.ReplaceAllString(s, "")
				if !strings.ContainsFunc(stripped, isScript) {
					t.Errorf("%s: %q (%s) has no text in the language's script: %q", name, k, form, s)
				}
				if e := texts(en[k])[form]; e != "" && e == s {
					t.Errorf("%s: %q is the English text", name, k)
				}
			}
		}
	}
}

// TestLocaleMessagesRender renders every message in every language with
// sample data, so a broken template fails here and not in production.
func TestLocaleMessagesRender(t *testing.T) {
	b, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := readLocale(t, localeFileNames[Source])
	for k, v := range en {
		data := map[string]any{"Count": 2}
		for _, p := range placeholders(texts(v)["other"]) {
			if p != "Count" {
				data[p] = "«" + p + "»"
			}
		}
		for _, code := range Codes {
			for _, n := range []int{1, 2} {
				data["Count"] = n
				s := b.T(code, k, data)
				if s == k || strings.Contains(s, "<no value>") || strings.Contains(s, "{{") {
					t.Errorf("%s %q (Count=%d) renders as %q", code, k, n, s)
				}
			}
		}
	}
}

// TestLocaleFormat keeps the files canonical (sorted keys, two-space
// indent), which keeps merges of parallel work mechanical. Fix with
// `go test ./i18n -run TestLocaleFormat -update`.
func TestLocaleFormat(t *testing.T) {
	for _, name := range localeFileNames {
		m, raw := readLocale(t, name)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(m); err != nil { // maps encode with sorted keys
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), raw) {
			if *update {
				//nolint:gosec // G306: a locale file of the repository, world-readable like the others.
				if err := os.WriteFile(filepath.Join("locales", name), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s is not in canonical form; run: go test ./i18n -run TestLocaleFormat -update", name)
		}
	}
}
