package models

import "context"

// ListTotals resolves f for u as ListEvents does and counts its total both
// ways: from the day buckets (ok false when they do not serve f) and by
// counting rows.
func (s *Store) ListTotals(ctx context.Context, u *User, f EventFilter) (days int, ok bool, rows int, err error) {
	f.reader = u
	if err := s.resolveEventFilter(ctx, &f); err != nil {
		return 0, false, 0, err
	}
	f.visibility = ListVisibility(u)
	f.IncludeHidden = f.IncludeHidden && MayFilterStatus(u)
	if days, ok, err = s.countServed(ctx, f); err != nil {
		return 0, false, 0, err
	}
	f.noImpliedBounds = true
	rows, err = s.countRows(ctx, f)
	return days, ok, rows, err
}
