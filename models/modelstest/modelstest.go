// Package modelstest opens fresh, migrated databases for tests: a SQLite
// file in a temp dir, and a new database on the MariaDB/MySQL server named by
// KALENDS_TEST_MYSQL_DSN (dropped when the test ends). `make test` starts a
// throwaway MariaDB and sets the variable; under CI=true a missing server
// is a failure, never a silent skip.
package modelstest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
// MySQL dropped) when the test ends.
func Open(t testing.TB, d models.Dialect) *models.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var dsn string
	switch d {
	case models.SQLite:
		dsn = "sqlite:" + filepath.Join(t.TempDir(), "kalends.db")
	case models.MySQL:
		dsn = mysqlDSN(t)
	}
	db, err := models.Open(ctx, dsn)
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

// mysqlDSN creates an empty database for this test and returns its URL.
func mysqlDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDSN)
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: the MariaDB tests cannot run (make test starts a server and sets it)", EnvDSN)
		}
		t.Skipf("%s is not set; run `make test` (it starts a throwaway MariaDB) or point it at a server", EnvDSN)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvDSN, err)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix == "" {
		prefix = "kalends_test"
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := prefix + "_" + hex.EncodeToString(rnd[:])
	u.Path = "/" + name
	dsn := u.String()
	t.Cleanup(func() { dropMySQL(t, dsn, name) })
	return dsn
}

func dropMySQL(t testing.TB, dsn, name string) {
	cfg, err := models.MySQLConfig(dsn)
	if err != nil {
		return
	}
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
		t.Logf("drop test database %s: %v", name, err)
	}
}
