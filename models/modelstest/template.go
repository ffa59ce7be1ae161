package modelstest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/migrations"
	"github.com/kalends/kalends/models"
)

// Every test database starts as a copy of one migrated template, made once
// per test process (SQLite) or once per set of migrations on the test server
// (MySQL), instead of running every migration again: migrating a new
// database took 0.19 s on SQLite and 0.78 s on MariaDB, and the suite opens
// about 1,300 of them. Open still runs Migrate on the copy, which finds
// nothing to apply, so a copy that missed a migration fails there.

// sqliteTemplate holds the bytes of a migrated SQLite database.
var sqliteTemplate struct {
	once  sync.Once
	bytes []byte
	err   error
}

// sqliteTemplateBytes migrates a database in a temp dir once per process
// and returns its file.
func sqliteTemplateBytes() ([]byte, error) {
	sqliteTemplate.once.Do(func() {
		sqliteTemplate.bytes, sqliteTemplate.err = migrateSQLiteTemplate()
	})
	return sqliteTemplate.bytes, sqliteTemplate.err
}

func migrateSQLiteTemplate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "kalends-test-template-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	path := filepath.Join(dir, "template.db")
	db, err := models.Open(ctx, "sqlite:"+path)
	if err != nil {
		return nil, err
	}
	if _, err := db.Migrate(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("migrate the SQLite template: %w", err)
	}
	// Everything into the main file, so that the file alone is the database.
	if _, err := db.Bun.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("checkpoint the SQLite template: %w", err)
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil, fmt.Errorf("the SQLite template left %d bytes in its WAL after closing", st.Size())
	}
	return os.ReadFile(path) //nolint:gosec // G304: the file this function made in its own temp dir
}

// openSQLiteCopy writes a copy of the template to a new file of the test's
// temp dir and returns its DSN.
func openSQLiteCopy(t testing.TB) string {
	t.Helper()
	b, err := sqliteTemplateBytes()
	if err != nil {
		t.Fatalf("SQLite test template: %v", err)
	}
	path := filepath.Join(t.TempDir(), "kalends.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatalf("SQLite test database: %v", err)
	}
	return "sqlite:" + path
}

// mysqlTemplate is the migrated template database on the test server and
// the statements that copy it: its tables (SHOW CREATE TABLE, so foreign
// keys and AUTO_INCREMENT counters come along), their rows, and its
// triggers, in the order they fire.
var mysqlTemplate struct {
	once   sync.Once
	schema *mysqlSchema
	err    error
}

type mysqlSchema struct {
	name     string   // the template database
	tables   []string // CREATE TABLE statements
	rows     []string // tables with rows
	triggers []mysqlTrigger
}

type mysqlTrigger struct{ sqlMode, create string }

// templateReady is the table that marks a template complete: a process that
// stopped while migrating one leaves it without the mark, and the next one
// starts it again.
const templateReady = "kalends_test_template_ready"

// mysqlTemplateName names the template of the embedded migrations: the
// server keeps one per set of migrations (each a few MB, dropped with a
// throwaway server; on a server of your own, DROP DATABASE of a
// <prefix>_tpl_* database is safe whenever no test runs).
func mysqlTemplateName(prefix string) (string, error) {
	h := sha256.New()
	h.Write([]byte("template v1\n")) // the way it is copied
	src := migrations.MySQL()
	err := fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, path)
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return prefix + "_tpl_" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// mysqlTemplateSchema makes the template on the server when it is missing
// (under a server lock: test processes run side by side) and reads how to
// copy it, once per process.
func mysqlTemplateSchema(serverDSN, prefix string) (*mysqlSchema, error) {
	mysqlTemplate.once.Do(func() {
		mysqlTemplate.schema, mysqlTemplate.err = readMySQLTemplate(serverDSN, prefix)
	})
	return mysqlTemplate.schema, mysqlTemplate.err
}

// serverDB opens the test server without a database.
func serverDB(dsn string) (*sql.DB, error) {
	cfg, err := models.MySQLConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.DBName = ""
	return sql.Open("mysql", cfg.FormatDSN())
}

var definer = regexp.MustCompile(`^CREATE\s+DEFINER=\S+\s+TRIGGER`)

func readMySQLTemplate(serverDSN, prefix string) (*mysqlSchema, error) {
	name, err := mysqlTemplateName(prefix)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sqldb, err := serverDB(serverDSN)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sqldb.Close() }()
	if err := makeMySQLTemplate(ctx, sqldb, serverDSN, name); err != nil {
		return nil, err
	}
	s := &mysqlSchema{name: name}
	var others int
	if err := sqldb.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM information_schema.views WHERE table_schema = ?) +
		(SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = ?) +
		(SELECT COUNT(*) FROM information_schema.events WHERE event_schema = ?)`, name, name, name).Scan(&others); err != nil {
		return nil, err
	}
	if others > 0 {
		return nil, fmt.Errorf("the template %s holds views, routines or events, which modelstest does not copy yet: teach it (template.go)", name)
	}
	tables, err := queryStrings(ctx, sqldb, "SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' AND table_name <> ? ORDER BY table_name", name, templateReady)
	if err != nil {
		return nil, err
	}
	for _, tbl := range tables {
		var n, create string
		if err := sqldb.QueryRowContext(ctx, "SHOW CREATE TABLE `"+name+"`.`"+tbl+"`").Scan(&n, &create); err != nil {
			return nil, fmt.Errorf("read table %s of the template: %w", tbl, err)
		}
		s.tables = append(s.tables, create)
		var any bool
		if err := sqldb.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM `"+name+"`.`"+tbl+"`)").Scan(&any); err != nil {
			return nil, err
		}
		if any {
			s.rows = append(s.rows, tbl)
		}
	}
	// ACTION_ORDER is the order of the triggers of one table, event and
	// timing; each new one goes last, so creating them in this order keeps it.
	type named struct{ name, mode string }
	var ts []named
	err = queryRows(ctx, sqldb, func(rows *sql.Rows) error {
		var x named
		err := rows.Scan(&x.name, &x.mode)
		ts = append(ts, x)
		return err
	}, `SELECT trigger_name, sql_mode FROM information_schema.triggers
		WHERE trigger_schema = ? ORDER BY event_object_table, event_manipulation, action_timing, action_order`, name)
	if err != nil {
		return nil, err
	}
	for _, x := range ts {
		var n, mode, create string
		var cs, cc, coll, created sql.NullString
		if err := sqldb.QueryRowContext(ctx, "SHOW CREATE TRIGGER `"+name+"`.`"+x.name+"`").Scan(&n, &mode, &create, &cs, &cc, &coll, &created); err != nil {
			return nil, fmt.Errorf("read trigger %s of the template: %w", x.name, err)
		}
		s.triggers = append(s.triggers, mysqlTrigger{sqlMode: x.mode, create: definer.ReplaceAllString(create, "CREATE TRIGGER")})
	}
	return s, nil
}

// makeMySQLTemplate migrates the template database unless it is there and
// complete.
func makeMySQLTemplate(ctx context.Context, sqldb *sql.DB, serverDSN, name string) error {
	conn, err := sqldb.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('kalends_test_template', 170)").Scan(&got); err != nil {
		return fmt.Errorf("lock the test template: %w", err)
	}
	if got.Int64 != 1 {
		return errors.New("lock the test template: another test process held it for 170 s")
	}
	defer func() { _, _ = conn.ExecContext(context.Background(), "DO RELEASE_LOCK('kalends_test_template')") }()
	var ready int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", name, templateReady).Scan(&ready); err != nil {
		return err
	}
	if ready > 0 {
		return nil
	}
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
		return err
	}
	u, err := url.Parse(serverDSN)
	if err != nil {
		return err
	}
	u.Path = "/" + name
	db, err := models.Open(ctx, u.String())
	if err != nil {
		return err
	}
	_, err = db.Migrate(ctx)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("migrate the MySQL template: %w", err)
	}
	_, err = conn.ExecContext(ctx, "CREATE TABLE `"+name+"`.`"+templateReady+"` (id INT)")
	return err
}

// cloneMySQLTemplate fills the new, empty database of dsn with a copy of
// the template.
func cloneMySQLTemplate(t testing.TB, serverDSN, prefix, dsn string) {
	t.Helper()
	s, err := mysqlTemplateSchema(serverDSN, prefix)
	if err != nil {
		t.Fatalf("MySQL test template: %v", err)
	}
	cfg, err := models.MySQLConfig(dsn)
	if err != nil {
		t.Fatalf("%s: %v", EnvDSN, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sqldb, err := serverDB(dsn)
	if err != nil {
		t.Fatalf("open the test server: %v", err)
	}
	defer func() { _ = sqldb.Close() }()
	conn, err := sqldb.Conn(ctx)
	if err != nil {
		t.Fatalf("open the test server: %v", err)
	}
	defer func() { _ = conn.Close() }()
	db := "`" + cfg.DBName + "`"
	stmts := []string{
		"CREATE DATABASE " + db + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
		"USE " + db,
		"SET SESSION foreign_key_checks = 0",
	}
	stmts = append(stmts, s.tables...)
	for _, tbl := range s.rows {
		stmts = append(stmts, "INSERT INTO `"+tbl+"` SELECT * FROM `"+s.name+"`.`"+tbl+"`")
	}
	for _, st := range stmts {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			t.Fatalf("copy the MySQL test template: %s: %v", st, err)
		}
	}
	for _, tr := range s.triggers {
		if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ?", tr.sqlMode); err != nil {
			t.Fatalf("copy the MySQL test template: %v", err)
		}
		if _, err := conn.ExecContext(ctx, tr.create); err != nil {
			t.Fatalf("copy the MySQL test template: %s: %v", tr.create, err)
		}
	}
}

// queryStrings reads one column of strings.
func queryStrings(ctx context.Context, db *sql.DB, query string, args ...any) ([]string, error) {
	var out []string
	err := queryRows(ctx, db, func(rows *sql.Rows) error {
		var v string
		err := rows.Scan(&v)
		out = append(out, v)
		return err
	}, query, args...)
	return out, err
}

// queryRows calls scan on each row of a query.
func queryRows(ctx context.Context, db *sql.DB, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
