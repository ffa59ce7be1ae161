package models_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestUsersAndAppPasswords(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		u, err := db.CreateUser(ctx, models.NewUser{Login: "Alice", Password: "correct horse", Role: models.RoleEditor})
		if err != nil {
			t.Fatal(err)
		}
		if u.Login != "alice" {
			t.Errorf("login stored as %q, want lower-case", u.Login)
		}
		if _, err := db.CreateUser(ctx, models.NewUser{Login: "ALICE", Password: "another one", Role: models.RoleAuthor}); !errors.Is(err, models.ErrConflict) {
			t.Errorf("duplicate login (other case): got %v, want ErrConflict", err)
		}
		plain, _, err := db.CreateAppPassword(ctx, u.ID, "cli")
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.AuthenticateAppPassword(ctx, "alice", plain, "127.0.0.1")
		if err != nil || got.ID != u.ID {
			t.Fatalf("authenticate with app password: %v", err)
		}
		if _, err := db.AuthenticateAppPassword(ctx, "ALICE", stripSpaces(plain), "127.0.0.1"); err != nil {
			t.Errorf("spaces and login case must not matter: %v", err)
		}
		for _, c := range []struct{ login, pw string }{{"alice", "correct horse"}, {"alice", "wrong"}, {"bob", plain}, {"", ""}} {
			if _, err := db.AuthenticateAppPassword(ctx, c.login, c.pw, ""); !errors.Is(err, models.ErrBadCredentials) {
				t.Errorf("authenticate(%q, %q) = %v, want ErrBadCredentials", c.login, c.pw, err)
			}
		}
		if _, err := db.CheckPassword(ctx, "alice", "correct horse"); err != nil {
			t.Errorf("account password: %v", err)
		}
		aps, _ := db.ListAppPasswords(ctx, u.ID)
		if len(aps) != 1 || aps[0].LastUsedAt == nil {
			t.Fatalf("app password use not recorded: %+v", aps)
		}
		if err := db.RevokeAppPassword(ctx, u.ID, aps[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AuthenticateAppPassword(ctx, "alice", plain, ""); !errors.Is(err, models.ErrBadCredentials) {
			t.Errorf("revoked password still works: %v", err)
		}
	})
}

func stripSpaces(s string) string {
	out := []rune{}
	for _, r := range s {
		if r != ' ' {
			out = append(out, r)
		}
	}
	return string(out)
}
