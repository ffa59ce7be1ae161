package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"
)

// ErrBadCredentials means the login or password is wrong (never says which).
var ErrBadCredentials = errors.New("models: bad credentials")

// NewUser holds what creating a user needs. Email, DisplayName (the login
// when empty) and Locale ("": the site's language) are optional.
type NewUser struct {
	Login       string
	Password    string
	Email       string
	DisplayName string
	Role        Role
	Locale      string
}

// NormalizeLogin is the stored form of a login: trimmed, lower-case and in
// Unicode NFC, so uniqueness does not depend on the database collation, a
// login typed in decomposed form (ayşe as s + U+0327, as some keyboards
// and pastes give it) names the same account, and the sign-in limits count
// both forms as one identifier.
func NormalizeLogin(s string) string { return norm.NFC.String(strings.ToLower(strings.TrimSpace(s))) }

// CreateUser creates an account with an argon2id password hash. Only
// administrators (and Console) create users. Every field is checked; a
// login or e-mail address another user has is a ValidationError too (the
// login one also matches ErrConflict).
func (s *Store) CreateUser(ctx context.Context, actor *User, in NewUser) (*User, error) {
	if !Can(actor, ActManageUsers, Subject{Kind: KindUser}) {
		return nil, refuse(actor, KindUser, RefusalNotAllowed)
	}
	login := NormalizeLogin(in.Login)
	email := strings.TrimSpace(in.Email)
	display := strings.TrimSpace(in.DisplayName)
	var c fieldChecks
	checkLogin(&c, login)
	checkPassword(&c, in.Password)
	checkEmail(&c, email)
	c.text("display_name", &display, MaxNameLen)
	checkRole(&c, "role", in.Role)
	checkLocale(&c, in.Locale)
	if err := c.err(); err != nil {
		return nil, err
	}
	if display == "" {
		display = strings.TrimSpace(in.Login)
	}
	now := s.site.Now()
	u := &User{Login: login, Email: email, DisplayName: display, Role: in.Role, Locale: in.Locale,
		PasswordHash: HashPassword(in.Password), CreatedAt: now, UpdatedAt: now}
	err := s.RunInTx(ctx, func(tx *Store) error {
		if err := tx.checkEmailFree(ctx, email, 0); err != nil {
			return err
		}
		if _, err := tx.db.NewInsert().Model(u).Exec(ctx); err != nil {
			err = mapErr(err)
			if errors.Is(err, ErrConflict) {
				return invalidBecause("login", "reason.users.login_taken", nil, err)
			}
			return fmt.Errorf("models: create user %s: %w", login, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// GetUser returns user id to an administrator, or to that user.
func (s *Store) GetUser(ctx context.Context, actor *User, id int64) (*User, error) {
	if err := mayManageUser(actor, id); err != nil {
		return nil, err
	}
	return s.userByID(ctx, id)
}

// userByID reads user id, whoever asks.
func (s *Store) userByID(ctx context.Context, id int64) (*User, error) {
	u := new(User)
	if err := s.db.NewSelect().Model(u).Where("id = ?", id).Scan(ctx); err != nil {
		err = mapErr(err)
		if errors.Is(err, ErrNotFound) {
			return nil, &NotFoundError{Kind: KindUser, Ref: ByID(id)}
		}
		return nil, fmt.Errorf("models: get user %d: %w", id, err)
	}
	return u, nil
}

// GetUserByLogin returns the user with login (case-insensitive).
func (s *Store) GetUserByLogin(ctx context.Context, login string) (*User, error) {
	q := s.modelQuery("user by login", func() string {
		return s.db.NewSelect().Model((*User)(nil)).Where("login = ?", bun.Safe("?")).String()
	})
	var found []*User
	if err := s.scan(ctx, &found, q, NormalizeLogin(login)); err != nil {
		return nil, fmt.Errorf("models: get user %q: %w", login, mapErr(err))
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("models: get user %q: %w", login, ErrNotFound)
	}
	return found[0], nil
}

// UserExists reports whether a user with id exists.
func (s *Store) UserExists(ctx context.Context, id int64) (bool, error) {
	ok, err := s.db.NewSelect().Model((*User)(nil)).Where("id = ?", id).Exists(ctx)
	return ok, mapErr(err)
}

// CountUsers returns the number of accounts.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	n, err := s.db.NewSelect().Model((*User)(nil)).Count(ctx)
	return int(n), mapErr(err)
}

// CheckPassword verifies an account password (admin sign-in). It costs the
// same whether or not the login exists.
func (s *Store) CheckPassword(ctx context.Context, login, password string) (*User, error) {
	u, err := s.GetUserByLogin(ctx, login)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	return verifySignIn(u, password)
}

// verifySignIn checks password against u's hash, or against a dummy hash
// when there is no such user (u nil), so that a wrong login and a wrong
// password cost the same work and give the same ErrBadCredentials.
func verifySignIn(u *User, password string) (*User, error) {
	hash := dummyPasswordHash
	if u != nil {
		hash = u.PasswordHash
	}
	if !VerifyPassword(hash, password) || u == nil {
		return nil, ErrBadCredentials
	}
	return u, nil
}

// CreateAppPassword creates an application password for userID and returns
// it in clear text (shown once) with its record. Application passwords are
// 24 random characters in groups of four, as WordPress shows them; only a
// SHA-256 is stored (they carry 143 bits of entropy, so a slow hash adds
// nothing but latency to every API call).
func (s *Store) CreateAppPassword(ctx context.Context, userID int64, name string) (string, *AppPassword, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "API"
	}
	if utf8.RuneCountInString(name) > 255 {
		return "", nil, fmt.Errorf("%w: an application password name has at most 255 characters", ErrInvalid)
	}
	plain := newAppPassword()
	ap := &AppPassword{UserID: userID, Name: name, PasswordHash: hashAppPassword(plain), CreatedAt: s.site.Now()}
	if _, err := s.db.NewInsert().Model(ap).Exec(ctx); err != nil {
		return "", nil, fmt.Errorf("models: create app password for user %d: %w", userID, mapErr(err))
	}
	return plain, ap, nil
}

// ListAppPasswords returns the application passwords of userID, newest
// first, to that user or an administrator.
func (s *Store) ListAppPasswords(ctx context.Context, actor *User, userID int64) ([]AppPassword, error) {
	if err := mayManageUser(actor, userID); err != nil {
		return nil, err
	}
	var aps []AppPassword
	err := s.db.NewSelect().Model(&aps).Where("user_id = ?", userID).Order("id DESC").Scan(ctx)
	return aps, mapErr(err)
}

// RevokeAppPassword revokes application password id of userID: the owner
// revokes their own, an administrator anyone's. A password that is not
// userID's or already revoked is ErrNotFound.
func (s *Store) RevokeAppPassword(ctx context.Context, actor *User, userID, id int64) error {
	if err := mayManageUser(actor, userID); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model((*AppPassword)(nil)).Set("revoked_at = ?", s.site.Now()).
		Where("id = ? AND user_id = ? AND revoked_at IS NULL", id, userID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: revoke app password %d: %w", id, mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// AuthenticateAppPassword checks an application password of login (spaces
// in password ignored) and returns its user, recording the use. A wrong
// login and a wrong password do the same work and both give
// ErrBadCredentials.
func (s *Store) AuthenticateAppPassword(ctx context.Context, login, password, ip string) (*User, error) {
	sum := hashAppPassword(strings.ReplaceAll(password, " ", ""))
	u, err := s.GetUserByLogin(ctx, login)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	var aps []AppPassword
	if u != nil {
		q := s.modelQuery("app passwords of user", func() string {
			return s.db.NewSelect().Model((*AppPassword)(nil)).Where("user_id = ? AND revoked_at IS NULL", bun.Safe("?")).String()
		})
		if err := s.scan(ctx, &aps, q, u.ID); err != nil {
			return nil, mapErr(err)
		}
	}
	// Compare against at least one hash whatever happened, in constant time.
	candidates := []string{dummyAppPasswordHash}
	for _, ap := range aps {
		candidates = append(candidates, ap.PasswordHash)
	}
	var match *AppPassword
	for i, h := range candidates {
		if subtle.ConstantTimeCompare([]byte(h), []byte(sum)) == 1 && i > 0 {
			match = &aps[i-1]
		}
	}
	if u == nil || match == nil {
		return nil, ErrBadCredentials
	}
	if len(ip) > 64 {
		ip = ip[:64]
	}
	// Record the use at most once a minute per password (and when the
	// address changes): a write on every signed-in request would cost a
	// write lock per read on SQLite.
	now := s.site.Now()
	if match.LastUsedAt == nil || now.Sub(*match.LastUsedAt) >= appPasswordUseResolution || match.LastIP != ip {
		if _, err := s.db.NewUpdate().Model((*AppPassword)(nil)).Set("last_used_at = ?", now).Set("last_ip = ?", ip).
			Where("id = ?", match.ID).Exec(ctx); err != nil {
			return nil, fmt.Errorf("models: record app password use: %w", mapErr(err))
		}
	}
	return u, nil
}

// appPasswordUseResolution is how precisely the last use of an application
// password is recorded.
const appPasswordUseResolution = time.Minute

const appPasswordAlphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

func newAppPassword() string {
	var b [24]byte
	var r [24]byte
	_, _ = rand.Read(r[:])
	for i := range b {
		b[i] = appPasswordAlphabet[int(r[i])%len(appPasswordAlphabet)]
	}
	var parts []string
	for i := 0; i < 24; i += 4 {
		parts = append(parts, string(b[i:i+4]))
	}
	return strings.Join(parts, " ")
}

func hashAppPassword(plain string) string {
	sum := sha256.Sum256([]byte(strings.ReplaceAll(plain, " ", "")))
	return hex.EncodeToString(sum[:])
}

var dummyAppPasswordHash = hashAppPassword(newAppPassword())

// argon2id parameters (RFC 9106's second recommended option, lighter memory).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns an argon2id hash of an account password in the PHC
// string format.
func HashPassword(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		enc.EncodeToString(salt), enc.EncodeToString(key))
}

// VerifyPassword checks password against a hash made by HashPassword.
func VerifyPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m > 1<<21 || t > 16 || p == 0 {
		return false
	}
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[4])
	key, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(key) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(key))) //nolint:gosec // G115: key is decoded from one line of a stored hash, far below 4 GiB.
	return subtle.ConstantTimeCompare(got, key) == 1
}

var dummyPasswordHash = HashPassword("not a real password")

// DisplayName returns the display name of user id, as every signed-in page
// may show who wrote or last changed a record ("" for 0, the system, or a
// user deleted since).
func (s *Store) DisplayName(ctx context.Context, id int64) (string, error) {
	if id == 0 {
		return "", nil
	}
	var names []string
	if err := s.db.NewSelect().Table("users").Column("display_name").Where("id = ?", id).Scan(ctx, &names); err != nil {
		return "", fmt.Errorf("models: display name of user %d: %w", id, mapErr(err))
	}
	if len(names) == 0 {
		return "", nil
	}
	return names[0], nil
}
