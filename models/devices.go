package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device
// Cookies"): a browser that signed in to an account through the form is
// given a random token, stored hashed (signin_devices) so every instance
// sharing the database knows it and a copy of the database lets nobody pass
// as a device. The account-wide limit of failed sign-ins does not refuse a
// browser holding a device of the account, so the owner still signs in
// during a distributed attack on their login.

// DeviceCookie is the name of the device cookie.
const DeviceCookie = "kalends_device"

// DeviceLifetime is how long a device is trusted after the sign-in that
// made it (browsers keep cookies for at most 400 days).
const DeviceLifetime = 365 * 24 * time.Hour

// maxDevices is how many devices an account keeps; a sign-in on one more
// forgets the oldest.
const maxDevices = 50

// signinDevice is a stored device: the SHA-256 (hex) of its token, its
// account, and when it was made and stops being trusted.
type signinDevice struct {
	bun.BaseModel `bun:"table:signin_devices"`
	ID            string    `bun:"id,pk"`
	UserID        int64     `bun:"user_id"`
	CreatedAt     time.Time `bun:"created_at"`
	ExpiresAt     time.Time `bun:"expires_at"`
}

// deviceOf returns the counter key of the device of token when it is a
// live device of u, and "" otherwise: no token, an unknown or expired one,
// or another account's (a device is valid only for the account it was
// issued to). It costs one read whenever a token is sent, whether or not u
// exists.
func (s *Store) deviceOf(ctx context.Context, token string, u *User) (string, error) {
	if token == "" || len(token) > 256 {
		return "", nil
	}
	id := attemptKey(token)
	var owner int64
	err := s.db.NewSelect().TableExpr("signin_devices").Column("user_id").
		Where("id = ?", id).Where("expires_at > ?", s.site.Now()).Scan(ctx, &owner)
	if errors.Is(mapErr(err), ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("models: read device: %w", mapErr(err))
	}
	if u == nil || owner != u.ID {
		return "", nil
	}
	return id, nil
}

// TrustDevice records the browser that has just signed in to userID as a
// device of the account and returns the token of its device cookie (32
// random bytes, base64url), valid for DeviceLifetime. previous, the device
// cookie the browser sent, is forgotten: a browser holds one device cookie,
// of the account that signed in last. Expired devices of every account go
// on the way, and the account's oldest beyond maxDevices.
func (s *Store) TrustDevice(ctx context.Context, userID int64, previous string) (string, error) {
	token := randomToken()
	now := s.site.Now()
	err := s.RunInTx(ctx, func(tx *Store) error {
		q := tx.db.NewDelete().TableExpr("signin_devices").Where("expires_at <= ?", now)
		if previous != "" && len(previous) <= 256 {
			q = q.WhereOr("id = ?", attemptKey(previous))
		}
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		dev := &signinDevice{ID: attemptKey(token), UserID: userID, CreatedAt: now, ExpiresAt: now.Add(DeviceLifetime)}
		if _, err := tx.db.NewInsert().Model(dev).Exec(ctx); err != nil {
			return err
		}
		var old []string
		if err := tx.db.NewSelect().TableExpr("signin_devices").Column("id").Where("user_id = ?", userID).
			OrderExpr("created_at DESC, id DESC").Offset(maxDevices).Limit(1000).Scan(ctx, &old); err != nil {
			return err
		}
		if len(old) > 0 {
			_, err := tx.db.NewDelete().TableExpr("signin_devices").Where("id IN (?)", bun.List(old)).Exec(ctx)
			return err
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("models: trust a device of user %d: %w", userID, mapErr(err))
	}
	return token, nil
}

// forgetDevices forgets every device of userID (when their password is
// set: the browsers that knew the old one are trusted no more).
func (s *Store) forgetDevices(ctx context.Context, userID int64) error {
	if _, err := s.db.NewDelete().TableExpr("signin_devices").Where("user_id = ?", userID).Exec(ctx); err != nil {
		return fmt.Errorf("models: forget the devices of user %d: %w", userID, mapErr(err))
	}
	return nil
}
