package models_test

import (
	"context"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestEveryTableHasAPrimaryKey: Galera replicates a row by its primary key;
// a table without one is replicated by a full scan per row on every other
// node (or refused, with innodb_force_primary_key), and DELETEs on it can
// leave nodes different. Every table the migrations make (bun's own
// included) must have one, on both dialects.
func TestEveryTableHasAPrimaryKey(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		var tables []string
		var missing []string
		switch db.Dialect() {
		case models.MySQL:
			if err := db.Bun.NewRaw(`SELECT t.table_name FROM information_schema.tables t
				WHERE t.table_schema = DATABASE() AND t.table_type = 'BASE TABLE' ORDER BY t.table_name`).Scan(ctx, &tables); err != nil {
				t.Fatal(err)
			}
			if err := db.Bun.NewRaw(`SELECT t.table_name FROM information_schema.tables t
				WHERE t.table_schema = DATABASE() AND t.table_type = 'BASE TABLE'
				AND NOT EXISTS (SELECT 1 FROM information_schema.table_constraints c
					WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.constraint_type = 'PRIMARY KEY')
				ORDER BY t.table_name`).Scan(ctx, &missing); err != nil {
				t.Fatal(err)
			}
			// Galera replicates InnoDB only: a table of another engine
			// would be written on one node alone.
			var other []string
			if err := db.Bun.NewRaw(`SELECT table_name FROM information_schema.tables
				WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' AND engine <> 'InnoDB'`).Scan(ctx, &other); err != nil {
				t.Fatal(err)
			}
			if len(other) > 0 {
				t.Errorf("tables not on InnoDB (Galera does not replicate them): %v", other)
			}
		case models.SQLite:
			// FTS5 tables are virtual: their shadow tables (which have
			// keys) are listed and checked instead.
			if err := db.Bun.NewRaw(`SELECT name FROM sqlite_schema
				WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`).Scan(ctx, &tables); err != nil {
				t.Fatal(err)
			}
			for _, name := range tables {
				var pk int
				// A column's pk is its position in the primary key (0:
				// not part of it). A rowid table without one has none.
				if err := db.Bun.NewRaw(`SELECT COUNT(*) FROM pragma_table_info(?) WHERE pk > 0`, name).Scan(ctx, &pk); err != nil {
					t.Fatal(err)
				}
				if pk == 0 {
					missing = append(missing, name)
				}
			}
		}
		if len(tables) < 20 {
			t.Fatalf("only %d tables found (%v): the query reads the wrong schema", len(tables), tables)
		}
		if len(missing) > 0 {
			t.Errorf("tables without a primary key: %v", missing)
		}
	})
}
