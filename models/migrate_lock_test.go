package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// A process killed while it migrates leaves bun's lock row and its lease
// behind. Before the lease, every instance started after it waited for the
// row, gave up after a minute and failed. Now the next one waits until the
// dead holder's lease expires, takes the lock over and migrates.
func TestMigrateTakesOverTheLockOfAKilledHolder(t *testing.T) {
	defer models.SetMigrationLock(2*time.Second, 20*time.Second)()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		// What a killed holder leaves: bun's row and a lease that it
		// would have renewed, expiring in 2 s at most.
		expires := models.Now().Add(2 * time.Second)
		for _, q := range []string{
			"INSERT INTO bun_migration_locks (table_name) VALUES ('bun_migrations')",
			"INSERT INTO kalends_migration_lease (name, holder, expires_at) VALUES ('migrate', 'killed-host-1', ?)",
		} {
			if _, err := db.Bun.ExecContext(ctx, q, expires); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		start := time.Now()
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatalf("migrate after a killed holder: %v", err)
		}
		waited := time.Since(start)
		// It waited for the lease (not for a minute), and not less: the
		// holder might have been alive.
		if waited < time.Second || waited > 15*time.Second {
			t.Errorf("migrate waited %s for a lease expiring in about 2 s", waited)
		}
		for _, table := range []string{"bun_migration_locks", "kalends_migration_lease"} {
			var n int
			if err := db.Bun.NewSelect().TableExpr(table).ColumnExpr("COUNT(*)").Scan(ctx, &n); err != nil || n != 0 {
				t.Errorf("%s: %d rows (%v) after migrate, want none", table, n, err)
			}
		}
	})
}

// A lock row of bun's without a lease is an older Kalends that migrates, or
// died doing so: it is waited for, and the error names the row to delete.
func TestMigrateLockErrorNamesTheRow(t *testing.T) {
	defer models.SetMigrationLock(2*time.Second, time.Second)()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		if _, err := db.Bun.ExecContext(ctx, "INSERT INTO bun_migration_locks (table_name) VALUES ('bun_migrations')"); err != nil {
			t.Fatal(err)
		}
		_, err := db.Migrate(ctx)
		if err == nil || !strings.Contains(err.Error(), "bun_migration_locks") {
			t.Fatalf("migrate with bun's lock row held: %v, want an error naming bun_migration_locks", err)
		}
		var n int
		if err := db.Bun.NewSelect().TableExpr("kalends_migration_lease").ColumnExpr("COUNT(*)").Scan(context.Background(), &n); err != nil || n != 0 {
			t.Errorf("the lease is kept after giving up: %d rows (%v)", n, err)
		}
	})
}
