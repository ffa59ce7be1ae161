package modelstest_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestTemplateCopyEqualsAMigratedDatabase compares a database from Open (a
// copy of the template) with one migrated from nothing: same tables,
// indexes, foreign keys, triggers in the same order, same rows.
func TestTemplateCopyEqualsAMigratedDatabase(t *testing.T) {
	t.Parallel()
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			copied := modelstest.Open(t, d)
			migrated, err := models.Open(ctx, modelstest.NewDSN(t, d))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = migrated.Close() })
			if _, err := migrated.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			want, got := schemaOf(t, migrated), schemaOf(t, copied)
			if len(want) < 40 {
				t.Fatalf("only %d schema lines read from the migrated database", len(want))
			}
			if !slices.Equal(got, want) {
				for _, l := range want {
					if !slices.Contains(got, l) {
						t.Errorf("the copy lacks: %s", l)
					}
				}
				for _, l := range got {
					if !slices.Contains(want, l) {
						t.Errorf("the copy has more: %s", l)
					}
				}
				if !t.Failed() {
					t.Errorf("same lines in another order")
				}
			}
		})
	}
}

var autoIncrement = regexp.MustCompile(` AUTO_INCREMENT=\d+`)

// schemaOf lists a database's schema and rows as lines (the rows of the
// applied migrations without their times).
func schemaOf(t *testing.T, db *models.DB) []string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	read := func(query string) {
		modelstest.QueryRows(t, db, query, func(cols []string, vals []any) {
			var b strings.Builder
			for i, v := range vals {
				fmt.Fprintf(&b, "%s=%v ", cols[i], v)
			}
			lines = append(lines, autoIncrement.ReplaceAllString(b.String(), ""))
		})
	}
	var tables []string
	if db.Dialect() == models.SQLite {
		read("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
		if err := db.Bun.NewSelect().TableExpr("sqlite_master").Column("name").
			Where("type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'").Scan(ctx, &tables); err != nil {
			t.Fatal(err)
		}
	} else {
		if err := db.Bun.NewSelect().TableExpr("information_schema.tables").Column("table_name").
			Where("table_schema = DATABASE()").Order("table_name").Scan(ctx, &tables); err != nil {
			t.Fatal(err)
		}
		for _, tbl := range tables {
			read("SHOW CREATE TABLE `" + tbl + "`")
		}
		read(`SELECT trigger_name, event_manipulation, event_object_table, action_order, action_statement,
			action_timing, sql_mode FROM information_schema.triggers WHERE trigger_schema = DATABASE()
			ORDER BY event_object_table, event_manipulation, action_timing, action_order`)
		read(`SELECT COUNT(*) FROM information_schema.views WHERE table_schema = DATABASE()`)
		read(`SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = DATABASE()`)
	}
	for _, tbl := range tables {
		if tbl == "bun_migrations" {
			read("SELECT id, name, group_id FROM bun_migrations ORDER BY id")
			continue
		}
		read("SELECT * FROM `" + tbl + "`")
	}
	return lines
}
