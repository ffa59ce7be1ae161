package models_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// dumpTables is every row of every table of a SQLite database, in
// primary key order, as text, table by table, leaving out the columns skip
// names ("table.column": values the clock or a random salt decides).
func dumpTables(t *testing.T, db *models.DB, skip map[string]bool) map[string]string {
	t.Helper()
	var tables []string
	modelstest.QueryRows(t, db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
		func(_ []string, vals []any) { tables = append(tables, fmt.Sprint(vals[0])) })
	out := map[string]string{}
	// The triggers of each table, in the order they fire in.
	modelstest.QueryRows(t, db, "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY tbl_name, rowid",
		func(_ []string, vals []any) { out["(triggers)"] += fmt.Sprintf("%v %v\n", vals[0], vals[1]) })
	// The indexes (the seed sets some aside while it writes its events).
	modelstest.QueryRows(t, db, "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name",
		func(_ []string, vals []any) { out["(indexes)"] += fmt.Sprintf("%v %v %v\n", vals[0], vals[1], vals[2]) })
	for _, table := range tables {
		var b strings.Builder
		// Every column, in order: the rows sort the same on both sides
		// whatever the table's key.
		var cols []string
		modelstest.QueryRows(t, db, "SELECT name FROM pragma_table_info('"+table+"') ORDER BY cid",
			func(_ []string, vals []any) { cols = append(cols, fmt.Sprint(vals[0])) })
		var keep []string
		for _, c := range cols {
			if !skip[table+"."+c] {
				keep = append(keep, `"`+c+`"`)
			}
		}
		if len(keep) == 0 {
			continue
		}
		list := strings.Join(keep, ", ")
		modelstest.QueryRows(t, db, "SELECT "+list+" FROM \""+table+"\" ORDER BY "+list, func(_ []string, vals []any) {
			for _, v := range vals {
				if x, ok := v.([]byte); ok {
					v = string(x)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteByte('\n')
		})
		out[table] = b.String()
	}
	return out
}

// TestSeedInBulkWritesWhatTheTriggersWrite: on SQLite a seed sets the
// triggers of the tables it fills aside and writes what they keep once a
// batch (day and month buckets, the longest event, the links' copies, the
// search marks and index, the change feed), and sets the secondary indexes
// aside until its events are written. Seeded over records written through
// the store, in batches of 150, with series, every table must hold what a
// seed through the triggers writes, row for row, and the triggers and
// indexes must be back.
func TestSeedInBulkWritesWhatTheTriggersWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2027, 1, 1, 9, 0, 0, 0, time.UTC)
	seed := func(rowByRow bool) *models.DB {
		db := modelstest.Open(t, models.SQLite)
		db.UseSite(&models.Site{Location: time.UTC, Clock: func() time.Time { return now }})
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		// Records before the seed: buckets, changes and marks to add to.
		in := baseInput("夏祭り Café Müller", "2026-07-01 18:00:00", "2026-07-03 21:00:00")
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SaveTranslation(ctx, models.KindEvent, e.ID, "ko", map[string]string{"title": "여름 축제"}); err != nil {
			t.Fatal(err)
		}
		o := seedOptions(420, admin.ID).InBatches(150)
		o.Force = true
		o.Series, o.SeriesCount = 3, 4
		if rowByRow {
			o = o.RowByRow()
		}
		if _, err := db.Seed(ctx, o, nil); err != nil {
			t.Fatal(err)
		}
		o.Force, o.Events, o.Series = true, 30, 0
		if _, err := db.Seed(ctx, o, nil); err != nil {
			t.Fatal(err)
		}
		return db
	}
	skip := map[string]bool{"changes.at": true, "users.password_hash": true, "cache_generation.gen": true}
	bulk, rows := dumpTables(t, seed(false), skip), dumpTables(t, seed(true), skip)
	for table := range bulk {
		if _, ok := rows[table]; !ok {
			t.Errorf("the bulk seed left table %s, which a seed through the triggers does not make", table)
		}
	}
	for table, want := range rows {
		if got, ok := bulk[table]; !ok {
			t.Errorf("the bulk seed lost table %s", table)
		} else if got != want {
			a, b := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := range max(len(a), len(b)) {
				if i >= len(a) || i >= len(b) || a[i] != b[i] {
					t.Errorf("%s differs at row %d (%d rows in bulk, %d through the triggers):\nbulk     %s\ntriggers %s",
						table, i, len(a)-1, len(b)-1, at(a, i), at(b, i))
					break
				}
			}
		}
	}
	least := map[string]int{"(triggers)": 100, "(indexes)": 50, "events": 100, "event_day_counts": 100, "event_month_counts": 100, "changes": 1, "event_search": 1}
	for table, n := range least {
		if got := strings.Count(rows[table], "\n"); got < n {
			t.Errorf("%s holds %d rows: the comparison compares little", table, got)
		}
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}

// TestBacklogRefoldsWhatAPausedWriteLeftInBatches: the marks a write left
// while the index was paused (a seed, a migration) are the backlog's, and
// it refolds them batch by batch, each in its own transaction. Left to the
// transactions' owner, its first transaction refolded them all at commit:
// it counted 40 events of 130, and a 1,000,000-event seed ran its whole
// index in one transaction.
func TestBacklogRefoldsWhatAPausedWriteLeftInBatches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := modelstest.Open(t, models.SQLite)
	admin := newUser(t, db, "admin", models.RoleAdministrator)
	resume := db.PauseSearch()
	for i := range 130 {
		in := baseInput(fmt.Sprintf("秋祭り %d Crème brûlée", i), "2026-10-01 18:00:00", "2026-10-01 21:00:00")
		if _, err := db.CreateEvent(ctx, admin, in); err != nil {
			t.Fatal(err)
		}
	}
	resume()
	done, err := db.IndexBacklogIn(ctx, 40)
	if err != nil {
		t.Fatal(err)
	}
	if done != 130 {
		t.Errorf("the backlog refolded %d events itself, want all 130 (40 a transaction)", done)
	}
	if st, err := db.CheckSearchIndex(ctx); err != nil || !st.InStep() {
		t.Errorf("index after the backlog: %+v, %v", st, err)
	}
	p, err := db.ListEvents(ctx, admin, models.EventFilter{Search: []string{"秋祭"}, PerPage: 1})
	if err != nil || p.Total != 130 {
		t.Errorf("search 秋祭 after the backlog: %d events, %v", p.Total, err)
	}
}

// TestIndexesASeedLeftAsideAreRestoredOnOpen: a seed killed while it wrote
// its events leaves its indexes aside, written down; the next migration
// (every command opens the database through one) builds them again, with
// their statistics, and the calendar reads through them.
func TestIndexesASeedLeftAsideAreRestoredOnOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := modelstest.Open(t, models.SQLite)
	admin := newUser(t, db, "admin", models.RoleAdministrator)
	in := baseInput("한가위 Fête de la Musique", "2026-09-25 18:00:00", "2026-09-25 21:00:00")
	if _, err := db.CreateEvent(ctx, admin, in); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bun.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	schema := func() (indexes string, stats int) {
		modelstest.QueryRows(t, db, "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name",
			func(_ []string, vals []any) { indexes += fmt.Sprintf("%v %v\n", vals[0], vals[1]) })
		modelstest.QueryRows(t, db, "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'events'",
			func(_ []string, vals []any) { stats = int(vals[0].(int64)) })
		return indexes, stats
	}
	wantIndexes, wantStats := schema()
	n, err := db.SetIndexesAside(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := schema(); n < 10 || got == wantIndexes {
		t.Fatalf("%d indexes set aside: the test sets too few aside to tell", n)
	}
	// Killed here: the next command migrates.
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got, stats := schema(); got != wantIndexes || stats != wantStats {
		t.Errorf("indexes after the migration:\n%s\nwant\n%s\nstatistics of events' indexes: %d, want %d", got, wantIndexes, stats, wantStats)
	}
	modelstest.QueryRows(t, db, "SELECT count(*) FROM sqlite_master WHERE name = 'indexes_set_aside'", func(_ []string, vals []any) {
		if vals[0].(int64) != 0 {
			t.Error("the table of indexes set aside is still there")
		}
	})
	p, err := db.ListEvents(ctx, admin, models.EventFilter{Search: []string{"한가위"}, PerPage: 5})
	if err != nil || p.Total != 1 {
		t.Errorf("search 한가위 after the restore: %d events, %v", p.Total, err)
	}
}
