package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kalends/kalends/models"
)

// sqlitePath is the file of a sqlite: database setting, or a usage error
// naming what to do on MySQL.
func sqlitePath(cfg *Config, what string) (string, error) {
	p, ok := strings.CutPrefix(cfg.DB, "sqlite:")
	if !ok {
		return "", &usageError{what + " works on SQLite databases: on MySQL or MariaDB use mysqldump --single-transaction or mariadb-backup (see the README), or 'kalends export --format json' to move the site"}
	}
	return p, nil
}

// runBackup writes a consistent copy of the SQLite database while the site
// may be serving.
func runBackup(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	if _, err := sqlitePath(cmd.cfg, "backup"); err != nil {
		return err
	}
	if cmd.to == "" {
		return &usageError{"backup: missing --to FILE"}
	}
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	start := time.Now()
	if err := db.BackupSQLite(ctx, cmd.to); err != nil {
		return err
	}
	st, err := os.Stat(cmd.to)
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(stdout, "backup written to %s (%.1f MB, checked) in %s\n", cmd.to, float64(st.Size())/(1<<20), time.Since(start).Round(time.Millisecond))
	return nil
}

// runRestore checks a backup and makes it the database of --db. A database
// already there is not deleted but moved aside, and a running server on it
// (it holds the publisher lease) stops the restore.
func runRestore(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	target, err := sqlitePath(cmd.cfg, "restore")
	if err != nil {
		return err
	}
	if err := models.CheckSQLiteFile(ctx, cmd.file); err != nil {
		return fmt.Errorf("%s cannot be restored: %w", cmd.file, err)
	}
	if same, _ := sameFile(cmd.file, target); same {
		return &usageError{"restore: the backup is the database itself"}
	}
	if _, err := os.Stat(target); err == nil {
		if err := refuseWhileServing(ctx, cmd.cfg.DB); err != nil {
			return err
		}
	}
	// The copy is made and brought up to date under a temporary name beside
	// the target, so the target never names a half-restored file.
	tmp, err := os.CreateTemp(filepath.Dir(target), ".kalends-restore-*.db")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(name + suffix)
		}
	}()
	err = copyInto(tmp, cmd.file)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	cfg := *cmd.cfg
	cfg.DB = "sqlite:" + name
	db, err := openMigrated(ctx, &cfg, logger) // a backup of an older Kalends is migrated
	if err != nil {
		return fmt.Errorf("%s cannot be restored: %w", cmd.file, err)
	}
	err = db.ClearLeases(ctx)
	var events int64
	if err == nil {
		events, err = db.IDB().NewSelect().TableExpr("events").Count(ctx)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	kept := ""
	if _, err := os.Stat(target); err == nil {
		kept = target + ".before-restore-" + time.Now().UTC().Format("20060102T150405Z")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(target+suffix, kept+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	if err := os.Rename(name, target); err != nil {
		return err
	}
	_, _ = fmt.Fprintf(stdout, "restored %s into %s (%d events)\n", cmd.file, target, events)
	if kept != "" {
		_, _ = fmt.Fprintf(stdout, "the database it replaced is kept as %s\n", kept)
	}
	return nil
}

// refuseWhileServing fails when a server runs on dsn: a running server
// holds the publisher lease, renewed every round.
func refuseWhileServing(ctx context.Context, dsn string) error {
	db, err := models.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	holder := "restore-" + publisherHolder()
	ok, err := db.TryLease(ctx, publisherLease, holder, time.Minute)
	if err != nil {
		// A database too old to have leases has no server of this version.
		return nil //nolint:nilerr // see above
	}
	if !ok {
		return errors.New("a Kalends server is running on this database (it holds the publisher lease): stop it, then restore")
	}
	return db.ReleaseLease(ctx, publisherLease, holder)
}

func copyInto(dst *os.File, src string) error {
	f, err := os.Open(src) //nolint:gosec // G304: the operator names the backup to restore.
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	if _, err := io.Copy(dst, f); err != nil {
		return err
	}
	return dst.Sync()
}

func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}
