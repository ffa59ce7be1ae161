package models

import (
	"context"
	"crypto/subtle"
	"errors"
)

// Credentials are what a request carries to say who sends it: HTTP Basic
// credentials (a login and an application password), the admin's session
// cookie token with the X-WP-Nonce header of the admin's scripts, and the
// client address (recorded with application password uses).
type Credentials struct {
	// Login and AppPassword come from HTTP Basic; a non-empty Login means
	// Basic credentials were sent (an empty password is a wrong one).
	Login, AppPassword string
	// SessionToken is the value of the SessionCookie; Nonce the
	// X-WP-Nonce header.
	SessionToken, Nonce string
	IP                  string
}

// Actor resolves the user a request acts as (nil: anonymous), as WordPress
// does for its REST API (SPEC §7):
//
//   - Basic credentials win over everything else and go through
//     AuthenticateAppPassword (the same work whether or not the login
//     exists); wrong ones are ErrBadCredentials, never anonymous.
//   - Otherwise a live session whose nonce matches the one sent (compared
//     in constant time) acts as its user. A session cookie without a
//     nonce, with a wrong one, or naming no live session is anonymous: a
//     page on another site can make a browser send the cookie, never the
//     nonce.
//
// Actor does not extend the session (the admin does, see TouchSession).
func (s *Store) Actor(ctx context.Context, c Credentials) (*User, error) {
	if c.Login != "" {
		return s.appPasswordActor(ctx, c)
	}
	if c.SessionToken == "" || c.Nonce == "" {
		return nil, nil
	}
	sess, u, err := s.SessionByToken(ctx, c.SessionToken)
	if errors.Is(err, ErrNoSession) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(sess.Nonce), []byte(c.Nonce)) != 1 {
		return nil, nil
	}
	return u, nil
}
