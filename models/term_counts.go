package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Term counts. terms.event_count is the number of published events linked
// to the term (a term's "count" on the wire), a series counting once. Reads take it as stored; every
// write that can change it adjusts it in the same transaction, from what
// the event was before and after the write (termCounts). Counting links on
// every read was 92% of the time of a realistic event list.
//
// The writes that change counts: an event created, updated (its status or
// its categories and tags), trashed or deleted. Any new writer of an
// event's status or of event_terms must call termCounts too; RecountTerms
// (kalends recount) repairs counts from the links.

// termCounts is what an event contributes to the counts of its terms: +1
// to each while it is published.
type termCounts struct {
	published bool
	terms     []int64
}

// eventTermCounts reads the contribution of event id, whose status is
// status, to its terms' counts (one query).
func (s *Store) eventTermCounts(ctx context.Context, id int64, status string) (termCounts, error) {
	var ids []int64
	// An occurrence of a series other than the series row counts in no
	// term: a series counts once.
	err := s.scan(ctx, &ids, "SELECT et.term_id FROM event_terms et JOIN events e ON e.id = et.event_id "+
		"WHERE et.event_id = ? AND (e.series_id IS NULL OR e.series_id = e.id)", id)
	if err != nil {
		return termCounts{}, fmt.Errorf("models: terms of event %d: %w", id, mapErr(err))
	}
	return termCounts{published: status == StatusPublish, terms: ids}, nil
}

// adjustTermCounts moves the counts from an event's contribution before a
// write to its contribution after it, in one statement whatever the number
// of terms (rows updated in id order, so concurrent writers cannot
// deadlock on them). Increments commute: concurrent writers on the same
// terms end with the exact count.
func (s *Store) adjustTermCounts(ctx context.Context, before, after termCounts) error {
	delta := map[int64]int{}
	if before.published {
		for _, t := range before.terms {
			delta[t]--
		}
	}
	if after.published {
		for _, t := range after.terms {
			delta[t]++
		}
	}
	ids := make([]int64, 0, len(delta))
	for t, d := range delta {
		if d != 0 {
			ids = append(ids, t)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	var cases strings.Builder
	args := make([]any, 0, 2*len(ids)+1)
	for _, t := range ids {
		cases.WriteString(" WHEN ? THEN ?")
		args = append(args, t, delta[t])
	}
	in, inArgs := inList(ids)
	q := "UPDATE terms SET event_count = event_count + CASE id" + cases.String() + " ELSE 0 END WHERE id IN (" + in + ")"
	if err := s.exec(ctx, q, append(args, inArgs...)...); err != nil {
		return fmt.Errorf("models: adjust term counts: %w", mapErr(err))
	}
	return nil
}

// termCountSQL counts the published events of every term from the links
// (a series once), in one pass over them, as c(term_id, cnt): the truth
// that RecountTerms restores. (A count per term in a correlated subquery,
// evaluated twice, was 15% of seeding a calendar.)
const termCountSQL = `(SELECT et.term_id, COUNT(*) AS cnt FROM event_terms et JOIN events e ON e.id = et.event_id
	WHERE e.status = 'publish' AND (e.series_id IS NULL OR e.series_id = e.id) GROUP BY et.term_id) c`

// RecountTerms recomputes the count of every term from the links, in one
// transaction, and returns how many counts were wrong. Counts are kept by
// every write, so this only repairs what was changed behind the store's
// back (kalends recount).
func (s *Store) RecountTerms(ctx context.Context) (int, error) {
	var changed int
	err := s.RunInTx(ctx, func(tx *Store) error {
		var wrong []struct {
			ID    int64 `bun:"id"`
			Count int64 `bun:"cnt"`
		}
		err := tx.db.NewRaw("SELECT tm.id, COALESCE(c.cnt, 0) AS cnt FROM terms tm LEFT JOIN "+termCountSQL+
			" ON c.term_id = tm.id WHERE tm.event_count <> COALESCE(c.cnt, 0)").
			Scan(ctx, &wrong)
		if err != nil {
			return fmt.Errorf("models: recount terms: %w", mapErr(err))
		}
		for _, w := range wrong {
			if _, err := tx.db.NewUpdate().TableExpr("terms").Set("event_count = ?", w.Count).Where("id = ?", w.ID).Exec(ctx); err != nil {
				return fmt.Errorf("models: recount term %d: %w", w.ID, mapErr(err))
			}
		}
		changed = len(wrong)
		return nil
	})
	return changed, err
}
