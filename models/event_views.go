package models

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"
)

// The public views' reads: per-day counts of a month grid, the first
// events of each of its days, and the library sizes of a page's images.

// MonthDays reads what a month grid shows of each day of days (a day is
// [days[k], days[k+1]), so len(days)-1 days, in any zone: the caller cuts
// them): how many events f selects, among those u may see, overlap it
// (start before its end and end after its start, as the API's
// starts_before/ends_after window of that day counts them; a multi-day
// event counts on each of its days), and the first per of them in start
// order (start, publication date, id; f's own order is not used), with
// only the fields the grid shows (id, slug, title read in f.Lang, start,
// end, zone, all-day, publication date, status). f's own window bounds are
// replaced by the days'.
//
// Three queries whatever the number of events or days. The first walks
// the month's events once in start order, reading their start, end and id
// from the list index alone; the counts and the first events of every day
// come from that one walk, here (each event's first and last day by a
// binary search over the days' boundaries). Then the rows of the chosen
// events, then their translations. At 100,000 events a month holds about
// 4,400: a grouped count and a union of one ordered range a day, read
// apart, cost a third more (both walked the month, and the grouping sorted
// it), and telling the days in SQL (nested CASEs) five times more than
// reading the bare columns.
func (s *Store) MonthDays(ctx context.Context, u *User, f EventFilter, days []time.Time, per int) ([]int, [][]*Event, error) {
	n := len(days) - 1
	if n < 1 {
		return nil, nil, nil
	}
	if _, err := s.prepareEventFilter(ctx, u, &f); err != nil {
		return nil, nil, err
	}
	from, to := days[0], days[n]
	f.StartMin, f.EndMax, f.StartsAfter, f.EndsBefore = nil, nil, nil, nil
	f.EndsAfter, f.StartsBefore = &from, &to
	f.Order, f.Desc = "", false
	// On SQLite the times are read as expressions (+), which keep the
	// stored text: modernc's driver parses a DATETIME column into a
	// time.Time, trying several layouts, which cost more than the walk.
	cols := "event.start_at, event.end_at, event.id"
	if s.dialect == SQLite {
		cols = "+event.start_at, +event.end_at, event.id"
	}
	q := s.db.NewSelect().Model((*Event)(nil)).ColumnExpr(cols)
	s.applyEventFilter(q, f, false)
	order := f
	order.Near = nil // Near filters (applyEventFilter) but does not order here
	orderEvents(q, order)
	bounds := newMonthBounds(days[1:])
	rows, err := q.Rows(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("models: events of the month: %w", mapErr(err))
	}
	defer func() { _ = rows.Close() }()
	// The counts as a difference array: each event adds one from its
	// first day on and takes it away after its last.
	diff := make([]int, n+1)
	picked := make([][]int64, n)
	var ids []int64
	for rows.Next() {
		var startAt, endAt any
		var id int64
		if err := rows.Scan(&startAt, &endAt, &id); err != nil {
			return nil, nil, fmt.Errorf("models: events of the month: %w", mapErr(err))
		}
		lo, hi, err := bounds.span(startAt, endAt)
		if err != nil {
			return nil, nil, err
		}
		lo, hi = max(lo, 0), min(hi, n-1)
		if lo > hi {
			continue
		}
		diff[lo]++
		diff[hi+1]--
		chosen := false
		for k := lo; k <= hi; k++ {
			if len(picked[k]) < per {
				picked[k] = append(picked[k], id)
				chosen = true
			}
		}
		if chosen {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("models: events of the month: %w", mapErr(err))
	}
	counts := make([]int, n)
	running := 0
	for k := range n {
		running += diff[k]
		counts[k] = running
	}
	// Only what the grid shows (and the order needs): not the
	// descriptions, which were most of the bytes read.
	var events []*Event
	if len(ids) > 0 {
		if err := s.db.NewSelect().Model(&events).
			Column("id", "lang", "slug", "title", "start_at", "end_at", "timezone", "all_day", "published_at", "status").
			Where("event.id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
			return nil, nil, fmt.Errorf("models: first events of days: %w", mapErr(err))
		}
	}
	if err := overlayTranslations(ctx, s, KindEvent, events, f.Lang); err != nil {
		return nil, nil, err
	}
	byID := make(map[int64]*Event, len(events))
	for _, e := range events {
		byID[e.ID] = e
	}
	firsts := make([][]*Event, n)
	for k, list := range picked {
		for _, id := range list {
			if e := byID[id]; e != nil {
				firsts[k] = append(firsts[k], e)
			}
		}
	}
	return counts, firsts, nil
}

// monthBounds are the boundaries between the days of a month (each day's
// end but the last), as the dialect returns stored times: text on SQLite,
// in the form bun writes them (so they compare as the SQL windows compare
// them), time.Time on MySQL.
type monthBounds struct {
	times []time.Time
	texts []string
}

func newMonthBounds(bounds []time.Time) monthBounds {
	b := monthBounds{times: make([]time.Time, len(bounds)), texts: make([]string, len(bounds))}
	for i, t := range bounds {
		b.times[i] = Sec(t)
		b.texts[i] = timeText(b.times[i])
	}
	return b
}

// timeText is t as bun writes a time into SQL (schema.Dialect's
// AppendTime), so that text compares with stored text as SQLite compares
// them.
func timeText(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.999999-07:00")
}

// span returns the first and last day (0-based, possibly outside the
// month) of an event that starts at start and ends at end, as a stored row
// gives them: its first day is the number of boundaries at or before its
// start, its last the number strictly before its end.
func (b monthBounds) span(start, end any) (first, last int, err error) {
	first, err = b.count(start, false)
	if err != nil {
		return 0, 0, err
	}
	last, err = b.count(end, true)
	return first, last, err
}

// count is how many boundaries are at or before v (strictly before when
// strict).
func (b monthBounds) count(v any, strict bool) (int, error) {
	switch x := v.(type) {
	case string:
		return sort.Search(len(b.texts), func(i int) bool {
			if strict {
				return b.texts[i] >= x
			}
			return b.texts[i] > x
		}), nil
	case []byte:
		return b.count(string(x), strict)
	case time.Time:
		return sort.Search(len(b.times), func(i int) bool {
			if strict {
				return !b.times[i].Before(x)
			}
			return b.times[i].After(x)
		}), nil
	}
	return 0, fmt.Errorf("models: events of the month: a stored time of type %T", v)
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
