package admin

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// An administrator creates a user through the form; invalid input comes
// back (422) with each message next to its field and a summary; an editor
// is refused (403) with the models' message in their language.
func TestUsersPages(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	bundle, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	account(t, db, "root", models.RoleAdministrator)
	account(t, db, "ed", models.RoleEditor)

	b := newBrowser(t, app)
	token := b.signIn("root", "password-root")
	resp, page := b.get(usersPath)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `href="/admin/users/`) || !strings.Contains(page, ">ed<") {
		t.Fatalf("users list: %d\n%.2000s", resp.StatusCode, page)
	}
	resp, page = b.get(usersPath + "?search=ED&role=editor")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, ">ed<") || strings.Contains(page, ">root<") {
		t.Errorf("search and filter: %d", resp.StatusCode)
	}

	// Invalid: short password, bad e-mail; the input is kept.
	form := url.Values{"_csrf": {token}, "login": {"newbie"}, "display_name": {"New Bie"}, "email": {"not-an-email"},
		"role": {"author"}, "password": {"short"}}
	resp, page = b.send(http.MethodPost, usersPath, form)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("invalid create: %d", resp.StatusCode)
	}
	for _, want := range []string{`role="alert"`, `id="email-error"`, `id="password-error"`, `value="New Bie"`,
		`aria-describedby="email-error"`, bundle.T("en", "reason.invalid_email", nil)} {
		if !strings.Contains(page, want) {
			t.Errorf("the re-rendered form lacks %s", want)
		}
	}
	if !regexp.MustCompile(`<option value="author" selected`).MatchString(page) {
		t.Error("the role chosen is not kept")
	}

	form.Set("email", "newbie@example.test")
	form.Set("password", "long-enough-password")
	resp, _ = b.send(http.MethodPost, usersPath, form)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, usersPath+"/") {
		t.Fatalf("create: %d to %q", resp.StatusCode, loc)
	}
	_, page = b.get(loc)
	if !strings.Contains(page, bundle.T("en", "admin.flash.user_created", nil)) {
		t.Error("no flash after creating")
	}
	nb, err := db.GetUserByLogin(context.Background(), "newbie")
	if err != nil || nb.Role != models.RoleAuthor {
		t.Fatalf("created user: %v %v", nb, err)
	}

	// Change the role.
	resp, _ = b.send(http.MethodPost, userPath(nb.ID, ""), url.Values{"_csrf": {token}, "display_name": {"New Bie"},
		"email": {"newbie@example.test"}, "role": {"editor"}, "locale": {"ja"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("update: %d", resp.StatusCode)
	}
	if nb, _ = db.GetUserByLogin(context.Background(), "newbie"); nb.Role != models.RoleEditor || nb.Locale != "ja" {
		t.Errorf("after update: %s %s", nb.Role, nb.Locale)
	}

	// An application password for them, shown once, then revoked.
	resp, page = b.send(http.MethodPost, userPath(nb.ID, "/app-passwords"), url.Values{"_csrf": {token}, "name": {"laptop"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `data-testid="app-password-value"`) {
		t.Fatalf("create app password: %d", resp.StatusCode)
	}
	aps, _ := db.ListAppPasswords(context.Background(), models.Console, nb.ID)
	if len(aps) != 1 {
		t.Fatalf("%d app passwords", len(aps))
	}
	resp, _ = b.send(http.MethodPost, userPath(nb.ID, "/app-passwords/")+"x", url.Values{"_csrf": {token}})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("bad revoke path: %d", resp.StatusCode)
	}

	// Delete them, their records going to root.
	resp, page = b.send(http.MethodPost, userPath(nb.ID, "/delete"), url.Values{"_csrf": {token}, "reassign": {"0"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `id="reassign-error"`) {
		t.Errorf("delete without reassign: %d", resp.StatusCode)
	}
	root, _ := db.GetUserByLogin(context.Background(), "root")
	resp, _ = b.send(http.MethodPost, userPath(nb.ID, "/delete"), url.Values{"_csrf": {token}, "reassign": {itoa(root.ID)}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("delete: %d", resp.StatusCode)
	}
	if ok, _ := db.UserExists(context.Background(), nb.ID); ok {
		t.Error("the user still exists")
	}

	// An editor: 403 with the refusal in their language.
	e := newBrowser(t, app)
	e.signIn("ed", "password-ed")
	for _, target := range []string{usersPath + "?lang=ja", "/admin/users/new?lang=ja", userPath(root.ID, "/edit?lang=ja")} {
		resp, page := e.get(target)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, bundle.T("ja", "error.rest_forbidden.user", nil)) {
			t.Errorf("editor %s: %d\n%.1500s", target, resp.StatusCode, page)
		}
	}
	_, page = e.get(dashboardPath)
	if strings.Contains(page, `href="/admin/users"`) {
		t.Error("the editor sees the users link")
	}
}

// The profile: details saved, a wrong current password refused, a
// password change ends the other sessions and keeps this one.
func TestProfile(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	account(t, db, "amy", models.RoleAuthor)
	b := newBrowser(t, app)
	token := b.signIn("amy", "password-amy")
	other := newBrowser(t, app)
	other.signIn("amy", "password-amy")

	resp, page := b.get(profilePath)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `action="/admin/profile/app-passwords"`) {
		t.Fatalf("profile: %d", resp.StatusCode)
	}
	resp, _ = b.send(http.MethodPost, profilePath, url.Values{"_csrf": {token}, "display_name": {"Amy K"}, "email": {"amy@example.test"}, "locale": {"ko"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	_, page = b.get(profilePath)
	if htmlLang(page) != "ko" || !strings.Contains(page, `value="Amy K"`) {
		t.Errorf("after saving: lang %q", htmlLang(page))
	}

	pw := url.Values{"_csrf": {token}, "current_password": {"wrong"}, "password": {"new-password-1"}, "password_confirm": {"new-password-1"}}
	resp, page = b.send(http.MethodPost, profilePath+"/password", pw)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `id="current_password-error"`) {
		t.Errorf("wrong current: %d", resp.StatusCode)
	}
	pw.Set("current_password", "password-amy")
	pw.Set("password_confirm", "other")
	resp, page = b.send(http.MethodPost, profilePath+"/password", pw)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `id="password_confirm-error"`) {
		t.Errorf("mismatch: %d", resp.StatusCode)
	}
	pw.Set("password_confirm", "new-password-1")
	resp, _ = b.send(http.MethodPost, profilePath+"/password", pw)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("change: %d", resp.StatusCode)
	}
	if resp, _ := b.get(profilePath); resp.StatusCode != http.StatusOK {
		t.Errorf("this browser after the change: %d, want still signed in", resp.StatusCode)
	}
	if resp, _ := other.get(profilePath); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the other session after the change: %d, want signed out", resp.StatusCode)
	}
	if _, err := db.CheckSignIn(context.Background(), "amy", "new-password-1"); err != nil {
		t.Errorf("new password: %v", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The profile's password change asks for the current password under the
// sign-in limits: past --signin-max-per-login wrong ones from one address
// it answers 429 with Retry-After, the message beside the field, and the
// password is not changed even when the right one comes next.
func TestPasswordChangeIsRateLimited(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		account(t, db, "amy", models.RoleAuthor)
		b := newBrowser(t, app)
		token := b.signIn("amy", "password-amy")
		pw := url.Values{"_csrf": {token}, "current_password": {"wrong"}, "password": {"new-password-1"}, "password_confirm": {"new-password-1"}}
		for i := range models.DefaultLimits().SignInPerLogin {
			if resp, _ := b.send(http.MethodPost, profilePath+"/password", pw); resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("wrong current password %d: %d, want 422", i+1, resp.StatusCode)
			}
		}
		pw.Set("current_password", "password-amy")
		resp, page := b.send(http.MethodPost, profilePath+"/password", pw)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(page, `id="current_password-error"`) {
			t.Errorf("past the limit: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		if _, err := db.CheckSignIn(context.Background(), "amy", "new-password-1"); err == nil {
			t.Error("the password was changed past the limit")
		}
	})
}
