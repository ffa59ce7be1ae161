package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

const (
	userForm        = `[data-testid="user-form"]`
	appPasswordForm = `[data-testid="app-password-form"]` //nolint:gosec // G101: a CSS selector, no credential.
)

// An administrator creates a user through the form (a mistake first, shown
// next to its field), changes their role, and the new user signs in with
// the password the administrator gave.
func TestAdministratorCreatesAUserWhoSignsIn(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	admin := srv.User(t, models.RoleAdministrator)
	p := srv.Page(t)
	p.SignIn(admin)

	if st := p.ClickAndWait(`[data-testid="nav-users"]`); st != http.StatusOK || p.Path() != "/admin/users" {
		t.Fatalf("users link: status %d on %s", st, p.Path())
	}
	if got := p.Text(`[data-testid="user-` + admin.Login + `"] td[data-testid="role"]`); got != b.T("en", "admin.role.administrator", nil) {
		t.Errorf("the administrator's row shows role %q", got)
	}
	if st := p.ClickAndWait(`[data-testid="new-user"]`); st != http.StatusOK {
		t.Fatalf("new user form: status %d", st)
	}
	p.Fill(userForm, "login", "mika")
	p.Fill(userForm, "display_name", "Mika Tanaka")
	p.Fill(userForm, "email", "mika@example.test")
	p.Fill(userForm, "role", "contributor")
	p.Fill(userForm, "password", "short")
	if st := p.Submit(userForm); st != http.StatusUnprocessableEntity {
		t.Fatalf("short password: status %d, want 422", st)
	}
	want := b.T("en", "reason.users.password_too_short", map[string]any{"Min": models.MinPasswordLen})
	if got := p.Text(`[data-testid="error-password"]`); got != want {
		t.Errorf("password message %q, want %q", got, want)
	}
	if got := p.Attr(`#password`, "aria-describedby"); !strings.Contains(got, "password-error") {
		t.Errorf("password aria-describedby %q", got)
	}
	if p.Attr(`#password`, "aria-invalid") != "true" || p.Count(`[role="alert"][data-testid="error-summary"]`) != 1 {
		t.Error("no aria-invalid or no summary")
	}
	if got := browsertest.Eval[string](p, `document.querySelector('#display_name').value`); got != "Mika Tanaka" {
		t.Errorf("display name after the error: %q", got)
	}
	p.Fill(userForm, "password", "mika-password-123")
	if st := p.Submit(userForm); st != http.StatusOK || !strings.HasSuffix(p.Path(), "/edit") {
		t.Fatalf("create: status %d on %s", st, p.Path())
	}
	if got := p.Text(`[data-testid="flash"]`); got != b.T("en", "admin.flash.user_created", nil) {
		t.Errorf("flash %q", got)
	}

	p.Fill(userForm, "role", "editor")
	if st := p.Submit(userForm); st != http.StatusOK {
		t.Fatalf("change role: status %d", st)
	}
	p.Visit("/admin/users?search=mika")
	if got := p.Text(`[data-testid="user-mika"] td[data-testid="role"]`); got != b.T("en", "admin.role.editor", nil) {
		t.Errorf("mika's role in the list: %q", got)
	}

	q := srv.Page(t)
	q.SignIn(browsertest.Account{Login: "mika", Password: "mika-password-123"})
	if got := q.Text(`[data-testid="user-menu"] summary`); !strings.Contains(got, "Mika Tanaka") {
		t.Errorf("mika's user menu: %q", got)
	}
}

// A user creates an application password on the profile page, sees it
// once, and calls the API with it (HTTP Basic): a draft event is created.
// Once revoked, the API refuses it (401).
func TestApplicationPasswordFromTheProfile(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	au := srv.User(t, models.RoleAuthor)
	p := srv.Page(t)
	p.SignIn(au)
	p.Click(`[data-testid="user-menu"] summary`)
	if st := p.ClickAndWait(`[data-testid="profile-link"]`); st != http.StatusOK || p.Path() != "/admin/profile" {
		t.Fatalf("profile link: status %d on %s", st, p.Path())
	}
	p.Fill(appPasswordForm, "name", "Calendar sync")
	if st := p.Submit(appPasswordForm); st != http.StatusOK {
		t.Fatalf("create: status %d", st)
	}
	secret := p.Text(`[data-testid="app-password-value"]`)
	if len(strings.ReplaceAll(secret, " ", "")) != 24 {
		t.Fatalf("secret %q", secret)
	}
	p.WaitVisible(`[data-testid="app-password-copy"]`)
	if got := p.Text(`[data-testid="app-password-row"] .app-password-name`); got != "Calendar sync" {
		t.Errorf("row name %q", got)
	}
	if got := p.Text(`[data-testid="app-password-row"] td:nth-child(3)`); got != b.T("en", "admin.profile.app_passwords.never_used", nil) {
		t.Errorf("last used %q before any use", got)
	}

	status, body := call(t, srv, au.Login, secret, http.MethodPost, "/events",
		`{"title":"From the API","status":"draft","start_date":"2031-05-01 10:00:00","end_date":"2031-05-01 11:00:00"}`)
	if status != http.StatusCreated && status != http.StatusOK {
		t.Fatalf("create an event with the application password: %d %s", status, body)
	}
	var ev struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(body, &ev); err != nil || ev.Status != "draft" {
		t.Errorf("created event: %v %s", err, body)
	}
	if status, _ := call(t, srv, au.Login, secret, http.MethodGet, "/events", ""); status != http.StatusOK {
		t.Errorf("list with the application password: %d", status)
	}

	// Seen once: a reload of the profile does not show it again, and shows
	// the last use.
	p.Visit("/admin/profile")
	if p.Count(`[data-testid="app-password-value"]`) != 0 || strings.Contains(p.HTML(), secret) {
		t.Error("the application password is shown again")
	}
	if p.Count(`[data-testid="app-password-row"] td:nth-child(3) time`) != 1 {
		t.Error("no last use after calling the API")
	}

	if st := p.Submit(`[data-testid="app-password-row"] form`); st != http.StatusOK {
		t.Fatalf("revoke: status %d", st)
	}
	if got := p.Text(`[data-testid="flash"]`); got != b.T("en", "admin.flash.app_password_revoked", nil) {
		t.Errorf("flash %q", got)
	}
	if p.Count(`[data-testid="app-password-revoked"]`) != 1 {
		t.Error("the row does not say revoked")
	}
	if status, _ := call(t, srv, au.Login, secret, http.MethodGet, "/events", ""); status != http.StatusUnauthorized {
		t.Errorf("after revoking: %d, want 401", status)
	}
}

// An editor opening the users pages is refused (403) with the API's
// message, and sees no link to them.
func TestEditorIsRefusedTheUsersPages(t *testing.T) {
	srv := browsertest.StartServer(t)
	b := bundle(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	if p.Count(`[data-testid="nav-users"]`) != 0 {
		t.Error("the editor sees the users link")
	}
	for _, lang := range []string{"en", "ko"} {
		if st := p.VisitIn(lang, "/admin/users"); st != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", lang, st)
		}
		if got, want := p.Text(`[data-testid="error-message"]`), b.T(lang, "error.rest_forbidden.user", nil); got != want {
			t.Errorf("%s: message %q, want %q", lang, got, want)
		}
	}
	if st := p.Visit("/admin/users/new"); st != http.StatusForbidden {
		t.Errorf("/admin/users/new: status %d, want 403", st)
	}
}

// call sends an API request with HTTP Basic credentials, as curl -u would.
func call(t *testing.T, srv *browsertest.Server, login, password, method, path, body string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+"/cal/events/v1"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.SetBasicAuth(login, password)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, out
}
