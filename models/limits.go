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
	// SignInWindow, SignInPerLogin, SignInPerAddress: after SignInPerLogin
	// failed sign-ins on one login, or SignInPerAddress from one address,
	// within SignInWindow of the first, further attempts are refused until
	// the window is over. They count the admin's sign-in form, its
	// password change, and application passwords on the API alike.
	SignInWindow                     time.Duration
	SignInPerLogin, SignInPerAddress int
	// WritesPerMinute bounds the writes (API POST, PUT, PATCH, DELETE and
	// admin form posts) of one user in a minute; 0 leaves them unbounded.
	WritesPerMinute int
}

// DefaultLimits are the limits of a site that set none: 5 failures per
// login and 20 per address in 15 minutes, 120 writes a minute per user
// (two a second, sustained, beyond any editor and any sane import client;
// bulk loads go through `kalends import`).
func DefaultLimits() Limits {
	return Limits{SignInWindow: 15 * time.Minute, SignInPerLogin: 5, SignInPerAddress: 20, WritesPerMinute: 120}
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

// CheckSignInLimit refuses (with a *RateLimitError) a sign-in attempt on
// login from ip once either counter has reached its limit.
func (s *Store) CheckSignInLimit(ctx context.Context, login, ip string) error {
	lim := s.site.limits()
	perLogin, perAddress, err := s.SignInAttempts(ctx, login, ip)
	if err != nil {
		return err
	}
	if perLogin >= lim.SignInPerLogin || perAddress >= lim.SignInPerAddress {
		// The counters do not say when their window started: the whole
		// window is an upper bound of the wait.
		return &RateLimitError{RetryAfter: lim.SignInWindow, Reason: "error.too_many_sign_ins"}
	}
	return nil
}

// NoteFailedSignIn counts a failed sign-in on login from ip.
func (s *Store) NoteFailedSignIn(ctx context.Context, login, ip string) error {
	_, _, err := s.RecordFailedSignIn(ctx, login, ip, s.site.limits().SignInWindow)
	return err
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
	err := s.RunInTx(ctx, func(tx *Store) error {
		var err error
		n, err = tx.countAttempt(ctx, attemptsByWriter, attemptKey("user:"+strconv.FormatInt(u.ID, 10)), now, time.Minute)
		return err
	})
	if err != nil {
		return err
	}
	if n > lim.WritesPerMinute {
		var expires time.Time
		if err := s.db.NewSelect().TableExpr("signin_attempts").Column("expires_at").
			Where("scope = ?", attemptsByWriter).Where("key_hash = ?", attemptKey("user:"+strconv.FormatInt(u.ID, 10))).
			Scan(ctx, &expires); err != nil {
			return fmt.Errorf("models: read write counter: %w", mapErr(err))
		}
		return &RateLimitError{RetryAfter: max(time.Second, expires.Sub(now)), Reason: "error.too_many_writes"}
	}
	return nil
}
