package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// SessionCookie is the name of the admin's session cookie (SPEC §10).
const SessionCookie = "kalends_session"

// ErrNoSession is the error of a session token that names no session, or
// one that expired.
// It matches ErrBadCredentials.
var ErrNoSession = fmt.Errorf("%w: no such session", ErrBadCredentials)

// CreateSession signs userID in for ttl: it returns the cookie token (32
// random bytes, base64url) and the stored session. Only the SHA-256 of the
// token is stored, so a copy of the database opens no session. The CSRF
// token and the API nonce are random too. Expired sessions of everyone are
// deleted on the way (sessions are only ever created at sign-in, so the
// table stays small without a background job).
func (s *Store) CreateSession(ctx context.Context, userID int64, ttl time.Duration) (string, *Session, error) {
	if ttl < time.Second {
		return "", nil, fmt.Errorf("%w: a session lasts at least a second", ErrInvalid)
	}
	token := randomToken()
	now := s.site.Now()
	sess := &Session{ID: sessionID(token), UserID: userID, CSRFToken: randomToken(), Nonce: randomToken(),
		CreatedAt: now, ExpiresAt: now.Add(ttl)}
	err := s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.db.NewDelete().Model((*Session)(nil)).Where("expires_at <= ?", now).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete expired sessions: %w", mapErr(err))
		}
		ok, err := tx.UserExists(ctx, userID)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("models: session for user %d: %w", userID, ErrNotFound)
		}
		if _, err := tx.db.NewInsert().Model(sess).Exec(ctx); err != nil {
			return fmt.Errorf("models: create session: %w", mapErr(err))
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return token, sess, nil
}

// sessionWithUser reads a session and its user in one query.
type sessionWithUser struct {
	bun.BaseModel `bun:"table:sessions,alias:s"`
	Session
	User *User `bun:"rel:belongs-to,join:user_id=id"`
}

// SessionByToken returns the live session of a cookie token and its user,
// or ErrNoSession when the token is unknown or the session expired.
func (s *Store) SessionByToken(ctx context.Context, token string) (*Session, *User, error) {
	if token == "" || len(token) > 256 {
		return nil, nil, ErrNoSession
	}
	var row sessionWithUser
	err := s.db.NewSelect().Model(&row).Relation("User").
		Where("s.id = ?", sessionID(token)).Where("s.expires_at > ?", s.site.Now()).Scan(ctx)
	if err != nil {
		err = mapErr(err)
		if errors.Is(err, ErrNotFound) {
			return nil, nil, ErrNoSession
		}
		return nil, nil, fmt.Errorf("models: read session: %w", err)
	}
	if row.User == nil || row.User.ID == 0 {
		return nil, nil, ErrNoSession
	}
	sess := row.Session
	return &sess, row.User, nil
}

// TouchSession moves the expiry of live session id (the stored id, not the
// token) to ttl from now: sessions slide while they are used. An expired or
// unknown session is not revived (ErrNoSession). It writes, so the admin
// calls it when a good part of the session has gone by, not on every
// request.
func (s *Store) TouchSession(ctx context.Context, id string, ttl time.Duration) error {
	if ttl < time.Second {
		return fmt.Errorf("%w: a session lasts at least a second", ErrInvalid)
	}
	now := s.site.Now()
	res, err := s.db.NewUpdate().Model((*Session)(nil)).Set("expires_at = ?", now.Add(ttl)).
		Where("id = ?", id).Where("expires_at > ?", now).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: touch session: %w", mapErr(err))
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		// MySQL counts changed rows, not matched ones: a touch within the
		// same second changes nothing but the session is still there.
		ok, err := s.db.NewSelect().Model((*Session)(nil)).Where("id = ?", id).Where("expires_at > ?", now).Exists(ctx)
		if err != nil {
			return fmt.Errorf("models: touch session: %w", mapErr(err))
		}
		if !ok {
			return ErrNoSession
		}
	}
	return nil
}

// EndSession signs the session of a cookie token out. Ending a session that
// does not exist is not an error (signing out twice is harmless).
func (s *Store) EndSession(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	if _, err := s.db.NewDelete().Model((*Session)(nil)).Where("id = ?", sessionID(token)).Exec(ctx); err != nil {
		return fmt.Errorf("models: end session: %w", mapErr(err))
	}
	return nil
}

// EndUserSessions signs userID out everywhere (on a password change, when
// an administrator locks the account out).
func (s *Store) EndUserSessions(ctx context.Context, userID int64) error {
	if _, err := s.db.NewDelete().Model((*Session)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return fmt.Errorf("models: end sessions of user %d: %w", userID, mapErr(err))
	}
	return nil
}

// randomToken returns 32 random bytes as unpadded base64url (43 characters).
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// sessionID is the stored id of a session token: its SHA-256 in hex.
func sessionID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
