package models

import (
	"context"
	"time"
)

// Sign-in counters the store tests read and drive directly (package
// models_test).

// FormAttempts returns the live counts of the sign-in form's counters of
// identifier from ip: per identifier and address, per address, and per
// identifier from all addresses.
func (s *Store) FormAttempts(ctx context.Context, identifier, ip string) (perLogin, perAddress, perAccount int, err error) {
	id, addr := NormalizeLogin(identifier), AddressKey(ip)
	counts := make([]int, 3)
	for i, c := range []attemptCounter{
		{attemptsByLoginAddress, attemptKey(id, addr)},
		{attemptsByFormAddress, attemptKey(addr)},
		{attemptsByIdentifier, attemptKey(id)},
	} {
		if counts[i], _, err = s.liveAttempts(ctx, c); err != nil {
			return 0, 0, 0, err
		}
	}
	return counts[0], counts[1], counts[2], nil
}

// APIAttempts returns the live count of failed application passwords from
// ip.
func (s *Store) APIAttempts(ctx context.Context, ip string) (int, error) {
	n, _, err := s.liveAttempts(ctx, attemptCounter{attemptsByAPIAddress, attemptKey(AddressKey(ip))})
	return n, err
}

// CountAttempt counts one attempt on the counter (scope, key) and returns
// its count, refusing nothing.
func (s *Store) CountAttempt(ctx context.Context, scope, key string, window time.Duration) (int, error) {
	counts, err := s.countAttempts(ctx, []attemptCounter{{scope, attemptKey(key)}}, window, func([]attemptCount) error { return nil })
	if err != nil {
		return 0, err
	}
	return counts[0].n, nil
}
