package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Scopes of the sign-in attempt counters.
const (
	attemptsByLogin   = "login"
	attemptsByAddress = "address"
)

// RecordFailedSignIn counts one failed sign-in against login (normalised as
// NormalizeLogin does) and against the address ip, and returns both counts
// after it. A counter lives for window from its first failure, then starts
// again at 1. Both counters change in one transaction and each increment
// is a single upsert, so instances sharing the database count every
// attempt exactly once.
func (s *Store) RecordFailedSignIn(ctx context.Context, login, ip string, window time.Duration) (perLogin, perAddress int, err error) {
	if window < time.Second {
		return 0, 0, fmt.Errorf("%w: a sign-in window lasts at least a second", ErrInvalid)
	}
	now := s.site.Now()
	err = s.RunInTx(ctx, func(tx *Store) error {
		var err error
		// Always the login first, then the address: concurrent callers
		// lock the rows in the same order.
		if perLogin, err = tx.countAttempt(ctx, attemptsByLogin, attemptKey(NormalizeLogin(login)), now, window); err != nil {
			return err
		}
		perAddress, err = tx.countAttempt(ctx, attemptsByAddress, attemptKey(ip), now, window)
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	if perLogin == 1 {
		// A counter (re)started: a good moment to drop the ones whose
		// window is over, so the table holds only live counters. In its own
		// transaction, away from the counting (and retried by RunInTx if
		// MySQL picks it as a deadlock victim).
		err = s.RunInTx(ctx, func(tx *Store) error {
			_, err := tx.db.NewDelete().TableExpr("signin_attempts").Where("expires_at <= ?", now).Exec(ctx)
			return err
		})
		if err != nil {
			return 0, 0, fmt.Errorf("models: drop expired sign-in counters: %w", mapErr(err))
		}
	}
	return perLogin, perAddress, nil
}

// countAttempt adds one to the counter (scope, key) inside a transaction
// and returns its new value. The upsert is written per dialect (bun has no
// portable one: SQLite has ON CONFLICT, MySQL ON DUPLICATE KEY UPDATE); the
// read that follows sees the row this transaction has just written and
// still locks (InnoDB's row lock, SQLite's write lock), so it is exact.
func (s *Store) countAttempt(ctx context.Context, scope, key string, now time.Time, window time.Duration) (int, error) {
	expires := now.Add(window)
	var q string
	var args []any
	switch s.dialect {
	case MySQL:
		// MySQL applies the assignments left to right, each seeing the
		// ones before it: expires_at, which the others test, goes last.
		q = `INSERT INTO signin_attempts (scope, key_hash, count, window_start, expires_at) VALUES (?, ?, 1, ?, ?)
ON DUPLICATE KEY UPDATE
  count = IF(expires_at <= ?, 1, count + 1),
  window_start = IF(expires_at <= ?, ?, window_start),
  expires_at = IF(expires_at <= ?, ?, expires_at)`
		args = []any{scope, key, now, expires, now, now, now, now, expires}
	default:
		// SQLite evaluates every assignment on the row as it was.
		q = `INSERT INTO signin_attempts (scope, key_hash, count, window_start, expires_at) VALUES (?, ?, 1, ?, ?)
ON CONFLICT (scope, key_hash) DO UPDATE SET
  count = CASE WHEN signin_attempts.expires_at <= excluded.window_start THEN 1 ELSE signin_attempts.count + 1 END,
  window_start = CASE WHEN signin_attempts.expires_at <= excluded.window_start THEN excluded.window_start ELSE signin_attempts.window_start END,
  expires_at = CASE WHEN signin_attempts.expires_at <= excluded.window_start THEN excluded.expires_at ELSE signin_attempts.expires_at END`
		args = []any{scope, key, now, expires}
	}
	if _, err := s.db.NewRaw(q, args...).Exec(ctx); err != nil {
		return 0, fmt.Errorf("models: count failed sign-in: %w", mapErr(err))
	}
	var n int
	err := s.db.NewSelect().TableExpr("signin_attempts").Column("count").
		Where("scope = ?", scope).Where("key_hash = ?", key).Scan(ctx, &n)
	if err != nil {
		return 0, fmt.Errorf("models: read failed sign-ins: %w", mapErr(err))
	}
	return n, nil
}

// SignInAttempts returns the failed sign-ins counted against login and
// against the address ip in their current windows (0 when none).
func (s *Store) SignInAttempts(ctx context.Context, login, ip string) (perLogin, perAddress int, err error) {
	var rows []struct {
		Scope string `bun:"scope"`
		Count int    `bun:"count"`
	}
	err = s.db.NewSelect().TableExpr("signin_attempts").Column("scope", "count").
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("scope = ? AND key_hash = ?", attemptsByLogin, attemptKey(NormalizeLogin(login))).
				WhereOr("scope = ? AND key_hash = ?", attemptsByAddress, attemptKey(ip))
		}).
		Where("expires_at > ?", s.site.Now()).Scan(ctx, &rows)
	if err != nil {
		return 0, 0, fmt.Errorf("models: read failed sign-ins: %w", mapErr(err))
	}
	for _, r := range rows {
		switch r.Scope {
		case attemptsByLogin:
			perLogin = r.Count
		case attemptsByAddress:
			perAddress = r.Count
		}
	}
	return perLogin, perAddress, nil
}

// ClearSignInAttempts forgets the failed sign-ins of login, after a
// successful one. The address counter stays: one good account must not
// reset the count of an address that tries many.
func (s *Store) ClearSignInAttempts(ctx context.Context, login string) error {
	_, err := s.db.NewDelete().TableExpr("signin_attempts").
		Where("scope = ?", attemptsByLogin).Where("key_hash = ?", attemptKey(NormalizeLogin(login))).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: clear failed sign-ins: %w", mapErr(err))
	}
	return nil
}

// attemptKey is the stored key of a counter: the SHA-256 of what it
// counts, so the table never holds what people typed as a login.
func attemptKey(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
