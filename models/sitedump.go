package models

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// A site export is every stored row of a site, table by table, in a
// dialect-neutral JSON document: a SQLite site exported and loaded into
// MariaDB (or back) answers every API request exactly as before, ids,
// authors, dates, translations, links, counts and images included. It is
// what `kalends export --format json` writes and `kalends import FILE.json`
// reads:
//
//	{"format": "kalends-site", "version": 1, "exported_at": "…",
//	 "dialect": "sqlite", "migration": "20261124233001_media_files",
//	 "tables": [{"name": "users", "columns": ["id", …], "types": ["int", …],
//	             "rows": [[1, …], …]}, …]}
//
// A column's type is one of int, float, decimal, text, time (RFC 3339 in
// UTC), bytes (base64) and null values are null. Image bytes are carried
// whatever the media store: a site whose images live in a media directory
// exports them into media_files.data, and a site that keeps them in a
// directory writes them there on import.
//
// Left out are what belongs to one running instance, not to the site:
// sessions (everyone signs in again), sign-in counters and device cookies,
// leases and the cache generation, and the migration bookkeeping.
const (
	SiteExportFormat  = "kalends-site"
	SiteExportVersion = 1
)

// dumpOrder is the order tables are written and loaded in, parents first;
// a table not named here (added by a later migration) follows them.
var dumpOrder = []string{
	"users", "app_passwords", "post_ids",
	"venues", "venue_translations", "organizers", "organizer_translations",
	"terms", "term_translations", "media", "media_files",
	"events", "event_translations", "event_venues", "event_organizers", "event_terms",
}

// dumpSkip are the tables that are not part of a site, or are derived
// from it (LoadSite rebuilds them).
var dumpSkip = map[string]bool{
	"sessions": true, "signin_attempts": true, "signin_devices": true, "leases": true, "cache_generation": true,
	"bun_migrations": true, "bun_migration_locks": true, "kalends_migration_lease": true, "kalends_schema": true, "event_category_ancestors": true,
	"event_day_counts": true, "event_month_counts": true, "event_span": true, "series_spans": true, "series_steps": true,
	"csv_imports": true, "csv_import_chunks": true, // an editor's uploads and their jobs, not the site
	// The change feed belongs to this database: its numbers and cursors
	// mean nothing in another, which starts its own feed as it loads.
	// Webhook endpoints read that feed from a position of it, so they are
	// registered again after a move (README, "Moving a site").
	"change_seq": true, "changes": true, "webhook_endpoints": true, "webhook_deliveries": true,
}

// skipInDump tells whether table n is left out of a dump: dumpSkip, and
// the search index of events with its FTS5 tables (LoadSite refolds it).
func skipInDump(n string) bool { return dumpSkip[n] || strings.HasPrefix(n, "event_search") }

// SiteLoadReport says what LoadSite wrote: the rows of each table, and
// the slugs and names it had to change when it composed the text (an
// export written before text was stored in NFC may hold a slug twice,
// composed and not; see TextCollision).
type SiteLoadReport struct {
	Tables     []TableCount
	Collisions []TextCollision
}

// TableCount is the number of rows loaded into one table.
type TableCount struct {
	Name string
	Rows int
}

// siteTables lists the site's tables in dump order.
func (s *Store) siteTables(ctx context.Context) ([]string, error) {
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
	if s.dialect == MySQL {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'"
	}
	var names []string
	if err := s.db.NewRaw(q).Scan(ctx, &names); err != nil {
		return nil, fmt.Errorf("models: list tables: %w", err)
	}
	var out []string
	for _, n := range dumpOrder {
		if slices.Contains(names, n) && !skipInDump(n) {
			out = append(out, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		if !skipInDump(n) && !slices.Contains(dumpOrder, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// lastMigration is the name of the newest applied migration.
func (s *Store) lastMigration(ctx context.Context) (string, error) {
	var name string
	err := s.db.NewRaw("SELECT name FROM bun_migrations ORDER BY name DESC LIMIT 1").Scan(ctx, &name)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("models: read migrations: %w", err)
	}
	return name, nil
}

// columnKind maps a column's declared type to the export's type names.
func columnKind(dbType string) string {
	t := strings.ToUpper(dbType)
	switch {
	case strings.Contains(t, "INT"), strings.Contains(t, "BOOL"):
		return "int"
	case strings.Contains(t, "BLOB"), strings.Contains(t, "BINARY"):
		return "bytes"
	case strings.Contains(t, "DATE"), strings.Contains(t, "TIME"):
		return "time"
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOAT"), strings.Contains(t, "DOUBLE"):
		return "float"
	case strings.Contains(t, "DEC"), strings.Contains(t, "NUMERIC"):
		return "decimal"
	}
	return "text"
}

// DumpSite writes the whole site to w as one consistent snapshot (a read
// transaction), streaming row by row.
func (db *DB) DumpSite(ctx context.Context, w io.Writer) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.dialect == MySQL {
		opts.Isolation = sql.LevelRepeatableRead
	}
	return db.Bun.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		s := &Store{db: tx, dialect: db.dialect, site: db.site, media: db.media}
		return s.dumpSite(ctx, w)
	})
}

func (s *Store) dumpSite(ctx context.Context, w io.Writer) error {
	tables, err := s.siteTables(ctx)
	if err != nil {
		return err
	}
	mig, err := s.lastMigration(ctx)
	if err != nil {
		return err
	}
	bw := &errWriter{w: w}
	_, _ = fmt.Fprintf(bw, "{\"format\": %q, \"version\": %d, \"exported_at\": %s, \"dialect\": %q, \"migration\": %s,\n\"tables\": [",
		SiteExportFormat, SiteExportVersion, jsonString(Now().Format(time.RFC3339)), string(s.dialect), jsonString(mig))
	for i, t := range tables {
		if i > 0 {
			bw.WriteString(",")
		}
		if err := s.dumpTable(ctx, bw, t); err != nil {
			return err
		}
	}
	bw.WriteString("\n]}\n")
	return bw.err
}

func (s *Store) dumpTable(ctx context.Context, w *errWriter, table string) error {
	pk, err := s.primaryKey(ctx, table)
	if err != nil {
		return err
	}
	q := "SELECT * FROM " + quoteIdent(s.dialect, table)
	if len(pk) > 0 { // the same order on both dialects, so two exports compare
		for i := range pk {
			pk[i] = quoteIdent(s.dialect, pk[i])
		}
		q += " ORDER BY " + strings.Join(pk, ", ")
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("models: export %s: %w", table, err)
	}
	defer func() { _ = rows.Close() }()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	ctypes, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	kinds := make([]string, len(cols))
	for i, ct := range ctypes {
		kinds[i] = columnKind(ct.DatabaseTypeName())
	}
	cj, _ := json.Marshal(cols)
	kj, _ := json.Marshal(kinds)
	_, _ = fmt.Fprintf(w, "\n{\"name\": %s, \"columns\": %s, \"types\": %s, \"rows\": [", jsonString(table), cj, kj)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("models: export %s: %w", table, err)
		}
		if table == "media_files" && s.media.Dir != "" {
			if err := s.mediaBytesFromDir(ctx, cols, vals); err != nil {
				return err
			}
		}
		if n > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n[")
		for i, v := range vals {
			if i > 0 {
				w.WriteString(",")
			}
			b, err := exportValue(kinds[i], v)
			if err != nil {
				return fmt.Errorf("models: export %s.%s: %w", table, cols[i], err)
			}
			_, _ = w.Write(b)
		}
		w.WriteString("]")
		n++
		if w.err != nil {
			return w.err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("models: export %s: %w", table, err)
	}
	w.WriteString("]}")
	return w.err
}

// primaryKey lists the primary key columns of table, in key order.
func (s *Store) primaryKey(ctx context.Context, table string) ([]string, error) {
	var cols []string
	var err error
	if s.dialect == MySQL {
		err = s.db.NewRaw("SELECT column_name FROM information_schema.key_column_usage "+
			"WHERE table_schema = DATABASE() AND table_name = ? AND constraint_name = 'PRIMARY' ORDER BY ordinal_position", table).Scan(ctx, &cols)
	} else {
		err = s.db.NewRaw("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", table).Scan(ctx, &cols)
	}
	if err != nil {
		return nil, fmt.Errorf("models: primary key of %s: %w", table, err)
	}
	return cols, nil
}

// mediaBytesFromDir fills a media_files row's data from the media
// directory when the database holds none.
func (s *Store) mediaBytesFromDir(ctx context.Context, cols []string, vals []any) error {
	at := func(name string) int { return slices.Index(cols, name) }
	di, mi, si := at("data"), at("media_id"), at("size")
	if di < 0 || mi < 0 || si < 0 || (vals[di] != nil && len(asBytes(vals[di])) > 0) {
		return nil
	}
	id, err := toInt(vals[mi])
	if err != nil {
		return err
	}
	var ext string
	if err := s.db.NewRaw("SELECT ext FROM media WHERE id = ?", id).Scan(ctx, &ext); err != nil {
		return fmt.Errorf("models: export media %d: %w", id, err)
	}
	size := string(asBytes(vals[si]))
	//nolint:gosec // G304: the media dir, a numeric id, a size name and an extension from the database.
	data, err := os.ReadFile(filepath.Join(mediaDir(s.media.Dir, id), size+"."+ext))
	if err != nil {
		return fmt.Errorf("models: export media %d (%s): %w", id, size, err)
	}
	vals[di] = data
	return nil
}

func asBytes(v any) []byte {
	switch x := v.(type) {
	case []byte:
		return x
	case string:
		return []byte(x)
	}
	return nil
}

func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		return int64(x), nil
	case []byte, string:
		return strconv.ParseInt(strings.TrimSpace(string(asBytes(x))), 10, 64)
	}
	return 0, fmt.Errorf("not an integer: %T", v)
}

// timeLayouts are the forms a time column can come back in as text.
var timeLayouts = []string{
	time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02",
}

func parseTime(s string) (time.Time, error) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a time: %q", s)
}

// exportValue encodes one column value as JSON.
func exportValue(kind string, v any) ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	switch kind {
	case "int":
		n, err := toInt(v)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, n, 10), nil
	case "float":
		switch x := v.(type) {
		case float64:
			return json.Marshal(x)
		case int64:
			return json.Marshal(x)
		}
		f, err := strconv.ParseFloat(string(asBytes(v)), 64)
		if err != nil {
			return nil, err
		}
		return json.Marshal(f)
	case "time":
		t, ok := v.(time.Time)
		if !ok {
			var err error
			if t, err = parseTime(string(asBytes(v))); err != nil {
				return nil, err
			}
		}
		return json.Marshal(t.UTC().Format(time.RFC3339Nano))
	case "bytes":
		return json.Marshal(base64.StdEncoding.EncodeToString(asBytes(v)))
	}
	switch x := v.(type) {
	case int64:
		return json.Marshal(strconv.FormatInt(x, 10))
	case float64:
		return json.Marshal(strconv.FormatFloat(x, 'f', -1, 64))
	case time.Time:
		return json.Marshal(x.UTC().Format(time.RFC3339Nano))
	}
	b := asBytes(v)
	if b == nil {
		return nil, fmt.Errorf("unexpected value %T", v)
	}
	if !utf8.Valid(b) {
		return nil, errors.New("text that is not UTF-8")
	}
	return json.Marshal(string(b))
}

// importValue decodes one JSON value of the export into what the query
// builder writes for the column.
func importValue(kind string, raw any) (any, error) {
	if raw == nil {
		return nil, nil
	}
	switch kind {
	case "int":
		n, ok := raw.(json.Number)
		if !ok {
			return nil, fmt.Errorf("want an integer, not %T", raw)
		}
		return n.Int64()
	case "float":
		n, ok := raw.(json.Number)
		if !ok {
			return nil, fmt.Errorf("want a number, not %T", raw)
		}
		return n.Float64()
	}
	str, ok := raw.(string)
	if !ok {
		return nil, fmt.Errorf("want a string, not %T", raw)
	}
	switch kind {
	case "time":
		t, err := time.Parse(time.RFC3339Nano, str)
		if err != nil {
			return nil, fmt.Errorf("want an RFC 3339 time, not %q", str)
		}
		return t.UTC(), nil
	case "bytes":
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return nil, errors.New("want base64 bytes")
		}
		return b, nil
	case "text", "decimal":
		return str, nil
	}
	return nil, fmt.Errorf("unknown column type %q", kind)
}

func quoteIdent(d Dialect, name string) string {
	if d == MySQL {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// errWriter keeps the first write error, so a long series of writes is
// checked once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) WriteString(s string) { _, _ = e.Write([]byte(s)) }
