package models

import (
	"context"
	"errors"
)

// Sign-in limits, as OWASP's "Blocking Brute Force Attacks" and "Slow
// Down Online Guessing Attacks with Device Cookies" describe them. Nobody
// can lock out someone else:
//
//   - the sign-in form counts failures per typed identifier from one
//     address and per address, so failures from elsewhere never refuse
//     the owner at their address;
//   - a distributed attack on one identifier is met by a counter of that
//     identifier across all addresses, which refuses only browsers that
//     hold no device cookie of the account (set at a successful sign-in):
//     the owner's browsers still get in;
//   - application passwords (too long to guess) count per address only, in
//     a counter of their own, so a lockout of the form never stops the
//     owner's scripts.
//
// Typed identifiers are counted as typed (normalised, never resolved to an
// account): a refusal on "alice@example.org" after failures on "alice"
// would tell that they are one account, and one on an identifier that names
// no account would tell that it does not exist.

// PasswordTry is one try of an account password: the admin's sign-in
// form, or the profile's password change.
type PasswordTry struct {
	// Identifier is what was typed as the login: a login or an e-mail
	// address.
	Identifier string
	Password   string
	// IP is the client's address; Device the device cookie the browser
	// sent ("" when none).
	IP, Device string
	// Account, when not 0, is the only account whose password is accepted
	// (the password change of a signed-in user).
	Account int64
}

// SignInWithPassword checks an account password under the sign-in limits.
// The attempt is counted first, on every counter in one transaction, and
// refused (a *RateLimitError, nothing counted) when a count passes its
// limit; only under every limit is the password checked. A wrong one is
// ErrBadCredentials and stays counted; a right one takes the attempt back
// and forgives the failures of the identifier from this address and of the
// device. Concurrent attempts each see their own count, so of 20 parallel
// wrong tries on one identifier from one address, exactly SignInPerLogin
// are checked. Every answer costs the same whether or not an account is
// named (one look-up, and a password hash unless refused), and no refusal
// says which counter refused.
func (s *Store) SignInWithPassword(ctx context.Context, t PasswordTry) (*User, error) {
	lim := s.site.limits()
	id, addr := NormalizeLogin(t.Identifier), AddressKey(t.IP)
	u, err := s.signInUser(ctx, id)
	if err != nil {
		return nil, err
	}
	device, err := s.deviceOf(ctx, t.Device, u)
	if err != nil {
		return nil, err
	}
	counters := []attemptCounter{
		{attemptsByLoginAddress, attemptKey(id, addr)},
		{attemptsByFormAddress, attemptKey(addr)},
		{attemptsByIdentifier, attemptKey(id)},
	}
	if device != "" {
		counters = append(counters, attemptCounter{attemptsByDevice, device})
	}
	counts, err := s.countAttempts(ctx, counters, lim.SignInWindow, func(n []attemptCount) error {
		trusted := len(n) == 4 && n[3].n <= lim.SignInPerLogin
		if n[0].n > lim.SignInPerLogin || n[1].n > lim.SignInPerAddress ||
			(!trusted && lim.SignInPerAccount > 0 && n[2].n > lim.SignInPerAccount) {
			// The whole window, whichever counter refused: the wait must
			// not tell them apart.
			return tooManySignIns(lim.SignInWindow)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if t.Account != 0 && u != nil && u.ID != t.Account {
		u = nil // checked all the same against the dummy hash
	}
	if u, err = verifySignIn(u, t.Password); err != nil {
		return nil, err
	}
	if err := s.takeBack(ctx, counts, attemptsByLoginAddress, attemptsByDevice); err != nil {
		return nil, err
	}
	return u, nil
}

// appPasswordActor authenticates Basic credentials (a login and an
// application password) under the API's limit: failures per address, in a
// counter of their own. An address at its limit is refused (a
// *RateLimitError) before anything is checked. A wrong password is counted
// and the answer decided on that count in one step, so of concurrent
// failures exactly SignInPerAddress are told the credentials are wrong and
// the rest are refused. A right password is not counted: checking one
// costs a hash look-up, not a password hash, and every API request of a
// script carries it, so it costs a read here, never a write.
func (s *Store) appPasswordActor(ctx context.Context, c Credentials) (*User, error) {
	lim := s.site.limits()
	counter := attemptCounter{attemptsByAPIAddress, attemptKey(AddressKey(c.IP))}
	n, expires, err := s.liveAttempts(ctx, counter)
	if err != nil {
		return nil, err
	}
	if n >= lim.SignInPerAddress {
		return nil, tooManySignIns(expires.Sub(s.site.Now()))
	}
	u, err := s.AuthenticateAppPassword(ctx, NormalizeLogin(c.Login), c.AppPassword, c.IP)
	if !errors.Is(err, ErrBadCredentials) {
		return u, err
	}
	_, err = s.countAttempts(ctx, []attemptCounter{counter}, lim.SignInWindow, func(n []attemptCount) error {
		if n[0].n > lim.SignInPerAddress {
			return tooManySignIns(n[0].expires.Sub(n[0].at))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return nil, ErrBadCredentials
}
