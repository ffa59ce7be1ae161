package site

import (
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
	"github.com/kalends/kalends/web/ui"
)

// A filter a public list or a feed cannot use is the reader's mistake: a
// 400 in the reader's language that says which filter and why (the public
// page for a list, plain text for a feed), never a 404 (the page exists)
// nor a 500. A filter naming a venue that does not exist is one too.
func TestBadFiltersAnswer400InTheReadersLanguage(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		b, err := i18n.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		site := models.DefaultSite()
		db.UseSite(site)
		app := fiber.New(fiber.Config{Immutable: true})
		Register(app, &ui.Deps{DB: db, I18n: b, Logger: slog.New(slog.DiscardHandler), Site: site})
		long := url.QueryEscape(strings.Repeat("東", models.MaxSearchLen+1))
		for _, lang := range []string{"en", "zh-hans", "ja", "ko"} {
			pre := "/" + lang
			if lang == "en" {
				pre = ""
			}
			title := b.T(lang, "public.bad_request.title", nil)
			for query, want := range map[string]string{
				"venue=abc":                b.T(lang, "filter.bad_id", map[string]any{"Name": "venue", "Value": "abc"}),
				"organizer=0":              b.T(lang, "filter.bad_id", map[string]any{"Name": "organizer", "Value": "0"}),
				"venue=1,%E3%81%82":        b.T(lang, "filter.bad_id", map[string]any{"Name": "venue", "Value": "あ"}),
				"search=" + long:           b.T(lang, "filter.search_too_long", map[string]any{"Max": models.MaxSearchLen}),
				"categories=no-such-thing": b.T(lang, "reason.events.unknown_term", nil),
			} {
				for _, view := range []string{"", "&view=month"} {
					resp, page := do(t, app, pre+"/events/?"+query+view)
					if resp.StatusCode != 400 || !strings.Contains(page, `lang="`+htmlLangs[lang]+`"`) ||
						!strings.Contains(page, "<h1>"+title+"</h1>") || !strings.Contains(page, htmlText(want)) {
						t.Errorf("%s/events/?%.40s%s: %d, want 400 with %q\n%.3000s", pre, query, view, resp.StatusCode, want, page)
					}
				}
			}
			for query, arg := range map[string]string{"venue=abc": "venue", "organizer=-1": "organizer", "search=" + long: "search",
				"categories=no-such-thing": "categories"} {
				resp, body := do(t, app, pre+"/events.ics?"+query)
				if want := b.T(lang, "ical.bad_argument", map[string]any{"Name": arg}); resp.StatusCode != 400 || strings.TrimSpace(body) != want {
					t.Errorf("%s/events.ics?%.40s: %d %q, want 400 %q", pre, query, resp.StatusCode, body, want)
				}
			}
		}
	})
}

// htmlLangs are the html lang attributes of the languages.
var htmlLangs = map[string]string{"en": "en", "zh-hans": "zh-Hans", "ja": "ja", "ko": "ko"}

// htmlText is s as templ writes it in an element.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
