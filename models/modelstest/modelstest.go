// Package modelstest opens fresh, migrated databases for tests: a SQLite
// file in a temp dir, and a new database on the MariaDB/MySQL server named by
// KALENDS_TEST_MYSQL_DSN (dropped when the test ends). `make test` starts a
// throwaway MariaDB and sets the variable; under CI a missing server is a
// failure, never a silent skip (MissingDependency). It also holds WaitFor,
// the one way tests wait for something to happen.
package modelstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

// EnvDSN names the variable holding the MariaDB/MySQL server for tests, as a
// mysql:// URL; its database name is a prefix for per-test databases.
const EnvDSN = "KALENDS_TEST_MYSQL_DSN"

// Dialects lists the dialects EachDB runs on.
var Dialects = []models.Dialect{models.SQLite, models.MySQL}

// EachDB runs fn once per dialect, each on a fresh migrated database, as
// subtests named "sqlite" and "mysql".
func EachDB(t *testing.T, fn func(t *testing.T, db *models.DB)) {
	t.Helper()
	for _, d := range Dialects {
		t.Run(string(d), func(t *testing.T) {
			fn(t, Open(t, d))
		})
	}
}

// Open returns a fresh migrated database of dialect d, closed (and for
// MySQL dropped) when the test ends: a copy of a migrated template
// (template.go), on which Migrate then finds nothing to apply.
func Open(t testing.TB, d models.Dialect) *models.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := models.Open(ctx, MigratedDSN(t, d))
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		_ = db.Close()
		t.Fatalf("migrate %s: %v", d, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// MigratedDSN names a new database of dialect d holding a copy of the
// migrated template, not opened (for a kalends command or server the test
// starts), dropped when the test ends.
func MigratedDSN(t testing.TB, d models.Dialect) string {
	t.Helper()
	if d == models.MySQL {
		dsn := mysqlDSN(t)
		cloneMySQLTemplate(t, MySQLDSN(t), mysqlPrefix(t), dsn)
		return dsn
	}
	return openSQLiteCopy(t)
}

// NewDSN names a fresh, empty database of dialect d (not migrated), for
// tests that hand a database to the kalends command: a SQLite file in a temp
// dir, or a new database on the test server, dropped when the test ends.
func NewDSN(t testing.TB, d models.Dialect) string {
	t.Helper()
	if d == models.MySQL {
		return mysqlDSN(t)
	}
	return "sqlite:" + filepath.Join(t.TempDir(), "kalends.db")
}

// mysqlDSN creates an empty database for this test and returns its URL.
func mysqlDSN(t testing.TB) string {
	t.Helper()
	u, err := url.Parse(MySQLDSN(t))
	if err != nil {
		t.Fatalf("%s: %v", EnvDSN, err)
	}
	prefix := mysqlPrefix(t)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := prefix + "_" + hex.EncodeToString(rnd[:])
	u.Path = "/" + name
	dsn := u.String()
	t.Cleanup(func() { dropMySQL(t, dsn, name) })
	return dsn
}

// mysqlPrefix is the database name of EnvDSN, which starts the names of
// the test databases.
func mysqlPrefix(t testing.TB) string {
	t.Helper()
	u, err := url.Parse(MySQLDSN(t))
	if err != nil {
		t.Fatalf("%s: %v", EnvDSN, err)
	}
	if prefix := strings.Trim(u.Path, "/"); prefix != "" {
		return prefix
	}
	return "kalends_test"
}

// MySQLDSN returns the server URL of EnvDSN, or stops the test through
// MissingDependency when it is not set.
func MySQLDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDSN)
	if base == "" {
		MissingDependency(t, "a MariaDB/MySQL server: %s is not set (`make test` starts a throwaway MariaDB and sets it)", EnvDSN)
	}
	return base
}

// MissingDependency stops a test that cannot run because something outside
// the repository is missing; the message names it. Outside CI (the CI
// variable unset or empty) the test is skipped, so a laptop without the
// dependency still runs the rest; under CI (CI=true, CI=1, any value) it
// fails, so CI never passes by skipping. It is the only skip tests may use.
func MissingDependency(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := "missing dependency: " + fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set, so this fails instead of skipping)", msg)
	}
	t.Skip(msg)
}

// WaitFor calls cond every 10 ms until it returns nil, and fails the test
// with cond's last error once limit has passed. It replaces fixed sleeps:
// the test goes on as soon as the condition holds, and a condition that
// never holds fails with a message saying what was still wrong.
func WaitFor(t testing.TB, limit time.Duration, cond func() error) {
	t.Helper()
	if err := Await(limit, cond); err != nil {
		t.Fatalf("still not so after %v: %v", limit, err)
	}
}

// Await is WaitFor for callers that report the failure themselves (for
// example with t.Errorf and more detail): it returns nil as soon as cond
// does, or cond's last error once limit has passed.
func Await(limit time.Duration, cond func() error) error {
	deadline := time.Now().Add(limit)
	for {
		err := cond()
		if err == nil || !time.Now().Before(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func dropMySQL(t testing.TB, dsn, name string) {
	db, err := serverDB(dsn)
	if err != nil {
		return
	}
	defer func() { _ = db.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	//nolint:gosec // G701: name is the test DSN's own database name plus random hex, made by mysqlDSN; a database name cannot be a placeholder.
	if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
		t.Logf("drop test database %s: %v", name, err)
	}
}

// QueryRows runs q and calls row with each row's columns and values
// ([]byte values as strings).
func QueryRows(t testing.TB, db *models.DB, q string, row func(cols []string, vals []any)) {
	t.Helper()
	rows, err := db.Bun.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer func() { _ = rows.Close() }()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				vals[i] = string(bs)
			}
		}
		row(cols, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// Matrix tallies the cells of a permission matrix (the API's and the
// admin's): each cell is allowed or refused, as expected or not.
type Matrix struct {
	t             testing.TB
	Cells, Failed int
}

// NewMatrix starts a tally reporting to t.
func NewMatrix(t testing.TB) *Matrix { return &Matrix{t: t} }

// Check counts one cell and fails it when got is not want; detail says
// what came back.
func (m *Matrix) Check(name string, want, got bool, detail string) {
	m.t.Helper()
	m.Cells++
	if want != got {
		m.Failed++
		m.t.Errorf("%s: got %s, want %s (%.200s)", name, allowed(got), allowed(want), detail)
	}
}

func allowed(b bool) string {
	if b {
		return "allowed"
	}
	return "refused"
}

// AtOnce runs fn(0) … fn(n-1) in n goroutines released together, the way
// tests race concurrent callers against one another, and returns when all
// have returned.
func AtOnce(n int, fn func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn(i)
		}()
	}
	close(start)
	wg.Wait()
}

// HoldWrite runs write in a transaction of db and keeps that transaction
// open until release is called, so that a test can check what other
// requests do beside a writer (on SQLite a transaction holds the write
// lock from its BEGIN). A nil write writes no row, which still takes
// SQLite's write lock. release fails the test if the transaction failed.
func HoldWrite(t testing.TB, db *models.DB, write func(ctx context.Context, tx *models.Store) error) (release func()) {
	t.Helper()
	ctx := context.Background()
	if write == nil {
		write = func(ctx context.Context, tx *models.Store) error {
			_, err := tx.IDB().NewRaw("UPDATE events SET updated_at = updated_at WHERE id < 0").Exec(ctx)
			return err
		}
	}
	holding, done, wrote := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		wrote <- db.RunInTx(ctx, func(tx *models.Store) error {
			if err := write(ctx, tx); err != nil {
				return err
			}
			close(holding)
			<-done
			return nil
		})
	}()
	select {
	case <-holding:
	case err := <-wrote:
		t.Fatalf("the writer: %v", err)
	}
	return func() {
		close(done)
		if err := <-wrote; err != nil {
			t.Errorf("the writer: %v", err)
		}
	}
}
