package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/i18n"
)

// Console is the acting user of the command line (kalends user create, the
// administrator created at start-up): an administrator that is not stored
// (ID 0), so operations that take an actor can be run by the operator of
// the machine. Never use it for a request.
var Console = &User{Login: "console", DisplayName: "Console", Role: RoleAdministrator}

// Rules of account fields.
const (
	// MaxLoginLen is the longest login, in characters.
	MaxLoginLen = 60
	// MinPasswordLen is the shortest account password, in characters.
	MinPasswordLen = 8
	// MaxSearchLen is the longest search text of a list (SPEC §11).
	MaxSearchLen = 200
)

// UserFilter selects a page of users. Search matches part of the login,
// display name or e-mail address, ignoring case; Role keeps one role.
type UserFilter struct {
	Search        string
	Role          Role
	Page, PerPage int
}

// UserUpdate holds the account fields to change; nil leaves a field as it
// is. A user may change their own display name, e-mail address and
// language; only administrators change other users, and roles.
type UserUpdate struct {
	DisplayName *string
	Email       *string
	Role        *Role
	Locale      *string // "" for the site's language
}

// mayManageUser lets user id and administrators through, refusing anyone
// else before anything is read.
func mayManageUser(actor *User, id int64) error {
	if actor != nil && (actor.ID != 0 && actor.ID == id || Can(actor, ActManageUsers, Subject{Kind: KindUser})) {
		return nil
	}
	return refuse(actor, KindUser, RefusalNotAllowed)
}

// CheckManageUsers returns the refusal every user-management operation
// gives actor, or nil when actor may manage users: for a page that shows a
// form (a new user) before any operation runs.
func CheckManageUsers(actor *User) error {
	if !Can(actor, ActManageUsers, Subject{Kind: KindUser}) {
		return refuse(actor, KindUser, RefusalNotAllowed)
	}
	return nil
}

// ListUsers returns the page of users f selects, ordered by login, with
// the number of matches. Administrators only. Password hashes are not read.
func (s *Store) ListUsers(ctx context.Context, actor *User, f UserFilter) (*Page[User], error) {
	if !Can(actor, ActManageUsers, Subject{Kind: KindUser}) {
		return nil, refuse(actor, KindUser, RefusalNotAllowed)
	}
	search := strings.TrimSpace(f.Search)
	var c fieldChecks
	c.text("search", &search, MaxSearchLen)
	if f.Role != "" {
		checkRole(&c, "role", f.Role)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	filter := func(q *bun.SelectQuery) *bun.SelectQuery {
		if f.Role != "" {
			q = q.Where("role = ?", f.Role)
		}
		if search != "" {
			// LOWER folds Unicode on both dialects (sqlite_unicode.go).
			like := "%" + EscapeLike(strings.ToLower(search)) + "%"
			q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				return q.Where("LOWER(login) LIKE ? ESCAPE '!'", like).
					WhereOr("LOWER(display_name) LIKE ? ESCAPE '!'", like).
					WhereOr("LOWER(email) LIKE ? ESCAPE '!'", like)
			})
		}
		return q
	}
	total, err := filter(s.db.NewSelect().Model((*User)(nil))).Count(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: count users: %w", mapErr(err))
	}
	per := int64(s.site.PageSize(int64(f.PerPage)))
	page := int64(max(f.Page, 1))
	users := []*User{}
	if total > 0 && page <= (total+per-1)/per {
		err := filter(s.db.NewSelect().Model(&users).ExcludeColumn("password_hash")).
			Order("login ASC").Limit(per).Offset((page - 1) * per).Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("models: list users: %w", mapErr(err))
		}
	}
	return &Page[User]{Items: users, Total: int(total)}, nil
}

// UpdateUser changes the fields of user id that in sets and returns the
// user. A user changes their own display name, e-mail address and
// language; administrators change anyone's, and roles (the last
// administrator cannot be demoted: reason.users.last_admin).
func (s *Store) UpdateUser(ctx context.Context, actor *User, id int64, in UserUpdate) (*User, error) {
	if err := mayManageUser(actor, id); err != nil {
		return nil, err
	}
	admin := Can(actor, ActManageUsers, Subject{Kind: KindUser})
	if in.Role != nil && !admin && *in.Role != actor.Role {
		return nil, refuse(actor, KindUser, RefusalNotAllowed)
	}
	in.DisplayName, in.Email = trimmed(in.DisplayName), trimmed(in.Email)
	var c fieldChecks
	if in.DisplayName != nil && *in.DisplayName == "" {
		c.add("display_name", "reason.empty_string", nil)
	}
	c.text("display_name", in.DisplayName, MaxNameLen)
	if in.Email != nil {
		checkEmail(&c, *in.Email)
	}
	if in.Role != nil {
		checkRole(&c, "role", *in.Role)
	}
	if in.Locale != nil {
		checkLocale(&c, *in.Locale)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	var u *User
	err := s.RunInTx(ctx, func(tx *Store) error {
		demote := in.Role != nil && *in.Role != RoleAdministrator
		if demote {
			// Lock the administrators before the user, as DeleteUser does.
			if err := tx.keepAdministrator(ctx, id, "role"); err != nil {
				return err
			}
		}
		var err error
		if u, err = tx.lockUser(ctx, id); err != nil {
			return err
		}
		if in.Email != nil && !strings.EqualFold(*in.Email, u.Email) {
			if err := tx.checkEmailFree(ctx, *in.Email, id); err != nil {
				return err
			}
		}
		setStr(&u.DisplayName, in.DisplayName)
		setStr(&u.Email, in.Email)
		setStr(&u.Locale, in.Locale)
		if in.Role != nil {
			u.Role = *in.Role
		}
		u.UpdatedAt = tx.site.Now()
		_, err = tx.db.NewUpdate().Model(u).Column("display_name", "email", "locale", "role", "updated_at").
			WherePK().Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: update user %d: %w", id, mapErr(err))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// SetPassword sets the account password of user id (the user themself or
// an administrator) and signs that user out everywhere; their device
// cookies are trusted no more either.
func (s *Store) SetPassword(ctx context.Context, actor *User, id int64, password string) error {
	if err := mayManageUser(actor, id); err != nil {
		return err
	}
	var c fieldChecks
	checkPassword(&c, password)
	if err := c.err(); err != nil {
		return err
	}
	hash := HashPassword(password)
	return s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.lockUser(ctx, id); err != nil {
			return err
		}
		_, err := tx.db.NewUpdate().Model((*User)(nil)).Set("password_hash = ?", hash).
			Set("updated_at = ?", tx.site.Now()).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: set password of user %d: %w", id, mapErr(err))
		}
		if err := tx.forgetDevices(ctx, id); err != nil {
			return err
		}
		return tx.EndUserSessions(ctx, id)
	})
}

// DeleteUser deletes user id (administrators only): in one transaction,
// their events, venues and organizers go to user reassignTo, their
// sessions and application passwords are deleted, then the account. The
// last administrator cannot be deleted (reason.users.last_admin).
func (s *Store) DeleteUser(ctx context.Context, actor *User, id, reassignTo int64) error {
	if !Can(actor, ActManageUsers, Subject{Kind: KindUser}) {
		return refuse(actor, KindUser, RefusalNotAllowed)
	}
	if reassignTo == id || reassignTo <= 0 {
		return Invalid("reassign", "reason.users.bad_reassign", nil)
	}
	return s.RunInTx(ctx, func(tx *Store) error {
		if err := tx.keepAdministrator(ctx, id, "id"); err != nil {
			return err
		}
		if _, err := tx.lockUser(ctx, id); err != nil {
			return err
		}
		ok, err := tx.UserExists(ctx, reassignTo)
		if err != nil {
			return err
		}
		if !ok {
			return Invalid("reassign", "reason.users.bad_reassign", nil)
		}
		for _, table := range []string{"events", "venues", "organizers"} {
			if _, err := tx.db.NewUpdate().Table(table).Set("author_id = ?", reassignTo).
				Where("author_id = ?", id).Exec(ctx); err != nil {
				return fmt.Errorf("models: reassign %s of user %d: %w", table, id, mapErr(err))
			}
		}
		if err := tx.EndUserSessions(ctx, id); err != nil {
			return err
		}
		if _, err := tx.db.NewDelete().Model((*AppPassword)(nil)).Where("user_id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete app passwords of user %d: %w", id, mapErr(err))
		}
		if _, err := tx.db.NewDelete().Model((*User)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete user %d: %w", id, mapErr(err))
		}
		return nil
	})
}

// lockUser reads user id for update (inside a transaction).
func (s *Store) lockUser(ctx context.Context, id int64) (*User, error) {
	u := new(User)
	if err := s.forUpdate(s.db.NewSelect().Model(u).Where("id = ?", id)).Scan(ctx); err != nil {
		err = mapErr(err)
		if errors.Is(err, ErrNotFound) {
			return nil, &NotFoundError{Kind: KindUser, Ref: ByID(id)}
		}
		return nil, fmt.Errorf("models: get user %d: %w", id, err)
	}
	return u, nil
}

// keepAdministrator refuses (on field) to take the administrator role
// away from user id, by demotion or deletion, when no other administrator
// would remain. It locks every administrator row for the rest of the
// transaction (MySQL; SQLite transactions hold the write lock from BEGIN),
// so two administrators demoting each other at once cannot both succeed.
func (s *Store) keepAdministrator(ctx context.Context, id int64, field string) error {
	var ids []int64
	q := s.db.NewSelect().Model((*User)(nil)).Column("id").Where("role = ?", RoleAdministrator)
	if err := s.forUpdate(q).Scan(ctx, &ids); err != nil {
		return fmt.Errorf("models: count administrators: %w", mapErr(err))
	}
	isAdmin, others := false, 0
	for _, v := range ids {
		if v == id {
			isAdmin = true
		} else {
			others++
		}
	}
	if isAdmin && others == 0 {
		return Invalid(field, "reason.users.last_admin", nil)
	}
	return nil
}

// checkEmailFree refuses an e-mail address another user than id already
// has, ignoring case (the admin signs in with a login or an address, so an
// address names one account). It runs in the transaction that writes; two
// writers racing for one new address can still both win, which only makes
// sign-in by that address fail.
func (s *Store) checkEmailFree(ctx context.Context, email string, id int64) error {
	if email == "" {
		return nil
	}
	taken, err := s.db.NewSelect().Model((*User)(nil)).Where("LOWER(email) = ?", strings.ToLower(email)).
		Where("id <> ?", id).Exists(ctx)
	if err != nil {
		return fmt.Errorf("models: check e-mail: %w", mapErr(err))
	}
	if taken {
		return Invalid("email", "reason.users.email_taken", nil)
	}
	return nil
}

// checkLogin checks a normalised login: 1 to MaxLoginLen characters of
// UTF-8 text without white space, control characters or colons (a colon
// would break HTTP Basic credentials).
func checkLogin(c *fieldChecks, login string) {
	if fe := CheckText(login, MaxLoginLen); fe != nil && fe.Reason != "reason.too_long" {
		fe.Field = "login"
		c.fields = append(c.fields, *fe)
		return
	}
	bad := login == "" || utf8.RuneCountInString(login) > MaxLoginLen ||
		strings.ContainsFunc(login, func(r rune) bool { return r == ':' || unicode.IsSpace(r) || unicode.IsControl(r) })
	if bad {
		c.add("login", "reason.users.invalid_login", map[string]any{"Max": MaxLoginLen})
	}
}

// checkPassword checks an account password's length.
func checkPassword(c *fieldChecks, password string) {
	if !utf8.ValidString(password) {
		c.add("password", "reason.invalid_utf8", nil)
		return
	}
	if utf8.RuneCountInString(password) < MinPasswordLen {
		c.add("password", "reason.users.password_too_short", map[string]any{"Min": MinPasswordLen})
	}
}

// checkEmail checks an optional e-mail address (trimmed; "" for none).
func checkEmail(c *fieldChecks, email string) {
	if email == "" {
		return
	}
	if fe := CheckText(email, MaxNameLen); fe != nil {
		fe.Field = "email"
		c.fields = append(c.fields, *fe)
		return
	}
	if !ValidEmail(email) {
		c.add("email", "reason.invalid_email", nil)
	}
}

// checkRole checks a role.
func checkRole(c *fieldChecks, field string, r Role) {
	if ValidRole(r) {
		return
	}
	names := make([]string, len(Roles))
	for i, v := range Roles {
		names[i] = string(v)
	}
	c.fields = append(c.fields, FieldError{Field: field, Code: "rest_not_in_enum", Reason: "reason.not_in_enum",
		Data: map[string]any{"Values": strings.Join(names, ", ")}})
}

// checkLocale checks a user's language: one of i18n.Codes, or "" for the
// site's.
func checkLocale(c *fieldChecks, l string) {
	if l == "" || i18n.Valid(l) {
		return
	}
	c.fields = append(c.fields, FieldError{Field: "locale", Code: "rest_not_in_enum", Reason: "reason.not_in_enum",
		Data: map[string]any{"Values": strings.Join(i18n.Codes, ", ")}})
}
