package models

import (
	"context"
	"fmt"
	"strconv"
)

// seedBulkTables are the tables a seed batch fills: on SQLite their
// triggers are set aside while it does (writeWithoutTriggers).
var seedBulkTables = []string{"events", "event_translations", "event_terms", "event_venues", "event_organizers", "event_category_ancestors"}

// writeWithoutTriggers runs write, which inserts the events lo..hi (the
// ids it returns; none of them in a series yet) with their links (with
// their copies of the event) and translations and nothing else, with the
// triggers of seedBulkTables dropped. It then writes, one statement a
// kind, what those triggers would have written row by row (day buckets and
// through theirs the month buckets, the longest event, search marks, the
// change feed, the cache generation), and creates the triggers again from
// the SQL SQLite kept of them, in their order. All of it is one
// transaction, and SQLite's schema changes are transactional: no other
// connection sees the tables without their triggers, and a seed that fails
// or is killed leaves them as they were. A 20,000-event seed took 32 s
// through the triggers; their per-row upserts (a dozen day buckets and as
// many month buckets per event) were three quarters of it.
func (s *Store) writeWithoutTriggers(ctx context.Context, write func() (lo, hi int64, err error)) error {
	type trigger struct{ Name, SQL string }
	var triggers []trigger
	in, args := inStrings(seedBulkTables)
	if err := s.db.NewRaw("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ("+in+") ORDER BY rowid", args...).Scan(ctx, &triggers); err != nil {
		return fmt.Errorf("models: seed: read triggers: %w", mapErr(err))
	}
	for _, t := range triggers {
		if _, err := s.db.ExecContext(ctx, `DROP TRIGGER "`+t.Name+`"`); err != nil {
			return fmt.Errorf("models: seed: set trigger %s aside: %w", t.Name, mapErr(err))
		}
	}
	lo, hi, err := write()
	if err != nil {
		return err
	}
	if err := s.writeDerivedOf(ctx, lo, hi); err != nil {
		return err
	}
	for _, t := range triggers {
		if _, err := s.db.ExecContext(ctx, t.SQL); err != nil {
			return fmt.Errorf("models: seed: restore trigger %s: %w", t.Name, mapErr(err))
		}
	}
	return nil
}

// writeDerivedOf writes what the triggers of seedBulkTables keep for the
// events lo..hi just inserted with their links and translations, on
// SQLite (writeWithoutTriggers).
func (s *Store) writeDerivedOf(ctx context.Context, lo, hi int64) error {
	in := fmt.Sprintf("e.id BETWEEN %d AND %d", lo, hi)
	const now = "strftime('%Y-%m-%d %H:%M:%S', 'now')"
	steps := []struct{ what, sql string }{
		// The month buckets follow through event_day_counts' own triggers.
		{"day buckets", "INSERT INTO event_day_counts (dim, ref, status, hidden, day, n) SELECT * FROM (" + s.dayBucketsOf(&[2]int64{lo, hi}) +
			") WHERE true ON CONFLICT (dim, ref, status, hidden, day) DO UPDATE SET n = n + excluded.n"},
		{"longest event", "UPDATE event_span SET secs = max(secs, (" + s.spanSQL() + fmt.Sprintf(" WHERE id BETWEEN %d AND %d", lo, hi) + ")) WHERE id = 1"},
		{"search marks", "INSERT INTO event_search_dirty (conn, event_id) SELECT " + strconv.Itoa(searchMarkTx) + ", e.id FROM events e WHERE " + in +
			" ON CONFLICT (conn, event_id) DO NOTHING"},
		{"cache generation", bumpGenerationSQL},
	}
	for _, st := range steps {
		if _, err := s.db.ExecContext(ctx, st.sql); err != nil {
			return fmt.Errorf("models: seed %s: %w", st.what, mapErr(err))
		}
	}
	// The change feed: one change per event in the order of their ids, then
	// one per translation, numbered as the triggers numbered them.
	for _, sel := range []string{
		"SELECT c.seq + ROW_NUMBER() OVER (ORDER BY e.id), 'event', e.id, NULL, e.status, NULL, e.author_id, " + now +
			" FROM events e JOIN change_seq c ON c.id = 1 WHERE " + in,
		"SELECT c.seq + ROW_NUMBER() OVER (ORDER BY t.event_id, t.lang), 'event', e.id, e.status, e.status, e.author_id, e.author_id, " + now +
			" FROM event_translations t JOIN events e ON e.id = t.event_id JOIN change_seq c ON c.id = 1 WHERE " + in,
	} {
		res, err := s.db.ExecContext(ctx, "INSERT INTO changes (seq, kind, record_id, old_status, new_status, old_author, new_author, at) "+sel)
		if err != nil {
			return fmt.Errorf("models: seed changes: %w", mapErr(err))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("models: seed changes: %w", mapErr(err))
		}
		if _, err := s.db.ExecContext(ctx, "UPDATE change_seq SET seq = seq + ? WHERE id = 1", n); err != nil {
			return fmt.Errorf("models: seed changes: %w", mapErr(err))
		}
	}
	return nil
}
