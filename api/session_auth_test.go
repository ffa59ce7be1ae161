package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

// TestSessionCookieNeedsTheNonce: the admin's scripts call the API with the
// session cookie and X-WP-Nonce. The cookie with the right nonce acts as
// its user; without it, or with a wrong one, the request is anonymous (as
// WordPress); HTTP Basic credentials win over the cookie.
func TestSessionCookieNeedsTheNonce(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		author := e.Users[models.RoleAuthor]
		token, sess, err := e.DB.CreateSession(context.Background(), author.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		draft := func(title string) string {
			return fmt.Sprintf(`{"title": %q, "status": "draft", "start_date": "2027-01-01 10:00:00", "end_date": "2027-01-01 11:00:00"}`, title)
		}
		send := func(body, nonce string, basic models.Role, basicPassword string) *testResp {
			t.Helper()
			req := httptest.NewRequest("POST", "/cal/events/v1/events", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.AddCookie(&http.Cookie{Name: models.SessionCookie, Value: token})
			if nonce != "" {
				req.Header.Set("X-WP-Nonce", nonce)
			}
			if basic != "" {
				req.SetBasicAuth(string(basic), basicPassword)
			}
			return e.send(t, req)
		}

		r := send(draft("Cookie and nonce"), sess.Nonce, "", "")
		mustStatus(t, r, http.StatusCreated)
		if m := r.Map(t); m["author"] != fmt.Sprint(author.ID) || m["status"] != "draft" {
			t.Errorf("created as author %v with status %v, want the session's user %d and draft", m["author"], m["status"], author.ID)
		}

		for _, c := range []struct{ name, nonce string }{
			{"no nonce", ""},
			{"wrong nonce", sess.Nonce + "x"},
			{"CSRF token as nonce", sess.CSRFToken},
		} {
			r := send(draft(c.name), c.nonce, "", "")
			if r.Status != http.StatusUnauthorized || r.Code(t) != "rest_forbidden" {
				t.Errorf("%s: %d %s, want 401 rest_forbidden (anonymous)", c.name, r.Status, r.Body)
			}
		}

		// Basic wins: a subscriber's application password with the
		// author's cookie and nonce is the subscriber, who may not create.
		r = send(draft("Basic wins"), sess.Nonce, models.RoleSubscriber, e.passwords[models.RoleSubscriber])
		if r.Status != http.StatusForbidden || r.Code(t) != "rest_forbidden" {
			t.Errorf("subscriber's Basic with the author's cookie: %d %s, want 403 rest_forbidden", r.Status, r.Body)
		}
		// ...and wrong Basic credentials are not rescued by the cookie.
		r = send(draft("Bad Basic"), sess.Nonce, models.RoleAuthor, "wrong password")
		if r.Status != http.StatusUnauthorized || r.Code(t) != "incorrect_password" {
			t.Errorf("wrong Basic with a good cookie: %d %s, want 401 incorrect_password", r.Status, r.Body)
		}
		// A malformed Authorization header keeps its own error.
		req := httptest.NewRequest("GET", "/cal/events/v1/events", nil)
		req.Header.Set("Authorization", "Bearer abc")
		req.AddCookie(&http.Cookie{Name: models.SessionCookie, Value: token})
		req.Header.Set("X-WP-Nonce", sess.Nonce)
		if r := e.send(t, req); r.Status != http.StatusUnauthorized || r.Code(t) != "rest_invalid_authorization" {
			t.Errorf("Bearer header with a good cookie: %d %s", r.Status, r.Body)
		}

		// Signed out: the same cookie and nonce are anonymous.
		if err := e.DB.EndSession(context.Background(), token); err != nil {
			t.Fatal(err)
		}
		if r := send(draft("Signed out"), sess.Nonce, "", ""); r.Status != http.StatusUnauthorized {
			t.Errorf("ended session: %d %s, want 401", r.Status, r.Body)
		}
	})
}
