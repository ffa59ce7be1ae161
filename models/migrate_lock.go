package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/uptrace/bun/migrate"
)

// The migrator's lock is bun's: a row of bun_migration_locks that the
// instance which migrates inserts, and deletes when it is done. A process
// killed while it holds the row left it behind for ever, and every
// instance started after it waited for the lock, gave up and failed to
// start until someone deleted the row by hand (issue 35's cluster test
// kills one).
//
// So the holder also holds a lease on the lock, a row of
// kalends_migration_lease renewed while it migrates. An instance that
// finds the lease expired (its holder stopped renewing it: it died, or
// lost the database) takes the lease over and deletes the row its holder
// left in bun_migration_locks. An older Kalends, which takes bun's row
// without a lease, is still waited for; if it died holding the row, the
// error says which row to delete.
//
// The lease lives in a table of its own, made here like bun's, because it
// is needed before the migrations (which make the leases table) run.

// migrationLeaseName names the lease in kalends_migration_lease.
const migrationLeaseName = "migrate"

var (
	// migrationLeaseTTL is how long the lease lasts without renewal: a
	// killed holder's lock is taken over after at most this long. The
	// holder renews it every sixth of it.
	migrationLeaseTTL = 30 * time.Second
	// migrationLockWait bounds the wait for the lock, so that nobody
	// waits for ever behind a holder that hangs (while it renews).
	migrationLockWait = 90 * time.Second
	// migrationLockPoll is the pause between two attempts.
	migrationLockPoll = 200 * time.Millisecond
)

const migrationLeaseTable = "kalends_migration_lease"

// createMigrationLease makes kalends_migration_lease when it is missing
// (its shape is the leases table's).
func (db *DB) createMigrationLease(ctx context.Context) error {
	ddl := "CREATE TABLE IF NOT EXISTS " + migrationLeaseTable + ` (
    name VARCHAR(64) NOT NULL PRIMARY KEY,
    holder VARCHAR(128) NOT NULL,
    expires_at DATETIME NOT NULL
)`
	if db.dialect == MySQL {
		ddl = "CREATE TABLE IF NOT EXISTS " + migrationLeaseTable + ` (
    name VARCHAR(64) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    holder VARCHAR(128) COLLATE utf8mb4_bin NOT NULL,
    expires_at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`
	}
	if _, err := db.Bun.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("models: migrate: create %s: %w", migrationLeaseTable, mapErr(err))
	}
	return nil
}

// migrationLock is the migrator's lock as this instance holds it.
type migrationLock struct {
	db     *DB
	m      *migrate.Migrator
	holder string
	stop   context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	lost   bool // another instance took the lease over
}

// lockMigrations takes the migrator's lock: the lease, then bun's row,
// waiting for another holder at most migrationLockWait. A holder whose
// lease has expired is taken over. The lease is renewed until unlock.
func (db *DB) lockMigrations(ctx context.Context, m *migrate.Migrator) (*migrationLock, error) {
	if err := db.createMigrationLease(ctx); err != nil {
		return nil, err
	}
	l := &migrationLock{db: db, m: m, holder: leaseHolder(), done: make(chan struct{})}
	deadline := time.Now().Add(migrationLockWait)
	var last error
	for {
		got, prev, err := db.tryLease(ctx, migrationLeaseTable, migrationLeaseName, l.holder, migrationLeaseTTL)
		switch {
		case err != nil:
			last = err
		case !got:
			last = errors.New("another instance holds the migration lease")
		default:
			if prev != "" && prev != l.holder {
				// The previous holder's lease expired: the row it
				// left in bun's table is taken over with it.
				if _, err := db.Bun.NewDelete().TableExpr("bun_migration_locks").
					Where("table_name = ?", "bun_migrations").Exec(ctx); err != nil {
					last = fmt.Errorf("delete the lock of the expired holder %s: %w", prev, mapErr(err))
					break
				}
			}
			if err := m.Lock(ctx); err != nil {
				last = fmt.Errorf("%w (an older Kalends holds it, or died holding it: if no Kalends is "+
					"migrating this database, delete the row of bun_migration_locks)", err)
				break
			}
			l.renew(ctx)
			return l, nil
		}
		if time.Now().After(deadline) {
			_ = db.releaseLease(context.WithoutCancel(ctx), migrationLeaseTable, migrationLeaseName, l.holder)
			return nil, fmt.Errorf("models: migrate: lock: waited %s: %w", migrationLockWait, last)
		}
		select {
		case <-ctx.Done():
			_ = db.releaseLease(context.WithoutCancel(ctx), migrationLeaseTable, migrationLeaseName, l.holder)
			return nil, ctx.Err()
		case <-time.After(migrationLockPoll):
		}
	}
}

// renew renews the lease every sixth of its life until unlock. A renewal
// that fails is tried again at the next tick; one that finds the lease
// taken over marks the lock lost.
func (l *migrationLock) renew(ctx context.Context) {
	ctx, l.stop = context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		defer close(l.done)
		t := time.NewTicker(migrationLeaseTTL / 6)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			got, _, err := l.db.tryLease(ctx, migrationLeaseTable, migrationLeaseName, l.holder, migrationLeaseTTL)
			if err == nil && !got {
				l.mu.Lock()
				l.lost = true
				l.mu.Unlock()
				return
			}
		}
	}()
}

// unlock stops the renewals and releases bun's row and the lease. When the
// lease was taken over meanwhile (this instance stalled past its life),
// bun's row is the new holder's and stays, and unlock says so.
func (l *migrationLock) unlock(ctx context.Context) error {
	l.stop()
	<-l.done
	l.mu.Lock()
	lost := l.lost
	l.mu.Unlock()
	if lost {
		return fmt.Errorf("another instance took the migration lock over: this one was not heard from for %s", migrationLeaseTTL)
	}
	if err := l.m.Unlock(ctx); err != nil {
		return err
	}
	return l.db.releaseLease(ctx, migrationLeaseTable, migrationLeaseName, l.holder)
}

// leaseHolder names this process among the instances, for a lease.
func leaseHolder() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}
