package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Scopes of the attempt counters (the signin_attempts table). A counter
// counts from its first attempt for a window, then starts again at 1.
const (
	// The admin's sign-in form and the profile's password change: per
	// typed identifier and address, per address, per typed identifier
	// across all addresses (the account-wide limit), and per device cookie
	// (a device that keeps failing is no longer trusted).
	attemptsByLoginAddress = "form-login"
	attemptsByFormAddress  = "form-address"
	attemptsByIdentifier   = "form-account"
	attemptsByDevice       = "device"
	// Application passwords on the API: per address only, apart from the
	// form's, so a lockout of the form never stops a user's scripts.
	attemptsByAPIAddress = "api-address"
)

// AddressKey is how every address counter keys a client: an IPv4 address
// as it is, an IPv4-mapped IPv6 address as that IPv4 address, and any other
// IPv6 address by its /64 (the network one subscriber is given: a client
// with one would otherwise rotate through 2^64 addresses). Anything that is
// not an address is keyed as it comes.
func AddressKey(ip string) string {
	a, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return ip
	}
	a = a.WithZone("").Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// attemptCounter names one counter: its scope and the hash of what it
// counts (attemptKey).
type attemptCounter struct {
	scope, key string
}

// attemptCount is a counter just after an attempt was counted on it at at:
// its count n and the end of its window.
type attemptCount struct {
	attemptCounter
	n           int
	at, expires time.Time
}

// countAttempts counts one attempt on each of cs in one transaction and
// hands the counts to decide. An error from decide (a refusal) rolls the
// transaction back, so a refused attempt is counted nowhere, and is
// returned. Each count is taken under the counter row's lock (InnoDB's row
// lock, SQLite's write lock) held until the transaction ends, so
// concurrent attempts on one counter see 1, 2, 3… each once and the
// decision on them is exact: counting and deciding are one step. Callers
// list the scopes in the one order of the constants above, so concurrent
// attempts lock rows in the same order.
func (s *Store) countAttempts(ctx context.Context, cs []attemptCounter, window time.Duration, decide func([]attemptCount) error) ([]attemptCount, error) {
	if window < time.Second {
		return nil, fmt.Errorf("%w: a sign-in window lasts at least a second", ErrInvalid)
	}
	now := s.site.Now()
	var out []attemptCount
	err := s.RunInTx(ctx, func(tx *Store) error {
		out = out[:0] // (run again after a deadlock)
		for _, c := range cs {
			n, expires, err := tx.countAttempt(ctx, c.scope, c.key, now, window)
			if err != nil {
				return err
			}
			out = append(out, attemptCount{attemptCounter: c, n: n, at: now, expires: expires})
		}
		return decide(out)
	})
	if err != nil {
		return nil, err
	}
	if len(out) > 0 && out[0].n == 1 {
		// A counter (re)started: a good moment to drop the ones whose
		// window is over, so the table holds only live counters. In its own
		// transaction, away from the counting (and retried by RunInTx if
		// MySQL picks it as a deadlock victim).
		err = s.RunInTx(ctx, func(tx *Store) error {
			_, err := tx.db.NewDelete().TableExpr("signin_attempts").Where("expires_at <= ?", now).Exec(ctx)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("models: drop expired sign-in counters: %w", mapErr(err))
		}
	}
	return out, nil
}

// takeBack takes back attempts that succeeded: the counters of the scopes
// in clear are deleted (the failures before them are forgiven), the others
// lose the one attempt counted on them, unless their window ended and a new
// one started meanwhile (it does not hold that attempt).
func (s *Store) takeBack(ctx context.Context, counts []attemptCount, clear ...string) error {
	err := s.RunInTx(ctx, func(tx *Store) error {
		for _, c := range counts {
			var err error
			if slices.Contains(clear, c.scope) {
				_, err = tx.db.NewDelete().TableExpr("signin_attempts").
					Where("scope = ?", c.scope).Where("key_hash = ?", c.key).Exec(ctx)
			} else {
				_, err = tx.db.NewUpdate().TableExpr("signin_attempts").Set("count = count - 1").
					Where("scope = ?", c.scope).Where("key_hash = ?", c.key).
					Where("count > 0").Where("window_start <= ?", c.at).Exec(ctx)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("models: take back a sign-in attempt: %w", mapErr(err))
	}
	return nil
}

// countAttempt adds one to the counter (scope, key) inside a transaction
// and returns its new value and the end of its window. The upsert is
// written per dialect (bun has no portable one: SQLite has ON CONFLICT,
// MySQL ON DUPLICATE KEY UPDATE); the read that follows sees the row this
// transaction has just written and still locks (InnoDB's row lock,
// SQLite's write lock), so it is exact.
func (s *Store) countAttempt(ctx context.Context, scope, key string, now time.Time, window time.Duration) (int, time.Time, error) {
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
		return 0, time.Time{}, fmt.Errorf("models: count failed sign-in: %w", mapErr(err))
	}
	var row struct {
		Count     int       `bun:"count"`
		ExpiresAt time.Time `bun:"expires_at"`
	}
	err := s.db.NewSelect().TableExpr("signin_attempts").Column("count", "expires_at").
		Where("scope = ?", scope).Where("key_hash = ?", key).Scan(ctx, &row)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("models: read failed sign-ins: %w", mapErr(err))
	}
	return row.Count, row.ExpiresAt, nil
}

// liveAttempts returns the count of counter c in its current window and
// the window's end (0 when none is live). It runs on every request with
// Basic credentials, so as a prepared read (the window is compared here:
// a time bound through the driver would not compare with the text bun
// stores on SQLite).
func (s *Store) liveAttempts(ctx context.Context, c attemptCounter) (int, time.Time, error) {
	var rows []struct {
		Count     int       `bun:"count"`
		ExpiresAt time.Time `bun:"expires_at"`
	}
	const q = "SELECT count, expires_at FROM signin_attempts WHERE scope = ? AND key_hash = ?"
	if err := s.scan(ctx, &rows, q, c.scope, c.key); err != nil {
		return 0, time.Time{}, fmt.Errorf("models: read failed sign-ins: %w", mapErr(err))
	}
	if len(rows) == 0 || !rows[0].ExpiresAt.After(s.site.Now()) {
		return 0, time.Time{}, nil
	}
	return rows[0].Count, rows[0].ExpiresAt, nil
}

// attemptKey is the stored key of a counter: the SHA-256 of what it
// counts (its parts joined by NUL), so the table never holds what people
// typed as a login, nor their addresses.
func attemptKey(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}
