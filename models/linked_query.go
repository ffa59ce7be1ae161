package models

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/uptrace/bun"
)

// Venues and organizers are "linked posts" in TEC's words: records that
// events point to. This file holds what the two kinds share: the list
// filter and its SQL, the visibility conditions and the trash/delete
// operations that also unlink the record from its events.

// LinkedFilter selects venues or organizers for a list (SPEC §5).
type LinkedFilter struct {
	Page    int // 1-based
	PerPage int
	// Words: every word must occur in one of the kind's search fields or
	// in their translations into Lang (see SearchWords).
	Words []string
	// EventID, when non-zero: only records linked to that event.
	EventID int64
	// HasEvents, when set: records linked (true) or not linked (false) to
	// at least one event that is neither draft, pending nor trashed.
	HasEvents *bool
	// OnlyWithUpcoming: records linked to at least one event that has not
	// ended yet and that the acting user may see.
	OnlyWithUpcoming bool
	// Statuses, when not empty, replaces the default visibility: records
	// with one of these statuses that the acting user may see.
	Statuses []string
	Lang     string
	// ModifiedAfter (inclusive) and ModifiedBefore (exclusive) bound the
	// last change, as EventFilter's do.
	ModifiedAfter, ModifiedBefore *time.Time
	// Order is "" (publication date) or OrderModified; the newest come
	// first unless Asc.
	Order string
	Asc   bool
}

// SearchWords splits a search string into the words a list must all find:
// on white space, control characters (no one searches for them, and bun
// refuses a string holding NUL) and commas (so "france, ile de" is three
// words), keeping everything else, so e-mail addresses, URLs and phone
// numbers stay whole.
func SearchWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == ',' || r == '，' || r == '、'
	})
}

// linkedSpec describes the tables of a linked kind.
type linkedSpec struct {
	kind      Kind
	table     string // venues
	alias     string // venue: bun's alias of the model
	linkTable string // event_venues
	linkCol   string // venue_id
	search    []string
}

var notTrashed = []string{StatusPublish, StatusFuture, StatusDraft, StatusPending, StatusPrivate}

// statusCondition is the visibility rule of SPEC §6 on the records of
// alias: with no status filter, what vis shows by default; with one, those
// statuses among what the user could see (contributors and authors: the
// published ones and their own, so status=trash gives their own trash).
func statusCondition(alias string, statuses []string, vis Visibility) (string, []any) {
	if len(statuses) == 0 {
		switch {
		case vis.AllButTrash:
			// IN rather than <> trash, so that the status index serves it.
			return alias + ".status IN (?)", []any{bun.List(notTrashed)}
		case vis.OwnerID != 0:
			return fmt.Sprintf("(%s.status = ? OR (%s.author_id = ? AND %s.status <> ?))", alias, alias, alias),
				[]any{StatusPublish, vis.OwnerID, StatusTrash}
		}
		return alias + ".status = ?", []any{StatusPublish}
	}
	switch {
	case vis.AllButTrash:
		return alias + ".status IN (?)", []any{bun.List(statuses)}
	case vis.OwnerID != 0:
		return fmt.Sprintf("(%s.status IN (?) AND (%s.status = ? OR %s.author_id = ?))", alias, alias, alias),
			[]any{bun.List(statuses), StatusPublish, vis.OwnerID}
	}
	return fmt.Sprintf("(%s.status IN (?) AND %s.status = ?)", alias, alias), []any{bun.List(statuses), StatusPublish}
}

// readCondition is Can's read rule (policy.go) as SQL on the venues or
// organizers of alias: the records reader may read by id. Queries that
// look at linked records' data for an event list (the geography filter
// and order) use it, so a record the reader may not read is no oracle.
// TestReadRuleInSQLAgreesWithCan holds it to Can.
func readCondition(alias string, reader *User) (string, []any) {
	switch {
	case reader != nil && reader.Role.AtLeast(RoleEditor):
		return "1 = 1", nil
	case reader == nil || !reader.Role.AtLeast(RoleContributor) || reader.ID == 0:
		return alias + ".status = ?", []any{StatusPublish}
	}
	// Contributors and authors read their own records in any status.
	return fmt.Sprintf("(%s.status = ? OR %s.author_id = ?)", alias, alias), []any{StatusPublish, reader.ID}
}

// applyLinkedFilter adds the WHERE conditions of f to q (a select on the
// spec's table under its alias). The same conditions serve the page and the
// count, so total always agrees with the rows.
func applyLinkedFilter(d Dialect, q *bun.SelectQuery, sp linkedSpec, f LinkedFilter, vis Visibility, now time.Time) *bun.SelectQuery {
	a := sp.alias
	cond, args := statusCondition(a, f.Statuses, vis)
	q = q.Where(cond, args...)
	if cond, args := SearchCondition(d, sp.kind, a, "id", sp.search, f.Lang, f.Words); cond != "" {
		q = q.Where(cond, args...)
	}
	modifiedConds(q, a, f.ModifiedAfter, f.ModifiedBefore)
	if f.EventID != 0 {
		q = q.Where(fmt.Sprintf("EXISTS (SELECT 1 FROM %s l WHERE l.%s = %s.id AND l.event_id = ?)", sp.linkTable, sp.linkCol, a), f.EventID)
	}
	if f.HasEvents != nil {
		sub := fmt.Sprintf("EXISTS (SELECT 1 FROM %s l JOIN events e ON e.id = l.event_id WHERE l.%s = %s.id AND e.status NOT IN (?))",
			sp.linkTable, sp.linkCol, a)
		if !*f.HasEvents {
			sub = "NOT " + sub
		}
		q = q.Where(sub, bun.List([]string{StatusDraft, StatusPending, StatusTrash}))
	}
	if f.OnlyWithUpcoming {
		ecnd, eargs := statusCondition("e", nil, vis)
		args := append([]any{Sec(now)}, eargs...)
		q = q.Where(fmt.Sprintf("EXISTS (SELECT 1 FROM %s l JOIN events e ON e.id = l.event_id WHERE l.%s = %s.id AND e.end_at >= ? AND %s)",
			sp.linkTable, sp.linkCol, a, ecnd), args...)
	}
	return q
}

// listLinked runs the count and the page of a linked list into dest (a
// pointer to a slice of the kind's model): two queries whatever the page size.
func (s *Store) listLinked(ctx context.Context, sp linkedSpec, f LinkedFilter, vis Visibility, dest any) (int, error) {
	if f.Page < 1 {
		f.Page = 1
	}
	if f.PerPage < 1 {
		f.PerPage = 1
	}
	n, err := applyLinkedFilter(s.dialect, s.db.NewSelect().Model(dest), sp, f, vis, s.site.Now()).Count(ctx)
	total := int(n)
	if err != nil {
		return 0, fmt.Errorf("models: count %s: %w", sp.table, mapErr(err))
	}
	offset := (f.Page - 1) * f.PerPage
	if total == 0 || offset >= total {
		return total, nil
	}
	err = applyLinkedFilter(s.dialect, s.db.NewSelect().Model(dest), sp, f, vis, s.site.Now()).
		OrderExpr(linkedOrder(sp.alias, f)).
		Limit(int64(f.PerPage)).Offset(int64(offset)).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: list %s: %w", sp.table, mapErr(err))
	}
	return total, nil
}

// trashLinked moves record id to the trash for user by and unlinks it from
// its events, in one transaction (TEC removes the event meta that points
// to it).
func (s *Store) trashLinked(ctx context.Context, sp linkedSpec, id, by int64) error {
	return s.RunInTx(ctx, func(tx *Store) error {
		res, err := tx.db.NewUpdate().Table(sp.table).Set("status = ?", StatusTrash).Set("updated_at = ?", tx.site.Now()).
			Set("modified_by = ?", by).
			Where("id = ?", id).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: trash %s %d: %w", sp.kind, id, mapErr(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("models: trash %s %d: %w", sp.kind, id, ErrNotFound)
		}
		return tx.unlinkAll(ctx, sp, id)
	})
}

// unlinkAll removes record id from every event it is linked to.
func (s *Store) unlinkAll(ctx context.Context, sp linkedSpec, id int64) error {
	if _, err := s.db.NewDelete().Table(sp.linkTable).Where(sp.linkCol+" = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("models: unlink %s %d: %w", sp.kind, id, mapErr(err))
	}
	return nil
}

// deleteLinked deletes record id for good, with its links; its translations
// go by the foreign key cascade. Its id stays allocated (never reused).
func (s *Store) deleteLinked(ctx context.Context, sp linkedSpec, id int64) error {
	return s.RunInTx(ctx, func(tx *Store) error {
		if err := tx.unlinkAll(ctx, sp, id); err != nil {
			return err
		}
		spec := translationSpecs[sp.kind]
		// Explicit as well as by cascade: a MySQL table created without the
		// foreign key (older servers, manual restores) must not keep orphans.
		if _, err := tx.db.NewDelete().Table(spec.Table).Where(spec.Key+" = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete %s %d translations: %w", sp.kind, id, mapErr(err))
		}
		res, err := tx.db.NewDelete().Table(sp.table).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: delete %s %d: %w", sp.kind, id, mapErr(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("models: delete %s %d: %w", sp.kind, id, ErrNotFound)
		}
		return nil
	})
}

// dupCondition adds to q one condition per provided non-empty identifying
// field: equal ignoring case, or (like) containing it ignoring case. LOWER
// folds Unicode on both dialects (see sqlite_unicode.go), so the result
// does not depend on the collation.
func dupCondition(q *bun.SelectQuery, alias, col string, v *string, like bool) *bun.SelectQuery {
	if v == nil || strings.TrimSpace(*v) == "" {
		return q
	}
	low := strings.ToLower(strings.TrimSpace(*v))
	if like {
		return q.Where(fmt.Sprintf("LOWER(%s.%s) LIKE ? ESCAPE '!'", alias, col), "%"+EscapeLike(low)+"%")
	}
	return q.Where(fmt.Sprintf("LOWER(%s.%s) = ?", alias, col), low)
}

// strOr returns *p, or def when p is nil.
func strOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// slugBase is the slug a new record starts from: the slug of its name, or
// the kind when the name has nothing a slug keeps.
func slugBase(k Kind, name string) string {
	if b := Slugify(name); b != "" {
		return b
	}
	return string(k)
}

// forUpdate locks the selected row on MySQL. SQLite has no FOR UPDATE; its
// transactions take the write lock at BEGIN (_txlock=immediate).
func (s *Store) forUpdate(q *bun.SelectQuery) *bun.SelectQuery {
	if s.dialect == MySQL {
		return q.For("UPDATE")
	}
	return q
}

// linkedOrder is the ORDER BY of a linked list: publication date (or last
// change), then id, newest first unless f.Asc.
func linkedOrder(alias string, f LinkedFilter) string {
	col, dir := "published_at", "DESC"
	if f.Order == OrderModified {
		col = "updated_at"
	}
	if f.Asc {
		dir = "ASC"
	}
	return fmt.Sprintf("%s.%s %s, %s.id %s", alias, col, dir, alias, dir)
}
