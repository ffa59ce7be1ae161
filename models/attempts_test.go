package models_test

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// signInUser creates a user with password "password-<login>" and e-mail
// <login>@example.test.
func signInUser(t *testing.T, db *models.DB, login string) *models.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: login, Password: "password-" + login,
		Email: login + "@example.test", DisplayName: login, Role: models.RoleEditor})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The sign-in form's counters: per typed identifier (normalised, never
// resolved to an account) from one address, per address, and per
// identifier from all addresses; stored as hashes; a success forgives the
// identifier's failures from its address and takes its own attempt back
// from the others; a window is fixed from its first failure.
func TestSignInAttemptsCountPerLoginAndAddress(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		clock := useTestClock(db)
		signInUser(t, db, "alice")
		window := models.DefaultLimits().SignInWindow
		fail := func(login, ip string) {
			t.Helper()
			if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: login, Password: "wrong", IP: ip}); !errors.Is(err, models.ErrBadCredentials) {
				t.Fatalf("wrong password of %q from %s: %v", login, ip, err)
			}
		}
		read := func(login, ip string, wantLogin, wantAddr, wantAccount int) {
			t.Helper()
			l, a, acc, err := db.FormAttempts(ctx, login, ip)
			if err != nil || l != wantLogin || a != wantAddr || acc != wantAccount {
				t.Errorf("FormAttempts(%q, %q) = %d, %d, %d, %v; want %d, %d, %d", login, ip, l, a, acc, err, wantLogin, wantAddr, wantAccount)
			}
		}
		read("alice", "192.0.2.1", 0, 0, 0)
		fail("Alice", "192.0.2.1")
		fail(" alice ", "192.0.2.1") // the identifier is normalised
		fail("bob", "192.0.2.1")     // names no account: counted all the same
		fail("alice@example.test", "192.0.2.1")
		fail("alice", "2001:db8::1")
		read("ALICE", "192.0.2.1", 2, 4, 3)
		read("alice@example.test", "192.0.2.1", 1, 4, 1) // the same account, counted apart
		read("bob", "2001:db8::1", 0, 1, 1)
		read("nobody", "198.51.100.7", 0, 0, 0)

		var keys []string
		if err := db.Bun.NewSelect().TableExpr("signin_attempts").Column("key_hash").Scan(ctx, &keys); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if len(k) != 64 || k == "alice" || k == "192.0.2.1" {
				t.Errorf("stored key %q: want a SHA-256, never the login or address", k)
			}
		}

		// A success clears the identifier's failures from its address and
		// takes its own attempt back elsewhere: the address keeps the
		// failures of the others, the identifier those from elsewhere.
		if u, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "ALICE", Password: "password-alice", IP: "192.0.2.1"}); err != nil || u.Login != "alice" {
			t.Fatalf("right password: %v %v", u, err)
		}
		read("alice", "192.0.2.1", 0, 4, 3)
		read("bob", "192.0.2.1", 1, 4, 1)

		// The window is fixed from the first failure: at its end the
		// counters read 0, and the next failure starts again at 1.
		clock.Advance(window - time.Second)
		read("bob", "192.0.2.1", 1, 4, 1)
		fail("bob", "192.0.2.1")
		read("bob", "192.0.2.1", 2, 5, 2)
		clock.Advance(time.Second)
		read("bob", "192.0.2.1", 0, 0, 0)
		read("alice", "2001:db8::1", 0, 0, 0)
		// Restarting a counter drops the expired ones: only the three
		// written now stay.
		fail("carol", "192.0.2.1")
		n, err := db.Bun.NewSelect().TableExpr("signin_attempts").Count(ctx)
		if err != nil || n != 3 {
			t.Errorf("%d counters stored after the purge (%v), want 3", n, err)
		}
		read("carol", "192.0.2.1", 1, 1, 1)
	})
}

// Right passwords are never counted: 21 sign-ins in a row from one
// address (more than its limit) all succeed, and so do 21 application
// password uses.
func TestSuccessfulSignInsAreNotCounted(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		useTestClock(db)
		signInUser(t, db, "anna")
		u, err := db.GetUserByLogin(ctx, "anna")
		if err != nil {
			t.Fatal(err)
		}
		pw, _, err := db.CreateAppPassword(ctx, u.ID, "script")
		if err != nil {
			t.Fatal(err)
		}
		for i := range models.DefaultLimits().SignInPerAddress + 1 {
			if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "anna", Password: "password-anna", IP: "192.0.2.9"}); err != nil {
				t.Fatalf("sign-in %d: %v", i+1, err)
			}
			if _, err := db.Actor(ctx, models.Credentials{Login: "anna", AppPassword: pw, IP: "192.0.2.9"}); err != nil {
				t.Fatalf("application password use %d: %v", i+1, err)
			}
		}
		l, a, acc, err := db.FormAttempts(ctx, "anna", "192.0.2.9")
		if err != nil || l != 0 || a != 0 || acc != 0 {
			t.Errorf("form counters after 21 good sign-ins: %d, %d, %d, %v", l, a, acc, err)
		}
		if n, err := db.APIAttempts(ctx, "192.0.2.9"); err != nil || n != 0 {
			t.Errorf("API counter after 21 good uses: %d, %v", n, err)
		}
	})
}

func TestSignInAttemptsAreExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		useTestClock(db)
		const n = 24
		counts := make([]int, n)
		errs := make([]error, n)
		modelstest.AtOnce(n, func(i int) {
			counts[i], errs[i] = db.CountAttempt(ctx, "form-address", "203.0.113.9", time.Hour)
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("goroutine %d: %v", i, err)
			}
		}
		// Every caller saw a different count: exactly 1..n, each once.
		sort.Ints(counts)
		for i, v := range counts {
			if v != i+1 {
				t.Fatalf("counts seen by the callers: %v, want 1..%d each once", counts, n)
			}
		}
		if _, a, _, err := db.FormAttempts(ctx, "anyone", "203.0.113.9"); err != nil || a != n {
			t.Errorf("after %d concurrent failures: %d, %v", n, a, err)
		}
	})
}
