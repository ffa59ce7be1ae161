package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

var (
	csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)
	nonceMeta = regexp.MustCompile(`<meta name="kalends-nonce" content="([^"]+)"`)
)

// The assembled app: a signed-out admin page goes to the sign-in form;
// signing in gives a session whose nonce (in the page, for the admin's
// scripts) lets the cookie act on the API; without the nonce the cookie is
// anonymous there. Admin pages carry the CSP next to the shared headers.
func TestAdminSessionDrivesTheAPIWithItsNonce(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		if _, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: "ed", Password: "password-ed",
			Role: models.RoleEditor}); err != nil {
			t.Fatal(err)
		}
		res, _ := do(t, app, httptest.NewRequest("GET", "/admin/nowhere", nil))
		if res.StatusCode != 303 || res.Header.Get("Location") != "/admin/login?redirect_to=%2Fadmin%2Fnowhere" {
			t.Errorf("signed-out admin page: %d %q", res.StatusCode, res.Header.Get("Location"))
		}
		cookies := map[string]string{}
		// send returns the status and headers (the body is read and
		// closed by do).
		send := func(req *http.Request) (status int, header http.Header, body string) {
			for k, v := range cookies {
				req.AddCookie(&http.Cookie{Name: k, Value: v})
			}
			res, body := do(t, app, req)
			for _, c := range res.Cookies() {
				cookies[c.Name] = c.Value
			}
			return res.StatusCode, res.Header, body
		}
		_, header, page := send(httptest.NewRequest("GET", "/admin/login", nil))
		if csp := header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") ||
			header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("sign-in page headers: %v", header)
		}
		form := url.Values{"login": {"ed"}, "password": {"password-ed"}, "_csrf": {csrfField.FindStringSubmatch(page)[1]}}
		req := httptest.NewRequest("POST", "/admin/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if status, _, body := send(req); status != 303 {
			t.Fatalf("sign-in: %d %.500s", status, body)
		}
		_, _, page = send(httptest.NewRequest("GET", "/admin/", nil))
		m := nonceMeta.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no nonce in the dashboard:\n%.2000s", page)
		}
		req = httptest.NewRequest("GET", "/cal/events/v1/events?status=draft", nil)
		req.Header.Set("X-WP-Nonce", m[1])
		if status, _, body := send(req); status != 200 {
			t.Errorf("API with cookie and nonce: %d %.300s", status, body)
		}
		if status, _, _ := send(httptest.NewRequest("GET", "/cal/events/v1/events?status=draft", nil)); status != 400 {
			t.Errorf("API with the cookie alone: %d, want 400 (anonymous)", status)
		}
	})
}
