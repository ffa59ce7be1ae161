package admin

import (
	"net/url"
	"strings"
	"testing"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// A filter the events list or the calendar cannot use is said above the
// (empty) events in the user's language, on a 200 page that keeps the
// filter form: the calendar no longer drops it silently and shows every
// event.
func TestBadFiltersAreSaidOnTheListAndTheCalendar(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	account(t, db, "ann", models.RoleAdministrator)
	bundle, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	long := url.QueryEscape(strings.Repeat("한", models.MaxSearchLen+1))
	for _, lang := range []string{"en", "zh-hans", "ja", "ko"} {
		b := newBrowser(t, app)
		b.chooseLanguage(lang, b.signIn("ann", "password-ann"))
		for query, want := range map[string]string{
			"venue=abc":                bundle.T(lang, "filter.bad_id", map[string]any{"Name": "venue", "Value": "abc"}),
			"organizer=0":              bundle.T(lang, "filter.bad_id", map[string]any{"Name": "organizer", "Value": "0"}),
			"search=" + long:           bundle.T(lang, "filter.search_too_long", map[string]any{"Max": models.MaxSearchLen}),
			"categories=no-such-thing": bundle.T(lang, "reason.events.unknown_term", nil),
			"venue=987654":             bundle.T(lang, "reason.events.unknown_venue", map[string]any{"ID": int64(987654)}),
		} {
			for _, path := range []string{eventsPath, calendarPath} {
				resp, page := b.get(path + "?" + query)
				if resp.StatusCode != 200 || !strings.Contains(page, `role="alert"`) || !strings.Contains(page, htmlEscape(want)) {
					t.Errorf("%s %s?%.40s: %d, want 200 with %q", lang, path, query, resp.StatusCode, want)
				}
			}
		}
	}
}

// htmlEscape is s as templ writes it in an element.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
