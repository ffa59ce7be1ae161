package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Revisions keep the state of an event, venue or organizer before each
// update that changed it: its row, its translations and (for events) its
// links, as a snapshot of the stored rows, with who made the update, when,
// and which fields it changed. Restoring a revision writes that state back
// as an update by the restoring user (permissions as for any edit; the
// state it replaces becomes a revision in turn), so the record reads
// exactly as it did, dates and links included; only modified and
// modified_by tell the restore apart. Links to records deleted since are
// left out.

// DefaultRevisionsKeep is how many revisions a record keeps when the site
// says nothing (Site.RevisionsKeep).
const DefaultRevisionsKeep = 25

// Revision is one kept state of a record.
type Revision struct {
	bun.BaseModel `bun:"table:revisions"`

	ID        int64     `bun:"id,pk,autoincrement"`
	Kind      Kind      `bun:"kind,notnull"`
	RecordID  int64     `bun:"record_id,notnull"`
	AuthorID  int64     `bun:"author_id,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	Fields    []string  `bun:"fields,notnull,type:text"` // as JSON
	Snapshot  string    `bun:"snapshot,notnull"`
}

// revisionTables are the tables a record's state lives in: the main table
// first, then the tables keyed by its id.
// Each names its table, the column holding the record's id, and the
// column its rows are read in order of (the rest of the primary key).
var revisionTables = map[Kind][]struct{ table, key, order string }{
	KindEvent: {{"events", "id", "id"}, {"event_translations", "event_id", "lang"}, {"event_venues", "event_id", "venue_id"},
		{"event_organizers", "event_id", "organizer_id"}, {"event_terms", "event_id", "term_id"}},
	KindVenue:     {{"venues", "id", "id"}, {"venue_translations", "venue_id", "lang"}},
	KindOrganizer: {{"organizers", "id", "id"}, {"organizer_translations", "organizer_id", "lang"}},
}

// linkTargets say which table a link column points to: a restored link to
// a record deleted since is left out.
var linkTargets = map[string][2]string{
	"event_venues": {"venue_id", "venues"}, "event_organizers": {"organizer_id", "organizers"}, "event_terms": {"term_id", "terms"},
}

// ignoredFields change with every write and say nothing of the content.
var ignoredFields = map[string]bool{"updated_at": true, "modified_by": true}

// tableState is the rows of one table that belong to a record.
type tableState struct {
	Columns []string            `json:"columns"`
	Types   []string            `json:"types"`
	Rows    [][]json.RawMessage `json:"rows"`
}

// recordState is a record's rows, by table.
type recordState map[string]*tableState

// revisionsKeep is the site's retention (0: revisions are off).
func (s *Site) revisionsKeep() int {
	if s == nil || s.RevisionsKeep == nil {
		return DefaultRevisionsKeep
	}
	return *s.RevisionsKeep
}

// state reads the stored rows of record id of kind k.
func (s *Store) state(ctx context.Context, k Kind, id int64) (recordState, error) {
	st := recordState{}
	for _, t := range revisionTables[k] {
		//nolint:gosec // G202: table and column names from revisionTables, quoted.
		q := "SELECT * FROM " + quoteIdent(s.dialect, t.table) + " WHERE " + quoteIdent(s.dialect, t.key) + " = ? ORDER BY " + quoteIdent(s.dialect, t.order)
		ts, err := s.readRows(ctx, q, id)
		if err != nil {
			return nil, fmt.Errorf("models: state of %s %d (%s): %w", k, id, t.table, err)
		}
		st[t.table] = ts
	}
	return st, nil
}

func (s *Store) readRows(ctx context.Context, q string, args ...any) (*tableState, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	ts := &tableState{}
	if ts.Columns, err = rows.Columns(); err != nil {
		return nil, err
	}
	ctypes, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	for _, ct := range ctypes {
		ts.Types = append(ts.Types, columnKind(ct.DatabaseTypeName()))
	}
	vals := make([]any, len(ts.Columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]json.RawMessage, len(vals))
		for i, v := range vals {
			b, err := exportValue(ts.Types[i], v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ts.Columns[i], err)
			}
			row[i] = b
		}
		ts.Rows = append(ts.Rows, row)
	}
	return ts, rows.Err()
}

// changedFields names what differs between two states of a record: the
// main row's columns, "translations" and the link tables' kinds.
func changedFields(k Kind, before, after recordState) []string {
	var out []string
	main := revisionTables[k][0].table
	b, a := before[main], after[main]
	if b != nil && a != nil && len(b.Rows) == 1 && len(a.Rows) == 1 {
		for i, c := range b.Columns {
			j := slices.Index(a.Columns, c)
			if ignoredFields[c] || j < 0 {
				continue
			}
			if string(b.Rows[0][i]) != string(a.Rows[0][j]) {
				out = append(out, c)
			}
		}
	}
	for _, t := range revisionTables[k][1:] {
		bj, _ := json.Marshal(before[t.table])
		aj, _ := json.Marshal(after[t.table])
		if string(bj) != string(aj) {
			name := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(t.table, "event_"), "venue_"), "organizer_")
			if name == "terms" {
				name = "categories_and_tags"
			}
			out = append(out, name)
		}
	}
	return out
}

// keepRevision stores before as a revision of record id when the write
// that followed changed something, and drops the oldest beyond the site's
// retention. Called inside the writing transaction, after the write.
func (s *Store) keepRevision(ctx context.Context, k Kind, id int64, u *User, before recordState) error {
	keep := s.site.revisionsKeep()
	if keep <= 0 || before == nil {
		return nil
	}
	after, err := s.state(ctx, k, id)
	if err != nil {
		return err
	}
	fields := changedFields(k, before, after)
	if len(fields) == 0 {
		return nil
	}
	snap, err := json.Marshal(before)
	if err != nil {
		return err
	}
	var author int64
	if u != nil {
		author = u.ID
	}
	names, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	// Written with placeholders and prepared (s.exec, s.scan): through bun
	// the snapshot, kilobytes of JSON, was written into a new statement
	// that SQLite parsed on every edit.
	if err := s.exec(ctx, "INSERT INTO revisions (kind, record_id, author_id, created_at, fields, snapshot) VALUES (?, ?, ?, ?, ?, ?)",
		string(k), id, author, s.site.Now(), string(names), string(snap)); err != nil {
		return fmt.Errorf("models: keep revision of %s %d: %w", k, id, mapErr(err))
	}
	var old []int64
	if err := s.scan(ctx, &old, "SELECT id FROM revisions WHERE kind = ? AND record_id = ? ORDER BY id DESC LIMIT 1000 OFFSET ?", string(k), id, keep); err != nil {
		return fmt.Errorf("models: revisions of %s %d: %w", k, id, mapErr(err))
	}
	if len(old) > 0 {
		in, args := inList(old)
		if err := s.exec(ctx, "DELETE FROM revisions WHERE id IN ("+in+")", args...); err != nil {
			return fmt.Errorf("models: drop old revisions: %w", mapErr(err))
		}
	}
	return nil
}

// snapshotFor is the state of a record before a write, or nil when
// revisions are off.
func (s *Store) snapshotFor(ctx context.Context, k Kind, id int64) (recordState, error) {
	if s.site.revisionsKeep() <= 0 {
		return nil, nil
	}
	return s.state(ctx, k, id)
}

// applyState writes a kept state back: the main row's columns (but its
// id; the slug only when no other record took it meanwhile, the status
// as u may set it), and the rows of the other tables replaced.
func (s *Store) applyState(ctx context.Context, u *User, k Kind, id int64, st recordState) error {
	tables := revisionTables[k]
	main := st[tables[0].table]
	if main == nil || len(main.Rows) != 1 {
		return fmt.Errorf("models: a revision of %s %d without its row", k, id)
	}
	vals, err := decodeRow(main, main.Rows[0])
	if err != nil {
		return err
	}
	// A revision kept before text was stored composed holds it as it was
	// sent: it is restored in NFC, the slug compared so.
	nfcRow(tables[0].table, main.Columns, vals)
	var sets []string
	var args []any
	for i, c := range main.Columns {
		switch c {
		case "id":
			continue
		case "status":
			if st, ok := vals[i].(string); ok {
				vals[i] = EffectiveStatus(u, k, st)
			}
		case "slug":
			slug, _ := vals[i].(string)
			n, err := s.db.NewSelect().TableExpr(quoteIdent(s.dialect, tables[0].table)).Where("slug = ? AND id <> ?", slug, id).Count(ctx)
			if err != nil {
				return mapErr(err)
			}
			if n > 0 {
				continue // taken since: the record keeps its current slug
			}
		case "updated_at":
			vals[i] = s.site.Now()
		case "modified_by":
			vals[i] = u.ID
		case "series_id", "parent_id", "recurrence_id", "series_until", "is_exception":
			// Where the record stands in a series is today's, not the
			// revision's: a split or an exception since would be undone
			// for this row alone. The rule (recurrence) is restored, and
			// the series follows it (restoreState).
			continue
		}
		sets = append(sets, quoteIdent(s.dialect, c)+" = ?")
		args = append(args, nullable(vals[i]))
	}
	args = append(args, id)
	//nolint:gosec // G202: column names from the schema, quoted.
	q := "UPDATE " + quoteIdent(s.dialect, tables[0].table) + " SET " + strings.Join(sets, ", ") + " WHERE id = ?"
	if _, err := s.db.NewRaw(q, args...).Exec(ctx); err != nil {
		return fmt.Errorf("models: restore %s %d: %w", k, id, mapErr(err))
	}
	for _, t := range tables[1:] {
		//nolint:gosec // G202: names from revisionTables, quoted.
		if _, err := s.db.NewRaw("DELETE FROM "+quoteIdent(s.dialect, t.table)+" WHERE "+quoteIdent(s.dialect, t.key)+" = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("models: restore %s %d (%s): %w", k, id, t.table, mapErr(err))
		}
		ts := st[t.table]
		if ts == nil || len(ts.Rows) == 0 {
			continue
		}
		target, hasTarget := linkTargets[t.table]
		idents := make([]string, len(ts.Columns))
		for i, c := range ts.Columns {
			idents[i] = quoteIdent(s.dialect, c)
		}
		for _, row := range ts.Rows {
			vals, err := decodeRow(ts, row)
			if err != nil {
				return err
			}
			if hasTarget {
				ref, _ := vals[slices.Index(ts.Columns, target[0])].(int64)
				n, err := s.db.NewSelect().TableExpr(target[1]).Where("id = ?", ref).Count(ctx)
				if err != nil {
					return mapErr(err)
				}
				if n == 0 {
					continue // deleted since
				}
			}
			nfcRow(t.table, ts.Columns, vals)
			for i := range vals {
				vals[i] = nullable(vals[i])
			}
			//nolint:gosec // G202: names from the schema, quoted.
			q := "INSERT INTO " + quoteIdent(s.dialect, t.table) + " (" + strings.Join(idents, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(vals)-1) + ")"
			if _, err := s.db.NewRaw(q, vals...).Exec(ctx); err != nil {
				return fmt.Errorf("models: restore %s %d (%s): %w", k, id, t.table, mapErr(err))
			}
		}
	}
	return nil
}

func decodeRow(ts *tableState, row []json.RawMessage) ([]any, error) {
	if len(row) != len(ts.Columns) {
		return nil, errors.New("models: a revision row of the wrong width")
	}
	out := make([]any, len(row))
	for i, raw := range row {
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		x, err := importValue(ts.Types[i], v)
		if err != nil {
			return nil, fmt.Errorf("models: revision column %s: %w", ts.Columns[i], err)
		}
		out[i] = x
	}
	return out, nil
}

// nullable is v for the query builder, which cannot format a nil interface.
func nullable(v any) any {
	if v == nil {
		return bun.Safe("NULL")
	}
	return v
}

// errRollback ends a transaction that only looked.
var errRollback = errors.New("models: rolled back on purpose")

// revisionByID reads revision revID of record id, or a not-found error.
func (s *Store) revisionByID(ctx context.Context, k Kind, id, revID int64) (*Revision, recordState, error) {
	rev := new(Revision)
	err := s.db.NewSelect().Model(rev).Where("id = ? AND kind = ? AND record_id = ?", revID, k, id).Scan(ctx)
	if err != nil {
		if errors.Is(mapErr(err), ErrNotFound) {
			return nil, nil, &NotFoundError{Kind: KindRevision, Ref: ByID(revID)}
		}
		return nil, nil, mapErr(err)
	}
	var st recordState
	if err := json.Unmarshal([]byte(rev.Snapshot), &st); err != nil {
		return nil, nil, fmt.Errorf("models: revision %d: %w", revID, err)
	}
	return rev, st, nil
}

// postOf reads the post columns of record id of kind k; forUpdate locks
// the row until the transaction ends (MySQL).
func (s *Store) postOf(ctx context.Context, k Kind, id int64, forUpdate bool) (*Post, error) {
	p := new(Post)
	q := s.db.NewSelect().Model(p).ModelTableExpr(quoteIdent(s.dialect, revisionTables[k][0].table)+" AS post").Where("post.id = ?", id)
	if forUpdate {
		q = s.forUpdate(q)
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(mapErr(err), ErrNotFound) {
			return nil, &NotFoundError{Kind: k, Ref: ByID(id)}
		}
		return nil, mapErr(err)
	}
	return p, nil
}

// mayEditRecord resolves ref and checks that u may edit the record: who
// may edit a record may read and restore its revisions (WordPress's
// edit_post on the parent).
func (s *Store) mayEditRecord(ctx context.Context, u *User, k Kind, ref Ref) (int64, error) {
	if _, ok := revisionTables[k]; !ok {
		return 0, fmt.Errorf("models: %s has no revisions", k)
	}
	id, err := s.target(ctx, u, ActEdit, k, ref)
	if err != nil {
		return 0, err
	}
	p, err := s.postOf(ctx, k, id, false)
	if err != nil {
		return 0, err
	}
	return id, authorize(u, ActEdit, p.subject(k))
}

// Revisions lists the revisions of the record named by ref, newest first,
// without their snapshots, if u may edit the record.
func (s *Store) Revisions(ctx context.Context, u *User, k Kind, ref Ref) (int64, []Revision, error) {
	id, err := s.mayEditRecord(ctx, u, k, ref)
	if err != nil {
		return 0, nil, err
	}
	var revs []Revision
	if err := s.db.NewSelect().Model(&revs).ExcludeColumn("snapshot").Where("kind = ? AND record_id = ?", k, id).
		OrderExpr("id DESC").Scan(ctx); err != nil {
		return 0, nil, fmt.Errorf("models: revisions of %s %d: %w", k, id, mapErr(err))
	}
	return id, revs, nil
}

// AtRevision shows the record named by ref as revision revID left it:
// inside a transaction that is rolled back, the revision is applied and
// read reads the record. u must be allowed to edit the record.
func (s *Store) AtRevision(ctx context.Context, u *User, k Kind, ref Ref, revID int64, read func(tx *Store, id int64) error) (*Revision, error) {
	id, err := s.mayEditRecord(ctx, u, k, ref)
	if err != nil {
		return nil, err
	}
	var rev *Revision
	err = s.RunInTx(ctx, func(tx *Store) error {
		r, st, err := tx.revisionByID(ctx, k, id, revID)
		if err != nil {
			return err
		}
		rev = r
		p, err := tx.postOf(ctx, k, id, false)
		if err != nil {
			return err
		}
		if err := tx.restoreState(ctx, Console, k, id, p.Status, st); err != nil {
			return err
		}
		if err := read(tx, id); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		return nil, err
	}
	rev.Snapshot = ""
	return rev, nil
}

// RestoreRevision writes revision revID back to the record named by ref as
// an update by u (who must be allowed to edit it; a status u may not set
// is scaled back as in any update). The state it replaces is kept as a
// revision. Term counts and the links' copies follow. It returns the id.
func (s *Store) RestoreRevision(ctx context.Context, u *User, k Kind, ref Ref, revID int64) (int64, error) {
	if _, ok := revisionTables[k]; !ok {
		return 0, fmt.Errorf("models: %s has no revisions", k)
	}
	lock := func(ctx context.Context, tx *Store, id int64) (*Post, error) { return tx.postOf(ctx, k, id, true) }
	post := func(p *Post) *Post { return p }
	return changePost(ctx, s, u, ActEdit, k, ref, lock, post, func(tx *Store, _ *Post, p *Post) error {
		id := p.ID
		_, st, err := tx.revisionByID(ctx, k, id, revID)
		if err != nil {
			return err
		}
		snap, err := tx.snapshotFor(ctx, k, id)
		if err != nil {
			return err
		}
		if err := tx.restoreState(ctx, u, k, id, p.Status, st); err != nil {
			return err
		}
		return tx.keepRevision(ctx, k, id, u, snap)
	})
}

// restoreState applies a kept state to record id (whose status is now
// status) and, for an event, moves its terms' counts and the links' copies
// along.
func (s *Store) restoreState(ctx context.Context, u *User, k Kind, id int64, status string, st recordState) error {
	if k != KindEvent {
		return s.applyState(ctx, u, k, id, st)
	}
	before, err := s.eventTermCounts(ctx, id, status)
	if err != nil {
		return err
	}
	if err := s.applyState(ctx, u, k, id, st); err != nil {
		return err
	}
	if err := s.fileEvents(ctx, []int64{id}); err != nil { // the restored links
		return err
	}
	e, err := s.rawEvent(ctx, id, false)
	if err != nil {
		return err
	}
	after, err := s.eventTermCounts(ctx, id, e.Status)
	if err != nil {
		return err
	}
	if len(after.terms) > 0 {
		if err := s.copyEventToTerms(ctx, e, true); err != nil {
			return err
		}
	}
	if err := s.adjustTermCounts(ctx, before, after); err != nil {
		return err
	}
	switch {
	case e.IsSeries() && e.Recurrence != nil: // the restored rule and content reach the occurrences
		if err := s.mayEditSeries(ctx, u, id); err != nil {
			return err
		}
		return s.syncSeries(ctx, id, true, s.site.Horizon())
	case e.IsSeries(): // a revision from before it was a series: a single event again
		return s.endSeries(ctx, id)
	case e.IsOccurrence(): // restored on its own: an exception
		_, err := s.db.NewUpdate().TableExpr("events").Set("is_exception = ?", true).Set("recurrence = NULL").Where("id = ?", id).Exec(ctx)
		return mapErr(err)
	}
	if e.Recurrence != nil { // a single event restored to a revision of when it was a series
		_, err := s.db.NewUpdate().TableExpr("events").Set("recurrence = NULL").Where("id = ?", id).Exec(ctx)
		return mapErr(err)
	}
	return nil
}

// EventAtRevision is event ref as revision revID left it, read in lang.
func (s *Store) EventAtRevision(ctx context.Context, u *User, ref Ref, revID int64, lang string) (*Event, *Revision, error) {
	var e *Event
	rev, err := s.AtRevision(ctx, u, KindEvent, ref, revID, func(tx *Store, id int64) error {
		var err error
		e, err = tx.readEvent(ctx, u, id, lang)
		return err
	})
	return e, rev, err
}

// RestoreEventRevision restores revision revID of event ref (see
// RestoreRevision) and returns the event read in lang.
func (s *Store) RestoreEventRevision(ctx context.Context, u *User, ref Ref, revID int64, lang string) (*Event, error) {
	id, err := s.RestoreRevision(ctx, u, KindEvent, ref, revID)
	if err != nil {
		return nil, err
	}
	return s.readEvent(ctx, u, id, lang)
}

// AtRevision is the record ref as revision revID left it, read in lang.
func (l Linked[T, In]) AtRevision(ctx context.Context, u *User, ref Ref, revID int64, lang string) (*T, *Revision, error) {
	var v *T
	rev, err := l.s.AtRevision(ctx, u, l.k.spec.kind, ref, revID, func(tx *Store, id int64) error {
		var err error
		v, err = l.k.read(ctx, tx, id, lang)
		return err
	})
	return v, rev, err
}

// RestoreRevision restores revision revID of record ref and returns the
// record read in lang.
func (l Linked[T, In]) RestoreRevision(ctx context.Context, u *User, ref Ref, revID int64, lang string) (*T, error) {
	id, err := l.s.RestoreRevision(ctx, u, l.k.spec.kind, ref, revID)
	if err != nil {
		return nil, err
	}
	return l.k.read(ctx, l.s, id, lang)
}

// Revisions lists the revisions of record ref, newest first.
func (l Linked[T, In]) Revisions(ctx context.Context, u *User, ref Ref) (int64, []Revision, error) {
	return l.s.Revisions(ctx, u, l.k.spec.kind, ref)
}

// CheckEdit says whether u may edit the event, venue or organizer named by
// ref (nil, or the refusal or not-found error an edit would get), for the
// screens that only lead to an edit: the admin's edit form, its
// translation forms and its revisions.
func (s *Store) CheckEdit(ctx context.Context, u *User, k Kind, ref Ref) error {
	_, err := s.mayEditRecord(ctx, u, k, ref)
	return err
}
