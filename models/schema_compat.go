package models

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/uptrace/bun/migrate"

	"github.com/kalends/kalends/migrations"
)

// NewerSchemaError refuses a database that a newer Kalends migrated past
// what this binary can use: its kalends_schema row says that only binaries
// that know migration ReadableFrom may work on it, and this one knows up to
// Ours. Half-using such a database (reading columns that moved, writing
// rows a newer binary expects in another shape) would damage the site, so
// nothing is done.
type NewerSchemaError struct {
	Database     string // the newest migration applied to the database
	ReadableFrom string // the oldest schema level that may use it
	Ours         string // the newest migration this binary has
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("this database was upgraded by a newer Kalends (schema %s, usable by schema %s or later); "+
		"this binary has schema %s: run the newer release, or restore the backup made before the upgrade",
		e.Database, e.ReadableFrom, e.Ours)
}

// SchemaLevel is the name of the newest migration this binary has (both
// dialects have the same names): what `kalends version` prints and what a
// database's kalends_schema.readable_from is compared with.
func SchemaLevel() string {
	names := append(migrationNames(migrations.SQLite()), textNFCMigration)
	return slices.Max(names)
}

// migrationNames lists the migration names (the timestamps) of one
// dialect's directory, sorted.
func migrationNames(src fs.FS) []string {
	entries, err := fs.ReadDir(src, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		n, _, ok := strings.Cut(e.Name(), "_")
		if ok && strings.HasSuffix(e.Name(), ".sql") && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// checkNewerSchema returns the applied migrations this binary does not
// know, or a *NewerSchemaError when the database says this binary is too old
// to use it. A database with no unknown migration is not read further.
func (db *DB) checkNewerSchema(ctx context.Context, m *migrate.Migrator, ms *migrate.Migrations) ([]string, error) {
	unknown, err := m.MissingMigrations(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: migrate: read applied migrations: %w", mapErr(err))
	}
	if len(unknown) == 0 {
		return nil, nil
	}
	var names []string
	for _, mg := range unknown {
		names = append(names, mg.Name)
	}
	slices.Sort(names)
	ours := ""
	if sorted := ms.Sorted(); len(sorted) > 0 {
		ours = sorted[len(sorted)-1].Name
	}
	var from string
	if err := db.Bun.NewRaw("SELECT readable_from FROM kalends_schema WHERE id = 1").Scan(ctx, &from); err != nil {
		return nil, fmt.Errorf("models: migrate: the database has migrations this binary does not know (%s) "+
			"and no readable kalends_schema row: %w", strings.Join(names, ", "), mapErr(err))
	}
	if from > ours {
		return nil, &NewerSchemaError{Database: names[len(names)-1], ReadableFrom: from, Ours: ours}
	}
	return names, nil
}

// DatabaseSchema returns the newest migration applied to the database
// ("" for a database never migrated).
func (db *DB) DatabaseSchema(ctx context.Context) (string, error) {
	return (&Store{db: db.Bun}).lastMigration(ctx)
}
