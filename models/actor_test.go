package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestActorResolvesBasicCredentialsThenSessionWithNonce(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		clock := useTestClock(db)
		ann := addAccount(t, db, "ann", models.RoleAuthor)
		bob := addAccount(t, db, "bob", models.RoleSubscriber)
		bobPassword, _, err := db.CreateAppPassword(ctx, bob.ID, "cli")
		if err != nil {
			t.Fatal(err)
		}
		token, sess, err := db.CreateSession(ctx, ann.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		_, other, err := db.CreateSession(ctx, ann.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}

		for _, c := range []struct {
			name string
			cred models.Credentials
			want *models.User // nil: anonymous
			bad  bool         // ErrBadCredentials
		}{
			{"nothing", models.Credentials{}, nil, false},
			{"basic", models.Credentials{Login: "BOB", AppPassword: bobPassword, IP: "192.0.2.1"}, bob, false},
			{"basic, wrong password", models.Credentials{Login: "bob", AppPassword: "nope"}, nil, true},
			{"basic, empty password", models.Credentials{Login: "bob"}, nil, true},
			{"basic, unknown login", models.Credentials{Login: "carol", AppPassword: bobPassword}, nil, true},
			{"basic, account password", models.Credentials{Login: "bob", AppPassword: "password-bob"}, nil, true},
			{"session and nonce", models.Credentials{SessionToken: token, Nonce: sess.Nonce}, ann, false},
			{"session without nonce", models.Credentials{SessionToken: token}, nil, false},
			{"session, wrong nonce", models.Credentials{SessionToken: token, Nonce: otherFirst(sess.Nonce)}, nil, false},
			{"session, another session's nonce", models.Credentials{SessionToken: token, Nonce: other.Nonce}, nil, false},
			{"session, the CSRF token as nonce", models.Credentials{SessionToken: token, Nonce: sess.CSRFToken}, nil, false},
			{"unknown session", models.Credentials{SessionToken: "forged", Nonce: sess.Nonce}, nil, false},
			{"nonce alone", models.Credentials{Nonce: sess.Nonce}, nil, false},
			{"basic wins over a session", models.Credentials{Login: "bob", AppPassword: bobPassword, SessionToken: token, Nonce: sess.Nonce}, bob, false},
			{"bad basic is not saved by a session", models.Credentials{Login: "bob", AppPassword: "nope", SessionToken: token, Nonce: sess.Nonce}, nil, true},
		} {
			u, err := db.Actor(ctx, c.cred)
			switch {
			case c.bad:
				if !errors.Is(err, models.ErrBadCredentials) || u != nil {
					t.Errorf("%s: %v, %v; want ErrBadCredentials", c.name, u, err)
				}
			case err != nil:
				t.Errorf("%s: %v", c.name, err)
			case c.want == nil && u != nil:
				t.Errorf("%s: acts as %s, want anonymous", c.name, u.Login)
			case c.want != nil && (u == nil || u.ID != c.want.ID || u.Role != c.want.Role):
				t.Errorf("%s: acts as %+v, want %s", c.name, u, c.want.Login)
			}
		}

		// An expired or ended session is anonymous.
		clock.Advance(time.Hour)
		if u, err := db.Actor(ctx, models.Credentials{SessionToken: token, Nonce: sess.Nonce}); u != nil || err != nil {
			t.Errorf("expired session: %v, %v; want anonymous", u, err)
		}
		token2, sess2, _ := db.CreateSession(ctx, ann.ID, time.Hour)
		if u, _ := db.Actor(ctx, models.Credentials{SessionToken: token2, Nonce: sess2.Nonce}); u == nil {
			t.Fatalf("new session not accepted")
		}
		if err := db.EndSession(ctx, token2); err != nil {
			t.Fatal(err)
		}
		if u, err := db.Actor(ctx, models.Credentials{SessionToken: token2, Nonce: sess2.Nonce}); u != nil || err != nil {
			t.Errorf("ended session: %v, %v; want anonymous", u, err)
		}
	})
}

// otherFirst is s with its first character changed.
func otherFirst(s string) string {
	if s[0] == 'x' {
		return "y" + s[1:]
	}
	return "x" + s[1:]
}
