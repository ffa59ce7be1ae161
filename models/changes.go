package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// The change log of issue 34 (migration 20261212000200_changes): triggers
// on every table the API shows write one row per change, numbered from one
// counter row (change_seq) in the writing transaction. That row stays
// locked until the transaction ends (MySQL; SQLite has one writer), so
// numbers are taken in commit order: a reader who has seen number n never
// meets a smaller one later, and the feed never skips. Each row keeps the
// record's status and author before and after the change, from which each
// reader's action follows (changeAction): created when the record enters
// what the reader may list, updated while it stays, removed when it leaves.

// The actions of a change as a reader sees it.
const (
	ChangeCreated = "created"
	ChangeUpdated = "updated"
	ChangeRemoved = "removed"
)

// ErrChangesExpired is the answer to a cursor older than the changes kept
// (--changes-keep): the reader must copy the lists again.
var ErrChangesExpired = errors.New("models: the changes after this cursor are no longer kept")

// Change is one change of a record as one reader sees it.
type Change struct {
	Seq    int64
	Kind   Kind
	ID     int64
	Action string
	At     time.Time // UTC, whole seconds
}

// ChangesPage is a page of the feed and the cursor to read on from.
type ChangesPage struct {
	Items []Change
	Next  int64
}

// changeRow is a row of the changes table.
type changeRow struct {
	Seq       int64     `bun:"seq"`
	Kind      string    `bun:"kind"`
	RecordID  int64     `bun:"record_id"`
	OldStatus *string   `bun:"old_status"`
	NewStatus *string   `bun:"new_status"`
	OldAuthor *int64    `bun:"old_author"`
	NewAuthor *int64    `bun:"new_author"`
	At        time.Time `bun:"at"`
}

// ChangesHead is the number of the last committed change: the cursor a
// list answer carries (X-Kalends-Changes-Cursor). Read before the list, a
// client that copies the list and then follows the feed from it misses
// nothing (it may see a change it already has).
func (s *Store) ChangesHead(ctx context.Context) (int64, error) {
	var head int64
	if err := s.db.NewSelect().Table("change_seq").Column("seq").Where("id = 1").Scan(ctx, &head); err != nil {
		return 0, fmt.Errorf("models: changes head: %w", mapErr(err))
	}
	return head, nil
}

// CacheGenerationHead reads the cache generation and the change feed's
// head in one statement: what is made under the generation holds every
// change up to the head (the caches' cachegen.HeadSource).
func (s *Store) CacheGenerationHead(ctx context.Context) (gen, head int64, err error) {
	err = s.db.NewSelect().TableExpr("cache_generation").ColumnExpr("gen").
		ColumnExpr("(SELECT seq FROM change_seq WHERE id = 1)").Where("id = 1").Scan(ctx, &gen, &head)
	if err != nil {
		return 0, 0, fmt.Errorf("models: cache generation: %w", mapErr(err))
	}
	return gen, head, nil
}

// Changes returns up to limit changes after cursor that u may see, in
// commit order, and the cursor to read on from. fromOldest reads from the
// oldest change kept (cursor is then ignored). A cursor older than the
// changes kept is ErrChangesExpired.
func (s *Store) Changes(ctx context.Context, u *User, cursor int64, fromOldest bool, limit int) (*ChangesPage, error) {
	// The head first: every change up to it has committed, so reading up
	// to it and then going on from it skips nothing.
	head, err := s.ChangesHead(ctx)
	if err != nil {
		return nil, err
	}
	if fromOldest {
		if cursor, err = s.changesFloor(ctx); err != nil {
			return nil, err
		}
	}
	if cursor > head {
		// A cursor from the future (another database, or forged): nothing
		// after it can be told apart; start again from the lists.
		return nil, ErrChangesExpired
	}
	var rows []changeRow
	q := s.db.NewSelect().Table("changes").Column("seq", "kind", "record_id", "old_status", "new_status", "old_author", "new_author", "at").
		Where("seq > ?", cursor).Where("seq <= ?", head)
	cond, args := changeCondition(u)
	q.Where(cond, args...)
	if err := q.OrderExpr("seq ASC").Limit(int64(limit)).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: changes: %w", mapErr(err))
	}
	// The floor after the rows: a prune that ran before the read shows
	// here, so no pruned change is passed over unnoticed.
	floor, err := s.changesFloor(ctx)
	if err != nil {
		return nil, err
	}
	if cursor < floor {
		return nil, ErrChangesExpired
	}
	page := &ChangesPage{Items: make([]Change, 0, len(rows)), Next: head}
	vis, media := ListVisibility(u), Can(u, ActRead, Subject{Kind: KindMedia})
	for _, r := range rows {
		act := changeAction(r, vis, media)
		if act == "" {
			continue
		}
		page.Items = append(page.Items, Change{Seq: r.Seq, Kind: Kind(r.Kind), ID: r.RecordID, Action: act, At: Sec(r.At)})
	}
	if len(rows) == limit {
		page.Next = rows[len(rows)-1].Seq
	}
	return page, nil
}

func (s *Store) changesFloor(ctx context.Context) (int64, error) {
	var floor int64
	if err := s.db.NewSelect().Table("change_seq").Column("floor").Where("id = 1").Scan(ctx, &floor); err != nil {
		return 0, fmt.Errorf("models: changes floor: %w", mapErr(err))
	}
	return floor, nil
}

// changeCondition is, in SQL, the changes u may see: those of records u
// may list before or after the change (changeAction says which).
func changeCondition(u *User) (string, []any) {
	vis := ListVisibility(u)
	side := func(p string) (string, []any) {
		st, au := p+"_status", p+"_author"
		switch {
		case vis.AllButTrash:
			return st + " IS NOT NULL AND " + st + " <> ?", []any{StatusTrash}
		case vis.OwnerID != 0:
			return "(" + st + " = ? OR (" + au + " = ? AND " + st + " <> ?))", []any{StatusPublish, vis.OwnerID, StatusTrash}
		}
		return st + " = ?", []any{StatusPublish}
	}
	oc, oa := side("old")
	nc, na := side("new")
	parts := []string{"kind IN (?)", "(kind IN (?) AND (" + oc + " OR " + nc + "))"}
	args := []any{bun.List([]string{string(KindCategory), string(KindTag)}),
		bun.List([]string{string(KindEvent), string(KindVenue), string(KindOrganizer)})}
	args = append(append(args, oa...), na...)
	if Can(u, ActRead, Subject{Kind: KindMedia}) {
		parts = append(parts, "kind = ?")
		args = append(args, string(KindMedia))
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// changeAction is what change r is for a reader who lists what vis shows
// (and media when media): created, updated, removed, or "" when the
// reader could list the record neither before nor after.
func changeAction(r changeRow, vis Visibility, media bool) string {
	listed := func(st *string, au *int64) bool {
		if st == nil {
			return false
		}
		switch Kind(r.Kind) {
		case KindCategory, KindTag:
			return true
		case KindMedia:
			return media
		}
		switch {
		case vis.AllButTrash:
			return *st != StatusTrash
		case vis.OwnerID != 0:
			return *st == StatusPublish || (au != nil && *au == vis.OwnerID && *st != StatusTrash)
		}
		return *st == StatusPublish
	}
	before, after := listed(r.OldStatus, r.OldAuthor), listed(r.NewStatus, r.NewAuthor)
	switch {
	case before && after:
		return ChangeUpdated
	case after:
		return ChangeCreated
	case before:
		return ChangeRemoved
	}
	return ""
}

// changesPruneBatch is the most changes PruneChanges deletes in one
// transaction, so that the writer is held for milliseconds, not for the
// seconds a million changes take (a bulk load writes one per record).
const changesPruneBatch = 10000

// PruneChanges forgets the changes made before before (--changes-keep) and
// raises the floor under which a cursor is too old (ErrChangesExpired).
// It returns how many it removed. Changes are appended in time order, so
// the old ones are those before the first change made since before, found
// by walking the log from its start (no index on the time: a MAX over the
// times read the whole log, a million rows after a seed, in the write
// transaction, so sign-ins waited seconds behind it when a server
// started). They are deleted from the start in batches, the floor raised
// with each.
func (s *Store) PruneChanges(ctx context.Context, before time.Time) (int64, error) {
	var first []int64
	err := s.db.NewSelect().Table("changes").Column("seq").Where("at >= ?", Sec(before).Format(time.DateTime)).
		OrderExpr("seq").Limit(1).Scan(ctx, &first)
	if err != nil {
		return 0, fmt.Errorf("models: prune changes: %w", mapErr(err))
	}
	q := s.db.NewSelect().Table("changes").ColumnExpr("COALESCE(MAX(seq), 0)")
	if len(first) == 1 {
		q.Where("seq < ?", first[0])
	}
	var last int64
	if err := q.Scan(ctx, &last); err != nil {
		return 0, fmt.Errorf("models: prune changes: %w", mapErr(err))
	}
	var n int64
	for last > 0 {
		var low int64
		if err := s.db.NewSelect().Table("changes").ColumnExpr("COALESCE(MIN(seq), 0)").Scan(ctx, &low); err != nil {
			return n, fmt.Errorf("models: prune changes: %w", mapErr(err))
		}
		if low == 0 || low > last {
			break
		}
		upTo := min(low+changesPruneBatch-1, last)
		err := s.RunInTx(ctx, func(tx *Store) error {
			res, err := tx.db.NewDelete().Table("changes").Where("seq <= ?", upTo).Exec(ctx)
			if err != nil {
				return mapErr(err)
			}
			k, _ := res.RowsAffected()
			n += k
			_, err = tx.db.NewUpdate().Table("change_seq").Set("floor = ?", upTo).Where("id = 1").Where("floor < ?", upTo).Exec(ctx)
			return mapErr(err)
		})
		if err != nil {
			return n, fmt.Errorf("models: prune changes: %w", err)
		}
	}
	return n, nil
}
