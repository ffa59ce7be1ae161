package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// outcomes tallies the answers of concurrent attempts: wrong credentials,
// refusals by a limit, and anything else (which fails the test).
type outcomes struct {
	mu                     sync.Mutex
	wrong, refused, signed int
	other                  []error
}

func (o *outcomes) add(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var limited *models.RateLimitError
	switch {
	case err == nil:
		o.signed++
	case errors.Is(err, models.ErrBadCredentials):
		o.wrong++
	case errors.As(err, &limited):
		o.refused++
	default:
		o.other = append(o.other, err)
	}
}

// parallel runs n calls of try at once and tallies their answers.
func parallel(n int, try func(i int) error) *outcomes {
	o := &outcomes{}
	modelstest.AtOnce(n, func(i int) { o.add(try(i)) })
	return o
}

// Smaller finding 1 of issue 28, through the store: the check and the
// record of a failed sign-in were two steps, so parallel attempts slipped
// past the limit. Now 20 parallel wrong passwords on one identifier from
// one address get exactly 5 answers "wrong" and 15 refusals; 40 parallel
// wrong application passwords from one address exactly 20 "wrong".
func TestParallelSignInsCannotSlipPastTheLimit(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		useTestClock(db)
		lim := models.DefaultLimits()
		u := signInUser(t, db, "søren")
		pw, _, err := db.CreateAppPassword(ctx, u.ID, "日程スクリプト")
		if err != nil {
			t.Fatal(err)
		}

		o := parallel(20, func(int) error {
			_, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "søren", Password: "wrong", IP: "203.0.113.7"})
			return err
		})
		if len(o.other) > 0 || o.wrong != lim.SignInPerLogin || o.refused != 20-lim.SignInPerLogin {
			t.Errorf("20 parallel wrong passwords: %d wrong, %d refused, %d signed in, errors %v; want %d wrong, the rest refused",
				o.wrong, o.refused, o.signed, o.other, lim.SignInPerLogin)
		}
		var limited *models.RateLimitError
		if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "søren", Password: "password-søren", IP: "203.0.113.7"}); !errors.As(err, &limited) {
			t.Errorf("the right password from the refused address: %v, want a refusal", err)
		}
		if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "søren", Password: "password-søren", IP: "198.51.100.2"}); err != nil {
			t.Errorf("the right password from another address: %v", err)
		}

		o = parallel(40, func(i int) error {
			_, err := db.Actor(ctx, models.Credentials{Login: fmt.Sprintf("user-%d", i%3), AppPassword: "wrong wrong wrong", IP: "203.0.113.8"})
			return err
		})
		if len(o.other) > 0 || o.wrong != lim.SignInPerAddress || o.refused != 40-lim.SignInPerAddress {
			t.Errorf("40 parallel wrong application passwords: %d wrong, %d refused, errors %v; want %d wrong, the rest refused",
				o.wrong, o.refused, o.other, lim.SignInPerAddress)
		}
		if _, err := db.Actor(ctx, models.Credentials{Login: "søren", AppPassword: pw, IP: "203.0.113.8"}); !errors.As(err, &limited) {
			t.Errorf("a right application password from the refused address: %v, want a refusal", err)
		} else if limited.RetryAfter <= 0 || limited.RetryAfter > lim.SignInWindow {
			t.Errorf("Retry-After %v, want within the window", limited.RetryAfter)
		}
		if got, err := db.Actor(ctx, models.Credentials{Login: "søren", AppPassword: pw, IP: "198.51.100.2"}); err != nil || got == nil || got.ID != u.ID {
			t.Errorf("a right application password from another address: %v %v", got, err)
		}
	})
}

// Smaller finding 2 of issue 28, through the store: addresses were keyed as
// they came, so an IPv6 client rotated through its /64. Every address
// counter now keys IPv6 by its /64, IPv4-mapped IPv6 as IPv4.
func TestIPv6ClientsAreCountedByTheirSlash64(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"192.0.2.7":                         "192.0.2.7",
		"::ffff:192.0.2.7":                  "192.0.2.7",
		"2001:db8:1:2::1":                   "2001:db8:1:2::/64",
		"2001:0db8:0001:0002:ffff:eeee:1:2": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":                   "2001:db8:1:3::/64",
		"fe80::1%eth0":                      "fe80::/64",
		"::1":                               "::/64",
		"not an address":                    "not an address",
		"":                                  "",
	} {
		if got := models.AddressKey(in); got != want {
			t.Errorf("AddressKey(%q) = %q, want %q", in, got, want)
		}
	}
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		useTestClock(db)
		lim := models.DefaultLimits()
		u := signInUser(t, db, "minji")
		pw, _, err := db.CreateAppPassword(ctx, u.ID, "동기화")
		if err != nil {
			t.Fatal(err)
		}
		var limited *models.RateLimitError
		// The sign-in form: each failure from another address of one /64,
		// on another identifier.
		for i := range lim.SignInPerAddress {
			ip := fmt.Sprintf("2001:db8:1:2:%x::%x", i, i+1)
			if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: fmt.Sprintf("guess-%d", i), Password: "x", IP: ip}); !errors.Is(err, models.ErrBadCredentials) {
				t.Fatalf("failure %d from %s: %v", i+1, ip, err)
			}
		}
		if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "minji", Password: "password-minji", IP: "2001:db8:1:2:ffff:ffff:ffff:ffff"}); !errors.As(err, &limited) {
			t.Errorf("sign-in from a new address of the same /64: %v, want a refusal", err)
		}
		if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "minji", Password: "password-minji", IP: "2001:db8:1:3::1"}); err != nil {
			t.Errorf("sign-in from the next /64: %v", err)
		}
		// Application passwords, and IPv4 written as IPv4-mapped IPv6.
		for i := range lim.SignInPerAddress {
			ip := "198.51.100.4"
			if i%2 == 1 {
				ip = "::ffff:198.51.100.4"
			}
			if _, err := db.Actor(ctx, models.Credentials{Login: "minji", AppPassword: "wrong", IP: ip}); !errors.Is(err, models.ErrBadCredentials) {
				t.Fatalf("failure %d from %s: %v", i+1, ip, err)
			}
		}
		if _, err := db.Actor(ctx, models.Credentials{Login: "minji", AppPassword: pw, IP: "::ffff:198.51.100.4"}); !errors.As(err, &limited) {
			t.Errorf("application password from the refused IPv4 address, mapped: %v, want a refusal", err)
		}
		if n, err := db.APIAttempts(ctx, "198.51.100.4"); err != nil || n != lim.SignInPerAddress {
			t.Errorf("API counter of 198.51.100.4: %d, %v", n, err)
		}
	})
}

// A login typed in decomposed form (NFD: "s" + U+0327 for ş, as some
// keyboards and pastes give it) names the same account as the composed one,
// and the sign-in limits count both forms as one identifier: switching
// forms does not double an attacker's tries.
func TestDecomposedLoginsAreOneIdentifier(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		useTestClock(db)
		lim := models.DefaultLimits()
		composed, decomposed := "ayşe", "ays\u0327e"
		signInUser(t, db, composed)
		if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: "  AYS\u0327E ", Password: "password-" + composed, IP: "198.51.100.9"}); err != nil {
			t.Fatalf("the decomposed login: %v, want signed in", err)
		}
		for i := range lim.SignInPerLogin {
			id := []string{composed, decomposed}[i%2]
			if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: id, Password: "wrong", IP: "198.51.100.7"}); !errors.Is(err, models.ErrBadCredentials) {
				t.Fatalf("failure %d (%+q): %v", i+1, id, err)
			}
		}
		var limited *models.RateLimitError
		for _, id := range []string{composed, decomposed} {
			if _, err := db.SignInWithPassword(ctx, models.PasswordTry{Identifier: id, Password: "password-" + composed, IP: "198.51.100.7"}); !errors.As(err, &limited) {
				t.Errorf("%+q after %d failures in both forms: %v, want a refusal", id, lim.SignInPerLogin, err)
			}
		}
	})
}
