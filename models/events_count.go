package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Counting a list filtered by a category or tag. The total of such a list
// (X-WP-Total) once probed the links of every event in its date window: at
// 100,000 events a two-month window of a category with three subcategories
// took tens of milliseconds, most of a request. Each event_terms row, and
// each row of the categories an event is filed under
// (event_category_ancestors, event_categories.go), keeps a copy of its
// event's status, start, end and hide_from_listings, so the count reads one
// index range per tag, or per category asked, instead.
//
// The copies are kept in the transaction of every write that changes an
// event or its terms: create and update (which restores too) write them
// from the event in hand (copyEventToTerms, only when something they copy
// changed); trash and scheduled publishing re-read them (syncEventTerms).
// Deletes cascade. Any new writer of events must call it too;
// RepairEventTermCopies and RepairEventCategories (kalends recount) repair
// copies changed outside Kalends.

// eventCopyTables are the tables whose rows keep a copy of their event's
// status, start, end and hidden flag: the category and tag links, and the
// categories each event is filed under (event_categories.go).
var eventCopyTables = []string{"event_terms", "event_category_ancestors"}

// eventCopySQL is the SET clause that copies an event's fields onto the
// rows of table (one of eventCopyTables), as correlated subqueries both
// dialects run.
func eventCopySQL(table string) string {
	return `status = (SELECT e.status FROM events e WHERE e.id = ` + table + `.event_id),
	start_at = (SELECT e.start_at FROM events e WHERE e.id = ` + table + `.event_id),
	end_at = (SELECT e.end_at FROM events e WHERE e.id = ` + table + `.event_id),
	hidden = (SELECT e.hide_from_listings FROM events e WHERE e.id = ` + table + `.event_id)`
}

// copyEventFields copies the status, start, end and hidden flag of the
// events that cond (on alias e of events) selects onto their rows of
// table (one of eventCopyTables). MySQL gets a join: MariaDB ran the
// correlated subqueries of eventCopySQL over every row of the table (48 ms
// of a series edit at 10,000 events).
func (s *Store) copyEventFields(ctx context.Context, table, cond string, args ...any) error {
	q := "UPDATE " + table + " SET " + eventCopySQL(table) + " WHERE event_id IN (SELECT e.id FROM events e WHERE " + cond + ")"
	if s.dialect == MySQL {
		q = "UPDATE " + table + " x JOIN events e ON e.id = x.event_id SET x.status = e.status, x.start_at = e.start_at, " +
			"x.end_at = e.end_at, x.hidden = e.hide_from_listings WHERE " + cond
	}
	_, err := s.db.ExecContext(ctx, q, args...)
	return err
}

// syncEventTerms copies event id's status, start, end and hidden flag onto
// its category and tag links and its category ancestry (a statement each).
func (s *Store) syncEventTerms(ctx context.Context, id int64) error {
	for _, t := range eventCopyTables {
		if err := s.copyEventFields(ctx, t, "e.id = ?", id); err != nil {
			return fmt.Errorf("models: copy event %d onto its terms: %w", id, mapErr(err))
		}
	}
	return nil
}

// copyEventToTerms writes e's status, start, end and hidden flag onto its
// links and its category ancestry from the values in hand (cheaper than
// syncEventTerms' subqueries). refiled says the write has just filed the
// event under its categories (fileEvents), from the event as written: the
// ancestry's copy is current.
func (s *Store) copyEventToTerms(ctx context.Context, e *Event, refiled bool) error {
	for _, t := range eventCopyTables {
		if refiled && t == "event_category_ancestors" {
			continue
		}
		err := s.exec(ctx, "UPDATE "+t+" SET status = ?, start_at = ?, end_at = ?, hidden = ? WHERE event_id = ?",
			e.Status, Sec(e.StartAt), Sec(e.EndAt), e.HideFromListings, e.ID)
		if err != nil {
			return fmt.Errorf("models: copy event %d onto its terms: %w", e.ID, mapErr(err))
		}
	}
	return nil
}

// RepairEventTermCopies repairs every category, tag, venue and organizer
// link whose copy of its event's fields differs from the event (kalends
// recount) and returns how many it changed.
func (s *Store) RepairEventTermCopies(ctx context.Context) (int, error) {
	total := 0
	for _, t := range []string{"event_terms", "event_venues", "event_organizers"} {
		res, err := s.db.ExecContext(ctx, "UPDATE "+t+" SET "+eventCopySQL(t)+` WHERE EXISTS (SELECT 1 FROM events e
		WHERE e.id = `+t+`.event_id AND (e.status <> `+t+`.status OR e.hide_from_listings <> `+t+`.hidden
		OR `+t+`.start_at IS NULL OR `+t+`.end_at IS NULL
		OR e.start_at <> `+t+`.start_at OR e.end_at <> `+t+`.end_at))`)
		if err != nil {
			return 0, fmt.Errorf("models: copy events onto their links (%s): %w", t, mapErr(err))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		total += int(n)
	}
	return total, nil
}

// linkFilter is one kind of link a list filters by: the link table, its
// column of the linked record, the dimension of its day buckets, and the
// records asked (any of them).
type linkFilter struct {
	table, col, dim string
	ids             []int64
}

// linkFilters are f's link filters that hold records: categories (the
// events filed under them), tags, venues, organizers. Every link table
// keeps a copy of its event's status, start, end and hidden flag, with a
// window index (table_window_idx: record, status, hidden, start, end,
// event).
func (f EventFilter) linkFilters() []linkFilter {
	var out []linkFilter
	for _, l := range []linkFilter{
		{"event_category_ancestors", "term_id", dayDimCategory, f.categoryIDs},
		{"event_terms", "term_id", dayDimTerm, f.tagIDs},
		{"event_venues", "venue_id", dayDimVenue, f.VenueIDs},
		{"event_organizers", "organizer_id", dayDimOrganizer, f.OrganizerIDs},
	} {
		if len(l.ids) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// linkDrive is the choice of linkDriver, kept in the filter so that the
// page and the count of one list make it once.
type linkDrive struct {
	d      linkFilter
	others []linkFilter
}

// without is f without the link filter of table (its records left out).
func (f EventFilter) without(table string) EventFilter {
	switch table {
	case "event_category_ancestors":
		f.categoryIDs = nil
	case "event_terms":
		f.tagIDs = nil
	case "event_venues":
		f.VenueIDs = nil
	case "event_organizers":
		f.OrganizerIDs = nil
	}
	return f
}

// linkStatusList is the statuses f's visibility reads on the copies of a
// link table: ok is false when it needs the author (per-owner visibility,
// or a status filter of a caller who sees others' records only when
// published).
func linkStatusList(f EventFilter) (statuses []string, ok bool) {
	switch v := f.visibility; {
	case len(f.Statuses) > 0 && v.AllButTrash:
		return f.Statuses, true
	case len(f.Statuses) > 0, v.OwnerID != 0 && !v.AllButTrash:
		return nil, false
	case v.AllButTrash:
		return notTrashed, true
	}
	return []string{StatusPublish}, true
}

// linkStatuses is the status condition of f's visibility on the copies of
// a link table (alias l): ok is false when it needs the author
// (linkStatusList).
func linkStatuses(q *bun.SelectQuery, alias string, f EventFilter) bool {
	statuses, ok := linkStatusList(f)
	switch {
	case !ok:
		return false
	case len(f.Statuses) == 0 && !f.visibility.AllButTrash:
		q.Where(alias+".status = ?", StatusPublish)
	default:
		q.Where(alias+".status IN (?)", bun.List(statuses))
	}
	return true
}

// linkDriver picks, among f's link filters, the one whose events are
// read first (a count or a page reads its window index and probes the
// others): the only one, or, of several kinds, the one with the fewest
// events in f's window by the day buckets (an estimate: the days of the
// window, whole). ok is false when f has no link filter or its visibility
// needs the author.
func (s *Store) linkDriver(ctx context.Context, f EventFilter) (d linkFilter, others []linkFilter, ok bool, err error) {
	if f.drive != nil {
		return f.drive.d, f.drive.others, true, nil
	}
	links := f.linkFilters()
	statuses, ok := linkStatusList(f)
	if len(links) == 0 || !ok {
		return d, nil, false, nil
	}
	best := 0
	if len(links) > 1 {
		if best, err = s.fewestLinked(ctx, f, links, statuses); err != nil {
			return d, nil, true, err
		}
	}
	for i, l := range links {
		if i != best {
			others = append(others, l)
		}
	}
	return links[best], others, true, nil
}

// fewestLinked is the index of the link filter of links with the fewest
// events in f's window by the day buckets: one range of the buckets' key
// per link filter, summed apart, written with placeholders and prepared
// (s.scan), as every list filtered by two kinds of link reads it. The
// choice is kept under the generation (f.lists): it only makes the list
// faster or slower, never different.
func (s *Store) fewestLinked(ctx context.Context, f EventFilter, links []linkFilter, statuses []string) (int, error) {
	cols := make([]string, len(links))
	var args []any
	for i, l := range links {
		ids, idArgs := inList(l.ids)
		where, scopeArgs := bucketScope(statuses, f.IncludeHidden)
		where = append([]string{"dim = ?", "ref IN (" + ids + ")"}, where...)
		args = append(append(append(args, l.dim), idArgs...), scopeArgs...)
		if f.StartMin != nil {
			where, args = append(where, "day >= ?"), append(args, utcDay(Sec(*f.StartMin)).Format(time.DateOnly))
		}
		if f.EndMax != nil {
			where, args = append(where, "day <= ?"), append(args, utcDay(Sec(*f.EndMax)).Format(time.DateOnly))
		}
		cols[i] = "SELECT " + strconv.Itoa(i) + " AS i, COALESCE(SUM(n), 0) AS n FROM event_day_counts WHERE " + strings.Join(where, " AND ")
	}
	query := strings.Join(cols, " UNION ALL ")
	best, err := keptOr(f.lists, driverKey(query, args), 8, func() ([]int64, error) {
		var sums []struct {
			I int   `bun:"i"`
			N int64 `bun:"n"`
		}
		if err := s.scan(ctx, &sums, query, args...); err != nil {
			return nil, fmt.Errorf("models: estimate link filters: %w", mapErr(err))
		}
		n := make([]int64, len(links))
		for _, sum := range sums {
			if sum.I < 0 || sum.I >= len(n) {
				return nil, fmt.Errorf("models: estimate link filters: sum %d of %d", sum.I, len(n))
			}
			n[sum.I] = sum.N
		}
		best := 0
		for i := range links {
			if n[i] < n[best] {
				best = i
			}
		}
		return []int64{int64(best)}, nil
	})
	if err != nil {
		return 0, err
	}
	return int(best[0]), nil
}

// countByTerms counts the events f selects from the links of one of its
// link filters (categories, tags, venues, organizers; linkDriver picks
// which), when the caller's visibility depends on status alone and f has
// no filter that needs to read the events rows (search, geography,
// include, parent). The other link filters are probed per link by the
// event id, and featured in the event. ok is false when it cannot (the
// caller then counts from the events table).
func (s *Store) countByTerms(ctx context.Context, f EventFilter) (n int, ok bool, err error) {
	if f.plainLinks || len(f.Search) > 0 || f.ModifiedAfter != nil || f.ModifiedBefore != nil || f.Geoloc != nil || f.Near != nil || len(f.Include) > 0 ||
		f.ParentID != nil || f.Recurrence == RecurrenceSeries || f.Recurrence == RecurrenceFirst {
		return 0, false, nil
	}
	d, others, ok, err := s.linkDriver(ctx, f)
	if !ok || err != nil {
		return 0, ok, err
	}
	q := s.db.NewSelect().TableExpr(d.table+" AS l").Where("l."+d.col+" IN (?)", bun.List(d.ids))
	for _, o := range others {
		q.Where("EXISTS (SELECT 1 FROM "+o.table+" p WHERE p.event_id = l.event_id AND p."+o.col+" IN (?))", bun.List(o.ids))
	}
	if f.Featured != nil {
		q.Where("EXISTS (SELECT 1 FROM events p WHERE p.id = l.event_id AND p.featured = ?)", *f.Featured)
	}
	linkStatuses(q, "l", f)
	if !f.IncludeHidden {
		q.Where("l.hidden = ?", false)
	}
	windowConds(q, "l", s.db.Dialect().Name() == dialect.SQLite, f)
	// An event has one row per record linked, so one record needs no
	// DISTINCT.
	expr := "COUNT(*)"
	if len(d.ids) > 1 {
		expr = "COUNT(DISTINCT l.event_id)"
	}
	if err := q.ColumnExpr(expr).Scan(ctx, &n); err != nil {
		return 0, true, fmt.Errorf("models: count events by links: %w", mapErr(err))
	}
	return n, true, nil
}

// windowConds adds f's start/end bounds on the start_at and end_at columns
// of alias. On SQLite end_at is only a residual filter read from the index
// entries; a unary + drops the column's NUMERIC affinity, so each row is
// compared as the text it is stored as instead of first being tried as a
// number (same result: stored times are never numeric).
func windowConds(q *bun.SelectQuery, alias string, sqlite bool, f EventFilter) {
	start, end := alias+".start_at", alias+".end_at"
	if sqlite {
		end = "+" + end
	}
	bound := func(cond string, t *time.Time) {
		if t != nil {
			q.Where(cond, Sec(*t))
		}
	}
	bound(start+" >= ?", f.StartMin)
	bound(end+" <= ?", f.EndMax)
	bound(start+" < ?", f.StartsBefore)
	bound(start+" > ?", f.StartsAfter)
	bound(end+" < ?", f.EndsBefore)
	bound(end+" > ?", f.EndsAfter)
	// Every write keeps start_at <= end_at (applyEventFields), so an upper
	// bound on the end bounds the start too. Said explicitly, it closes the
	// start_at range of the index scan: the count then reads only the
	// window's entries instead of every entry from the window start to the
	// last event.
	if f.noImpliedBounds {
		return
	}
	if f.overnight && sqlite && alias == "event" {
		// Implied by the window (countDays): it lets SQLite read the
		// partial index of such events, a fraction of the window's.
		q.Where("substr(event.end_at, 1, 10) > substr(event.start_at, 1, 10)")
	}
	bound(start+" <= ?", f.EndMax)
	bound(start+" < ?", f.EndsBefore)
	// Likewise an event that ends after t started at most the longest
	// event kept (event_span, which triggers only grow) before t: without
	// this bound, the upcoming events (ends after now) are found by reading
	// every past entry of the start index first. A missing span row gives
	// no bound rather than a wrong one.
	if f.EndsAfter != nil {
		if sqlite {
			q.Where(start+" >= COALESCE(datetime(?, '-' || (SELECT secs FROM event_span WHERE id = 1) || ' seconds'), '')", Sec(*f.EndsAfter))
		} else {
			q.Where(start+" >= COALESCE(? - INTERVAL (SELECT secs FROM event_span WHERE id = 1) SECOND, '1000-01-01')", Sec(*f.EndsAfter))
		}
	}
}
