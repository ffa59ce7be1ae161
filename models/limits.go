package models

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Limits are the abuse limits of a site. Every counter lives in the
// database (the signin_attempts table), so all instances serving one site
// count the same attempts and the same writes.
type Limits struct {
	// SignInWindow is how long failed sign-ins are counted, from the first
	// one of a counter; past a limit, attempts are refused (429) until the
	// window is over.
	//
	// The admin's sign-in form and its password change count failures per
	// typed identifier from one address (SignInPerLogin), per address
	// (SignInPerAddress) and per typed identifier from all addresses
	// (SignInPerAccount, 0: no such limit); the last refuses only browsers
	// without a device cookie of the account, and a device cookie that
	// fails SignInPerLogin times is no longer trusted. Application
	// passwords on the API count per address only (SignInPerAddress), in a
	// counter of their own.
	SignInWindow                                       time.Duration
	SignInPerLogin, SignInPerAddress, SignInPerAccount int
	// WritesPerMinute bounds the writes (API POST, PUT, PATCH, DELETE and
	// admin form posts) of one user in a minute; 0 leaves them unbounded.
	WritesPerMinute int
}

// DefaultLimits are the limits of a site that set none: in 15 minutes, 5
// failures per identifier from one address, 20 per address and 100 per
// identifier from all addresses; 120 writes a minute per user (two a
// second, sustained, beyond any editor and any sane import client; bulk
// loads go through `kalends import`).
func DefaultLimits() Limits {
	return Limits{SignInWindow: 15 * time.Minute, SignInPerLogin: 5, SignInPerAddress: 20, SignInPerAccount: 100, WritesPerMinute: 120}
}

// limits are the site's limits, or the defaults.
func (s *Site) limits() Limits {
	if s == nil || s.Limits == nil {
		return DefaultLimits()
	}
	return *s.Limits
}

// RateLimitError is a request refused by a limit: try again after
// RetryAfter. Reason is an i18n message id.
type RateLimitError struct {
	RetryAfter time.Duration
	Reason     string
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("models: too many requests (%s); retry after %v", e.Reason, e.RetryAfter)
}

// RetryAfterSeconds is RetryAfter for a Retry-After header (at least 1).
func (e *RateLimitError) RetryAfterSeconds() string {
	return strconv.Itoa(max(1, int((e.RetryAfter+time.Second-1)/time.Second)))
}

// tooManySignIns is the refusal of a sign-in over a limit, to be tried
// again after retry.
func tooManySignIns(retry time.Duration) *RateLimitError {
	return &RateLimitError{RetryAfter: max(time.Second, retry), Reason: "error.too_many_sign_ins"}
}

// attemptsByWriter is the scope of the per-user write counters.
const attemptsByWriter = "writes"

// CountWrite counts one write of u and refuses it (a *RateLimitError)
// beyond the site's writes per minute. Anonymous callers write nothing, so
// they are not counted.
func (s *Store) CountWrite(ctx context.Context, u *User) error {
	lim := s.site.limits()
	if u == nil || lim.WritesPerMinute <= 0 {
		return nil
	}
	now := s.site.Now()
	var n int
	var expires time.Time
	err := s.RunInTx(ctx, func(tx *Store) error {
		var err error
		n, expires, err = tx.countAttempt(ctx, attemptsByWriter, attemptKey("user:"+strconv.FormatInt(u.ID, 10)), now, time.Minute)
		return err
	})
	if err != nil {
		return err
	}
	if n > lim.WritesPerMinute {
		return &RateLimitError{RetryAfter: max(time.Second, expires.Sub(now)), Reason: "error.too_many_writes"}
	}
	return nil
}
