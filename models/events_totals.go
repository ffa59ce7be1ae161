package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Totals without counting every row. The total of a list (X-WP-Total) once
// counted every event of its window: at 100,000 events a default list's
// window holds tens of thousands, read on every request whose page is
// full. The window means containment (SPEC §5): start_date bounds the
// start, end_date the end. So a total is
//
//	events starting in [a, b] that end by b
//	= the events starting on the days strictly between a's and b's UTC days,
//	  from per-day buckets (event_day_counts)
//	+ those starting on a's day and on b's day, counted exactly (two short
//	  index ranges)
//	- those starting on the days between that end after b: they start after
//	  b minus the longest event kept (event_span), so one more short range.
//
// An edge day whose every start is in the window (a is its first second,
// b its last: date-only start_date and end_date in a site on UTC) is
// counted by its bucket instead, b's with the days between; a list of a
// whole-day window reads one short range of rows, not three.
//
// The buckets count events per start day, status and hidden flag, for all
// events and per category filed under (with its ancestors), per term
// linked, per venue, per organizer and per pair of a category and a venue,
// so the lists filtered by one of them (or by one category and one venue)
// add their own buckets. Triggers keep them (and event_span, which
// only grows until kalends recount shrinks it) in the transaction of every
// write, including cascades, bulk loads and writes of other processes
// (migrations/*/20261130000200_event_day_counts*). The month buckets
// (event_month_counts) are the day buckets summed per calendar month, kept
// by triggers on the day buckets themselves (migrations/*/
// 20261228000100_event_month_counts*): the whole months between a's and
// b's days are summed from them, the days of the partial months at either
// end from the day buckets (bucketSums).
//
// These lists still count rows as before (countRows): per-owner visibility
// (contributors and authors see their own records in any status), several
// categories, tags, venues or organizers, or two kinds of them at once but
// one category with one venue (a union or an intersection is not a sum of
// buckets; those read the window index of the link with the fewest events
// and probe the others, countByTerms), recurrence=series and
// first (one row per series), search, geography, include, post_parent,
// featured, and the strict starts_*/ends_* bounds. include_hidden is
// served: the buckets keep hidden events apart.

// Bucket dimensions of event_day_counts.dim.
const (
	dayDimAll       = "e"
	dayDimCategory  = "c" // filed under (event_category_ancestors)
	dayDimTerm      = "t" // linked (event_terms)
	dayDimVenue     = "v"
	dayDimOrganizer = "o"
	dayDimSeries    = "r" // the events of series (series_id set), ref 0
	// dayDimPair: filed under a category and linked to a venue, ref =
	// category id * 2^32 + venue id (dayPairRef; the triggers of
	// migration 20261222000300 write the same).
	dayDimPair = "p"
)

// dayPairBits is the bits of a pair's ref that hold the venue.
const dayPairBits = 32

// dayPairRef is the ref of the buckets of a category and a venue; ok is
// false when an id does not fit (the rows are counted then).
func dayPairRef(category, venue int64) (int64, bool) {
	if category <= 0 || venue <= 0 || category >= 1<<(63-dayPairBits) || venue >= 1<<dayPairBits {
		return 0, false
	}
	return category<<dayPairBits | venue, true
}

// linkBucket is the dimension and record of the buckets of f's links
// (dayDimAll and 0 when f has none); ok is false when no buckets serve
// them: several records of a kind, or two kinds but one category with one
// venue (their pair's buckets).
func linkBucket(f EventFilter) (dim string, ref int64, ok bool) {
	if len(f.categoryIDs) == 1 && len(f.VenueIDs) == 1 && len(f.tagIDs) == 0 && len(f.OrganizerIDs) == 0 {
		ref, ok = dayPairRef(f.categoryIDs[0], f.VenueIDs[0])
		return dayDimPair, ref, ok
	}
	dim = dayDimAll
	for _, d := range []struct {
		dim string
		ids []int64
	}{{dayDimCategory, f.categoryIDs}, {dayDimTerm, f.tagIDs}, {dayDimVenue, f.VenueIDs}, {dayDimOrganizer, f.OrganizerIDs}} {
		switch {
		case len(d.ids) == 0:
		case len(d.ids) > 1 || dim != dayDimAll:
			return "", 0, false
		default:
			dim, ref = d.dim, d.ids[0]
		}
	}
	return dim, ref, true
}

// countEvents is the total of the list f selects (f resolved, with its
// visibility): from the buckets when it can, otherwise by counting rows.
func (s *Store) countEvents(ctx context.Context, f EventFilter) (int, error) {
	if f.searchCounted {
		return f.searchTotal, nil // searchPage counted it
	}
	if f.ModifiedAfter != nil || f.ModifiedBefore != nil {
		// The buckets and the term links keep no change time: the rows.
		return s.countRows(ctx, f)
	}
	if n, ok, err := s.countServed(ctx, f); ok || err != nil {
		return n, err
	}
	return s.countRows(ctx, f)
}

// countServed counts the total of f without counting its window's rows,
// from the buckets and short ranges of rows; ok is false when no way
// serves f.
func (s *Store) countServed(ctx context.Context, f EventFilter) (n int, ok bool, err error) {
	for _, way := range []func(context.Context, EventFilter) (int, bool, error){
		s.countEndingAfter, s.countEndingBefore, s.countSeriesByDays, s.countByDays,
	} {
		if n, ok, err = way(ctx, f); ok || err != nil {
			return n, ok, err
		}
	}
	return 0, false, nil
}

// countEndingBefore counts the events of a list bounded by "ends before
// t" (the public list of past events, ends_before): a window that ends at
// t less one second, from the buckets. Stored times are whole seconds and
// the rows' condition compares them with t cut to the second, so "ends
// before t" is "ends at t - 1 s or earlier". ok is false when f has
// another strict bound or the buckets cannot serve it.
func (s *Store) countEndingBefore(ctx context.Context, f EventFilter) (n int, ok bool, err error) {
	if f.EndsBefore == nil || f.EndsAfter != nil || f.StartsBefore != nil || f.StartsAfter != nil {
		return 0, false, nil
	}
	b := Sec(*f.EndsBefore).Add(-time.Second)
	g := f
	g.EndsBefore = nil
	if g.EndMax == nil || g.EndMax.After(b) {
		g.EndMax = &b
	}
	return s.countByDays(ctx, g)
}

// countSeriesByDays counts a list with one row per series
// (recurrence=series): the events of the window from the buckets, less
// those of series (the buckets of dim 'r', read in the same queries by
// countDays), plus the series with an event in the window, found by one
// probe of each series' events in start order. Counting the distinct
// series of the window's rows instead reads every event of the window.
// ok is false unless f is such a list whose other filters the buckets of
// all events serve.
func (s *Store) countSeriesByDays(ctx context.Context, f EventFilter) (n int, ok bool, err error) {
	if f.Recurrence != RecurrenceSeries {
		return 0, false, nil
	}
	g := f
	g.Recurrence = ""
	if dim, _, _, ok := dayBuckets(g); !ok || dim != dayDimAll {
		return 0, false, nil
	}
	all, inSeries, _, err := s.countDays(ctx, g, true)
	if err != nil {
		return 0, true, err
	}
	var series int
	if _, _, statuses, _ := dayBuckets(g); s.rowsOfWindow(g) {
		series, err = s.countSeriesInWindow(ctx, g, statuses)
	} else {
		series, err = s.countSeriesIn(ctx, g)
	}
	return all - inSeries + series, true, err
}

// countSeriesInWindow is countSeriesIn on SQLite for the g that
// countWindowRows counts (its visibility and window only: dayBuckets
// leaves no strict bound to countSeriesByDays), written with
// placeholders and prepared (s.scan), as every list with one row per
// series runs it. It reads the steps of the series (series_steps, kept by
// triggers): of each series with an event starting at the window's start
// a or later, the first such event is the one step whose previous event
// started before a (or that has none). Those steps are ranges of the
// index by gap class: a step of class k started at most 2^k days after
// its previous event, so before a plus 2^k days (class -1, a series'
// first event, and class 12, the longest gaps, run to the window's end).
// A series counts when its step is in the window and as visible as the
// list asks; a step that is not (a draft among published occurrences, an
// occurrence that ends after the window) probes that series' events as
// countSeriesIn does. Probing every series whose span meets the window
// instead was 86% of the CPU of such a list at a million events (one
// probe of the events' index per series).
func (s *Store) countSeriesInWindow(ctx context.Context, g EventFilter, statuses []string) (int, error) {
	// The steps' times are Unix seconds; a window without an end runs to
	// the last second there is.
	end := int64(math.MaxInt64 - 1)
	if g.EndMax != nil {
		end = Sec(*g.EndMax).Unix()
	}
	// The classes' ranges of starts: [a, hi), hi at most one past the end.
	classes, args := make([]string, 0, seriesStepClasses+2), make([]any, 0, 2*seriesStepClasses+16)
	bound := func(k int, hi int64) {
		classes = append(classes, "(?, ?)")
		args = append(args, k, min(hi, end+1))
	}
	var from int64 = math.MinInt64
	if g.StartMin != nil {
		from = Sec(*g.StartMin).Unix()
		for k := range seriesStepClasses {
			bound(k, from+int64(1)<<k*86400)
		}
		bound(seriesStepClasses, end+1)
	}
	bound(-1, end+1) // every series' first event (with no start bound, the only step)
	var c conds
	c.add("st.gap_class = c.column1 AND st.start_at >= ? AND st.start_at < c.column2", from)
	if g.StartMin != nil {
		c.add("(st.prev_at IS NULL OR st.prev_at < ?)", from)
	}
	var here, probe conds
	here.addAll(statusScope(statuses, g.IncludeHidden, "st.status", "st.hidden"))
	if g.EndMax != nil {
		here.add("st.end_at <= ?", end)
	}
	probe.add("e.series_id = st.series_id")
	probe.addAll(statusScope(statuses, g.IncludeHidden, "status", "hide_from_listings"))
	probe.window("e.", g)
	c.add("(("+here.sql()+") OR EXISTS (SELECT 1 FROM events AS e INDEXED BY events_series_start_idx WHERE "+probe.sql()+"))",
		append(here.args, probe.args...)...)
	q := "SELECT COUNT(*) FROM (VALUES " + strings.Join(classes, ", ") + ") AS c CROSS JOIN series_steps AS st INDEXED BY series_steps_stab_idx WHERE " + c.sql()
	var n int64
	if err := s.scan(ctx, &n, q, append(args, c.args...)...); err != nil {
		return 0, fmt.Errorf("models: count series: %w", mapErr(err))
	}
	return int(n), nil
}

// seriesStepClasses is the number of gap classes of series_steps with a
// bound (0 to 11: at most 1 to 2,048 days).
const seriesStepClasses = 12

// countSeriesIn counts the series with an event that f (no recurrence
// filter) selects: the distinct series_id of its events, as countRows
// counts them. Each series' span (series_spans: its first and last start,
// which triggers only widen; every series_id of an event has one) that
// meets the window's starts probes the series' events through the
// (series_id, start_at, …) index, which the probe is pinned to; the
// window's bounds on start_at make it one short range per series,
// stopping at the first event found. A series whose span misses the
// window is not probed.
func (s *Store) countSeriesIn(ctx context.Context, f EventFilter) (int, error) {
	probe := s.db.NewSelect().Model((*Event)(nil)).ColumnExpr("1")
	if s.dialect == MySQL {
		probe.ModelTableExpr("events AS event FORCE INDEX (events_series_start_idx)")
	} else {
		probe.ModelTableExpr(`"events" AS "event" INDEXED BY events_series_start_idx`)
	}
	s.applyEventFilter(probe, f, true)
	probe.Where("event.series_id = sp.series_id")
	q := s.db.NewSelect().TableExpr("series_spans AS sp")
	// On SQLite a unary + compares the stored text as text (windowConds).
	first, last := "sp.first_at", "sp.last_at"
	if s.dialect == SQLite {
		first, last = "+"+first, "+"+last
	}
	bound := func(cond string, t *time.Time) {
		if t != nil {
			q.Where(cond, Sec(*t))
		}
	}
	bound(last+" >= ?", f.StartMin)
	bound(last+" > ?", f.StartsAfter)
	bound(first+" <= ?", f.EndMax) // an event ends after it starts
	bound(first+" < ?", f.StartsBefore)
	bound(first+" < ?", f.EndsBefore)
	n, err := q.Where("EXISTS (?)", probe).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: count series: %w", mapErr(err))
	}
	return int(n), nil
}

// countEndingAfter counts the events of a list bounded by "ends after t"
// (the admin's upcoming tab, ends_after): those starting after t, from the
// buckets, and those started by t that have not ended, a short range of
// rows since they started at most the longest event before t. ok is false
// when f has another strict bound or the buckets cannot serve it. Stored
// times are whole seconds, so "starts after t" is "starts at t + 1 s or
// later".
func (s *Store) countEndingAfter(ctx context.Context, f EventFilter) (n int, ok bool, err error) {
	if f.EndsAfter == nil || f.StartsBefore != nil || f.StartsAfter != nil || f.EndsBefore != nil {
		return 0, false, nil
	}
	t := Sec(*f.EndsAfter)
	next := t.Add(time.Second)
	later := f
	later.EndsAfter = nil
	if later.StartMin == nil || later.StartMin.Before(next) {
		later.StartMin = &next
	}
	if _, _, _, ok := dayBuckets(later); !ok {
		return 0, false, nil
	}
	if n, ok, err = s.countByDays(ctx, later); !ok || err != nil {
		return n, ok, err
	}
	if f.StartMin != nil && !f.StartMin.Before(next) {
		return n, true, nil
	}
	started := f
	started.StartsBefore = &next
	c, err := s.countRows(ctx, started)
	return n + c, true, err
}

// countRows counts the events f selects from the links of its terms
// (countByTerms) or from the events.
func (s *Store) countRows(ctx context.Context, f EventFilter) (int, error) {
	n, ok, err := s.countByTerms(ctx, f)
	if ok || err != nil {
		return n, err
	}
	cq := s.db.NewSelect().Model((*Event)(nil))
	s.applyEventFilter(cq, f, true)
	if f.Recurrence == RecurrenceSeries {
		// One row per series: the series with an occurrence in the
		// window, counted in the same pass as single events.
		err = cq.ColumnExpr("COUNT(DISTINCT CASE WHEN event.series_id IS NULL THEN -event.id ELSE event.series_id END)").Scan(ctx, &n)
		return n, err
	}
	n64, err := cq.Count(ctx)
	return int(n64), err
}

// dayBuckets says which buckets serve f: the dimension and its record, the
// statuses counted (nil: all but trash) and whether hidden events count;
// ok is false when f needs its rows counted.
func dayBuckets(f EventFilter) (dim string, ref int64, statuses []string, ok bool) {
	if len(f.Search) > 0 || f.Geoloc != nil || f.Near != nil || len(f.Include) > 0 || f.ParentID != nil ||
		f.Featured != nil || (f.Recurrence != "" && f.Recurrence != RecurrenceOccurrences) ||
		f.StartsBefore != nil || f.StartsAfter != nil || f.EndsBefore != nil || f.EndsAfter != nil {
		return "", 0, nil, false
	}
	if dim, ref, ok = linkBucket(f); !ok {
		return "", 0, nil, false
	}
	switch v := f.visibility; {
	case len(f.Statuses) > 0 && v.AllButTrash:
		statuses = f.Statuses
	case len(f.Statuses) > 0:
		// Others' records only when published: publish alone needs no author.
		for _, st := range f.Statuses {
			if st != StatusPublish {
				return "", 0, nil, false
			}
		}
		statuses = []string{StatusPublish}
	case v.AllButTrash:
	case v.OwnerID != 0:
		return "", 0, nil, false
	default:
		statuses = []string{StatusPublish}
	}
	return dim, ref, statuses, true
}

// utcDay is the start of t's UTC day.
func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// countByDays counts the events f selects from the day buckets and three
// short ranges of rows (see the top of this file); ok is false when it
// cannot (dayBuckets).
func (s *Store) countByDays(ctx context.Context, f EventFilter) (n int, ok bool, err error) {
	n, _, ok, err = s.countDays(ctx, f, false)
	return n, ok, err
}

// countDays is countByDays; with inSeries (f on the buckets of all
// events) it also counts, in the same queries, how many of them belong to
// a series (ns: the buckets of dim 'r', and COUNT(series_id) over the
// same short ranges of rows), for the totals of one row per series.
func (s *Store) countDays(ctx context.Context, f EventFilter, inSeries bool) (n, ns int, ok bool, err error) {
	dim, ref, statuses, ok := dayBuckets(f)
	if !ok || (inSeries && dim != dayDimAll) {
		return 0, 0, false, nil
	}
	count := func(g EventFilter) (int, int, error) {
		if s.rowsOfWindow(g) {
			if c, cs, ok, err := s.countWindowRows(ctx, g, statuses); ok || err != nil {
				return c, cs, err
			}
		}
		if !inSeries {
			c, err := s.countRows(ctx, g)
			return c, 0, err
		}
		return s.countRowsAndSeries(ctx, g)
	}
	var a, b time.Time
	if f.StartMin != nil {
		a = Sec(*f.StartMin)
	}
	if f.EndMax != nil {
		b = Sec(*f.EndMax)
	}
	switch {
	case f.StartMin != nil && f.EndMax != nil && b.Before(a):
		return 0, 0, true, nil // start >= a > b >= end >= start: nothing
	case f.StartMin != nil && f.EndMax != nil && utcDay(a).Equal(utcDay(b)):
		n, ns, err = count(f) // one day: a short range anyway
		return n, ns, true, err
	}
	exact := func(g EventFilter) error {
		if g.StartMin != nil && g.StartsBefore != nil && !g.StartMin.Before(*g.StartsBefore) {
			return nil
		}
		c, cs, err := count(g)
		n, ns = n+c, ns+cs
		return err
	}
	exactLess := func(g EventFilter) error {
		c, cs, err := count(g)
		n, ns = n-c, ns-cs
		return err
	}
	// The buckets: the days after a's and before b's. Written with
	// placeholders and prepared (s.scan): a statement of its shape is
	// planned once, not on every list.
	cols, where, args := "COALESCE(SUM(n), 0) AS d", []string{"dim = ?", "ref = ?"}, []any{dim, ref}
	if inSeries {
		cols = "COALESCE(SUM(CASE WHEN dim = ? THEN n ELSE 0 END), 0) AS d, COALESCE(SUM(CASE WHEN dim = ? THEN n ELSE 0 END), 0) AS s"
		where, args = []string{"dim IN (?, ?)", "ref = 0"}, []any{dayDimAll, dayDimSeries, dayDimAll, dayDimSeries}
	}
	scope, scopeArgs := bucketScope(statuses, f.IncludeHidden)
	where, args = append(where, scope...), append(args, scopeArgs...)
	var interiorFrom time.Time // the first instant of the days between
	var lo, hi *time.Time      // the days the buckets count: [lo, hi), nil unbounded
	if f.StartMin != nil {
		interiorFrom = utcDay(a)
		if !a.Equal(interiorFrom) {
			// a's day, exactly: from a to the end of its day. When a is
			// the day's first second (a date-only start_date in a site
			// on UTC), the day is whole: its bucket counts it.
			interiorFrom = interiorFrom.AddDate(0, 0, 1)
			g := f
			g.StartsBefore = &interiorFrom
			if err := exact(g); err != nil {
				return 0, 0, true, err
			}
		}
		lo = &interiorFrom
	}
	if f.EndMax != nil {
		// dayB is the first day whose starts the buckets leave out.
		dayB := utcDay(b)
		if next := dayB.AddDate(0, 0, 1); b.Equal(next.Add(-time.Second)) {
			// b is its day's last second (stored times are whole
			// seconds): every start of its day is by b, so its bucket
			// counts them, and those that end after b are subtracted
			// with the days before.
			dayB = next
		} else {
			// b's day, exactly: from its start (or a) to b.
			g := f
			if f.StartMin == nil || a.Before(dayB) {
				g.StartMin = &dayB
			}
			if err := exact(g); err != nil {
				return 0, 0, true, err
			}
		}
		hi = &dayB
		// The days counted: less those that end after b. They started
		// at most the longest event before b.
		span, known, err := s.longestEventKept(ctx)
		if err == nil && !known {
			err = errors.New("models: longest event: no event_span row")
		}
		if err != nil {
			return 0, 0, true, err
		}
		from := b.Add(-time.Duration(span) * time.Second)
		if f.StartMin != nil && from.Before(interiorFrom) {
			from = interiorFrom
		}
		if from.Before(dayB) {
			g := f
			g.StartMin, g.EndMax, g.StartsBefore, g.EndsAfter = &from, nil, &dayB, &b
			// Each starts before dayB and ends after b, at dayB or
			// later: it crosses dayB's midnight.
			g.overnight = true
			if err := exactLess(g); err != nil {
				return 0, 0, true, err
			}
		}
	}
	var sums struct {
		Days   int64 `bun:"d"`
		Series int64 `bun:"s"`
	}
	q, args := bucketSums(cols, inSeries, where, args, lo, hi)
	if err := s.scan(ctx, &sums, q, args...); err != nil {
		return 0, 0, true, fmt.Errorf("models: count events by day: %w", mapErr(err))
	}
	return n + int(sums.Days), ns + int(sums.Series), true, nil
}

// bucketSums is the statement that sums cols (d, and s with inSeries)
// over the buckets of where whose day is in [lo, hi) (nil: unbounded), and
// its arguments: the whole months between from the month buckets
// (event_month_counts, kept from the day buckets by their triggers), the
// days of the partial months at either end from the day buckets. A window
// of two years reads about 24 month rows and at most 60 day rows, not 730.
func bucketSums(cols string, inSeries bool, where []string, args []any, lo, hi *time.Time) (string, []any) {
	type part struct {
		table, col string
		from, to   *time.Time
	}
	monthOf := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC) }
	var m1, m2 *time.Time // the whole months: [m1, m2)
	if lo != nil {
		m := monthOf(*lo)
		if m.Before(*lo) {
			m = m.AddDate(0, 1, 0)
		}
		m1 = &m
	}
	if hi != nil {
		m := monthOf(*hi)
		m2 = &m
	}
	var parts []part
	if m1 != nil && m2 != nil && !m1.Before(*m2) {
		parts = []part{{"event_day_counts", "day", lo, hi}} // no whole month
	} else {
		if lo != nil && lo.Before(*m1) {
			parts = append(parts, part{"event_day_counts", "day", lo, m1})
		}
		parts = append(parts, part{"event_month_counts", "month", m1, m2})
		if hi != nil && m2.Before(*hi) {
			parts = append(parts, part{"event_day_counts", "day", m2, hi})
		}
	}
	subs := make([]string, len(parts))
	var all []any
	for i, p := range parts {
		w, a := slices.Clone(where), slices.Clone(args)
		if p.from != nil {
			w, a = append(w, p.col+" >= ?"), append(a, p.from.Format(time.DateOnly))
		}
		if p.to != nil {
			w, a = append(w, p.col+" < ?"), append(a, p.to.Format(time.DateOnly))
		}
		subs[i] = "SELECT " + cols + " FROM " + p.table + " WHERE " + strings.Join(w, " AND ")
		all = append(all, a...)
	}
	if len(subs) == 1 {
		return subs[0], all
	}
	outer := "COALESCE(SUM(d), 0) AS d"
	if inSeries {
		outer += ", COALESCE(SUM(s), 0) AS s"
	}
	return "SELECT " + outer + " FROM (" + strings.Join(subs, " UNION ALL ") + ") t", all
}

// bucketScope is the conditions of the day buckets (event_day_counts) of
// the statuses given (nil: every status but trash), and of hidden events
// when included, with their arguments, written with placeholders.
func bucketScope(statuses []string, includeHidden bool) ([]string, []any) {
	return statusScope(statuses, includeHidden, "status", "hidden")
}

// statusScope is bucketScope's conditions on the columns status and
// hidden of another table.
func statusScope(statuses []string, includeHidden bool, status, hidden string) ([]string, []any) {
	var where []string
	var args []any
	switch {
	case statuses == nil:
		where, args = []string{status + " <> ?"}, []any{StatusTrash}
	case len(statuses) == 0:
		where = []string{"1 = 0"}
	default:
		in, inArgs := inStrings(statuses)
		where, args = []string{status + " IN (" + in + ")"}, inArgs
	}
	if !includeHidden {
		where, args = append(where, hidden+" = ?"), append(args, 0)
	}
	return where, args
}

// countWindowRows counts, on SQLite, the events of the statuses given
// (statusScope) in g's window, and how many belong to a series: the short
// ranges of rows of countDays (g is such a range, with no filter but its
// visibility, its window and one record per link filter: dayBuckets). An
// unfiltered range reads the events; a filtered one the link table of the
// filter that linkDriver picks, probing the other's links by event, as
// countByTerms does (ns is then 0: one row per series has no link
// filter). Written with placeholders and prepared (s.scan): countDays
// runs one to three of them on every windowed list, and parsing and
// planning each was a tenth of the CPU of the list of 50. The window's
// implied bounds are left out, as each range is bounded. ok is false when
// the links cannot count g (linkDriver: the visibility needs the author).
func (s *Store) countWindowRows(ctx context.Context, g EventFilter, statuses []string) (n, ns int, ok bool, err error) {
	table, cols, prefix, hidden := "events", "COUNT(*) AS n, COUNT(series_id) AS ns", "", "hide_from_listings"
	var c conds
	if len(g.linkFilters()) > 0 {
		d, others, ok, err := s.linkDriver(ctx, g)
		if !ok || err != nil {
			return 0, 0, ok, err
		}
		table, cols, prefix, hidden = d.table+" AS l", "COUNT(*) AS n, 0 AS ns", "l.", "l.hidden"
		in, inArgs := inList(d.ids)
		c.add("l."+d.col+" IN ("+in+")", inArgs...)
		if len(d.ids) > 1 {
			cols = "COUNT(DISTINCT l.event_id) AS n, 0 AS ns"
		}
		c.linkProbes(others, "l.event_id")
	}
	c.addAll(statusScope(statuses, g.IncludeHidden, prefix+"status", hidden))
	c.window(prefix, g)
	c.at(prefix+"start_at < ?", g.StartsBefore)
	c.at("+"+prefix+"end_at > ?", g.EndsAfter)
	if g.overnight && prefix == "" {
		c.add("substr(end_at, 1, 10) > substr(start_at, 1, 10)") // events_overnight_idx
	}
	var got struct {
		N  int64 `bun:"n"`
		NS int64 `bun:"ns"`
	}
	if err := s.scan(ctx, &got, "SELECT "+cols+" FROM "+table+" WHERE "+c.sql(), c.args...); err != nil {
		return 0, 0, true, fmt.Errorf("models: count events: %w", mapErr(err))
	}
	return int(got.N), int(got.NS), true, nil
}

// rowsOfWindow tells whether countWindowRows may count g, a range of
// countDays: SQLite, and no filter of g but its visibility, hidden events,
// links and window (what dayBuckets leaves, with the window's bounds that
// countDays sets).
func (s *Store) rowsOfWindow(g EventFilter) bool {
	return s.dialect == SQLite && g.ModifiedAfter == nil && g.ModifiedBefore == nil && !g.plainLinks &&
		g.StartsAfter == nil && g.EndsBefore == nil && !g.noImpliedBounds && len(g.Search) == 0
}

// countRowsAndSeries counts the events f selects (no term filter, no
// recurrence filter) and how many of them belong to a series, in one
// pass.
func (s *Store) countRowsAndSeries(ctx context.Context, f EventFilter) (int, int, error) {
	var n, ns int64
	q := s.db.NewSelect().Model((*Event)(nil)).ColumnExpr("COUNT(*)").ColumnExpr("COUNT(event.series_id)")
	s.applyEventFilter(q, f, true)
	if err := q.Scan(ctx, &n, &ns); err != nil {
		return 0, 0, fmt.Errorf("models: count events: %w", mapErr(err))
	}
	return int(n), int(ns), nil
}

// dayBucket is one row of event_day_counts.
type dayBucket struct {
	Dim    string `bun:"dim"`
	Ref    int64  `bun:"ref"`
	Status string `bun:"status"`
	Hidden bool   `bun:"hidden"`
	Day    string `bun:"day"`
	N      int64  `bun:"n"`
}

// dayBucketsTruthSQL counts the buckets from the events and their links
// (as the migration fills them): what RepairDayCounts restores.
func (s *Store) dayBucketsTruthSQL() string { return s.dayBucketsOf(nil) }

// dayBucketsOf counts the buckets of the events whose ids are in the range
// ids (nil: all), from them and their links. The range bounds each link
// table's own event column, so that its key reads only the range.
func (s *Store) dayBucketsOf(ids *[2]int64) string {
	day := "date(e.start_at)"
	if s.dialect == MySQL {
		day = "DATE_FORMAT(e.start_at, '%Y-%m-%d')"
	}
	in := func(col string) string {
		if ids == nil {
			return ""
		}
		return fmt.Sprintf(" AND %s BETWEEN %d AND %d", col, ids[0], ids[1])
	}
	q := "SELECT 'e' AS dim, 0 AS ref, e.status AS status, e.hide_from_listings AS hidden, " + day + " AS day, COUNT(*) AS n FROM events e" +
		" WHERE true" + in("e.id") + " GROUP BY e.status, e.hide_from_listings, " + day
	for _, l := range []struct{ dim, table, col string }{
		{dayDimCategory, "event_category_ancestors", "term_id"}, {dayDimTerm, "event_terms", "term_id"},
		{dayDimVenue, "event_venues", "venue_id"}, {dayDimOrganizer, "event_organizers", "organizer_id"},
	} {
		q += " UNION ALL SELECT '" + l.dim + "', l." + l.col + ", e.status, e.hide_from_listings, " + day + ", COUNT(*) FROM " + l.table +
			" l JOIN events e ON e.id = l.event_id WHERE true" + in("l.event_id") + " GROUP BY l." + l.col + ", e.status, e.hide_from_listings, " + day
	}
	q += " UNION ALL SELECT '" + dayDimPair + "', c.term_id * " + strconv.FormatInt(1<<dayPairBits, 10) + " + v.venue_id, e.status, e.hide_from_listings, " + day + ", COUNT(*) " +
		"FROM event_category_ancestors c JOIN event_venues v ON v.event_id = c.event_id JOIN events e ON e.id = c.event_id WHERE true" + in("c.event_id") +
		" GROUP BY c.term_id, v.venue_id, e.status, e.hide_from_listings, " + day
	return q + " UNION ALL SELECT '" + dayDimSeries + "', 0, e.status, e.hide_from_listings, " + day + ", COUNT(*) FROM events e " +
		"WHERE e.series_id IS NOT NULL" + in("e.id") + " GROUP BY e.status, e.hide_from_listings, " + day
}

// spanSQL is the longest event's length in seconds.
func (s *Store) spanSQL() string {
	if s.dialect == MySQL {
		return "SELECT COALESCE(MAX(TIMESTAMPDIFF(SECOND, start_at, end_at)), 0) FROM events"
	}
	return "SELECT COALESCE(MAX(unixepoch(end_at) - unixepoch(start_at)), 0) FROM events"
}

// RepairDayCounts compares the day buckets of the totals, the longest
// event's length, the series' spans and (SQLite) steps with a count from
// the events and their links, rewrites them when they differ, and returns
// how many were wrong (a length shorter than the longest event counts as
// one, a span narrower than its series' events one each, a step one row
// each; a longer length or a wider span is shrunk without counting: it
// only widened a range). The triggers keep them; this repairs changes
// made behind the store's back (kalends recount).
func (s *Store) RepairDayCounts(ctx context.Context) (int, error) {
	var wrong int
	err := s.RunInTx(ctx, func(tx *Store) error {
		day := "day"
		if tx.dialect == MySQL {
			day = "DATE_FORMAT(day, '%Y-%m-%d')"
		}
		daysWrong, err := tx.bucketsWrong(ctx, tx.dayBucketsTruthSQL(),
			"SELECT dim, ref, status, hidden, "+day+" AS day, n FROM event_day_counts WHERE n <> 0", "day")
		if err != nil {
			return err
		}
		wrong += daysWrong
		var span, kept int64
		if err := tx.db.NewRaw(tx.spanSQL()).Scan(ctx, &span); err != nil {
			return fmt.Errorf("models: longest event: %w", mapErr(err))
		}
		if err := tx.db.NewRaw("SELECT secs FROM event_span WHERE id = 1").Scan(ctx, &kept); err != nil {
			return fmt.Errorf("models: longest event kept: %w", mapErr(err))
		}
		if kept < span {
			wrong++
		}
		if kept != span {
			if _, err := tx.db.ExecContext(ctx, "UPDATE event_span SET secs = ? WHERE id = 1", span); err != nil {
				return fmt.Errorf("models: longest event: %w", mapErr(err))
			}
		}
		spansWrong, err := tx.repairSeriesSpans(ctx)
		if err != nil {
			return err
		}
		stepsWrong, err := tx.repairSeriesSteps(ctx)
		if err != nil {
			return err
		}
		if wrong > 0 {
			// The month buckets follow, through their triggers.
			if err := tx.rewriteDerived(ctx, "event_day_counts", "dim, ref, status, hidden, day, n",
				"SELECT * FROM ("+tx.dayBucketsTruthSQL()+") t", "day buckets"); err != nil {
				return err
			}
		}
		monthsWrong, err := tx.repairMonthCounts(ctx)
		wrong += spansWrong + stepsWrong + monthsWrong
		return err
	})
	return wrong, err
}

// repairMonthCounts compares the month buckets (event_month_counts) with
// the sums of the day buckets of each month, rewrites them when they
// differ, and returns how many were wrong.
func (s *Store) repairMonthCounts(ctx context.Context) (int, error) {
	month, read := "substr(day, 1, 8) || '01'", "month"
	if s.dialect == MySQL {
		month, read = "DATE_FORMAT(day, '%Y-%m-01')", "DATE_FORMAT(month, '%Y-%m-%d')"
	}
	truthSQL := "SELECT dim, ref, status, hidden, " + month + " AS month, SUM(n) AS n FROM event_day_counts GROUP BY dim, ref, status, hidden, " + month
	wrong, err := s.bucketsWrong(ctx, "SELECT dim, ref, status, hidden, month AS day, n FROM ("+truthSQL+") t WHERE n <> 0",
		"SELECT dim, ref, status, hidden, "+read+" AS day, n FROM event_month_counts WHERE n <> 0", "month")
	if err != nil || wrong == 0 {
		return 0, err
	}
	return wrong, s.rewriteDerived(ctx, "event_month_counts", "dim, ref, status, hidden, month, n", truthSQL, "month buckets")
}

// bucketsWrong reads the buckets a count gives (truthSQL) and those kept
// (storedSQL), each as dayBucket rows, and counts those that differ
// (bucketsDiffer); what names the buckets in errors ("day", "month").
func (s *Store) bucketsWrong(ctx context.Context, truthSQL, storedSQL, what string) (int, error) {
	var truth, stored []dayBucket
	if err := s.db.NewRaw(truthSQL).Scan(ctx, &truth); err != nil {
		return 0, fmt.Errorf("models: count %s buckets: %w", what, mapErr(err))
	}
	if err := s.db.NewRaw(storedSQL).Scan(ctx, &stored); err != nil {
		return 0, fmt.Errorf("models: read %s buckets: %w", what, mapErr(err))
	}
	return bucketsDiffer(truth, stored), nil
}

// rewriteDerived replaces every row of a derived table (buckets, spans)
// with what sel counts from the data (the columns cols, in order); what
// names it in errors.
func (s *Store) rewriteDerived(ctx context.Context, table, cols, sel, what string) error {
	if _, err := s.db.ExecContext(ctx, "DELETE FROM "+table); err != nil {
		return fmt.Errorf("models: repair %s: %w", what, mapErr(err))
	}
	if _, err := s.db.ExecContext(ctx, "INSERT INTO "+table+" ("+cols+") "+sel); err != nil {
		return fmt.Errorf("models: repair %s: %w", what, mapErr(err))
	}
	return nil
}

// bucketsDiffer counts the buckets of stored that are not as in truth, and
// those of truth missing from stored (zero buckets are left out of both).
func bucketsDiffer(truth, stored []dayBucket) int {
	key := func(b dayBucket) dayBucket { b.N = 0; return b }
	want := make(map[dayBucket]int64, len(truth))
	for _, b := range truth {
		want[key(b)] = b.N
	}
	wrong := 0
	for _, b := range stored {
		if w, ok := want[key(b)]; !ok || w != b.N {
			wrong++
		}
		delete(want, key(b))
	}
	return wrong + len(want) // and the missing
}

// seriesSpansTruthSQL is each series' first and last start, from its
// events.
const seriesSpansTruthSQL = "SELECT series_id, MIN(start_at) AS first_at, MAX(start_at) AS last_at FROM events WHERE series_id IS NOT NULL GROUP BY series_id"

// repairSeriesSpans compares the series' spans (series_spans) with their
// events, rewrites them when they differ, and returns how many were wrong:
// missing, or narrower than their series' events (a wider one, or one
// whose series is gone, is rewritten without counting: it only cost a
// probe).
func (s *Store) repairSeriesSpans(ctx context.Context) (wrong int, err error) {
	var narrow, differ int
	if err := s.db.NewRaw("SELECT COUNT(*) FROM ("+seriesSpansTruthSQL+") t LEFT JOIN series_spans sp ON sp.series_id = t.series_id "+
		"WHERE sp.series_id IS NULL OR sp.first_at > t.first_at OR sp.last_at < t.last_at").Scan(ctx, &narrow); err != nil {
		return 0, fmt.Errorf("models: check series spans: %w", mapErr(err))
	}
	if err := s.db.NewRaw("SELECT COUNT(*) FROM series_spans sp LEFT JOIN ("+seriesSpansTruthSQL+") t ON t.series_id = sp.series_id "+
		"WHERE t.series_id IS NULL OR sp.first_at <> t.first_at OR sp.last_at <> t.last_at").Scan(ctx, &differ); err != nil {
		return 0, fmt.Errorf("models: check series spans: %w", mapErr(err))
	}
	if narrow+differ == 0 {
		return 0, nil
	}
	return narrow, s.rewriteDerived(ctx, "series_spans", "series_id, first_at, last_at", seriesSpansTruthSQL, "series spans")
}

// seriesStepsTruthSQL is the steps of every series (series_steps) as its
// events give them, in the table's column order.
const seriesStepsTruthSQL = "SELECT id, series_id, unixepoch(start_at), unixepoch(end_at), status, hide_from_listings, " +
	"LAG(unixepoch(start_at)) OVER (PARTITION BY series_id ORDER BY start_at, id) FROM events WHERE series_id IS NOT NULL"

// repairSeriesSteps compares the steps of the series (series_steps, on
// SQLite) with their events, rewrites them when they differ, and returns
// how many were wrong: an event's step missing or not as its series gives
// it, or a step kept of an event that is in no series.
func (s *Store) repairSeriesSteps(ctx context.Context) (int, error) {
	if s.dialect != SQLite {
		return 0, nil
	}
	const cols = "event_id, series_id, start_at, end_at, status, hidden, prev_at"
	var wrong int
	if err := s.db.NewRaw("SELECT (SELECT COUNT(*) FROM ("+seriesStepsTruthSQL+" EXCEPT SELECT "+cols+" FROM series_steps)) + "+
		"(SELECT COUNT(*) FROM series_steps WHERE event_id NOT IN (SELECT id FROM events WHERE series_id IS NOT NULL))").Scan(ctx, &wrong); err != nil {
		return 0, fmt.Errorf("models: check series steps: %w", mapErr(err))
	}
	if wrong == 0 {
		return 0, nil
	}
	return wrong, s.rewriteDerived(ctx, "series_steps", cols, seriesStepsTruthSQL, "series steps")
}

// longestEventKept reads event_span: the longest event kept, in seconds,
// which triggers only grow (kalends recount shrinks it). known is false
// when the row is missing or holds no length.
func (s *Store) longestEventKept(ctx context.Context) (secs int64, known bool, err error) {
	var rows []int64
	if err := s.scan(ctx, &rows, "SELECT secs FROM event_span WHERE id = 1"); err != nil {
		return 0, false, fmt.Errorf("models: longest event: %w", mapErr(err))
	}
	if len(rows) == 1 && rows[0] >= 0 {
		return rows[0], true, nil
	}
	return 0, false, nil
}
