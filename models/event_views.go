package models

import (
	"context"
	"fmt"
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
	if _, err := statusFilter(u, "status", "reason.events.status_not_allowed", f.Statuses); err != nil {
		return nil, err
	}
	f.reader = u
	if f.PublicLinks {
		f.reader = nil
	}
	if err := s.resolveEventFilter(ctx, &f); err != nil {
		return nil, err
	}
	f.visibility = ListVisibility(u)
	f.IncludeHidden = f.IncludeHidden && MayFilterStatus(u)
	from, to := days[0], days[n]
	f.StartMin, f.EndMax, f.StartsAfter, f.EndsBefore = nil, nil, nil, nil
	f.EndsAfter, f.StartsBefore = &from, &to
	end := "event.end_at"
	if s.dialect == SQLite {
		end = "+" + end // the start index serves the window; see windowConds
	}
	var first, last strings.Builder
	var args []any
	first.WriteString("(0")
	for _, b := range days[1:] {
		first.WriteString(" + CASE WHEN event.start_at >= ? THEN 1 ELSE 0 END")
		args = append(args, Sec(b))
	}
	first.WriteString(")")
	last.WriteString("(0")
	for _, b := range days[1:] {
		last.WriteString(" + CASE WHEN " + end + " > ? THEN 1 ELSE 0 END")
		args = append(args, Sec(b))
	}
	last.WriteString(")")
	q := s.db.NewSelect().Model((*Event)(nil)).
		ColumnExpr(first.String()+" AS first_day, "+last.String()+" AS last_day, COUNT(*) AS n", args...)
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

// FirstEventsOfDays returns, for each day k of days with counts[k] > 0
// (days and counts as DayCounts gives them), the first per events of f
// overlapping it in start order, whole and read in f.Lang: one short
// index range per day, then one completion for them all.
func (s *Store) FirstEventsOfDays(ctx context.Context, u *User, f EventFilter, days []time.Time, counts []int, per int) ([][]*Event, error) {
	out := make([][]*Event, len(counts))
	var ids []int64
	seen := map[int64]bool{}
	dayIDs := make([][]int64, len(counts))
	for k, c := range counts {
		if c == 0 || k+1 >= len(days) {
			continue
		}
		g := f
		g.StartMin, g.EndMax, g.StartsAfter, g.EndsBefore = nil, nil, nil, nil
		g.EndsAfter, g.StartsBefore = &days[k], &days[k+1]
		g.Page, g.PerPage, g.Bare, g.SkipTotal = 1, per, true, true
		p, err := s.ListEvents(ctx, u, g)
		if err != nil {
			return nil, err
		}
		for _, e := range p.Items {
			dayIDs[k] = append(dayIDs[k], e.ID)
			if !seen[e.ID] {
				seen[e.ID] = true
				ids = append(ids, e.ID)
			}
		}
	}
	events, err := s.EventsByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	reader := u
	if f.PublicLinks {
		reader = nil
	}
	if err := s.completeEvents(ctx, reader, events, f.Lang); err != nil {
		return nil, err
	}
	byID := make(map[int64]*Event, len(events))
	for _, e := range events {
		byID[e.ID] = e
	}
	for k, list := range dayIDs {
		for _, id := range list {
			if e := byID[id]; e != nil {
				out[k] = append(out[k], e)
			}
		}
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
