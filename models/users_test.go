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
		u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "Alice", Password: "correct horse", Role: models.RoleEditor})
		if err != nil {
			t.Fatal(err)
		}
		if u.Login != "alice" {
			t.Errorf("login stored as %q, want lower-case", u.Login)
		}
		if _, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "ALICE", Password: "another one", Role: models.RoleAuthor}); !errors.Is(err, models.ErrConflict) {
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
		aps, _ := db.ListAppPasswords(ctx, u, u.ID)
		if len(aps) != 1 || aps[0].LastUsedAt == nil {
			t.Fatalf("app password use not recorded: %+v", aps)
		}
		if err := db.RevokeAppPassword(ctx, u, u.ID, aps[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AuthenticateAppPassword(ctx, "alice", plain, ""); !errors.Is(err, models.ErrBadCredentials) {
			t.Errorf("revoked password still works: %v", err)
		}
	})
}

func TestApplicationPasswordsOfOthersAreForAdministrators(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := addAccount(t, db, "root", models.RoleAdministrator)
		ann := addAccount(t, db, "ann", models.RoleAuthor)
		ed := addAccount(t, db, "ed", models.RoleEditor)
		_, one, _ := db.CreateAppPassword(ctx, ann.ID, "one")
		_, two, _ := db.CreateAppPassword(ctx, ann.ID, "two")

		if aps, err := db.ListAppPasswords(ctx, ann, ann.ID); err != nil || len(aps) != 2 || aps[0].ID != two.ID {
			t.Errorf("owner lists: %v %+v", err, aps)
		}
		if aps, err := db.ListAppPasswords(ctx, admin, ann.ID); err != nil || len(aps) != 2 {
			t.Errorf("administrator lists: %v %+v", err, aps)
		}
		_, err := db.ListAppPasswords(ctx, ed, ann.ID)
		wantRefused(t, "an editor lists another's application passwords", err, true)
		_, err = db.ListAppPasswords(ctx, nil, ann.ID)
		wantRefused(t, "anonymous list", err, false)

		wantRefused(t, "an editor revokes another's", db.RevokeAppPassword(ctx, ed, ann.ID, one.ID), true)
		wantRefused(t, "anonymous revoke", db.RevokeAppPassword(ctx, nil, ann.ID, one.ID), false)
		if err := db.RevokeAppPassword(ctx, ed, ed.ID, one.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("revoking another's password under one's own id: %v, want ErrNotFound", err)
		}
		if err := db.RevokeAppPassword(ctx, ann, ann.ID, one.ID); err != nil {
			t.Errorf("owner revokes: %v", err)
		}
		if err := db.RevokeAppPassword(ctx, ann, ann.ID, one.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("revoking twice: %v, want ErrNotFound", err)
		}
		if err := db.RevokeAppPassword(ctx, admin, ann.ID, two.ID); err != nil {
			t.Errorf("administrator revokes: %v", err)
		}
		aps, _ := db.ListAppPasswords(ctx, ann, ann.ID)
		for _, ap := range aps {
			if ap.RevokedAt == nil {
				t.Errorf("application password %d not revoked", ap.ID)
			}
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
