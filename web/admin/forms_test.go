package admin

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// Every form answers a failed save the same way (ADMIN-UI.md, GOV.UK): a
// summary at the top (role="alert") whose items link to their inputs, the
// message above its input, the input aria-invalid and described by its
// hint and its message. No tag carries a stray attribute (a templ else
// inside a tag once rendered one literally named "else") or two
// aria-describedby.
func TestFormErrorsShowTheSameEverywhere(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	bundle, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	account(t, db, "midori", models.RoleAdministrator)
	b := newBrowser(t, app)
	csrf := b.signIn("midori", "password-midori")
	strayElse := regexp.MustCompile(`<[^>]*\selse[\s/>]`)
	twoDescs := regexp.MustCompile(`<[^>]*aria-describedby[^>]*aria-describedby[^>]*>`)
	for _, tt := range []struct {
		name, path, title string
		form              url.Values
		want              []string
	}{
		{"event", "/admin/events", "admin.form.errors",
			url.Values{"title": {""}, "timezone": {"Mars/東京"}, "description": {"Ｃａｆé"}},
			[]string{`<a href="#title">`, `<a href="#timezone">`,
				`<p id="title-error" class="field-error" data-testid="error-title">`,
				`aria-describedby="title-error" aria-invalid="true"`,
				`<p id="timezone-hint" class="help field-hint">`, `aria-describedby="timezone-hint timezone-error" aria-invalid="true"`,
				`aria-describedby="description-hint">`}},
		{"category", "/admin/categories", "admin.categories.form_errors",
			url.Values{"name": {""}, "slug": {"!!!"}},
			[]string{`<a href="#name">`, `aria-describedby="name-error" aria-invalid="true"`,
				`aria-describedby="slug-hint slug-error" aria-invalid="true"`}},
		{"venue", "/admin/venues", "admin.form.errors_record",
			url.Values{"venue": {""}, "website": {"not a url"}},
			[]string{`<a href="#website">`, `aria-describedby="website-error" aria-invalid="true"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.form.Set("_csrf", csrf)
			resp, page := b.send(http.MethodPost, tt.path, tt.form)
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("%d, want 422", resp.StatusCode)
			}
			want := append([]string{`<div class="alert error-summary" role="alert" data-testid="error-summary" tabindex="-1">`,
				`<p class="error-summary-title">` + bundle.T("en", tt.title, nil) + `</p>`}, tt.want...)
			for _, w := range want {
				if !strings.Contains(page, w) {
					t.Errorf("the answer lacks %s", w)
				}
			}
			if m := strayElse.FindString(page); m != "" {
				t.Errorf("a tag has an attribute named else: %s", m)
			}
			if m := twoDescs.FindString(page); m != "" {
				t.Errorf("a tag has two aria-describedby: %s", m)
			}
		})
	}
}
