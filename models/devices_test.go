package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// A device cookie lets its browser past the account-wide limit: only for
// the account it was issued to, until it fails SignInPerLogin times, until
// it expires, is replaced by the browser's next one, or the account's
// password is set. An account keeps its 50 newest devices.
func TestDeviceCookieIsTrustedOnlyForItsAccount(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		clock := useTestClock(db)
		lim := models.DefaultLimits()
		lim.SignInPerAccount = 3
		db.Site().Limits = &lim
		alice, bob := signInUser(t, db, "alice"), signInUser(t, db, "bob")
		devA, err := db.TrustDevice(ctx, alice.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		devB, err := db.TrustDevice(ctx, bob.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		addr := 0
		try := func(password, device string) error {
			addr++ // a distributed attack: every try from another address
			_, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "alice", Password: password,
				IP: fmt.Sprintf("203.0.113.%d", addr), Device: device})
			return err
		}
		attack := func() {
			t.Helper()
			for range lim.SignInPerAccount {
				if err := try("wrong", ""); !errors.Is(err, models.ErrBadCredentials) {
					t.Fatalf("attack: %v", err)
				}
			}
		}
		refused := func(what string, err error) {
			t.Helper()
			var limited *models.RateLimitError
			if !errors.As(err, &limited) {
				t.Errorf("%s: %v, want a refusal", what, err)
			}
		}
		attack()
		refused("no device cookie", try("password-alice", ""))
		refused("bob's device cookie", try("password-alice", devB))
		refused("a made-up device cookie", try("password-alice", "made-up"))
		if err := try("password-alice", devA); err != nil {
			t.Errorf("alice's device cookie: %v", err)
		}

		// A device that fails SignInPerLogin times is trusted no more.
		for i := range lim.SignInPerLogin {
			if err := try("wrong", devA); !errors.Is(err, models.ErrBadCredentials) {
				t.Fatalf("device failure %d: %v", i+1, err)
			}
		}
		refused("a device that failed too often", try("password-alice", devA))

		// The browser's next device cookie replaces its last one.
		devA2, err := db.TrustDevice(ctx, alice.ID, devA)
		if err != nil {
			t.Fatal(err)
		}
		if err := try("password-alice", devA2); err != nil {
			t.Errorf("the new device cookie: %v", err)
		}
		refused("the replaced device cookie", try("password-alice", devA))

		// Setting the password forgets the account's devices.
		if err := db.SetPassword(ctx, models.Console, alice.ID, "password-alice"); err != nil {
			t.Fatal(err)
		}
		refused("a device cookie from before the password was set", try("password-alice", devA2))

		// A device cookie expires.
		devA3, err := db.TrustDevice(ctx, alice.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(models.DeviceLifetime - time.Minute)
		attack()
		if err := try("password-alice", devA3); err != nil {
			t.Errorf("a device cookie about to expire: %v", err)
		}
		clock.Advance(time.Minute) // (the attack's window goes on)
		refused("an expired device cookie", try("password-alice", devA3))

		// The account keeps its newest devices only.
		for range 55 {
			if _, err := db.TrustDevice(ctx, bob.ID, ""); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Second)
		}
		n, err := db.Bun.NewSelect().TableExpr("signin_devices").Where("user_id = ?", bob.ID).Count(ctx)
		if err != nil || n != 50 {
			t.Errorf("bob's devices: %d (%v), want 50", n, err)
		}
		var stored []string
		if err := db.Bun.NewSelect().TableExpr("signin_devices").Column("id").Scan(ctx, &stored); err != nil {
			t.Fatal(err)
		}
		for _, id := range stored {
			if id == devA3 || len(id) != 64 {
				t.Errorf("stored device id %q: want the SHA-256 of the token", id)
			}
		}
	})
}
