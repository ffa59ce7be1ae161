package models_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// testClock is a clock tests move by hand (safe for concurrent readers).
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// useTestClock makes db read time from a testClock starting at a fixed
// instant.
func useTestClock(db *models.DB) *testClock {
	c := &testClock{now: time.Date(2027, 3, 10, 9, 0, 0, 0, time.UTC)}
	site := models.DefaultSite()
	site.Clock = c.Now
	db.UseSite(site)
	return c
}

// sessionRows counts the stored sessions with id.
func sessionRows(t *testing.T, db *models.DB, id string) int {
	t.Helper()
	n, err := db.Bun.NewSelect().TableExpr("sessions").Where("id = ?", id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

func TestSessionsAreStoredHashedAndExpire(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		clock := useTestClock(db)
		ann := addAccount(t, db, "ann", models.RoleAuthor)

		token, sess, err := db.CreateSession(ctx, ann.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(token))
		if len(token) != 43 || sess.ID != hex.EncodeToString(sum[:]) {
			t.Errorf("token %q (len %d), id %q: want 43 base64url characters stored as their SHA-256", token, len(token), sess.ID)
		}
		if sessionRows(t, db, token) != 0 || sessionRows(t, db, sess.ID) != 1 {
			t.Errorf("the token itself must not be stored, only its hash")
		}
		if sess.Nonce == "" || sess.CSRFToken == "" || sess.Nonce == sess.CSRFToken || sess.Nonce == token {
			t.Errorf("nonce %q and CSRF token %q must be random and distinct", sess.Nonce, sess.CSRFToken)
		}
		if !sess.ExpiresAt.Equal(clock.Now().Add(time.Hour)) {
			t.Errorf("expires at %v, want %v", sess.ExpiresAt, clock.Now().Add(time.Hour))
		}
		token2, sess2, err := db.CreateSession(ctx, ann.ID, time.Hour)
		if err != nil || token2 == token || sess2.Nonce == sess.Nonce {
			t.Fatalf("second session: %v (tokens and nonces must differ)", err)
		}

		got, u, err := db.SessionByToken(ctx, token)
		if err != nil || got.ID != sess.ID || got.Nonce != sess.Nonce || u.ID != ann.ID || u.Login != "ann" || u.Role != models.RoleAuthor {
			t.Fatalf("SessionByToken: %v %+v %+v", err, got, u)
		}
		if !got.ExpiresAt.Equal(sess.ExpiresAt) || !got.CreatedAt.Equal(sess.CreatedAt) {
			t.Errorf("times do not round-trip: %+v vs %+v", got, sess)
		}
		for _, bad := range []string{"", "nope", sess.ID} {
			if _, _, err := db.SessionByToken(ctx, bad); !errors.Is(err, models.ErrNoSession) || !errors.Is(err, models.ErrBadCredentials) {
				t.Errorf("SessionByToken(%q) = %v, want ErrNoSession (an ErrBadCredentials)", bad, err)
			}
		}

		// Sliding: touched after 50 minutes, the session outlives its
		// first hour; an expired one is not revived.
		clock.Advance(50 * time.Minute)
		if wrote, err := db.TouchSession(ctx, sess, time.Hour, "192.0.2.1"); err != nil || !wrote {
			t.Fatalf("touch: %v, wrote %v", err, wrote)
		}
		if wrote, err := db.TouchSession(ctx, sess, time.Hour, "192.0.2.1"); err != nil || wrote {
			t.Errorf("a second touch in the same second: %v, wrote %v (want no write)", err, wrote)
		}
		clock.Advance(40 * time.Minute) // 90 minutes after sign-in
		if _, _, err := db.SessionByToken(ctx, token); err != nil {
			t.Errorf("touched session expired: %v", err)
		}
		if _, _, err := db.SessionByToken(ctx, token2); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("untouched session after 90 minutes: %v, want ErrNoSession", err)
		}
		if wrote, err := db.TouchSession(ctx, sess2, time.Hour, "192.0.2.1"); err != nil || wrote {
			t.Errorf("touching an expired session: %v, wrote %v; want no write", err, wrote)
		}
		clock.Advance(20 * time.Minute) // exactly at the slid expiry
		if _, _, err := db.SessionByToken(ctx, token); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("session at its expiry: %v, want ErrNoSession", err)
		}

		// Expired rows go when a session is created.
		if sessionRows(t, db, sess.ID) != 1 || sessionRows(t, db, sess2.ID) != 1 {
			t.Fatalf("expired sessions should still be stored until the next sign-in")
		}
		token3, sess3, err := db.CreateSession(ctx, ann.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if sessionRows(t, db, sess.ID) != 0 || sessionRows(t, db, sess2.ID) != 0 {
			t.Errorf("expired sessions were not deleted on create")
		}

		// Sign-out, and signing out everywhere.
		if err := db.EndSession(ctx, token3); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.SessionByToken(ctx, token3); !errors.Is(err, models.ErrNoSession) || sessionRows(t, db, sess3.ID) != 0 {
			t.Errorf("ended session still works: %v", err)
		}
		if err := db.EndSession(ctx, token3); err != nil {
			t.Errorf("ending a session twice: %v", err)
		}
		bob := addAccount(t, db, "bob", models.RoleEditor)
		ta, _, _ := db.CreateSession(ctx, ann.ID, time.Hour)
		tb, _, _ := db.CreateSession(ctx, ann.ID, time.Hour)
		tc, _, _ := db.CreateSession(ctx, bob.ID, time.Hour)
		if err := db.EndUserSessions(ctx, ann.ID); err != nil {
			t.Fatal(err)
		}
		for _, tok := range []string{ta, tb} {
			if _, _, err := db.SessionByToken(ctx, tok); !errors.Is(err, models.ErrNoSession) {
				t.Errorf("EndUserSessions left a session of ann: %v", err)
			}
		}
		if _, u, err := db.SessionByToken(ctx, tc); err != nil || u.ID != bob.ID {
			t.Errorf("EndUserSessions(ann) ended bob's session: %v", err)
		}

		if _, _, err := db.CreateSession(ctx, 987654, time.Hour); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("session for an unknown user: %v, want ErrNotFound", err)
		}
		if _, _, err := db.CreateSession(ctx, ann.ID, 0); !errors.Is(err, models.ErrInvalid) {
			t.Errorf("session without a lifetime: %v, want ErrInvalid", err)
		}
	})
}
