// Package i18n holds Kalends' messages in zh-hans, en, ja and ko (English is
// the source) and picks the language of a request. Import go-i18n as
// goi18n: its package name clashes with this one.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

//go:embed locales/*.json
var localeFiles embed.FS

// Codes are the language codes of the wire (ml_language, path prefix, lang
// keys), in the order the API lists them.
var Codes = []string{"zh-hans", "en", "ja", "ko"}

// tags maps wire codes to BCP 47 tags; the locale file of a code is
// locales/<tag>.json (go-i18n takes the language from the file name).
var tags = map[string]language.Tag{
	"zh-hans": language.Make("zh-Hans"),
	"en":      language.English,
	"ja":      language.Japanese,
	"ko":      language.Korean,
}

// Tag returns the BCP 47 tag of a wire code ("zh-hans" -> zh-Hans).
func Tag(code string) language.Tag { return tags[code] }

// Valid reports whether code is one of Codes.
func Valid(code string) bool { _, ok := tags[code]; return ok }

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
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	entries, err := fs.ReadDir(localeFiles, "locales")
	if err != nil {
		return nil, fmt.Errorf("i18n: read locales: %w", err)
	}
	for _, e := range entries {
		data, err := localeFiles.ReadFile("locales/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("i18n: read %s: %w", e.Name(), err)
		}
		if _, err := b.ParseMessageFileBytes(data, e.Name()); err != nil {
			return nil, fmt.Errorf("i18n: parse %s: %w", e.Name(), err)
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
		loc = b.locs["en"]
	}
	cfg := &goi18n.LocalizeConfig{MessageID: id, TemplateData: data}
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
	_, err := b.locs["en"].Localize(&goi18n.LocalizeConfig{MessageID: id})
	return err == nil
}
