package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

var settingsLangs = []string{"en", "ja", "ko", "zh-Hans"}

// The settings row is there from the migration; a save by an
// administrator is read back whole, moves the cache generation, and keeps
// its logo from being deleted; nobody else may save.
func TestSaveSettings(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		st, err := db.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Name("ja", "en") != "" || st.LogoID != 0 {
			t.Fatalf("fresh settings = %+v", st)
		}
		admin := newUser(t, db, "kanri@example.test", models.RoleAdministrator)
		ed := newUser(t, db, "henshu@example.test", models.RoleEditor)
		m, err := db.CreateMedia(ctx, admin, models.MediaUpload{FileName: "ロゴ.png", Data: imagetest.PNG(120, 40)})
		if err != nil {
			t.Fatal(err)
		}
		// Typed in NFD (as macOS and some IMEs send it), stored in NFC.
		in := models.SettingsInput{Names: map[string]string{"en": "Riverside Events", "ja": norm.NFD.String(" 川辺のイベント ")},
			Taglines: map[string]string{"ko": norm.NFD.String("강변 행사")}, LogoID: m.ID, AccentLight: "#0B5CAD", AccentDark: "#8cf",
			CustomCSS: ".site-name { letter-spacing: .02em; background: url(/media/1/full.png) }", DefaultView: "month",
			Links: []models.SettingsLink{{Label: norm.NFD.String("Café Société"), URL: "https://example.org/à-propos"}, {}}}
		if _, err := db.SaveSettings(ctx, ed, in, settingsLangs); !errors.Is(err, models.ErrForbidden) {
			t.Fatalf("editor's save: %v, want forbidden", err)
		}
		gen, _ := db.CacheGeneration(ctx)
		if _, err := db.SaveSettings(ctx, admin, in, settingsLangs); err != nil {
			t.Fatal(err)
		}
		if g, _ := db.CacheGeneration(ctx); g <= gen {
			t.Errorf("cache generation %d after the save, was %d", g, gen)
		}
		st, err = db.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Name("ja", "en") != "川辺のイベント" || st.Name("ko", "en") != "Riverside Events" || st.Name("ko", "ja") != "川辺のイベント" ||
			st.Tagline("ko", "en") != "강변 행사" || st.AccentLight != "#0b5cad" || st.AccentDark != "#88ccff" ||
			st.DefaultView != "month" || len(st.Links) != 1 || st.Links[0].URL != "https://example.org/à-propos" ||
			st.Links[0].Label != "Café Société" || st.LogoID != m.ID {
			t.Errorf("read back %+v", st)
		}
		err = db.DeleteMedia(ctx, admin, m.ID, true)
		var ve *models.ValidationError
		if !errors.As(err, &ve) || ve.Fields[0].Reason != "settings.error.logo_in_use" {
			t.Fatalf("deleting the logo: %v", err)
		}
		in.LogoID = 0
		if _, err := db.SaveSettings(ctx, admin, in, settingsLangs); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteMedia(ctx, admin, m.ID, false); err != nil {
			t.Fatalf("deleting a logo no longer used: %v", err)
		}
		in.LogoID = m.ID
		if _, err := db.SaveSettings(ctx, admin, in, settingsLangs); !hasReason(err, "logo", "settings.error.logo") {
			t.Fatalf("a deleted image as logo: %v", err)
		}
	})
}

func hasReason(err error, field, reason string) bool {
	var ve *models.ValidationError
	if !errors.As(err, &ve) {
		return false
	}
	fe := ve.Field(field)
	return fe != nil && fe.Reason == reason
}

// Each rule of the settings that needs no data refuses what it should and
// lets through what it should.
func TestSettingsRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		in     models.SettingsInput
		field  string
		reason string // "" for accepted
	}{
		{"light accent too pale", models.SettingsInput{AccentLight: "#4493f8"}, "accent_light", "settings.error.contrast"},
		{"dark accent too dark", models.SettingsInput{AccentDark: "#0b5cad"}, "accent_dark", "settings.error.contrast"},
		{"accent passes on both", models.SettingsInput{AccentLight: "#0b5cad", AccentDark: "#4493f8"}, "", ""},
		{"accent not a colour", models.SettingsInput{AccentLight: "blue"}, "accent_light", "settings.error.colour"},
		{"link not http", models.SettingsInput{Links: []models.SettingsLink{{Label: "x", URL: "javascript:alert(1)"}}}, "link_url_0", "settings.error.link_url"},
		{"link ftp", models.SettingsInput{Links: []models.SettingsLink{{Label: "x", URL: "ftp://example.org/"}}}, "link_url_0", "settings.error.link_url"},
		{"label without url", models.SettingsInput{Links: []models.SettingsLink{{Label: "組織のサイト"}}}, "link_url_0", "settings.error.link_url"},
		{"unknown view", models.SettingsInput{DefaultView: "agenda"}, "default_view", "reason.not_in_enum"},
		{"name too long", models.SettingsInput{Names: map[string]string{"ja": strings.Repeat("祭", 101)}}, "name_ja", "reason.too_long"},
		{"css import", models.SettingsInput{CustomCSS: `@import "x.css";`}, "custom_css", "settings.error.css_import"},
		{"css import escaped", models.SettingsInput{CustomCSS: `@\69mport "x.css";`}, "custom_css", "settings.error.css_import"},
		{"css import upper", models.SettingsInput{CustomCSS: `@IMPORT url(x.css);`}, "custom_css", "settings.error.css_import"},
		{"css expression", models.SettingsInput{CustomCSS: `p { width: expression(alert(1)) }`}, "custom_css", "settings.error.css_expression"},
		{"css expression escaped", models.SettingsInput{CustomCSS: `p { width: ex\70ression(alert(1)) }`}, "custom_css", "settings.error.css_expression"},
		{"css absolute url", models.SettingsInput{CustomCSS: `body { background: url(https://evil.example/x.png) }`}, "custom_css", "settings.error.css_url"},
		{"css quoted url", models.SettingsInput{CustomCSS: `body { background: url( "//evil.example/x.png" ) }`}, "custom_css", "settings.error.css_url"},
		{"css upper URL", models.SettingsInput{CustomCSS: `body { background: URL(http://evil.example/x.png) }`}, "custom_css", "settings.error.css_url"},
		{"css escaped url", models.SettingsInput{CustomCSS: `body { background: \75rl(http://evil.example/x.png) }`}, "custom_css", "settings.error.css_url"},
		{"css data url", models.SettingsInput{CustomCSS: `body { background: url('data:image/png;base64,AAAA') }`}, "custom_css", "settings.error.css_url"},
		{"css image-set", models.SettingsInput{CustomCSS: `h1 { background: image-set("a.png" 1x, "https://evil.example/b.png" 2x) }`}, "custom_css", "settings.error.css_url"},
		{"css string hides nothing", models.SettingsInput{CustomCSS: `h1::after { content: "\"" } h1 { background: url(http://evil.example/) }`}, "custom_css", "settings.error.css_url"},
		{"css too long", models.SettingsInput{CustomCSS: strings.Repeat("a{}", 6000)}, "custom_css", "settings.error.css_too_long"},
		{"css unclosed comment", models.SettingsInput{CustomCSS: `a { color: red } /* 閉じない`}, "custom_css", "settings.error.css_unreadable"},
		{"css relative urls pass", models.SettingsInput{CustomCSS: `.hero { background: url(/media/3/full.png), image-set("a.png" 1x, url(b.png) 2x); } h1::before { content: "★ 祭り"; font-family: "Noto Sans JP" }`}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := models.CheckSettings(c.in, settingsLangs)
			if c.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !hasReason(err, c.field, c.reason) {
				t.Fatalf("got %v, want %s on %s", err, c.reason, c.field)
			}
		})
	}
}
