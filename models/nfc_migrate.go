package models

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
	"golang.org/x/text/unicode/norm"
)

// The rows written before text was stored in NFC are composed once, by a
// migration written in Go (SQL cannot compose): textNFCMigration, applied
// in its place among the SQL migrations and recorded in bun_migrations like
// them, so it runs once per database. It is NormalizeText, which a site
// load runs too (an export may come from anywhere).

// textNFCMigration is the migration's id and name (bun's NAME_COMMENT).
const (
	textNFCMigration        = "20261129000100"
	textNFCMigrationComment = "text_nfc"
)

// nfcBatch is how many rows NormalizeText reads at a time (without a
// lock), and the most it rewrites in one transaction (re-read locked, on
// MySQL): a long table is composed in many short transactions, so writers
// wait for a moment at most.
const nfcBatch = 500

// TextCollision is a record whose slug (or, for a category or tag, name)
// had to change when text was composed: composed, it became the slug (the
// name at its level) of another record of its kind. The older record
// (created first; the lower id when created in the same second) keeps the
// composed value; the other gets the next free suffix, as a new record of
// that title would (café-2; for a name, "Café (2)").
type TextCollision struct {
	Kind   Kind
	ID     int64
	Field  string // "slug" or "name"
	Old    string // as it was stored
	New    string
	KeptBy int64 // the record that keeps the composed value
}

// addTextMigration adds the Go migration that composes stored text to ms;
// the collisions it resolves are appended to *report.
func (db *DB) addTextMigration(ms *migrate.Migrations, report *[]TextCollision) {
	ms.Add(migrate.Migration{
		Name:    textNFCMigration,
		Comment: textNFCMigrationComment,
		Up: func(ctx context.Context, _ *migrate.Migrator, _ *migrate.Migration) error {
			c, err := db.NormalizeText(ctx)
			*report = append(*report, c...)
			return err
		},
	})
}

// NormalizeText composes (NFC) the text of every row that is not composed
// yet: the columns of textTables, read in batches of nfcBatch rows, each
// batch that holds decomposed text rewritten in a short transaction that
// locks what it rewrites. Slugs that become equal within a kind
// (terms: within a taxonomy), and term names that become equal at one
// level, are told apart (see TextCollision) and returned. It changes
// nothing on text already composed, so it may run again at any time; it
// does not count as an edit (no modified time, no revision).
func (s *Store) NormalizeText(ctx context.Context) ([]TextCollision, error) {
	var out []TextCollision
	c, err := s.normalizeTermNames(ctx)
	if err != nil {
		return out, err
	}
	out = append(out, c...)
	for _, t := range textTables {
		if !t.slug {
			continue
		}
		c, err := s.normalizeSlugs(ctx, t.table)
		out = append(out, c...)
		if err != nil {
			return out, err
		}
	}
	for _, t := range textTables {
		if err := s.normalizeColumns(ctx, t); err != nil {
			return out, err
		}
	}
	return out, nil
}

// forUpdateSQL is the locking clause of a read that is rewritten in the
// same transaction (MySQL; SQLite's write transaction excludes others).
func (s *Store) forUpdateSQL() string {
	if s.dialect == MySQL {
		return " FOR UPDATE"
	}
	return ""
}

// older orders records by creation, then id.
func older(aAt, bAt time.Time, aID, bID int64) int {
	if c := aAt.Compare(bAt); c != 0 {
		return c
	}
	return cmp.Compare(aID, bID)
}

// slugRow is a record's slug as a slug table stores it.
type slugRow struct {
	ID        int64     `bun:"id"`
	Slug      string    `bun:"slug"`
	CreatedAt time.Time `bun:"created_at"`
	Taxonomy  string    `bun:"taxonomy"` // terms only
}

// slugGroup is the records whose slugs compose to one slug within a kind.
type slugGroup struct {
	kind   Kind
	target string
	rows   []slugRow // stored decomposed
}

// normalizeSlugs composes the slugs of table (a slug table), telling apart
// those that become equal.
func (s *Store) normalizeSlugs(ctx context.Context, table string) ([]TextCollision, error) {
	cols := "id, slug, created_at"
	if table == "terms" {
		cols += ", taxonomy"
	}
	// The slugs not composed, read in id order: a read of ids and slugs
	// only, whatever the size of the table.
	groups := map[Kind]map[string]*slugGroup{}
	var order []*slugGroup
	for last := int64(0); ; {
		var rows []slugRow
		//nolint:gosec // G202: a table name of textTables.
		q := "SELECT " + cols + " FROM " + table + " WHERE id > ? ORDER BY id LIMIT ?"
		if err := s.db.NewRaw(q, last, 5*nfcBatch).Scan(ctx, &rows); err != nil {
			return nil, fmt.Errorf("models: read %s slugs: %w", table, mapErr(err))
		}
		for _, r := range rows {
			if norm.NFC.IsNormalString(r.Slug) {
				continue
			}
			kind := slugKind(table, r.Taxonomy)
			target := norm.NFC.String(r.Slug)
			if groups[kind] == nil {
				groups[kind] = map[string]*slugGroup{}
			}
			g := groups[kind][target]
			if g == nil {
				g = &slugGroup{kind: kind, target: target}
				groups[kind][target] = g
				order = append(order, g)
			}
			g.rows = append(g.rows, r)
		}
		if len(rows) < 5*nfcBatch {
			break
		}
		last = rows[len(rows)-1].ID
	}
	var out []TextCollision
	// Slugs given out here, and the composed slugs still to be written: a
	// suffix takes neither.
	given := map[Kind]map[string]bool{}
	for kind, gs := range groups {
		given[kind] = map[string]bool{}
		for target := range gs {
			given[kind][target] = true
		}
	}
	for start := 0; start < len(order); start += nfcBatch {
		chunk := order[start:min(start+nfcBatch, len(order))]
		var found []TextCollision
		err := s.RunInTx(ctx, func(tx *Store) error {
			var err error
			found, err = tx.composeSlugs(ctx, table, chunk, given)
			return err
		})
		if err != nil {
			return out, fmt.Errorf("models: compose %s slugs: %w", table, err)
		}
		out = append(out, found...)
	}
	return out, nil
}

// slugKind is the kind of a row of a slug table.
func slugKind(table, taxonomy string) Kind {
	switch table {
	case "venues":
		return KindVenue
	case "organizers":
		return KindOrganizer
	case "terms":
		return TaxonomyKind(taxonomy)
	}
	return KindEvent
}

// composeSlugs writes the composed slugs of a chunk of groups, inside the
// caller's transaction, in a fixed number of statements but for
// collisions. Of a group's records and the record that already has the
// composed slug, the oldest keeps it; each other one gets the first free
// suffix that is neither taken nor in given (which it joins).
func (s *Store) composeSlugs(ctx context.Context, table string, chunk []*slugGroup, given map[Kind]map[string]bool) ([]TextCollision, error) {
	cols := "id, slug, created_at"
	if table == "terms" {
		cols += ", taxonomy"
	}
	var ids []int64
	targets := make([]string, 0, len(chunk))
	for _, g := range chunk {
		targets = append(targets, g.target)
		for _, r := range g.rows {
			ids = append(ids, r.ID)
		}
	}
	// The records of the chunk as they are now (locked), and those that
	// hold a composed slug already.
	var now, holders []slugRow
	in, args := inList(ids)
	//nolint:gosec // G202: a table name of textTables; the rest placeholders.
	if err := s.db.NewRaw("SELECT "+cols+" FROM "+table+" WHERE id IN ("+in+")"+s.forUpdateSQL(), args...).Scan(ctx, &now); err != nil {
		return nil, mapErr(err)
	}
	//nolint:gosec // G202: a table name of textTables.
	if err := s.db.NewRaw("SELECT "+cols+" FROM "+table+" WHERE slug IN (?)"+s.forUpdateSQL(), bun.List(targets)).Scan(ctx, &holders); err != nil {
		return nil, mapErr(err)
	}
	type key struct {
		kind   Kind
		target string
	}
	claims := map[key][]slugRow{}
	for _, r := range holders {
		k := key{slugKind(table, r.Taxonomy), r.Slug}
		claims[k] = append(claims[k], r)
	}
	for _, r := range now {
		if norm.NFC.IsNormalString(r.Slug) {
			continue // written meanwhile: left as it is now
		}
		k := key{slugKind(table, r.Taxonomy), norm.NFC.String(r.Slug)}
		claims[k] = append(claims[k], r)
	}
	var out []TextCollision
	simple := map[int64]string{} // records that take their composed slug, unchallenged
	for _, g := range chunk {
		claim := claims[key{g.kind, g.target}]
		if len(claim) == 0 {
			continue
		}
		if len(claim) == 1 {
			if claim[0].Slug != g.target {
				simple[claim[0].ID] = g.target
			}
			continue
		}
		slices.SortFunc(claim, func(a, b slugRow) int { return older(a.CreatedAt, b.CreatedAt, a.ID, b.ID) })
		keeper := claim[0]
		for _, r := range claim[1:] {
			taken, err := s.takenSlugs(ctx, g.kind, g.target, 0)
			if err != nil {
				return nil, err
			}
			slug := g.target
			for n := 2; taken[slug] || given[g.kind][slug]; n++ {
				slug = suffixed(g.target, n)
			}
			given[g.kind][slug] = true
			if err := s.setSlugs(ctx, table, map[int64]string{r.ID: slug}); err != nil {
				return nil, err
			}
			out = append(out, TextCollision{Kind: g.kind, ID: r.ID, Field: "slug", Old: r.Slug, New: slug, KeptBy: keeper.ID})
		}
		if keeper.Slug != g.target {
			if err := s.setSlugs(ctx, table, map[int64]string{keeper.ID: g.target}); err != nil {
				return nil, err
			}
		}
	}
	return out, s.setSlugs(ctx, table, simple)
}

// setSlugs gives records of table new slugs, in one statement.
func (s *Store) setSlugs(ctx context.Context, table string, slugs map[int64]string) error {
	if len(slugs) == 0 {
		return nil
	}
	cells := make([]cellUpdate, 0, len(slugs))
	for id, slug := range slugs {
		cells = append(cells, cellUpdate{id: id, col: "slug", val: slug})
	}
	q, args := caseUpdate(textTable{table: table, key: "id"}, cells)
	if _, err := s.db.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("models: set %s slugs: %w", table, mapErr(err))
	}
	return nil
}

// cellUpdate is a new value of one column of one row.
type cellUpdate struct {
	id       int64
	lang     string // the row's language, in a translation table
	col, val string
}

// caseUpdate is one UPDATE of t's table that gives each cell its value,
// leaving the other rows and columns as they are.
func caseUpdate(t textTable, cells []cellUpdate) (string, []any) {
	byCol := map[string][]cellUpdate{}
	var colNames []string
	ids := map[int64]bool{}
	for _, c := range cells {
		if byCol[c.col] == nil {
			colNames = append(colNames, c.col)
		}
		byCol[c.col] = append(byCol[c.col], c)
		ids[c.id] = true
	}
	slices.Sort(colNames)
	var sets []string
	var args []any
	for _, col := range colNames {
		var b strings.Builder
		b.WriteString(col + " = CASE")
		for _, c := range byCol[col] {
			if t.lang {
				b.WriteString(" WHEN " + t.key + " = ? AND lang = ? THEN ?")
				args = append(args, c.id, c.lang, c.val)
			} else {
				b.WriteString(" WHEN " + t.key + " = ? THEN ?")
				args = append(args, c.id, c.val)
			}
		}
		b.WriteString(" ELSE " + col + " END")
		sets = append(sets, b.String())
	}
	list := make([]int64, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	slices.Sort(list)
	//nolint:gosec // G202: names of textTables; values are placeholders.
	q := "UPDATE " + t.table + " SET " + strings.Join(sets, ", ") + " WHERE " + t.key + " IN (?)"
	return q, append(args, bun.List(list))
}

// termNameRow is a term's name as stored.
type termNameRow struct {
	ID        int64     `bun:"id"`
	Taxonomy  string    `bun:"taxonomy"`
	ParentID  int64     `bun:"parent_id"`
	Name      string    `bun:"name"`
	NameKey   string    `bun:"name_key"`
	CreatedAt time.Time `bun:"created_at"`
}

// normalizeTermNames composes the names of categories and tags (and their
// keys, which are unique at each level): a name that becomes another's at
// its level is told apart with " (2)", " (3)", … The terms are few (a
// calendar has tens or hundreds), so they are read whole, in one
// transaction.
func (s *Store) normalizeTermNames(ctx context.Context) ([]TextCollision, error) {
	var out []TextCollision
	err := s.RunInTx(ctx, func(tx *Store) error {
		out = out[:0]
		var rows []termNameRow
		q := "SELECT id, taxonomy, parent_id, name, name_key, created_at FROM terms ORDER BY id" + tx.forUpdateSQL()
		if err := tx.db.NewRaw(q).Scan(ctx, &rows); err != nil {
			return mapErr(err)
		}
		type level struct {
			taxonomy string
			parent   int64
		}
		type claim struct {
			level level
			key   string
		}
		keys := map[claim][]termNameRow{} // by composed key, every term
		var changed bool
		for _, r := range rows {
			c := claim{level{r.Taxonomy, r.ParentID}, norm.NFC.String(r.NameKey)}
			keys[c] = append(keys[c], r)
			changed = changed || !norm.NFC.IsNormalString(r.Name) || !norm.NFC.IsNormalString(r.NameKey)
		}
		if !changed {
			return nil
		}
		taken := map[claim]bool{}
		for c := range keys {
			taken[c] = true
		}
		type write struct {
			row       termNameRow
			name, key string
		}
		var renames, composes []write
		for c, rs := range keys {
			slices.SortFunc(rs, func(a, b termNameRow) int { return older(a.CreatedAt, b.CreatedAt, a.ID, b.ID) })
			keeper := rs[0]
			if keeper.Name != norm.NFC.String(keeper.Name) || keeper.NameKey != c.key {
				composes = append(composes, write{keeper, norm.NFC.String(keeper.Name), c.key})
			}
			for _, r := range rs[1:] {
				base := norm.NFC.String(r.Name)
				name, key := base, c.key
				for n := 2; taken[claim{c.level, key}]; n++ {
					name = fmt.Sprintf("%s (%d)", base, n)
					key = NameKey(name)
				}
				taken[claim{c.level, key}] = true
				renames = append(renames, write{r, name, key})
				out = append(out, TextCollision{Kind: TaxonomyKind(r.Taxonomy), ID: r.ID, Field: "name", Old: r.Name, New: name, KeptBy: keeper.ID})
			}
		}
		// The renamed first, so the keepers' keys are free when they are
		// written.
		for _, w := range append(renames, composes...) {
			if _, err := tx.db.ExecContext(ctx, "UPDATE terms SET name = ?, name_key = ? WHERE id = ?", w.name, w.key, w.row.ID); err != nil {
				return fmt.Errorf("models: compose the name of term %d: %w", w.row.ID, mapErr(err))
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b TextCollision) int { return cmp.Compare(a.ID, b.ID) })
	return out, err
}

// normalizeColumns composes the text columns of table, but the slugs and
// term names (normalizeSlugs and normalizeTermNames tell those apart). It
// reads the table in key order, nfcBatch rows at a time, without locking;
// a batch with text to compose is read again, locked, and rewritten in one
// statement, in a transaction of its own.
func (s *Store) normalizeColumns(ctx context.Context, t textTable) error {
	var cols []textColumn
	for _, c := range t.cols {
		if c.name == "slug" || (t.table == "terms" && (c.name == "name" || c.name == "name_key")) {
			continue
		}
		cols = append(cols, c)
	}
	var last textRow
	for {
		where, args := t.key+" > ?", []any{last.id}
		if t.lang {
			where, args = "("+t.key+" > ? OR ("+t.key+" = ? AND lang > ?))", []any{last.id, last.id, last.lang}
		}
		rows, err := s.textRows(ctx, t, cols, where, args, false)
		if err != nil {
			return fmt.Errorf("models: read the text of %s: %w", t.table, err)
		}
		var ids []int64
		for _, r := range rows {
			if len(r.cells(cols)) > 0 {
				ids = append(ids, r.id)
			}
		}
		if len(ids) > 0 {
			err := s.RunInTx(ctx, func(tx *Store) error {
				in, args := inList(ids)
				locked, err := tx.textRows(ctx, t, cols, t.key+" IN ("+in+")", args, true)
				if err != nil {
					return err
				}
				var cells []cellUpdate
				for _, r := range locked {
					cells = append(cells, r.cells(cols)...)
				}
				if len(cells) == 0 {
					return nil
				}
				q, qargs := caseUpdate(t, cells)
				_, err = tx.db.ExecContext(ctx, q, qargs...)
				return mapErr(err)
			})
			if err != nil {
				return fmt.Errorf("models: compose the text of %s: %w", t.table, err)
			}
		}
		if len(rows) < nfcBatch {
			return nil
		}
		last = rows[len(rows)-1]
	}
}

// textRow is a row's key and text columns.
type textRow struct {
	id   int64
	lang string
	vals []sql.NullString
}

// cells are the new values of the row's columns that are not composed.
func (r textRow) cells(cols []textColumn) []cellUpdate {
	var out []cellUpdate
	for i, v := range r.vals {
		if v.Valid && !norm.NFC.IsNormalString(v.String) {
			out = append(out, cellUpdate{id: r.id, lang: r.lang, col: cols[i].name, val: cols[i].nfcValue(v.String)})
		}
	}
	return out
}

// textRows reads the key and the cols of the rows of t that where selects,
// in key order: up to nfcBatch of them, or, when lock is set, all of them,
// locked (MySQL).
func (s *Store) textRows(ctx context.Context, t textTable, cols []textColumn, where string, args []any, lock bool) ([]textRow, error) {
	keyCols := t.key
	if t.lang {
		keyCols += ", lang"
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	//nolint:gosec // G202: names of textTables; values are placeholders.
	q := "SELECT " + keyCols + ", " + strings.Join(names, ", ") + " FROM " + t.table + " WHERE " + where + " ORDER BY " + keyCols
	if lock {
		q += s.forUpdateSQL()
	} else {
		q += fmt.Sprintf(" LIMIT %d", nfcBatch)
	}
	rs, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer func() { _ = rs.Close() }()
	var out []textRow
	for rs.Next() {
		r := textRow{vals: make([]sql.NullString, len(cols))}
		dest := []any{&r.id}
		if t.lang {
			dest = append(dest, &r.lang)
		}
		for i := range r.vals {
			dest = append(dest, &r.vals[i])
		}
		if err := rs.Scan(dest...); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rs.Err()
}
