package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// The public views' reads: per-day counts of a month grid, the first
// events of each of its days, and the library sizes of a page's images.

// DayCounts counts, for each day of days (a day is [days[k], days[k+1]),
// so len(days)-1 days, in any zone: the caller cuts them), the events
// that f selects among those u may see and that overlap it: starting
// before its end and ending after its start, as the API's
// starts_before/ends_after window of that day counts them. One grouped
// query whatever the number of events: each event's first and last day
// are told by comparing its start and end with the boundaries, and a
// multi-day event counts on each of its days. f's own window bounds are
// replaced by the days'.
func (s *Store) DayCounts(ctx context.Context, u *User, f EventFilter, days []time.Time) ([]int, error) {
	n := len(days) - 1
	if n < 1 {
		return nil, nil
	}
	if _, err := s.prepareEventFilter(ctx, u, &f); err != nil {
		return nil, err
	}
	from, to := days[0], days[n]
	f.StartMin, f.EndMax, f.StartsAfter, f.EndsBefore = nil, nil, nil, nil
	f.EndsAfter, f.StartsBefore = &from, &to
	// Each row's first and last day are found by a binary search over the
	// boundaries written as nested CASEs (five comparisons a side for a
	// month, not one per day). On SQLite the columns lose their affinity
	// (+): the DATETIME columns' numeric affinity would otherwise have each
	// comparison try the boundary's text as a number (28% of a month view's
	// CPU at 100,000 events). Both sides are text in the same format, so
	// they compare as the API's windows do.
	start, end := "event.start_at", "event.end_at"
	if s.dialect == SQLite {
		start, end = "+"+start, "+"+end
	}
	var args []any
	first := countBelow(start+" >= ?", days[1:], &args)
	last := countBelow(end+" > ?", days[1:], &args)
	q := s.db.NewSelect().Model((*Event)(nil)).
		ColumnExpr(first+" AS first_day, "+last+" AS last_day, COUNT(*) AS n", args...)
	s.applyEventFilter(q, f, true)
	q.GroupExpr("first_day, last_day")
	var rows []struct {
		FirstDay int `bun:"first_day"`
		LastDay  int `bun:"last_day"`
		N        int `bun:"n"`
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: count events per day: %w", mapErr(err))
	}
	counts := make([]int, n)
	for _, r := range rows {
		for k := max(r.FirstDay, 0); k <= min(r.LastDay, n-1); k++ {
			counts[k] += r.N
		}
	}
	return counts, nil
}

// countBelow returns an SQL expression giving how many of the sorted
// bounds satisfy cond (a comparison with one ? for the bound, true for a
// prefix of them): a binary search as nested CASEs, whose bounds it appends
// to args in the order they appear.
func countBelow(cond string, bounds []time.Time, args *[]any) string {
	var b strings.Builder
	var walk func(lo, hi int)
	walk = func(lo, hi int) {
		if lo == hi {
			fmt.Fprintf(&b, "%d", lo)
			return
		}
		mid := (lo + hi) / 2
		b.WriteString("CASE WHEN " + cond + " THEN ")
		*args = append(*args, Sec(bounds[mid]))
		walk(mid+1, hi)
		b.WriteString(" ELSE ")
		walk(lo, mid)
		b.WriteString(" END")
	}
	walk(0, len(bounds))
	return b.String()
}

// FirstEventsOfDays returns, for each day k of days with counts[k] > 0
// (days and counts as DayCounts gives them), the first per events of f
// overlapping it in start order (start, publication date, id; f's own
// order is not used), with only the fields the month grid shows (id,
// slug, title read in f.Lang, start, end, zone, all-day, publication
// date, status): no description and no linked record. Three
// queries whatever the number of days: the ids of every day at once (one
// short index range a day, joined with UNION ALL), their rows, and the
// translations.
func (s *Store) FirstEventsOfDays(ctx context.Context, u *User, f EventFilter, days []time.Time, counts []int, per int) ([][]*Event, error) {
	out := make([][]*Event, len(counts))
	if _, err := s.prepareEventFilter(ctx, u, &f); err != nil {
		return nil, err
	}
	f.StartMin, f.EndMax, f.StartsAfter, f.EndsBefore = nil, nil, nil, nil
	f.Order, f.Desc = "", false
	var arms []string
	for k, c := range counts {
		if c == 0 || k+1 >= len(days) {
			continue
		}
		g := f
		g.EndsAfter, g.StartsBefore = &days[k], &days[k+1]
		q := s.db.NewSelect().TableExpr("events AS event").Column("event.id")
		s.applyEventFilter(q, g, false)
		order := g
		order.Near = nil // Near filters (applyEventFilter) but does not order here
		orderEvents(q, order)
		q.Limit(int64(per))
		// Each day's ordered, limited range in a derived table of its own:
		// SQLite allows ORDER BY and LIMIT only there in a compound select.
		arms = append(arms, fmt.Sprintf("SELECT %d AS day, d%d.id AS id FROM (%s) AS d%d", k, k, q.String(), k))
	}
	if len(arms) == 0 {
		return out, nil
	}
	var rows []struct {
		Day int   `bun:"day"`
		ID  int64 `bun:"id"`
	}
	if err := s.db.NewRaw(strings.Join(arms, " UNION ALL ")).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: first events of days: %w", mapErr(err))
	}
	var ids []int64
	seen := map[int64]bool{}
	for _, r := range rows {
		if !seen[r.ID] {
			seen[r.ID] = true
			ids = append(ids, r.ID)
		}
	}
	// Only what the grid shows (and the order needs): not the
	// descriptions, which were most of the bytes read.
	var events []*Event
	if len(ids) > 0 {
		if err := s.db.NewSelect().Model(&events).
			Column("id", "lang", "slug", "title", "start_at", "end_at", "timezone", "all_day", "published_at", "status").
			Where("event.id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
			return nil, fmt.Errorf("models: first events of days: %w", mapErr(err))
		}
	}
	if err := overlayTranslations(ctx, s, KindEvent, events, f.Lang); err != nil {
		return nil, err
	}
	byID := make(map[int64]*Event, len(events))
	for _, e := range events {
		byID[e.ID] = e
	}
	for _, r := range rows {
		if e := byID[r.ID]; e != nil && r.Day < len(out) {
			out[r.Day] = append(out[r.Day], e)
		}
	}
	// A compound select keeps no order of its own: each day's events are
	// put back in the order of its range.
	for _, list := range out {
		slices.SortFunc(list, func(a, b *Event) int {
			if c := a.StartAt.Compare(b.StartAt); c != 0 {
				return c
			}
			if c := a.PublishedAt.Compare(b.PublishedAt); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return out, nil
}

// MediaOf returns the library images ids name with their sizes (without
// their bytes), by id; ids that name no image are left out. Two queries
// whatever their number.
func (s *Store) MediaOf(ctx context.Context, ids []int64) (map[int64]*Media, error) {
	out := map[int64]*Media{}
	if len(ids) == 0 {
		return out, nil
	}
	var list []*Media
	if err := s.db.NewSelect().Model(&list).Where("id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: media: %w", mapErr(err))
	}
	for _, m := range list {
		out[m.ID] = m
	}
	var files []MediaFile
	if err := s.db.NewSelect().Model(&files).Column("media_id", "size", "width", "height", "filesize", "etag").
		Where("media_id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: media files: %w", mapErr(err))
	}
	for _, mf := range files {
		if m := out[mf.MediaID]; m != nil {
			m.Files = append(m.Files, mf)
		}
	}
	for _, m := range out {
		sortMediaFiles(m.Files)
	}
	return out, nil
}
