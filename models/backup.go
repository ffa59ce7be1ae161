package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

// ErrBackupDialect is returned by BackupSQLite on a MySQL database: its
// server has its own tools (mysqldump --single-transaction, mariadb-backup).
var ErrBackupDialect = errors.New("models: backup copies SQLite databases; for MySQL or MariaDB use mysqldump --single-transaction or mariadb-backup, or kalends export --format json")

// BackupSQLite writes a consistent copy of the SQLite database to path
// while the site keeps serving: VACUUM INTO reads one snapshot (a read
// transaction of the WAL), so writers go on and every write committed
// before it began is in the copy. The copy is made under a temporary name
// in path's directory, checked (PRAGMA integrity_check) and then renamed,
// so path never names a half-written or damaged file. An existing path is
// replaced.
func (db *DB) BackupSQLite(ctx context.Context, path string) error {
	if db.dialect != SQLite {
		return ErrBackupDialect
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kalends-backup-*.db")
	if err != nil {
		return fmt.Errorf("models: backup: %w", err)
	}
	name := tmp.Name()
	_ = tmp.Close()
	// VACUUM INTO wants a file that does not exist or is empty.
	defer func() { _ = os.Remove(name) }()
	if _, err := db.Bun.ExecContext(ctx, "VACUUM INTO ?", name); err != nil {
		return fmt.Errorf("models: backup: %w", err)
	}
	if err := CheckSQLiteFile(ctx, name); err != nil {
		return err
	}
	// CreateTemp made it 0600 and SQLite wrote into it; said outright,
	// since the copy holds password hashes.
	if err := os.Chmod(name, PrivateFileMode); err != nil {
		return fmt.Errorf("models: backup: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("models: backup: %w", err)
	}
	return nil
}

// CheckSQLiteFile opens a SQLite file without changing it and says whether
// it is a sound Kalends database: PRAGMA integrity_check passes and the
// site's tables are there.
func CheckSQLiteFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("models: check %s: %w", path, err)
	}
	conn, err := openSQLiteReadOnly(path)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	var results []string
	if err := conn.NewRaw("PRAGMA integrity_check").Scan(ctx, &results); err != nil {
		return fmt.Errorf("models: %s is not a SQLite database: %w", path, err)
	}
	if len(results) != 1 || results[0] != "ok" {
		if len(results) > 5 {
			results = results[:5]
		}
		return fmt.Errorf("models: %s fails the integrity check: %s", path, strings.Join(results, "; "))
	}
	var tables []string
	if err := conn.NewRaw("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('bun_migrations', 'events', 'users')").
		Scan(ctx, &tables); err != nil {
		return fmt.Errorf("models: %s: %w", path, err)
	}
	if len(tables) != 3 {
		return fmt.Errorf("models: %s is a SQLite database but not a Kalends one (no events, users or migrations table)", path)
	}
	return nil
}

// openSQLiteReadOnly opens a SQLite file for reading only (no WAL switch,
// no migrations), for checks.
func openSQLiteReadOnly(path string) (*bun.DB, error) {
	sqldb, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("models: open %s: %w", path, err)
	}
	sqldb.SetMaxOpenConns(1)
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}
