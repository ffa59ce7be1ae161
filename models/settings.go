package models

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// The site's identity (issue 36): its name and tagline in each language, a
// logo from the media library, an accent colour per colour scheme, custom
// CSS, the view the site opens on and links back to the organization's
// own site. One row (id 1), made by the migration, so reading never
// writes; /admin/settings changes it, administrators only.

// Settings is the stored identity of the site.
type Settings struct {
	bun.BaseModel `bun:"table:site_settings"`

	ID int64 `bun:"id,pk"`
	// Names and Taglines map a language code to its text; a language
	// missing or empty falls back (Name).
	Names    map[string]string `bun:"names,type:text,notnull"`
	Taglines map[string]string `bun:"taglines,type:text,notnull"`
	LogoID   int64             `bun:"logo_media_id,nullzero"`
	// AccentLight and AccentDark are #rrggbb, "" for the stylesheet's own.
	AccentLight string         `bun:"accent_light,notnull"`
	AccentDark  string         `bun:"accent_dark,notnull"`
	CustomCSS   string         `bun:"custom_css,type:text,notnull"`
	DefaultView string         `bun:"default_view,notnull"` // one of SettingsViews, "" for the list
	Links       []SettingsLink `bun:"links,type:text,notnull"`
	UpdatedAt   time.Time      `bun:"updated_at,nullzero"`
}

// SettingsLink is a link back to the organization's site.
type SettingsLink struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

// Name is the site's name in lang: its own, else the default language's,
// else "" (the caller then says its built-in name).
func (st *Settings) Name(lang, defaultLang string) string {
	return fallback(st.Names, lang, defaultLang)
}

// Tagline is the site's tagline in lang, with the same fallback as Name.
func (st *Settings) Tagline(lang, defaultLang string) string {
	return fallback(st.Taglines, lang, defaultLang)
}

func fallback(m map[string]string, lang, def string) string {
	if v := strings.TrimSpace(m[lang]); v != "" {
		return v
	}
	return strings.TrimSpace(m[def])
}

// SettingsViews are the views the site may open on.
var SettingsViews = []string{"list", "month", "day", "photo"}

// Limits of the settings' fields.
const (
	MaxSiteNameLen   = 100
	MaxTaglineLen    = 200
	MaxCustomCSS     = 16 << 10 // bytes
	MaxSettingsLinks = 5
)

// The colours the accents are checked against: each scheme's background
// and card colours, as assets/css/public.css declares them (--bg, --card).
var (
	SchemeLight = [2]string{"#ffffff", "#f6f8fa"}
	SchemeDark  = [2]string{"#0d1117", "#151b23"}
)

// MinAccentContrast is the contrast an accent colour needs against its
// scheme's background and cards (WCAG AA for body text).
const MinAccentContrast = 4.5

// Settings reads the site's settings.
func (s *Store) Settings(ctx context.Context) (*Settings, error) {
	st := new(Settings)
	if err := s.db.NewSelect().Model(st).Where("id = 1").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: settings: %w", mapErr(err))
	}
	if st.Names == nil {
		st.Names = map[string]string{}
	}
	if st.Taglines == nil {
		st.Taglines = map[string]string{}
	}
	return st, nil
}

// SettingsInput is what /admin/settings sends: every field, as the form
// holds them all.
type SettingsInput struct {
	Names, Taglines         map[string]string
	LogoID                  int64
	AccentLight, AccentDark string
	CustomCSS               string
	DefaultView             string
	Links                   []SettingsLink
}

// check applies the rules that need no data; it normalises the colours.
func (in *SettingsInput) check(langs []string) error {
	var c fieldChecks
	for _, l := range langs {
		name, tag := in.Names[l], in.Taglines[l]
		c.text("name_"+l, &name, MaxSiteNameLen)
		c.text("tagline_"+l, &tag, MaxTaglineLen)
	}
	for _, a := range []struct {
		field string
		v     *string
		bg    [2]string
	}{{"accent_light", &in.AccentLight, SchemeLight}, {"accent_dark", &in.AccentDark, SchemeDark}} {
		*a.v = strings.ToLower(strings.TrimSpace(*a.v))
		if *a.v == "" {
			continue
		}
		col, ok := parseHexColour(*a.v)
		if !ok {
			c.add(a.field, "settings.error.colour", nil)
			continue
		}
		*a.v = col.hex()
		for _, bg := range a.bg {
			b, _ := parseHexColour(bg)
			if r := contrast(col, b); r < MinAccentContrast {
				c.add(a.field, "settings.error.contrast", map[string]any{
					"Ratio": strconv.FormatFloat(math.Floor(r*100)/100, 'f', 2, 64), "Min": "4.5", "Against": bg})
				break
			}
		}
	}
	if fe := CheckCustomCSS(in.CustomCSS); fe != nil {
		fe.Field = "custom_css"
		c.fields = append(c.fields, *fe)
	}
	if in.DefaultView != "" && !containsString(SettingsViews, in.DefaultView) {
		c.add("default_view", "reason.not_in_enum", map[string]any{"Values": strings.Join(SettingsViews, ", ")})
	}
	if len(in.Links) > MaxSettingsLinks {
		c.add("links", "settings.error.links_max", map[string]any{"Count": MaxSettingsLinks})
	}
	for i, l := range in.Links {
		field := "link_url_" + strconv.Itoa(i)
		label := l.Label
		c.text("link_label_"+strconv.Itoa(i), &label, MaxSiteNameLen)
		switch {
		case l.URL == "" && strings.TrimSpace(l.Label) != "":
			c.add(field, "settings.error.link_url", nil)
		case l.URL != "" && !ValidURL(l.URL):
			c.add(field, "settings.error.link_url", nil)
		}
	}
	return c.err()
}

func containsString(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// SaveSettings stores in as the site's settings, administrators only. The
// logo must be an image of the library. Names, taglines and link labels
// are stored in NFC like every text. The cache generation moves in the
// save's own transaction, so every instance reads the new settings
// (and forgets the pages made with the old ones) within --cache-check.
func (s *Store) SaveSettings(ctx context.Context, actor *User, in SettingsInput, langs []string) (*Settings, error) {
	if !MayManageSettings(actor) {
		return nil, refuse(actor, KindSettings, RefusalNotAllowed)
	}
	links := in.Links[:0:0]
	for _, l := range in.Links {
		l.Label, l.URL = NFC(strings.TrimSpace(l.Label)), strings.TrimSpace(l.URL)
		if l.Label != "" || l.URL != "" {
			links = append(links, l)
		}
	}
	in.Links = links
	if err := in.check(langs); err != nil {
		return nil, err
	}
	if in.LogoID < 0 {
		return nil, Invalid("logo", "settings.error.logo", nil)
	}
	if in.LogoID != 0 {
		if _, err := s.Media(ctx, in.LogoID); err != nil {
			if IsNotFound(err) {
				return nil, Invalid("logo", "settings.error.logo", nil)
			}
			return nil, err
		}
	}
	st := &Settings{ID: 1, Names: trimMap(in.Names, langs), Taglines: trimMap(in.Taglines, langs), LogoID: in.LogoID,
		AccentLight: in.AccentLight, AccentDark: in.AccentDark, CustomCSS: in.CustomCSS,
		DefaultView: in.DefaultView, Links: in.Links, UpdatedAt: Now()}
	if st.Links == nil {
		st.Links = []SettingsLink{}
	}
	err := s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.db.NewUpdate().Model(st).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("models: save settings: %w", mapErr(err))
		}
		if err := tx.bumpCacheGeneration(ctx); err != nil {
			return fmt.Errorf("models: save settings: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// IsNotFound reports whether err says a record does not exist.
func IsNotFound(err error) bool { return err != nil && errors.Is(err, ErrNotFound) }

func trimMap(m map[string]string, langs []string) map[string]string {
	out := map[string]string{}
	for _, l := range langs {
		if v := NFC(strings.TrimSpace(m[l])); v != "" {
			out[l] = v
		}
	}
	return out
}

// settingsUseMedia reports whether the settings show image id (the logo):
// such an image may not be deleted.
func (s *Store) settingsUseMedia(ctx context.Context, id int64) (bool, error) {
	n, err := s.db.NewSelect().TableExpr("site_settings").Where("logo_media_id = ?", id).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("models: settings use image %d: %w", id, mapErr(err))
	}
	return n > 0, nil
}

// rgb is a colour of the sRGB space.
type rgb struct{ r, g, b uint8 }

func (c rgb) hex() string { return fmt.Sprintf("#%02x%02x%02x", c.r, c.g, c.b) }

// parseHexColour reads #rgb or #rrggbb.
func parseHexColour(s string) (rgb, bool) {
	if !strings.HasPrefix(s, "#") || !utf8.ValidString(s) {
		return rgb{}, false
	}
	h := s[1:]
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if len(h) != 6 {
		return rgb{}, false
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return rgb{}, false
	}
	return rgb{b[0], b[1], b[2]}, true
}

// luminance is WCAG 2's relative luminance.
func (c rgb) luminance() float64 {
	ch := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(c.r) + 0.7152*ch(c.g) + 0.0722*ch(c.b)
}

// contrast is WCAG 2's contrast ratio of a and b (1 to 21).
func contrast(a, b rgb) float64 {
	la, lb := a.luminance(), b.luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// ContrastRatio is the contrast of two #rrggbb colours (0 when either is
// not one).
func ContrastRatio(a, b string) float64 {
	ca, ok1 := parseHexColour(a)
	cb, ok2 := parseHexColour(b)
	if !ok1 || !ok2 {
		return 0
	}
	return contrast(ca, cb)
}

// CheckManageSettings returns the refusal SaveSettings gives actor, or
// nil when actor may change the settings: for the form's page.
func CheckManageSettings(actor *User) error {
	if !MayManageSettings(actor) {
		return refuse(actor, KindSettings, RefusalNotAllowed)
	}
	return nil
}

// CheckSettings applies the rules of SaveSettings that need no data.
func CheckSettings(in SettingsInput, langs []string) error { return in.check(langs) }

// clearUnsavedSettings removes the settings row the migration made while
// it was never saved, so that a site export can be loaded (LoadSite); a
// saved row stays, and makes the database not empty.
func (s *Store) clearUnsavedSettings(ctx context.Context) error {
	if _, err := s.db.NewDelete().TableExpr("site_settings").Where("id = 1 AND updated_at IS NULL").Exec(ctx); err != nil {
		return fmt.Errorf("models: clear settings: %w", mapErr(err))
	}
	return nil
}

// ensureSettingsRow makes the settings row when there is none (a site
// export made before the settings existed was loaded).
func (s *Store) ensureSettingsRow(ctx context.Context) error {
	st := &Settings{ID: 1, Names: map[string]string{}, Taglines: map[string]string{}, Links: []SettingsLink{}}
	if _, err := s.db.NewInsert().Model(st).Ignore().Exec(ctx); err != nil {
		return fmt.Errorf("models: settings row: %w", mapErr(err))
	}
	return nil
}
