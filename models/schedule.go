package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Lease is one row of the leases table: who runs a named job until when.
type Lease struct {
	Name      string    `bun:"name,pk"`
	Holder    string    `bun:"holder,notnull"`
	ExpiresAt time.Time `bun:"expires_at,notnull"`
}

// TryLease takes or renews the lease name for holder until ttl from now,
// and reports whether holder has it: it does when nobody held it, when
// holder already did, or when the other holder's lease has expired. Several
// instances calling it at once: exactly one gets it.
func (s *Store) TryLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	got, _, err := s.tryLease(ctx, "leases", name, holder, ttl)
	return got, err
}

// tryLease is TryLease on table (leases, or the migrator's lease). It also
// returns the holder whose expired lease it took over, if any.
func (s *Store) tryLease(ctx context.Context, table, name, holder string, ttl time.Duration) (got bool, prev string, err error) {
	now := s.site.Now()
	run := s.RunInTx
	if table == migrationLeaseTable {
		// Before the migrations, without what RunInTx does after a
		// write (the search index's tables may not exist yet); a
		// failed attempt is tried again by the lock's loop.
		run = s.runInPlainTx
	}
	err = run(ctx, func(tx *Store) error {
		got, prev = false, ""
		l := new(Lease)
		err := tx.forUpdate(tx.db.NewSelect().Model(l).ModelTableExpr(table+" AS lease").Where("name = ?", name)).Scan(ctx)
		switch {
		case errors.Is(mapErr(err), ErrNotFound):
			_, err = tx.db.NewInsert().Model(&Lease{Name: name, Holder: holder, ExpiresAt: now.Add(ttl)}).ModelTableExpr(table).Exec(ctx)
			if errors.Is(mapErr(err), ErrConflict) { // another instance inserted it first
				return nil
			}
		case err != nil:
		case l.Holder == holder || !l.ExpiresAt.After(now):
			if l.Holder != holder {
				prev = l.Holder
			}
			_, err = tx.db.NewUpdate().TableExpr(table).Set("holder = ?", holder).Set("expires_at = ?", now.Add(ttl)).
				Where("name = ?", name).Exec(ctx)
		default:
			return nil // held by another instance
		}
		if err != nil {
			return fmt.Errorf("models: lease %s: %w", name, mapErr(err))
		}
		got = true
		return nil
	})
	return got, prev, err
}

// runInPlainTx runs fn in a transaction, with no retry and no search
// indexing.
func (s *Store) runInPlainTx(ctx context.Context, fn func(tx *Store) error) error {
	return mapErr(s.db.RunInTx(ctx, nil, func(_ context.Context, tx bun.Tx) error {
		return fn(&Store{db: tx, dialect: s.dialect, site: s.site, searchMode: s.searchMode})
	}))
}

// ReleaseLease ends holder's lease name (nothing when another holds it).
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	return s.releaseLease(ctx, "leases", name, holder)
}

func (s *Store) releaseLease(ctx context.Context, table, name, holder string) error {
	_, err := s.db.NewDelete().TableExpr(table).Where("name = ?", name).Where("holder = ?", holder).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: release lease %s: %w", name, mapErr(err))
	}
	return nil
}

// scheduleBatch bounds the records PublishDue publishes in one call.
const scheduleBatch = 200

// PublishDue publishes the events, venues and organizers whose status is
// future and whose publication date has passed, as WordPress does, each
// through the path of an edit (in its own transaction, its row locked, its
// term counts kept, the cache generation moved), as the site (Console). A
// record changed meanwhile (no longer future, or moved to a later date) is
// left alone. It returns how many it published; call it again while it
// returns scheduleBatch.
func (s *Store) PublishDue(ctx context.Context) (int, error) {
	now := s.site.Now()
	n := 0
	for _, k := range []struct {
		kind  Kind
		table string
	}{{KindEvent, "events"}, {KindVenue, "venues"}, {KindOrganizer, "organizers"}} {
		var ids []int64
		err := s.db.NewSelect().TableExpr(k.table).Column("id").Where("status = ?", StatusFuture).
			Where("published_at <= ?", now).OrderExpr("published_at, id").Limit(scheduleBatch).Scan(ctx, &ids)
		if err != nil {
			return n, fmt.Errorf("models: due %s: %w", k.table, mapErr(err))
		}
		for _, id := range ids {
			var ok bool
			switch k.kind {
			case KindEvent:
				ok, err = publishDue(ctx, s, k.kind, id, now, lockEvent, eventPost)
			case KindVenue:
				ok, err = publishDue(ctx, s, k.kind, id, now, venues.lock, venues.post)
			default:
				ok, err = publishDue(ctx, s, k.kind, id, now, organizers.lock, organizers.post)
			}
			if err != nil {
				return n, err
			}
			if ok {
				n++
			}
		}
	}
	return n, nil
}

// publishDue publishes record id of kind if it is still future and due.
func publishDue[T any](ctx context.Context, s *Store, kind Kind, id int64, now time.Time,
	lock func(ctx context.Context, tx *Store, id int64) (*T, error), post func(*T) *Post) (bool, error) {
	done := false
	_, err := changePost(ctx, s, Console, ActEdit, kind, ByID(id), lock, post, func(tx *Store, _ *T, p *Post) error {
		if p.Status != StatusFuture || p.PublishedAt.After(now) {
			return nil
		}
		var before termCounts
		if kind == KindEvent {
			var err error
			if before, err = tx.eventTermCounts(ctx, id, p.Status); err != nil {
				return err
			}
		}
		_, err := tx.db.NewUpdate().TableExpr(kindTables[kind]).Set("status = ?", StatusPublish).Set("updated_at = ?", now).
			Where("id = ?", id).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: publish %s %d: %w", kind, id, mapErr(err))
		}
		done = true
		if kind == KindEvent {
			if err := tx.syncEventTerms(ctx, id); err != nil {
				return err
			}
			return tx.adjustTermCounts(ctx, before, termCounts{published: true, terms: before.terms})
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) { // deleted meanwhile
		return false, nil
	}
	return done, err
}

// ClearLeases drops every lease: a restored backup carries the leases of the
// instance it was copied from, which no instance of the restored site holds.
func (s *Store) ClearLeases(ctx context.Context) error {
	_, err := s.db.NewDelete().TableExpr("leases").Where("1 = 1").Exec(ctx)
	return mapErr(err)
}
