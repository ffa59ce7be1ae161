package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// publicSpanSQL reads the first and the last start of the events an
// anonymous reader sees in lists (published, not hidden from listings).
// Each aggregate is a subquery of its own: SQLite answers a lone MIN or MAX
// with one seek into the index (status, hide_from_listings, start_at, …),
// events_window_idx, but scans the whole range when one SELECT asks both;
// MySQL optimizes either form away.
const publicSpanSQL = "SELECT " +
	"(SELECT MIN(start_at) FROM events WHERE status = ? AND hide_from_listings = ?), " +
	"(SELECT MAX(start_at) FROM events WHERE status = ? AND hide_from_listings = ?)"

var publicSpanArgs = []any{StatusPublish, false, StatusPublish, false}

// PublicEventSpan returns the first and the last start of the events the
// public lists show (published, not hidden from listings), whoever asks;
// ok is false when there is none. It is one query of two index seeks
// whatever the number of events: the public month view bounds its pages by
// it, so that a crawler following "next month" comes to an end.
func (s *Store) PublicEventSpan(ctx context.Context) (first, last time.Time, ok bool, err error) {
	var lo, hi bun.NullTime
	if err := s.db.NewRaw(publicSpanSQL, publicSpanArgs...).Scan(ctx, &lo, &hi); err != nil {
		return time.Time{}, time.Time{}, false, fmt.Errorf("models: public event span: %w", mapErr(err))
	}
	if lo.IsZero() || hi.IsZero() {
		return time.Time{}, time.Time{}, false, nil
	}
	return lo.UTC(), hi.UTC(), true, nil
}
