// Package i18n declares the languages Kalends speaks (Codes, the one list;
// English is the source), holds the messages in each and picks the language
// of a request. Import go-i18n as goi18n: its package name clashes with
// this one.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

//go:embed locales/*.json
var localeFiles embed.FS

// Codes are the languages Kalends speaks, as codes of the wire
// (ml_language, path prefix, lang keys), in the order the API lists them.
// This is the one list of languages: every other package, the tags, the
// matcher and the bundle derive from it, and the locale test fails when
// locales/ does not hold exactly one file per code.
var Codes = []string{"zh-hans", "en", "ja", "ko"}

// Source is the language messages are written in first (one of Codes): a
// message missing in another language, a request in no known language and
// a site without a configured language all get it.
const Source = "en"

// tags maps wire codes to BCP 47 tags ("zh-hans" -> zh-Hans); the locale
// file of a code is locales/<tag>.json (go-i18n takes the language from the
// file name).
var tags = func() map[string]language.Tag {
	m := make(map[string]language.Tag, len(Codes))
	for _, c := range Codes {
		m[c] = language.Make(c)
	}
	return m
}()

// Tag returns the BCP 47 tag of a wire code ("zh-hans" -> zh-Hans).
func Tag(code string) language.Tag { return tags[code] }

// Valid reports whether code is one of Codes.
func Valid(code string) bool { _, ok := tags[code]; return ok }

// OrSource returns code when it is one of Codes, else Source: the language
// to speak when the configured one is unset or unknown.
func OrSource(code string) string {
	if Valid(code) {
		return code
	}
	return Source
}

// fileName is the locale file of a code: "zh-hans" -> "zh-Hans.json".
func fileName(code string) string { return Tag(code).String() + ".json" }

// Bundle holds the messages of every language.
type Bundle struct {
	b      *goi18n.Bundle
	locs   map[string]*goi18n.Localizer
	logger *slog.Logger
	missed sync.Map // "lang/id" already logged as missing
}

// New loads the embedded locale files.
func New(logger *slog.Logger) (*Bundle, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	b := goi18n.NewBundle(Tag(Source))
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	for _, code := range Codes {
		name := fileName(code)
		data, err := localeFiles.ReadFile("locales/" + name)
		if err != nil {
			return nil, fmt.Errorf("i18n: read %s: %w", name, err)
		}
		if _, err := b.ParseMessageFileBytes(data, name); err != nil {
			return nil, fmt.Errorf("i18n: parse %s: %w", name, err)
		}
	}
	bu := &Bundle{b: b, locs: map[string]*goi18n.Localizer{}, logger: logger}
	for code, tag := range tags {
		bu.locs[code] = goi18n.NewLocalizer(b, tag.String())
	}
	return bu, nil
}

// T renders message id in language code with data. A message missing in that
// language falls back to English (logged once); a message missing
// everywhere renders as its id, so a gap shows instead of crashing. The
// parity test keeps both from happening.
func (b *Bundle) T(code, id string, data map[string]any) string {
	loc, ok := b.locs[code]
	if !ok {
		loc = b.locs[Source]
	}
	// The plural form is chosen by the number; the text shows it grouped
	// for the reader ("112,500").
	cfg := &goi18n.LocalizeConfig{MessageID: id, TemplateData: formatCounts(code, data)}
	if n, ok := data["Count"]; ok {
		cfg.PluralCount = n
	}
	s, err := loc.Localize(cfg)
	if err != nil {
		if _, seen := b.missed.LoadOrStore(code+"/"+id, true); !seen {
			b.logger.Warn("i18n: message problem", "lang", code, "id", id, "err", err)
		}
		if s == "" {
			return id
		}
	}
	return s
}

// Has reports whether message id exists in English (the source).
func (b *Bundle) Has(id string) bool {
	_, err := b.locs[Source].Localize(&goi18n.LocalizeConfig{MessageID: id})
	return err == nil
}
