package models

import "time"

// SetMigrationLock shortens the migrator's lease and its wait for a test
// and returns a func that restores them.
func SetMigrationLock(ttl, wait time.Duration) (restore func()) {
	oldTTL, oldWait := migrationLeaseTTL, migrationLockWait
	migrationLeaseTTL, migrationLockWait = ttl, wait
	return func() { migrationLeaseTTL, migrationLockWait = oldTTL, oldWait }
}
