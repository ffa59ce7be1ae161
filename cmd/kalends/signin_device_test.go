package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// During a distributed attack on a login (a few failures from each of many
// addresses), browsers without a device cookie of the account are refused
// once the account-wide limit is reached; the owner's browser, which signed
// in before, still gets in from anywhere. The limit counts the identifier as
// typed: the account's e-mail address counts apart, and an identifier that
// names no account is refused alike. The refusal reads like any other. A
// device cookie is valid only for its account, and one that keeps failing
// is trusted no more.
func TestOwnerWithDeviceCookieSignsInDuringDistributedAttack(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		lim := models.DefaultLimits()
		lim.SignInPerAccount = 8
		app := signinApp(t, db, lim)
		signinUser(t, db, "ayşe")
		signinUser(t, db, "bob")

		// The owner signs in once at home: a device cookie for the admin,
		// hidden from scripts, kept long.
		owner := newVisitor(t, app, "198.51.100.20")
		if status, _ := owner.signIn("ayşe", "ayşe-account-pw"); status != http.StatusSeeOther {
			t.Fatalf("first sign-in: %d", status)
		}
		c := owner.cookies[models.DeviceCookie]
		if c == nil || !c.HttpOnly || c.Secure || c.Path != "/admin" || c.SameSite != http.SameSiteStrictMode ||
			c.MaxAge < 300*24*3600 || len(c.Value) < 40 {
			t.Errorf("device cookie %+v", c)
		}
		bob := newVisitor(t, app, "198.51.100.30")
		if status, _ := bob.signIn("bob", "bob-account-pw"); status != http.StatusSeeOther || bob.device() == "" {
			t.Errorf("bob's sign-in: %d, device cookie %q", status, bob.device())
		}

		// The attack: one failure from each of many addresses, on the login
		// and on an identifier that names no account.
		for i := range lim.SignInPerAccount {
			for _, login := range []string{"ayşe", "nobody"} {
				if status, _ := newVisitor(t, app, fmt.Sprintf("203.0.113.%d", i+1)).signIn(login, "guess"); status != http.StatusUnauthorized {
					t.Errorf("attack on %s, failure %d: %d", login, i+1, status)
				}
			}
		}
		// A refusal by the per-login limit, to compare the words with.
		single := newVisitor(t, app, "192.0.2.99")
		for range lim.SignInPerLogin {
			single.signIn("carol", "guess")
		}
		status, perLogin := single.signIn("carol", "guess")
		if status != http.StatusTooManyRequests || perLogin == "" {
			t.Fatalf("per-login refusal: %d %q", status, perLogin)
		}

		for _, tc := range []struct {
			name, from, login, password string
			v                           *visitor
			want                        int
		}{
			{"a browser without a device cookie", "192.0.2.77", "ayşe", "ayşe-account-pw", nil, http.StatusTooManyRequests},
			{"an identifier naming no account", "192.0.2.78", "nobody", "guess", nil, http.StatusTooManyRequests},
			{"bob's browser, with bob's device cookie", "", "ayşe", "ayşe-account-pw", bob, http.StatusTooManyRequests},
			{"the owner's browser, travelling", "192.0.2.88", "ayşe", "ayşe-account-pw", owner, http.StatusSeeOther},
			{"the account's e-mail address, counted apart", "192.0.2.79", "ayşe@example.test", "ayşe-account-pw", nil, http.StatusSeeOther},
		} {
			v := tc.v
			if v == nil {
				v = newVisitor(t, app, tc.from)
			} else if tc.from != "" {
				v.from = tc.from
			}
			status, alert := v.signIn(tc.login, tc.password)
			if status != tc.want {
				t.Errorf("%s: %d, want %d", tc.name, status, tc.want)
			}
			if status == http.StatusTooManyRequests && alert != perLogin {
				t.Errorf("%s: refused with %q, the per-login refusal reads %q", tc.name, alert, perLogin)
			}
		}

		// The owner's device cookie was renewed at that sign-in; one that
		// fails as often as a login may from one address is trusted no
		// more, and the owner waits like everyone else.
		for i := range lim.SignInPerLogin {
			owner.from = fmt.Sprintf("192.0.2.%d", 150+i)
			if status, _ := owner.signIn("ayşe", "wrong"); status != http.StatusUnauthorized {
				t.Fatalf("owner's failure %d: %d", i+1, status)
			}
		}
		owner.from = "192.0.2.200"
		if status, _ := owner.signIn("ayşe", "ayşe-account-pw"); status != http.StatusTooManyRequests {
			t.Errorf("a device cookie that failed %d times: %d, want 429", lim.SignInPerLogin, status)
		}
	})
}

// The device cookie is Secure on an https site, and a password change
// gives the browser a new one (the old ones of the account are forgotten).
func TestDeviceCookieIsSecureOnHTTPSAndRenewedByAPasswordChange(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	lim := models.DefaultLimits()
	cfg := &Config{BaseURL: "https://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500, Limits: lim}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	signinUser(t, db, "léa")
	v := newVisitor(t, app, "")
	const token = "visitor-form-token"
	v.cookies["kalends_login_csrf"] = &http.Cookie{Name: "kalends_login_csrf", Value: token}
	req := httptest.NewRequest(http.MethodPost, "/admin/login", strings.NewReader("login=l%C3%A9a&password=l%C3%A9a-account-pw&_csrf="+token))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if status, _ := v.send(req); status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", status)
	}
	first := v.cookies[models.DeviceCookie]
	if first == nil || !first.Secure || !first.HttpOnly {
		t.Fatalf("device cookie on https: %+v", first)
	}
	_, page := v.send(httptest.NewRequest(http.MethodGet, "/admin/profile", nil))
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no token on the profile:\n%.1000s", page)
	}
	req = httptest.NewRequest(http.MethodPost, "/admin/profile/password", strings.NewReader(
		"current_password=l%C3%A9a-account-pw&password=another-secret-1&password_confirm=another-secret-1&_csrf="+m[1]))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if status, body := v.send(req); status != http.StatusSeeOther {
		t.Fatalf("password change: %d %.500s", status, body)
	}
	if now := v.device(); now == "" || now == first.Value {
		t.Errorf("device cookie after the password change: %q (was %q)", now, first.Value)
	}
	n, err := db.Bun.NewSelect().TableExpr("signin_devices").Count(t.Context())
	if err != nil || n != 1 {
		t.Errorf("devices stored after the password change: %d (%v), want the new one only", n, err)
	}
}
