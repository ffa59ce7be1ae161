package models

import (
	"context"
	"fmt"
)

// Filing events under the ancestors of their categories. A category filter
// stands for the category's subcategories too, as in WordPress, so a list
// of "music" matched the links of music, film, learning and outdoors, and
// its total (X-WP-Total) was a COUNT(DISTINCT) over them: an event filed
// under two of them is one event. At 100,000 events that count built a
// temporary b-tree of some 6,000 events on every such request, a sixth of
// the CPU of the lists rotating over windows and filters.
//
// event_category_ancestors holds, for each event, every category it is
// filed under (those it is linked to and all their ancestors), once, with
// the same copy of the event's status, start, end and hidden flag as its
// links (events_count.go). A category filter reads it by the category's own
// id, and its count is a plain COUNT(*) over one index range.
//
// It is derived from event_terms, events and the category tree, and kept
// in the transaction of every write that changes one of them:
//   - an event's categories (writeEventTerms, copySeriesLinks, a revision
//     restored) refile the event (fileEvents);
//   - its status, dates or hidden flag update the copies as on the links
//     (syncEventTerms, copyEventToTerms, copySeriesToTerms);
//   - a category moved in the tree or deleted refiles the events filed
//     under it (UpdateTerm, DeleteTerm);
//   - bulk writers (seed, a site loaded from an export) refile everything.
//
// Deleting an event or a category cascades. RepairEventCategories (kalends
// recount) refiles the events whose rows differ from what they should be.

// climbCategories is the recursive step of the common table expression
// "up(term_id, ancestor_id)": from each category to its parent.
const climbCategories = `SELECT up.term_id, p.id FROM up JOIN terms t ON t.id = up.ancestor_id
	JOIN terms p ON p.id = t.parent_id AND p.taxonomy = 'category'`

// categoryAncestorsCTE is "up" for every category: each with itself and
// each of its ancestors.
const categoryAncestorsCTE = "WITH RECURSIVE up(term_id, ancestor_id) AS (SELECT id, id FROM terms WHERE taxonomy = 'category' UNION " +
	climbCategories + ") "

// fileRows is the rows of event_category_ancestors from the links and "up".
const fileRows = `SELECT DISTINCT et.event_id, up.ancestor_id, e.status, e.hide_from_listings, e.start_at, e.end_at
	FROM event_terms et JOIN up ON up.term_id = et.term_id JOIN events e ON e.id = et.event_id`

const insertFiling = "INSERT INTO event_category_ancestors (event_id, term_id, status, hidden, start_at, end_at) "

// fileAllSQL inserts the rows of every event.
const fileAllSQL = insertFiling + categoryAncestorsCTE + fileRows

// fileSomeSQL inserts the rows of the events its IN list (%[1]s, twice)
// names, climbing the tree from their categories only.
const fileSomeSQL = insertFiling + `WITH RECURSIVE up(term_id, ancestor_id) AS (
	SELECT DISTINCT t.id, t.id FROM event_terms et JOIN terms t ON t.id = et.term_id
	WHERE t.taxonomy = 'category' AND et.event_id IN (%[1]s) UNION ` + climbCategories + `) ` +
	fileRows + ` WHERE et.event_id IN (%[1]s)`

// fileEvents rewrites the category ancestry of events ids from their links
// and the category tree, 500 events a statement (prepared, see exec). The
// events' rows must be written first: their status, dates and hidden flag
// are copied.
func (s *Store) fileEvents(ctx context.Context, ids []int64) error {
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		in, args := inList(chunk)
		if err := s.exec(ctx, "DELETE FROM event_category_ancestors WHERE event_id IN ("+in+")", args...); err != nil {
			return fmt.Errorf("models: file events under their categories: %w", mapErr(err))
		}
		if err := s.exec(ctx, fmt.Sprintf(fileSomeSQL, in), repeatArgs(args, 2)...); err != nil {
			return fmt.Errorf("models: file events under their categories: %w", mapErr(err))
		}
	}
	return nil
}

// eventsFiledUnder returns the events filed under category id (linked to it
// or to one of its subcategories).
func (s *Store) eventsFiledUnder(ctx context.Context, id int64) ([]int64, error) {
	var ids []int64
	if err := s.db.NewRaw("SELECT event_id FROM event_category_ancestors WHERE term_id = ?", id).Scan(ctx, &ids); err != nil {
		return nil, fmt.Errorf("models: events under category %d: %w", id, mapErr(err))
	}
	return ids, nil
}

// fileEventRange files the events with ids in [lo, hi] that have none
// filed yet under their categories (a batch of new events written in
// bulk: seed): one statement per batch, however large the calendar.
func (s *Store) fileEventRange(ctx context.Context, lo, hi int64) error {
	if _, err := s.db.ExecContext(ctx, fileAllSQL+" WHERE et.event_id BETWEEN ? AND ?", lo, hi); err != nil {
		return fmt.Errorf("models: file events under their categories: %w", mapErr(err))
	}
	return nil
}

// fileAllEvents rewrites the category ancestry of every event, in one
// transaction (after a bulk write of links: seed, a site load).
func (s *Store) fileAllEvents(ctx context.Context) error {
	return s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.db.ExecContext(ctx, "DELETE FROM event_category_ancestors"); err != nil {
			return fmt.Errorf("models: file events under their categories: %w", mapErr(err))
		}
		if _, err := tx.db.ExecContext(ctx, fileAllSQL); err != nil {
			return fmt.Errorf("models: file events under their categories: %w", mapErr(err))
		}
		return nil
	})
}

// RepairEventCategories refiles, in one transaction, every event whose
// category ancestry differs from its links, the category tree and its own
// fields, and returns how many it refiled. The ancestry is kept by every
// write; this repairs changes made behind the store's back (kalends
// recount).
func (s *Store) RepairEventCategories(ctx context.Context) (int, error) {
	var n int
	err := s.RunInTx(ctx, func(tx *Store) error {
		var ids []int64
		// Rows missing or with a stale copy, then rows that should not be.
		err := tx.db.NewRaw(categoryAncestorsCTE+`SELECT DISTINCT et.event_id FROM event_terms et
			JOIN up ON up.term_id = et.term_id JOIN events e ON e.id = et.event_id
			WHERE NOT EXISTS (SELECT 1 FROM event_category_ancestors x WHERE x.event_id = et.event_id AND x.term_id = up.ancestor_id
				AND x.status = e.status AND x.hidden = e.hide_from_listings AND x.start_at = e.start_at AND x.end_at = e.end_at)
			UNION
			SELECT x.event_id FROM event_category_ancestors x WHERE NOT EXISTS (SELECT 1 FROM event_terms et
				JOIN up ON up.term_id = et.term_id WHERE et.event_id = x.event_id AND up.ancestor_id = x.term_id)`).Scan(ctx, &ids)
		if err != nil {
			return fmt.Errorf("models: check events under their categories: %w", mapErr(err))
		}
		n = len(ids)
		return tx.fileEvents(ctx, ids)
	})
	return n, err
}
