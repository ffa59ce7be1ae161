package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// addAccount creates a user (as the console) with password
// "password-<login>".
func addAccount(t *testing.T, db *models.DB, login string, role models.Role) *models.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: login, Password: "password-" + login,
		Email: login + "@example.test", Role: role})
	if err != nil {
		t.Fatalf("create user %s: %v", login, err)
	}
	return u
}

// wantRefused fails unless err is a refusal of a signed-in (or anonymous)
// caller.
func wantRefused(t *testing.T, what string, err error, signedIn bool) {
	t.Helper()
	var fe *models.ForbiddenError
	if !errors.As(err, &fe) || !errors.Is(err, models.ErrForbidden) || fe.SignedIn != signedIn {
		t.Errorf("%s: got %v, want a ForbiddenError (signed in: %v)", what, err, signedIn)
	}
}

// wantInvalid fails unless err is a ValidationError on field with reason.
func wantInvalid(t *testing.T, what string, err error, field, reason string) {
	t.Helper()
	var ve *models.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, models.ErrInvalid) {
		t.Errorf("%s: got %v, want a ValidationError", what, err)
		return
	}
	if fe := ve.Field(field); fe == nil || fe.Reason != reason {
		t.Errorf("%s: got %v, want %s on %s", what, err, reason, field)
	}
}

func strRef(s string) *string { return &s }

func roleRef(r models.Role) *models.Role { return &r }

func TestCreateUserIsForAdministratorsAndChecksEveryField(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := addAccount(t, db, "root", models.RoleAdministrator)
		editor := addAccount(t, db, "ed", models.RoleEditor)
		in := models.NewUser{Login: "Newbie", Password: "long enough", Role: models.RoleAuthor}

		_, err := db.CreateUser(ctx, nil, in)
		wantRefused(t, "anonymous create", err, false)
		_, err = db.CreateUser(ctx, editor, in)
		wantRefused(t, "editor create", err, true)

		u, err := db.CreateUser(ctx, admin, models.NewUser{Login: " Newbie ", Password: "long enough", Role: models.RoleAuthor,
			Email: " New@Example.test ", Locale: "ja"})
		if err != nil {
			t.Fatal(err)
		}
		if u.Login != "newbie" || u.DisplayName != "Newbie" || u.Email != "New@Example.test" || u.Locale != "ja" {
			t.Errorf("created %+v", u)
		}

		long := strings.Repeat("x", 61)
		for _, c := range []struct {
			name          string
			in            models.NewUser
			field, reason string
		}{
			{"empty login", models.NewUser{Login: "  ", Password: "long enough", Role: models.RoleAuthor}, "login", "reason.users.invalid_login"},
			{"login with a space", models.NewUser{Login: "a b", Password: "long enough", Role: models.RoleAuthor}, "login", "reason.users.invalid_login"},
			{"login with a colon", models.NewUser{Login: "a:b", Password: "long enough", Role: models.RoleAuthor}, "login", "reason.users.invalid_login"},
			{"login too long", models.NewUser{Login: long, Password: "long enough", Role: models.RoleAuthor}, "login", "reason.users.invalid_login"},
			{"login with NUL", models.NewUser{Login: "a\x00b", Password: "long enough", Role: models.RoleAuthor}, "login", "reason.nul_byte"},
			{"short password", models.NewUser{Login: "p", Password: "short", Role: models.RoleAuthor}, "password", "reason.users.password_too_short"},
			{"bad e-mail", models.NewUser{Login: "m", Password: "long enough", Role: models.RoleAuthor, Email: "not an address"}, "email", "reason.invalid_email"},
			{"named e-mail", models.NewUser{Login: "m", Password: "long enough", Role: models.RoleAuthor, Email: "Me <me@example.test>"}, "email", "reason.invalid_email"},
			{"unknown role", models.NewUser{Login: "r", Password: "long enough", Role: "king"}, "role", "reason.not_in_enum"},
			{"unknown language", models.NewUser{Login: "l", Password: "long enough", Role: models.RoleAuthor, Locale: "fr"}, "locale", "reason.not_in_enum"},
			{"display name too long", models.NewUser{Login: "d", Password: "long enough", Role: models.RoleAuthor, DisplayName: strings.Repeat("名", 256)}, "display_name", "reason.too_long"},
			{"taken login", models.NewUser{Login: "NEWBIE", Password: "long enough", Role: models.RoleAuthor}, "login", "reason.users.login_taken"},
			{"taken e-mail", models.NewUser{Login: "other", Password: "long enough", Role: models.RoleAuthor, Email: "new@example.TEST"}, "email", "reason.users.email_taken"},
		} {
			_, err := db.CreateUser(ctx, admin, c.in)
			wantInvalid(t, c.name, err, c.field, c.reason)
		}
		if _, err := db.CreateUser(ctx, admin, models.NewUser{Login: "newbie", Password: "long enough", Role: models.RoleAuthor}); !errors.Is(err, models.ErrConflict) {
			t.Errorf("a taken login still matches ErrConflict: %v", err)
		}
		if n, _ := db.CountUsers(ctx); n != 3 {
			t.Errorf("%d users after the refusals, want 3", n)
		}
	})
}

func TestListUsersSearchesFiltersAndPages(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := addAccount(t, db, "root", models.RoleAdministrator)
		for _, n := range []struct {
			login, name, email string
			role               models.Role
		}{
			{"alice", "Alice Liddell", "alice@wonder.test", models.RoleEditor},
			{"bob", "Robert", "bob@builder.test", models.RoleAuthor},
			{"carol", "Carol ÉCLAIR", "c@wonder.test", models.RoleAuthor},
			{"dave", "Dave 100%_sure", "dave@example.test", models.RoleSubscriber},
		} {
			if _, err := db.CreateUser(ctx, admin, models.NewUser{Login: n.login, DisplayName: n.name, Email: n.email,
				Password: "long enough", Role: n.role}); err != nil {
				t.Fatal(err)
			}
		}
		list := func(f models.UserFilter) ([]string, int) {
			t.Helper()
			p, err := db.ListUsers(ctx, admin, f)
			if err != nil {
				t.Fatalf("ListUsers(%+v): %v", f, err)
			}
			var logins []string
			for _, u := range p.Items {
				if u.PasswordHash != "" {
					t.Errorf("ListUsers read the password hash of %s", u.Login)
				}
				logins = append(logins, u.Login)
			}
			return logins, p.Total
		}
		for _, c := range []struct {
			f     models.UserFilter
			want  string
			total int
		}{
			{models.UserFilter{}, "alice bob carol dave root", 5},
			{models.UserFilter{Search: "WONDER"}, "alice carol", 2},      // e-mail
			{models.UserFilter{Search: "robert"}, "bob", 1},              // display name
			{models.UserFilter{Search: "éclair"}, "carol", 1},            // Unicode case
			{models.UserFilter{Search: "ROO"}, "root", 1},                // login
			{models.UserFilter{Search: "%_"}, "dave", 1},                 // wildcards are literal
			{models.UserFilter{Search: "_"}, "dave", 1},                  // idem
			{models.UserFilter{Role: models.RoleAuthor}, "bob carol", 2}, // role
			{models.UserFilter{Role: models.RoleAuthor, Search: "wonder"}, "carol", 1},
			{models.UserFilter{PerPage: 2}, "alice bob", 5},
			{models.UserFilter{PerPage: 2, Page: 3}, "root", 5},
			{models.UserFilter{PerPage: 2, Page: 4}, "", 5},
			{models.UserFilter{Search: "nobody"}, "", 0},
		} {
			logins, total := list(c.f)
			if strings.Join(logins, " ") != c.want || total != c.total {
				t.Errorf("ListUsers(%+v) = %v (total %d), want %q (total %d)", c.f, logins, total, c.want, c.total)
			}
		}
		_, err := db.ListUsers(ctx, admin, models.UserFilter{Search: strings.Repeat("a", 201)})
		wantInvalid(t, "long search", err, "search", "reason.too_long")
		_, err = db.ListUsers(ctx, admin, models.UserFilter{Role: "king"})
		wantInvalid(t, "unknown role", err, "role", "reason.not_in_enum")
		editor, _ := db.GetUserByLogin(ctx, "alice")
		_, err = db.ListUsers(ctx, editor, models.UserFilter{})
		wantRefused(t, "editor lists users", err, true)
		_, err = db.ListUsers(ctx, nil, models.UserFilter{})
		wantRefused(t, "anonymous lists users", err, false)
	})
}

func TestGetAndUpdateUserFollowThePolicy(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := addAccount(t, db, "root", models.RoleAdministrator)
		ann := addAccount(t, db, "ann", models.RoleAuthor)
		bob := addAccount(t, db, "bob", models.RoleEditor)

		if u, err := db.GetUser(ctx, ann, ann.ID); err != nil || u.Login != "ann" {
			t.Errorf("a user reads themself: %v", err)
		}
		if u, err := db.GetUser(ctx, admin, ann.ID); err != nil || u.Login != "ann" {
			t.Errorf("an administrator reads anyone: %v", err)
		}
		_, err := db.GetUser(ctx, bob, ann.ID)
		wantRefused(t, "an editor reads another user", err, true)
		_, err = db.GetUser(ctx, nil, ann.ID)
		wantRefused(t, "anonymous read", err, false)
		_, err = db.GetUser(ctx, bob, 987654)
		wantRefused(t, "a non-administrator asking for an unknown id learns nothing", err, true)
		if _, err := db.GetUser(ctx, admin, 987654); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("unknown user: %v, want ErrNotFound", err)
		}

		// A user changes their own profile, not their role.
		u, err := db.UpdateUser(ctx, ann, ann.ID, models.UserUpdate{DisplayName: strRef(" Ann A. "), Email: strRef("ann@new.test"),
			Locale: strRef("ko"), Role: roleRef(models.RoleAuthor)})
		if err != nil || u.DisplayName != "Ann A." || u.Email != "ann@new.test" || u.Locale != "ko" || u.Role != models.RoleAuthor {
			t.Fatalf("own update: %v %+v", err, u)
		}
		if got, _ := db.GetUser(ctx, admin, ann.ID); got.DisplayName != "Ann A." || got.Locale != "ko" || got.PasswordHash != ann.PasswordHash {
			t.Errorf("stored after update: %+v", got)
		}
		_, err = db.UpdateUser(ctx, ann, ann.ID, models.UserUpdate{Role: roleRef(models.RoleAdministrator)})
		wantRefused(t, "an author promotes themself", err, true)
		_, err = db.UpdateUser(ctx, bob, ann.ID, models.UserUpdate{DisplayName: strRef("x")})
		wantRefused(t, "an editor changes another user", err, true)
		_, err = db.UpdateUser(ctx, nil, ann.ID, models.UserUpdate{DisplayName: strRef("x")})
		wantRefused(t, "anonymous update", err, false)

		for _, c := range []struct {
			name          string
			in            models.UserUpdate
			field, reason string
		}{
			{"blank display name", models.UserUpdate{DisplayName: strRef("  ")}, "display_name", "reason.empty_string"},
			{"bad e-mail", models.UserUpdate{Email: strRef("@@")}, "email", "reason.invalid_email"},
			{"taken e-mail", models.UserUpdate{Email: strRef("BOB@example.test")}, "email", "reason.users.email_taken"},
			{"unknown language", models.UserUpdate{Locale: strRef("zh-TW")}, "locale", "reason.not_in_enum"},
		} {
			_, err := db.UpdateUser(ctx, ann, ann.ID, c.in)
			wantInvalid(t, c.name, err, c.field, c.reason)
		}
		if u, err := db.UpdateUser(ctx, ann, ann.ID, models.UserUpdate{Email: strRef("ANN@new.test"), Locale: strRef("")}); err != nil || u.Email != "ANN@new.test" || u.Locale != "" {
			t.Errorf("own address in other case, language back to the site's: %v %+v", err, u)
		}

		// Administrators change others and roles.
		u, err = db.UpdateUser(ctx, admin, ann.ID, models.UserUpdate{Role: roleRef(models.RoleEditor)})
		if err != nil || u.Role != models.RoleEditor || u.DisplayName != "Ann A." {
			t.Errorf("promotion: %v %+v", err, u)
		}
		_, err = db.UpdateUser(ctx, admin, ann.ID, models.UserUpdate{Role: roleRef("king")})
		wantInvalid(t, "unknown role", err, "role", "reason.not_in_enum")
		if _, err := db.UpdateUser(ctx, admin, 987654, models.UserUpdate{DisplayName: strRef("x")}); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("update of an unknown user: %v, want ErrNotFound", err)
		}
	})
}

func TestSetPasswordSignsTheUserOutEverywhere(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := addAccount(t, db, "root", models.RoleAdministrator)
		ann := addAccount(t, db, "ann", models.RoleAuthor)
		bob := addAccount(t, db, "bob", models.RoleEditor)
		annToken, _, _ := db.CreateSession(ctx, ann.ID, time.Hour)
		bobToken, _, _ := db.CreateSession(ctx, bob.ID, time.Hour)

		if err := db.SetPassword(ctx, ann, ann.ID, "a new secret"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CheckPassword(ctx, "ann", "a new secret"); err != nil {
			t.Errorf("new password refused: %v", err)
		}
		if _, err := db.CheckPassword(ctx, "ann", "password-ann"); !errors.Is(err, models.ErrBadCredentials) {
			t.Errorf("old password still accepted: %v", err)
		}
		if _, _, err := db.SessionByToken(ctx, annToken); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("ann's session survived her password change: %v", err)
		}
		if _, _, err := db.SessionByToken(ctx, bobToken); err != nil {
			t.Errorf("bob's session ended by ann's password change: %v", err)
		}

		wantRefused(t, "an editor sets another's password", db.SetPassword(ctx, bob, ann.ID, "long enough"), true)
		wantRefused(t, "anonymous sets a password", db.SetPassword(ctx, nil, ann.ID, "long enough"), false)
		wantInvalid(t, "short password", db.SetPassword(ctx, ann, ann.ID, "short"), "password", "reason.users.password_too_short")
		if err := db.SetPassword(ctx, admin, bob.ID, "set by root"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.SessionByToken(ctx, bobToken); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("bob's session survived the reset: %v", err)
		}
		if err := db.SetPassword(ctx, admin, 987654, "long enough"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("password of an unknown user: %v, want ErrNotFound", err)
		}
	})
}

func TestDeleteUserReassignsTheirRecords(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := addAccount(t, db, "root", models.RoleAdministrator)
		ann := addAccount(t, db, "ann", models.RoleAuthor)
		heir := addAccount(t, db, "heir", models.RoleEditor)
		other := addAccount(t, db, "other", models.RoleAuthor)

		ev, err := db.CreateEvent(ctx, ann, models.EventInput{Title: strRef("Ann's talk"), StartDate: strRef("2027-03-10 09:00:00"),
			EndDate: strRef("2027-03-10 10:00:00"), Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		otherEv, err := db.CreateEvent(ctx, other, models.EventInput{Title: strRef("Other's talk"), StartDate: strRef("2027-03-10 09:00:00"),
			EndDate: strRef("2027-03-10 10:00:00"), Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		venue, _, err := db.Venues().Create(ctx, ann, models.VenueInput{Venue: strRef("Ann's hall")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		org, _, err := db.Organizers().Create(ctx, ann, models.OrganizerInput{Organizer: strRef("Ann's club")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.CreateAppPassword(ctx, ann.ID, "cli"); err != nil {
			t.Fatal(err)
		}
		token, _, _ := db.CreateSession(ctx, ann.ID, time.Hour)

		wantRefused(t, "an editor deletes a user", db.DeleteUser(ctx, heir, ann.ID, heir.ID), true)
		wantRefused(t, "anonymous delete", db.DeleteUser(ctx, nil, ann.ID, heir.ID), false)
		wantRefused(t, "a user deletes themself", db.DeleteUser(ctx, ann, ann.ID, heir.ID), true)
		wantInvalid(t, "reassign to the deleted user", db.DeleteUser(ctx, admin, ann.ID, ann.ID), "reassign", "reason.users.bad_reassign")
		wantInvalid(t, "reassign to nobody", db.DeleteUser(ctx, admin, ann.ID, 0), "reassign", "reason.users.bad_reassign")
		wantInvalid(t, "reassign to an unknown user", db.DeleteUser(ctx, admin, ann.ID, 987654), "reassign", "reason.users.bad_reassign")
		if err := db.DeleteUser(ctx, admin, 987654, heir.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("deleting an unknown user: %v, want ErrNotFound", err)
		}

		if err := db.DeleteUser(ctx, admin, ann.ID, heir.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.GetUser(ctx, admin, ann.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("deleted user still there: %v", err)
		}
		if got, err := db.GetEvent(ctx, admin, models.ByID(ev.ID), "en"); err != nil || got.AuthorID != heir.ID {
			t.Errorf("event after delete: %v, author %d, want %d", err, got.AuthorID, heir.ID)
		}
		if got, err := db.GetEvent(ctx, admin, models.ByID(otherEv.ID), "en"); err != nil || got.AuthorID != other.ID {
			t.Errorf("another author's event was reassigned: %v", err)
		}
		if got, err := db.Venues().Get(ctx, admin, models.ByID(venue.ID), "en"); err != nil || got.AuthorID != heir.ID {
			t.Errorf("venue after delete: %v %+v", err, got)
		}
		if got, err := db.Organizers().Get(ctx, admin, models.ByID(org.ID), "en"); err != nil || got.AuthorID != heir.ID {
			t.Errorf("organizer after delete: %v %+v", err, got)
		}
		if _, _, err := db.SessionByToken(ctx, token); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("session of the deleted user: %v", err)
		}
		n, err := db.Bun.NewSelect().TableExpr("app_passwords").Where("user_id = ?", ann.ID).Count(ctx)
		if err != nil || n != 0 {
			t.Errorf("%d application passwords of the deleted user left (%v)", n, err)
		}
	})
}

func TestTheLastAdministratorStays(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		root := addAccount(t, db, "root", models.RoleAdministrator)
		ann := addAccount(t, db, "ann", models.RoleAuthor)

		_, err := db.UpdateUser(ctx, root, root.ID, models.UserUpdate{Role: roleRef(models.RoleEditor)})
		wantInvalid(t, "demoting the only administrator", err, "role", "reason.users.last_admin")
		wantInvalid(t, "deleting the only administrator", db.DeleteUser(ctx, root, root.ID, ann.ID), "id", "reason.users.last_admin")
		_, err = db.UpdateUser(ctx, models.Console, root.ID, models.UserUpdate{Role: roleRef(models.RoleEditor)})
		wantInvalid(t, "the console demoting the only administrator", err, "role", "reason.users.last_admin")
		if _, err := db.UpdateUser(ctx, root, root.ID, models.UserUpdate{Role: roleRef(models.RoleAdministrator)}); err != nil {
			t.Errorf("keeping the role is no demotion: %v", err)
		}
		second := addAccount(t, db, "second", models.RoleAdministrator)
		if _, err := db.UpdateUser(ctx, second, root.ID, models.UserUpdate{Role: roleRef(models.RoleEditor)}); err != nil {
			t.Fatalf("demotion with another administrator left: %v", err)
		}
		root = second

		// With two, either may go, but not both at once: each demotes (or
		// deletes) the other concurrently, several times.
		for round := range 6 {
			a := addAccount(t, db, fmt.Sprintf("admin%d", round), models.RoleAdministrator)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, pair := range [][2]*models.User{{root, a}, {a, root}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if round%2 == 0 {
						_, errs[i] = db.UpdateUser(ctx, pair[0], pair[1].ID, models.UserUpdate{Role: roleRef(models.RoleAuthor)})
					} else {
						errs[i] = db.DeleteUser(ctx, pair[0], pair[1].ID, ann.ID)
					}
				}()
			}
			wg.Wait()
			ok := 0
			for _, err := range errs {
				if err == nil {
					ok++
					continue
				}
				var ve *models.ValidationError
				if !errors.As(err, &ve) || ve.Fields[0].Reason != "reason.users.last_admin" {
					t.Errorf("round %d: %v, want success or last_admin", round, err)
				}
			}
			admins, err := db.ListUsers(ctx, models.Console, models.UserFilter{Role: models.RoleAdministrator})
			if err != nil {
				t.Fatal(err)
			}
			if ok != 1 || admins.Total != 1 {
				t.Fatalf("round %d: %d of the two succeeded, %d administrators left: want exactly 1 and 1 (%v)", round, ok, admins.Total, errs)
			}
			root = admins.Items[0] // the survivor races the next newcomer

		}
	})
}

func TestCheckManageUsers(t *testing.T) {
	if err := models.CheckManageUsers(&models.User{ID: 1, Role: models.RoleAdministrator}); err != nil {
		t.Errorf("administrator: %v", err)
	}
	for _, u := range []*models.User{nil, {ID: 2, Role: models.RoleEditor}} {
		err := models.CheckManageUsers(u)
		var fe *models.ForbiddenError
		if !errors.As(err, &fe) || fe.Kind != models.KindUser {
			t.Errorf("%v: %v, want a refusal", u, err)
		}
	}
}
