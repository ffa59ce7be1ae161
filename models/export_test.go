package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// Store internals the store tests exercise directly (package models_test).

func (s *Store) ResolveTerms(ctx context.Context, taxonomy string, refs []TermRef, create bool, lang string) ([]int64, error) {
	return s.resolveTerms(ctx, taxonomy, refs, create, lang)
}

func (s *Store) TermsByIDs(ctx context.Context, ids []int64, lang string) (map[int64]*Term, error) {
	return s.termsByIDs(ctx, ids, lang)
}

func (s *Store) MissingTerms(ctx context.Context, taxonomy string, ids []int64) ([]int64, error) {
	return s.missingTerms(ctx, taxonomy, ids)
}

func (s *Store) SaveTranslation(ctx context.Context, k Kind, id int64, lang string, fields map[string]string) error {
	return s.saveTranslation(ctx, k, id, lang, fields)
}

func (l Linked[T, In]) ByIDs(ctx context.Context, ids []int64, lang string) (map[int64]*T, error) {
	return l.k.byIDs(ctx, l.s, ids, lang)
}

func InList(ids []int64) (string, []any) { return inList(ids) }

func (s *Store) ReadEvent(ctx context.Context, id int64, lang string) (*Event, error) {
	return s.readEvent(ctx, Console, id, lang)
}

// Prepared is the number of statements the store keeps prepared.
func (db *DB) Prepared() int {
	if db.prep == nil {
		return 0
	}
	db.prep.mu.Lock()
	defer db.prep.mu.Unlock()
	return len(db.prep.stmts)
}

// RanPrepared tells whether the query of e ran through a kept prepared
// statement.
func RanPrepared(e *bun.QueryEvent) bool { return e.Stash[preparedMark{}] == true }

// PreparingNone tells whether no statement is being prepared in the
// background.
func (db *DB) PreparingNone() bool {
	if db.prep == nil {
		return true
	}
	db.prep.mu.Lock()
	defer db.prep.mu.Unlock()
	return len(db.prep.pending) == 0
}

// PreparedFiling reports whether the statements that file one event under
// its categories are prepared (they are, in the background, after their
// first use in a transaction on SQLite).
func (db *DB) PreparedFiling() bool {
	if db.prep == nil {
		return false
	}
	in, _ := inList([]int64{1})
	db.prep.mu.Lock()
	defer db.prep.mu.Unlock()
	return db.prep.stmts[fmt.Sprintf(fileSomeSQL, in)] != nil && db.prep.stmts["DELETE FROM event_category_ancestors WHERE event_id IN ("+in+")"] != nil
}

// ReadableIDs lists the ids of the venues or organizers the read rule in
// SQL lets u read.
func (s *Store) ReadableIDs(ctx context.Context, u *User, k Kind) ([]int64, error) {
	alias := map[Kind]string{KindVenue: "venue", KindOrganizer: "organizer"}[k]
	cond, args := readCondition(alias, u)
	var ids []int64
	err := s.db.NewSelect().TableExpr(kindTables[k]+" AS "+alias).Column(alias+".id").Where(cond, args...).Scan(ctx, &ids)
	return ids, err
}

// LikeSearch makes f search every event with the LIKE condition instead
// of the index (the equality test compares both).
func LikeSearch(f EventFilter) EventFilter {
	f.likeSearch = true
	return f
}

// PlainLinks makes f's page and total read the events and probe every
// link filter, not a link table's window index (the truth the tests
// compare the link-driven forms with).
func PlainLinks(f EventFilter) EventFilter {
	f.plainLinks = true
	return f
}

// BuiltPage reads f's bare pages through the query bun builds (the truth
// for windowPageIDs).
func BuiltPage(f EventFilter) EventFilter {
	f.builtPage = true
	return f
}

// DropSearchIndexWrites makes the transactions of db clear the marks of
// the events they change without refolding them (a forgotten index
// write), to show the tests notice.
func (db *DB) DropSearchIndexWrites(drop bool) {
	if drop {
		db.searchMode.Store(searchDropped)
	} else {
		db.searchMode.Store(searchOn)
	}
}

// EventIDs is the ids of every event f selects for u, in id order,
// without reading the events (the search tests compare many lists).
func (s *Store) EventIDs(ctx context.Context, u *User, f EventFilter) ([]int64, error) {
	f.reader = u
	if err := s.resolveEventFilter(ctx, &f); err != nil {
		return nil, err
	}
	f.visibility = ListVisibility(u)
	f.IncludeHidden = f.IncludeHidden && MayFilterStatus(u)
	q := s.db.NewSelect().TableExpr("events AS event").Column("event.id")
	s.applyEventFilter(q, f, false)
	var ids []int64
	err := q.OrderExpr("event.id").Scan(ctx, &ids)
	return ids, err
}

// RawEvent is the stored event id as it is, without translations or links.
func (s *Store) RawEvent(ctx context.Context, id int64) (*Event, error) {
	return s.rawEvent(ctx, id, false)
}

// WriteEventRow writes e's row in a transaction: through bun's model
// update (viaBun), or through updateByPK; prepared says whether
// updateByPK's statement was prepared already on entry (its run bound
// the arguments to it rather than to bun's text).
func (s *Store) WriteEventRow(ctx context.Context, e *Event, viaBun bool) (prepared bool, err error) {
	err = s.RunInTx(ctx, func(tx *Store) error {
		if viaBun {
			_, err := tx.db.NewUpdate().Model(e).WherePK().ExcludeColumn("id", "created_at").Exec(ctx)
			return err
		}
		if q, _, ok := updateStatement(tx.db.Dialect().Tables(), e, []string{"id", "created_at"}); ok && tx.txPrep != nil {
			tx.txPrep.mu.Lock()
			prepared = tx.txPrep.stmts[q] != nil
			tx.txPrep.mu.Unlock()
		}
		return tx.updateByPK(ctx, e, "id", "created_at")
	})
	return prepared, err
}

// InsertEventRow inserts e as a new event (a new id, and slug) in a
// transaction: through bun's model insert (viaBun) or insertRow; prepared
// as WriteEventRow's.
func (s *Store) InsertEventRow(ctx context.Context, e *Event, slug string, viaBun bool) (prepared bool, err error) {
	err = s.RunInTx(ctx, func(tx *Store) error {
		id, err := tx.NewPostID(ctx, KindEvent)
		if err != nil {
			return err
		}
		e.ID, e.Slug = id, slug
		if viaBun {
			_, err := tx.db.NewInsert().Model(e).Exec(ctx)
			return err
		}
		if q, _, ok := insertStatement(tx.db.Dialect().Tables(), e); ok && tx.txPrep != nil {
			tx.txPrep.mu.Lock()
			prepared = tx.txPrep.stmts[q] != nil
			tx.txPrep.mu.Unlock()
		}
		return tx.insertRow(ctx, e)
	})
	return prepared, err
}

// ForceOngoingAtEdge makes a search bounded by "ends after" decide its
// unsure events of the edge's days from the range it reads, however few
// they are (the tests' calendars are small).
func ForceOngoingAtEdge(on bool) { ongoingAtEdgeForced.Store(on) }

// RowByRow is o writing its events through the triggers on SQLite too.
func (o SeedOptions) RowByRow() SeedOptions { o.rowByRow = true; return o }

// InBatches is o writing n events a transaction.
func (o SeedOptions) InBatches(n int) SeedOptions { o.batch = n; return o }

// PauseSearch pauses the search index's upkeep, as a seed or a migration
// does (the marks stay), until resume.
func (db *DB) PauseSearch() (resume func()) {
	db.searchMode.Store(searchPaused)
	return func() { db.searchMode.Store(searchOn) }
}

// IndexBacklogIn is IndexBacklog, batch events a transaction.
func (db *DB) IndexBacklogIn(ctx context.Context, batch int) (int, error) {
	return db.indexBacklogIn(ctx, false, batch)
}

// SetIndexesAside sets the indexes aside as a seed does before its events
// (and as one that was killed leaves them).
func (db *DB) SetIndexesAside(ctx context.Context) (int, error) { return db.setIndexesAside(ctx) }
