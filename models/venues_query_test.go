package models_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// queryLog records the SQL the store runs (a bun query hook).
type queryLog struct {
	mu      sync.Mutex
	queries []string
}

func (l *queryLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (l *queryLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	l.mu.Lock()
	l.queries = append(l.queries, e.Query)
	l.mu.Unlock()
}
func (l *queryLog) reset() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queries
	l.queries = nil
	return q
}

func TestLinkedListsCostFixedQueriesAndUseIndexes(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "ed", models.RoleEditor)
		var vids, oids []int64
		for i := 0; i < 120; i++ {
			v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: sp(fmt.Sprintf("Venue %d", i)), City: sp("Oslo")}, "en")
			if err != nil {
				t.Fatal(err)
			}
			o, _, err := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: sp(fmt.Sprintf("Org %d", i))}, "en")
			if err != nil {
				t.Fatal(err)
			}
			vids, oids = append(vids, v.ID), append(oids, o.ID)
			if i%10 == 0 {
				if err := db.SaveTranslation(ctx, models.KindVenue, v.ID, "ja", map[string]string{"venue": "会場"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		mkEvent(t, db, models.StatusPublish, time.Now().Add(time.Hour), vids[:50], oids[:50])
		log := &queryLog{}
		db.AddQueryHook(log)
		tru := true
		filters := []struct {
			as *models.User
			f  models.LinkedFilter
		}{
			{nil, models.LinkedFilter{Lang: "ja"}},
			{ed, models.LinkedFilter{Lang: "ja", Words: []string{"venue", "1"}}},
			{nil, models.LinkedFilter{Lang: "en", HasEvents: &tru, OnlyWithUpcoming: true}},
		}
		var listSQL []string
		for _, c := range filters {
			f := c.f
			counts := map[int]int{}
			for _, per := range []int{1, 100} {
				f.PerPage, f.Page = per, 1
				log.reset()
				p, err := db.Venues().List(ctx, c.as, f)
				if err != nil || len(p.Items) == 0 {
					t.Fatalf("list venues %+v: %v (%v)", f, err, p)
				}
				q := log.reset()
				if _, err := db.Organizers().List(ctx, c.as, f); err != nil {
					t.Fatal(err)
				}
				if oq := log.reset(); len(oq) > 4 {
					t.Errorf("organizers list ran %d queries", len(oq))
				}
				counts[per] = len(q)
				if len(f.Words) == 0 { // a substring search scans by nature
					listSQL = append(listSQL, q[0], q[1])
				}
			}
			if counts[1] != counts[100] || counts[1] > 4 {
				t.Errorf("queries per list %+v: per_page 1 → %d, per_page 100 → %d (want the same, at most 4)", f, counts[1], counts[100])
			}
		}
		log.reset()
		if m, err := db.Venues().ByIDs(ctx, vids, "ja"); err != nil || len(m) != len(vids) {
			t.Fatalf("by ids: %v", err)
		}
		if n := len(log.reset()); n != 2 {
			t.Errorf("VenuesByIDs of %d ids ran %d queries, want 2 (rows, translations)", len(vids), n)
		}
		for _, q := range listSQL { // default visibility: the status/published index
			plan := explain(t, db, q)
			if !indexRE.MatchString(plan) {
				t.Errorf("no index in the plan of\n%s\n%s", q, plan)
			}
		}
	})
}

// indexRE finds the venues table read through one of its indexes, on
// SQLite (EXPLAIN QUERY PLAN) or MySQL (EXPLAIN).
var indexRE = regexp.MustCompile(`(SEARCH|SCAN) venue USING (COVERING )?INDEX venues_|table=venue type=\w+ possible_keys=\S* key=venues_`)

// explain returns the query plan of q as one string, on either dialect.
func explain(t *testing.T, db *models.DB, q string) string {
	t.Helper()
	prefix := "EXPLAIN QUERY PLAN "
	if db.Dialect() == models.MySQL {
		prefix = "EXPLAIN "
	}
	var b strings.Builder
	modelstest.QueryRows(t, db, prefix+q, func(cols []string, vals []any) {
		for i, v := range vals {
			fmt.Fprintf(&b, "%s=%v ", cols[i], v)
		}
		b.WriteByte('\n')
	})
	return b.String()
}
