package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/uptrace/bun"
)

// ErrSiteNotEmpty is returned by LoadSite when the database already holds
// records: a site export is loaded into a new, empty database only, so that
// its ids stay what the API gave out.
var ErrSiteNotEmpty = errors.New("the database is not empty")

// loadBatchRows and loadBatchBytes bound one INSERT of LoadSite.
const (
	loadBatchRows  = 500
	loadBatchBytes = 1 << 20
)

// LoadSite reads a site export (see DumpSite) into this database, which
// must be migrated and empty, in one transaction: on any error nothing is
// written (and no image file is left in the media directory).
func (db *DB) LoadSite(ctx context.Context, r io.Reader) (*SiteLoadReport, error) {
	var rep *SiteLoadReport
	var written []string // media directories made, removed when the load fails
	err := db.Bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		s := &Store{db: tx, dialect: db.dialect, site: db.site, media: db.media, searchMode: db.searchMode}
		l := &siteLoader{s: s, dec: json.NewDecoder(r), written: &written}
		l.dec.UseNumber()
		var err error
		if rep, err = l.load(ctx); err != nil {
			return err
		}
		if err := s.ensureSettingsRow(ctx); err != nil { // an export made before the settings
			return err
		}
		// Text is stored composed, whatever the export holds.
		if rep.Collisions, err = s.NormalizeText(ctx); err != nil {
			return err
		}
		if err := s.fileAllEvents(ctx); err != nil { // derived, not exported
			return err
		}
		return s.indexMarked(ctx) // the search index, derived too
	})
	if err != nil {
		for _, d := range written {
			_ = os.RemoveAll(d)
		}
		return nil, err
	}
	return rep, nil
}

type siteLoader struct {
	s       *Store
	dec     *json.Decoder
	written *[]string
	tables  []string // the target's tables, in dump order
}

// badExport is the error for a file that is not a well-formed export.
func badExport(format string, args ...any) error {
	return fmt.Errorf("not a valid Kalends site export: "+format, args...)
}

func (l *siteLoader) delim(want json.Delim) error {
	tok, err := l.dec.Token()
	if err != nil {
		return badExport("%v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return badExport("expected %q, found %v", want, tok)
	}
	return nil
}

func (l *siteLoader) key() (string, error) {
	tok, err := l.dec.Token()
	if err != nil {
		return "", badExport("%v", err)
	}
	k, ok := tok.(string)
	if !ok {
		return "", badExport("expected a key, found %v", tok)
	}
	return k, nil
}

func (l *siteLoader) load(ctx context.Context) (*SiteLoadReport, error) {
	var err error
	if l.tables, err = l.s.siteTables(ctx); err != nil {
		return nil, err
	}
	if err := l.checkEmpty(ctx); err != nil {
		return nil, err
	}
	ours, err := l.s.lastMigration(ctx)
	if err != nil {
		return nil, err
	}
	if err := l.delim('{'); err != nil {
		return nil, err
	}
	rep := &SiteLoadReport{}
	sawFormat := false
	for l.dec.More() {
		k, err := l.key()
		if err != nil {
			return nil, err
		}
		switch k {
		case "format", "version", "migration":
			var v any
			if err := l.dec.Decode(&v); err != nil {
				return nil, badExport("%s: %v", k, err)
			}
			if err := checkHeader(k, v, ours); err != nil {
				return nil, err
			}
			sawFormat = sawFormat || k == "format"
		case "tables":
			if !sawFormat {
				return nil, badExport(`"format" must come first`)
			}
			if err := l.delim('['); err != nil {
				return nil, err
			}
			seen := map[string]bool{}
			for l.dec.More() {
				tc, err := l.table(ctx, seen)
				if err != nil {
					return nil, err
				}
				rep.Tables = append(rep.Tables, tc)
			}
			if err := l.delim(']'); err != nil {
				return nil, err
			}
		default: // exported_at, dialect and anything a later version adds
			var skip json.RawMessage
			if err := l.dec.Decode(&skip); err != nil {
				return nil, badExport("%s: %v", k, err)
			}
		}
	}
	if err := l.delim('}'); err != nil {
		return nil, err
	}
	if !sawFormat {
		return nil, badExport(`no "format"`)
	}
	if _, err := l.dec.Token(); !errors.Is(err, io.EOF) {
		return nil, badExport("data after the end of the document")
	}
	return rep, nil
}

func checkHeader(k string, v any, ours string) error {
	switch k {
	case "format":
		if v != SiteExportFormat {
			return badExport("format is %v, want %q", v, SiteExportFormat)
		}
	case "version":
		n, ok := v.(json.Number)
		if i, err := n.Int64(); !ok || err != nil || i < 1 || i > SiteExportVersion {
			return fmt.Errorf("site export version %v: this Kalends reads version %d", v, SiteExportVersion)
		}
	case "migration":
		m, ok := v.(string)
		if !ok {
			return badExport("migration is not a string")
		}
		if m > ours {
			return fmt.Errorf("the export was made by a newer Kalends (schema %s; this one has %s): load it with that version or a later one", m, ours)
		}
	}
	return nil
}

// checkEmpty refuses a database that holds any row of a site table.
func (l *siteLoader) checkEmpty(ctx context.Context) error {
	var full []string
	for _, t := range l.tables {
		if t == "site_settings" { // its row is made by the migration
			if err := l.s.clearUnsavedSettings(ctx); err != nil {
				return err
			}
		}
		n, err := l.s.db.NewSelect().TableExpr(quoteIdent(l.s.dialect, t)).Limit(1).Count(ctx)
		if err != nil {
			return fmt.Errorf("models: count %s: %w", t, err)
		}
		if n > 0 {
			full = append(full, t)
		}
	}
	if len(full) > 0 {
		return fmt.Errorf("%w (%s hold rows): load a site export into a new database", ErrSiteNotEmpty, strings.Join(full, ", "))
	}
	return nil
}

// table reads one table object and inserts its rows.
func (l *siteLoader) table(ctx context.Context, seen map[string]bool) (TableCount, error) {
	var tc TableCount
	if err := l.delim('{'); err != nil {
		return tc, err
	}
	var cols, kinds []string
	var target []string
	for l.dec.More() {
		k, err := l.key()
		if err != nil {
			return tc, err
		}
		switch k {
		case "name":
			if err := l.dec.Decode(&tc.Name); err != nil {
				return tc, badExport("table name: %v", err)
			}
			if !slices.Contains(l.tables, tc.Name) {
				return tc, fmt.Errorf("the export has a table %q that this Kalends does not have", tc.Name)
			}
			if seen[tc.Name] {
				return tc, badExport("table %q twice", tc.Name)
			}
			seen[tc.Name] = true
			if target, err = l.columnsOf(ctx, tc.Name); err != nil {
				return tc, err
			}
		case "columns":
			if err := l.dec.Decode(&cols); err != nil {
				return tc, badExport("columns of %s: %v", tc.Name, err)
			}
		case "types":
			if err := l.dec.Decode(&kinds); err != nil {
				return tc, badExport("types of %s: %v", tc.Name, err)
			}
		case "rows":
			if tc.Name == "" || len(cols) == 0 || len(cols) != len(kinds) {
				return tc, badExport(`a table needs "name", "columns" and "types" (as many) before "rows"`)
			}
			for _, c := range cols {
				if !slices.Contains(target, c) {
					return tc, fmt.Errorf("the export has a column %s.%s that this Kalends does not have", tc.Name, c)
				}
			}
			n, err := l.rows(ctx, tc.Name, cols, kinds)
			if err != nil {
				return tc, err
			}
			tc.Rows = n
		default:
			var skip json.RawMessage
			if err := l.dec.Decode(&skip); err != nil {
				return tc, badExport("%s: %v", k, err)
			}
		}
	}
	return tc, l.delim('}')
}

func (l *siteLoader) columnsOf(ctx context.Context, table string) ([]string, error) {
	//nolint:gosec // G202: a table name from the schema, quoted.
	rows, err := l.s.db.QueryContext(ctx, "SELECT * FROM "+quoteIdent(l.s.dialect, table)+" WHERE 1 = 0")
	if err != nil {
		return nil, fmt.Errorf("models: columns of %s: %w", table, err)
	}
	defer func() { _ = rows.Close() }()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	return cols, rows.Err()
}

// rows reads the rows array of a table and inserts it in batches.
func (l *siteLoader) rows(ctx context.Context, table string, cols, kinds []string) (int, error) {
	if err := l.delim('['); err != nil {
		return 0, err
	}
	idents := make([]string, len(cols))
	for i, c := range cols {
		idents[i] = quoteIdent(l.s.dialect, c)
	}
	head := "INSERT INTO " + quoteIdent(l.s.dialect, table) + " (" + strings.Join(idents, ", ") + ") VALUES "
	var batch []any
	size, n := 0, 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		marks := strings.TrimSuffix(strings.Repeat("(?), ", len(batch)), ", ")
		if _, err := l.s.db.NewRaw(head+marks, batch...).Exec(ctx); err != nil {
			return fmt.Errorf("models: load %s: %w", table, err)
		}
		batch, size = batch[:0], 0
		return nil
	}
	for l.dec.More() {
		var raw []any
		if err := l.dec.Decode(&raw); err != nil {
			return n, badExport("%s row %d: %v", table, n+1, err)
		}
		if len(raw) != len(cols) {
			return n, badExport("%s row %d has %d values for %d columns", table, n+1, len(raw), len(cols))
		}
		vals := make([]any, len(raw))
		for i, v := range raw {
			x, err := importValue(kinds[i], v)
			if err != nil {
				return n, badExport("%s row %d, %s: %v", table, n+1, cols[i], err)
			}
			vals[i] = nullable(x)
			switch y := x.(type) {
			case []byte:
				size += len(y)
			case string:
				size += len(y)
			default:
				size += 8
			}
		}
		if table == "media_files" && l.s.media.Dir != "" {
			if err := l.mediaToDir(ctx, cols, vals); err != nil {
				return n, err
			}
		}
		batch = append(batch, bun.List(vals))
		n++
		if len(batch) >= loadBatchRows || size >= loadBatchBytes {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := flush(); err != nil {
		return n, err
	}
	return n, l.delim(']')
}

// mediaToDir writes an image size's bytes into the media directory (the
// media row came before) and keeps none in the database.
func (l *siteLoader) mediaToDir(ctx context.Context, cols []string, vals []any) error {
	at := func(name string) int { return slices.Index(cols, name) }
	di, mi, si := at("data"), at("media_id"), at("size")
	if di < 0 || mi < 0 || si < 0 {
		return nil
	}
	data, ok := vals[di].([]byte)
	if !ok {
		return nil
	}
	id, _ := vals[mi].(int64)
	size, _ := vals[si].(string)
	if strings.ContainsAny(size, `/\.`) || size == "" {
		return badExport("media size %q", size)
	}
	m := &Media{ID: id}
	if err := l.s.db.NewSelect().Model(m).Column("ext").WherePK().Scan(ctx); err != nil {
		return fmt.Errorf("models: load media %d: %w", id, mapErr(err))
	}
	if m.Ext == "" || strings.Trim(m.Ext, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return badExport("media %d has the extension %q", id, m.Ext)
	}
	dir := mediaDir(l.s.media.Dir, id)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		*l.written = append(*l.written, dir)
	}
	if err := writeMediaFile(l.s.media.Dir, m, size, data); err != nil {
		return err
	}
	vals[di] = bun.Safe("NULL")
	return nil
}
