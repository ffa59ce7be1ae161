package models_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestSignInAttemptsCountPerLoginAndAddress(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		clock := useTestClock(db)
		const window = 15 * time.Minute
		record := func(login, ip string, wantLogin, wantAddr int) {
			t.Helper()
			l, a, err := db.RecordFailedSignIn(ctx, login, ip, window)
			if err != nil || l != wantLogin || a != wantAddr {
				t.Errorf("RecordFailedSignIn(%q, %q) = %d, %d, %v; want %d, %d", login, ip, l, a, err, wantLogin, wantAddr)
			}
		}
		read := func(login, ip string, wantLogin, wantAddr int) {
			t.Helper()
			l, a, err := db.SignInAttempts(ctx, login, ip)
			if err != nil || l != wantLogin || a != wantAddr {
				t.Errorf("SignInAttempts(%q, %q) = %d, %d, %v; want %d, %d", login, ip, l, a, err, wantLogin, wantAddr)
			}
		}
		read("alice", "192.0.2.1", 0, 0)
		record("Alice", "192.0.2.1", 1, 1)
		record(" alice ", "192.0.2.1", 2, 2) // the login is normalised
		record("bob", "192.0.2.1", 1, 3)
		record("alice", "2001:db8::1", 3, 1)
		read("ALICE", "192.0.2.1", 3, 3)
		read("bob", "2001:db8::1", 1, 1)
		read("nobody", "198.51.100.7", 0, 0)

		var keys []string
		if err := db.Bun.NewSelect().TableExpr("signin_attempts").Column("key_hash").Scan(ctx, &keys); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if len(k) != 64 || k == "alice" || k == "192.0.2.1" {
				t.Errorf("stored key %q: want a SHA-256, never the login or address", k)
			}
		}

		// A success clears the login's counter, never the address's.
		if err := db.ClearSignInAttempts(ctx, "ALICE"); err != nil {
			t.Fatal(err)
		}
		read("alice", "192.0.2.1", 0, 3)
		read("bob", "192.0.2.1", 1, 3)

		// The window is fixed from the first failure: at its end the
		// counters read 0, and the next failure starts again at 1.
		clock.Advance(window - time.Second)
		read("bob", "192.0.2.1", 1, 3)
		record("bob", "192.0.2.1", 2, 4)
		clock.Advance(time.Second)
		read("bob", "192.0.2.1", 0, 0)
		read("alice", "2001:db8::1", 0, 0)
		// Restarting a counter drops the expired ones (the address
		// 2001:db8::1 and bob's old row go; the two written now stay).
		record("carol", "192.0.2.1", 1, 1)
		n, err := db.Bun.NewSelect().TableExpr("signin_attempts").Count(ctx)
		if err != nil || n != 2 {
			t.Errorf("%d counters stored after the purge (%v), want 2", n, err)
		}
		record("bob", "192.0.2.1", 1, 2)
	})
}

func TestSignInAttemptsAreExactUnderConcurrency(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		useTestClock(db)
		const n = 24
		perLogin := make([]int, n)
		perAddr := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				perLogin[i], perAddr[i], errs[i] = db.RecordFailedSignIn(ctx, "target", "203.0.113.9", time.Hour)
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("goroutine %d: %v", i, err)
			}
		}
		// Every caller saw a different count: exactly 1..n, each once.
		for name, got := range map[string][]int{"login": perLogin, "address": perAddr} {
			sort.Ints(got)
			for i, v := range got {
				if v != i+1 {
					t.Fatalf("%s counts seen by the callers: %v, want 1..%d each once", name, got, n)
				}
			}
		}
		l, a, err := db.SignInAttempts(ctx, "target", "203.0.113.9")
		if err != nil || l != n || a != n {
			t.Errorf("after %d concurrent failures: %d, %d, %v", n, l, a, err)
		}
	})
}
