package models_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestTermListUsesIndexes EXPLAINs the page query of term lists on both
// dialects: terms, event_terms and events are always reached through an
// index, never scanned whole.
func TestTermListUsesIndexes(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		now := models.Now()
		var terms []models.Term
		for i := 0; i < 300; i++ {
			tax := models.TaxCategory
			if i%2 == 1 {
				tax = models.TaxTag
			}
			name := fmt.Sprintf("Term %03d", i)
			terms = append(terms, models.Term{Taxonomy: tax, Name: name, NameKey: strings.ToLower(name), Slug: fmt.Sprintf("term-%03d", i),
				ParentID: int64(i % 7), Lang: "en", CreatedAt: now, UpdatedAt: now})
		}
		if _, err := db.IDB().NewInsert().Model(&terms).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		ev := addEvent(t, db, models.StatusPublish, 1, 3, 5)
		for id := int64(1); id <= 300; id += 3 {
			if err := db.SaveTranslation(ctx, models.KindCategory, id, "ja", map[string]string{"name": fmt.Sprint("用語", id)}); err != nil {
				t.Fatal(err)
			}
		}
		if db.Dialect() == models.MySQL {
			for _, tbl := range []string{"terms", "event_terms", "events"} {
				if _, err := db.IDB().ExecContext(ctx, "ANALYZE TABLE "+tbl); err != nil {
					t.Fatal(err)
				}
			}
		} else if _, err := db.IDB().ExecContext(ctx, "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		parent := int64(3)
		for _, f := range []models.TermFilter{
			{Taxonomy: "category", PerPage: 10, HideEmpty: true},
			{Taxonomy: "category", PerPage: 10, OrderBy: "id", Order: "desc"},
			{Taxonomy: "tag", PerPage: 10, OrderBy: "slug"},
			{Taxonomy: "category", PerPage: 10, ParentID: &parent},
			{Taxonomy: "category", PerPage: 10, EventID: ev},
			{Taxonomy: "tag", PerPage: 10, Slug: "term-001"},
			{Taxonomy: "tag", PerPage: 10, Search: "7", Lang: "ja"},
		} {
			plan := models.ExplainTermList(t, db.Store, f)
			t.Logf("%+v:\n%s", f, plan)
			for _, line := range strings.Split(plan, "\n") {
				if f.OrderBy == "id" && pkWalk(db.Dialect(), plan) {
					continue
				}
				// A contains-search must read every candidate text: MySQL may
				// read the request language's translations once (semi-join
				// materialization) rather than probe them per term.
				if f.Search != "" && strings.Contains(line, "MATERIALIZED table=t ") {
					continue
				}
				if fullScan(db.Dialect(), line) {
					t.Errorf("%+v: full scan in plan line %q", f, line)
				}
			}
		}
	})
}

// fullScan reports whether a plan line reads a whole table of ours.
func fullScan(d models.Dialect, line string) bool {
	if d == models.SQLite {
		// "SCAN t" without an index; "SCAN t USING INDEX …" walks an index.
		return strings.HasPrefix(strings.TrimLeft(line, "|-` "), "SCAN ") && !strings.Contains(line, "USING")
	}
	// MySQL: table=<name> type=ALL.
	return strings.Contains(line, "type=ALL") && !strings.Contains(line, "table=<")
}

// pkWalk reports whether a plan reads terms in primary-key order (no sort
// step): ordering by id walks the primary key and stops at LIMIT.
func pkWalk(d models.Dialect, plan string) bool {
	if d == models.SQLite {
		return !strings.Contains(plan, "TEMP B-TREE")
	}
	return strings.Contains(plan, "table=tm type=index") && strings.Contains(plan, "key=PRIMARY") && !strings.Contains(plan, "filesort")
}
