package models_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestInListPadsToAFewShapes(t *testing.T) {
	for _, c := range []struct{ n, size int }{{1, 1}, {2, 2}, {3, 4}, {50, 64}, {128, 128}, {129, 256}, {300, 384}} {
		ids := make([]int64, c.n)
		for i := range ids {
			ids[i] = int64(i + 1)
		}
		ph, args := models.InList(ids)
		if len(args) != c.size || strings.Count(ph, "?") != c.size {
			t.Errorf("%d ids: %d arguments, %d placeholders, want %d", c.n, len(args), strings.Count(ph, "?"), c.size)
		}
		for i, a := range args {
			if want := ids[min(i, c.n-1)]; a != want {
				t.Fatalf("%d ids: argument %d is %v, want %d", c.n, i, a, want)
			}
		}
	}
}

// The reads kept as prepared statements (SQLite, outside transactions) give
// what the same reads give through bun inside a transaction, for events
// with venues, organizers, terms and translations read in every language;
// query hooks see them with their arguments; the statements kept stay few.
func TestPreparedReadsMatchBunsReads(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		o := models.DefaultSeedOptions(time.Now())
		o.Events, o.Force = 120, true
		if _, err := db.Seed(ctx, o, nil); err != nil {
			t.Fatal(err)
		}
		var ids []int64
		if err := db.IDB().NewSelect().Table("events").Column("id").OrderExpr("id").Scan(ctx, &ids); err != nil || len(ids) < 100 {
			t.Fatalf("seeded events: %d, %v", len(ids), err)
		}
		log := &queryLog{}
		db.AddQueryHook(log)
		asJSON := func(v any) string {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		for i, id := range ids[:40] {
			lang := []string{"en", "ja", "ko", "zh-hans"}[i%4]
			got, err := db.ReadEvent(ctx, id, lang)
			if err != nil {
				t.Fatal(err)
			}
			var want *models.Event
			if err := db.RunInTx(ctx, func(tx *models.Store) error {
				want, err = tx.ReadEvent(ctx, id, lang)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if g, w := asJSON(got), asJSON(want); g != w {
				t.Fatalf("event %d in %s:\n prepared %s\n bun      %s", id, lang, g, w)
			}
			if len(got.Venues) == 0 || len(got.Organizers) == 0 || len(got.Categories) == 0 || len(got.Tags) == 0 {
				t.Fatalf("event %d is not linked as seeded: %s", id, asJSON(got))
			}
		}
		queries := strings.Join(log.reset(), "\n")
		if want := fmt.Sprintf("(event.id = %d)", ids[39]); !strings.Contains(queries, want) {
			t.Errorf("the hook saw no %q among the reads", want)
		}
		// Venues, organizers and terms by every list length up to 100.
		for n := 1; n <= 100; n++ {
			list, err := db.ListEvents(ctx, models.Console, models.EventFilter{Include: ids[:n], PerPage: n, Page: 1, Lang: "ja"})
			if err != nil {
				t.Fatal(err)
			}
			var want *models.Page[models.Event]
			if err := db.RunInTx(ctx, func(tx *models.Store) error {
				want, err = tx.ListEvents(ctx, models.Console, models.EventFilter{Include: ids[:n], PerPage: n, Page: 1, Lang: "ja"})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if len(list.Items) != n {
				t.Fatalf("list of %d ids: %d events", n, len(list.Items))
			}
			if g, w := asJSON(list), asJSON(want); g != w {
				t.Fatalf("list of %d:\n prepared %s\n bun      %s", n, g, w)
			}
		}
		kept := db.Prepared()
		switch {
		case db.Dialect() == models.MySQL && kept != 0:
			t.Errorf("%d statements prepared on MySQL, which reads through bun", kept)
		case db.Dialect() == models.SQLite && (kept == 0 || kept > 8*8+1):
			// Eight reads by IN list (translations of four kinds, links,
			// venues, organizers, terms), each in eight lengths up to 128,
			// and the event by id.
			t.Errorf("%d statements prepared for lists of 1 to 100 events, want at most 65 (lengths padded)", kept)
		}
	})
}

// TestWritesInATransactionUsePreparedStatements: on SQLite a write run by
// exec inside a transaction (filing an event under its categories) is
// prepared in the background on its first use, then runs through the
// transaction connection's statement, with the same result and seen by the
// query hooks.
func TestWritesInATransactionUsePreparedStatements(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "editor", models.RoleEditor)
		create := func(title string) {
			t.Helper()
			in := baseInput(title, "2027-05-01 10:00", "2027-05-01 11:00")
			in.Categories = termRefs([]string{"Music"})
			if _, err := db.CreateEvent(ctx, ed, in); err != nil {
				t.Fatal(err)
			}
		}
		create("First")
		if db.Dialect() == models.SQLite {
			within(t, 10*time.Second, db.PreparedFiling, "the filing statements were not prepared after their first use")
		} else if db.PreparedFiling() {
			t.Error("statements prepared on MySQL, which writes through bun")
		}
		log := &queryLog{}
		db.AddQueryHook(log)
		create("Second")
		if !strings.Contains(strings.Join(log.reset(), "\n"), "INSERT INTO event_category_ancestors") {
			t.Error("the hook did not see the filing")
		}
		p, err := db.ListEvents(ctx, nil, models.EventFilter{Categories: refsOf([]string{"music"}), PerPage: 1, Lang: "en"})
		if err != nil || p.Total != 2 {
			t.Fatalf("music: %v, %v; want a total of 2", p, err)
		}
		if n, err := db.RepairEventCategories(ctx); err != nil || n != 0 {
			t.Errorf("%d events filed wrong (%v)", n, err)
		}
	})
}

// within waits, polling, until cond holds, and fails with why after d.
func within(t *testing.T, d time.Duration, cond func() bool, why string) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
		<-tick.C
	}
}

// writeLog records, per statement a transaction ran, its text and whether
// it ran through a kept prepared statement.
type writeLog struct {
	mu   sync.Mutex
	bun  []string // the statements that did not
	seen int
}

func (l *writeLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (l *writeLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch strings.ToUpper(strings.TrimSpace(e.Query)) {
	case "BEGIN", "COMMIT", "ROLLBACK":
		return
	}
	l.seen++
	if !models.RanPrepared(e) {
		l.bun = append(l.bun, e.Query)
	}
}

// TestCreateAndEditRunPreparedStatements: on SQLite, once its statements
// were prepared by a first create and edit, a create of an event with a
// venue, an organizer, categories and tags, then an edit of its title in
// another language (a translation) and of its links, runs every statement
// through a prepared one. A statement bun writes anew is compiled with
// every trigger of its table, and that was a fifth of the CPU of a
// POST /events. On MySQL every write goes through bun.
func TestCreateAndEditRunPreparedStatements(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "editor", models.RoleEditor)
		v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: ptr("서울 아트홀")}, "ko")
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: ptr("Société de l'Opéra")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		write := func(i int) {
			t.Helper()
			in := baseInput(fmt.Sprintf("夏祭り %d Fête d'été", i), "2027-07-01 18:00", "2027-07-01 21:00")
			in.Description = ptr("<p>盆踊りと花火 — danse et feux d'artifice</p>")
			in.Venues = &[]models.VenueRef{{ID: v.ID}}
			in.Organizers = &[]models.OrganizerRef{{ID: o.ID}}
			in.Categories = termRefs([]string{"Music", "祭り"})
			in.Tags = termRefs([]string{"outdoor"})
			e, err := db.CreateEvent(ctx, ed, in)
			if err != nil {
				t.Fatal(err)
			}
			edit := models.EventInput{Title: ptr(fmt.Sprintf("여름 축제 %d", i)), Lang: "ko", Tags: termRefs([]string{"outdoor", "night"}),
				Venues: &[]models.VenueRef{{ID: v.ID}}}
			if _, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), edit); err != nil {
				t.Fatal(err)
			}
		}
		write(1)
		write(2) // a second slug of the same title, a second term count
		within(t, 10*time.Second, db.PreparingNone, "statements still being prepared after 10 s")
		log := &writeLog{}
		db.AddQueryHook(log)
		write(3)
		log.mu.Lock()
		defer log.mu.Unlock()
		if log.seen < 20 {
			t.Fatalf("the hook saw %d statements of a create and an edit", log.seen)
		}
		switch {
		case db.Dialect() == models.SQLite && len(log.bun) > 0:
			t.Errorf("%d of %d statements not prepared:\n%s", len(log.bun), log.seen, strings.Join(log.bun, "\n"))
		case db.Dialect() == models.MySQL && len(log.bun) != log.seen:
			t.Errorf("%d statements prepared on MySQL, which writes through bun", log.seen-len(log.bun))
		}
	})
}
