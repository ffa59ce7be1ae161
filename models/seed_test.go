package models_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func seedOptions(events int, author int64) models.SeedOptions {
	o := models.DefaultSeedOptions(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	o.Events, o.AuthorID, o.Seed = events, author, 7
	return o
}

// dumpSeed is a canonical text of what a seed wrote, to compare dialects.
func dumpSeed(t *testing.T, db *models.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT id, status, slug, lang, title, description, excerpt, start_at, end_at, timezone, all_day, cost, currency_symbol, hide_from_listings, featured FROM events ORDER BY id",
		"SELECT event_id, venue_id, position FROM event_venues ORDER BY event_id, position",
		"SELECT event_id, organizer_id, position FROM event_organizers ORDER BY event_id, position",
		"SELECT event_id, term_id FROM event_terms ORDER BY event_id, term_id",
		"SELECT event_id, lang, title, description FROM event_translations ORDER BY event_id, lang",
		"SELECT id, venue, city, country, geo_lat FROM venues ORDER BY id",
		"SELECT id, organizer, email FROM organizers ORDER BY id",
		"SELECT id, taxonomy, name, slug, parent_id, event_count FROM terms ORDER BY id",
		"SELECT term_id, lang, name FROM term_translations ORDER BY term_id, lang",
	} {
		modelstest.QueryRows(t, db, q, func(_ []string, vals []any) {
			for _, v := range vals {
				switch x := v.(type) {
				case time.Time:
					v = x.UTC().Format(time.DateTime)
				case bool: // SQLite booleans
					v = map[bool]int64{false: 0, true: 1}[x]
				case float64:
					v = fmt.Sprintf("%.3f", x)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteByte('\n')
		})
	}
	return b.String()
}

// TestSeedIsDeterministicAcrossDialects: the same options write the same
// records on SQLite and MariaDB.
func TestSeedIsDeterministicAcrossDialects(t *testing.T) {
	t.Parallel()
	dumps := map[models.Dialect]string{}
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		rep, err := db.Seed(ctx, seedOptions(300, admin.ID), nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events != 300 || rep.Venues != 20 || rep.Organizers != 20 || rep.Categories != 10 || rep.Tags != 20 {
			t.Errorf("report %+v", rep)
		}
		dump := dumpSeed(t, db)
		if lines := strings.Count(dump, "\n"); lines < 300*5 { // events, links, terms, …
			t.Fatalf("the dump has %d lines", lines)
		}
		dumps[db.Dialect()] = dump
	})
	if len(dumps) == 2 && dumps[models.SQLite] != dumps[models.MySQL] {
		a, b := strings.Split(dumps[models.SQLite], "\n"), strings.Split(dumps[models.MySQL], "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("the dialects differ at line %d:\nsqlite %s\nmysql  %s", i, a[i], b[i])
			}
		}
		t.Fatalf("the dialects differ in length: %d vs %d lines", len(a), len(b))
	}
}

// TestSeedWritesWholeRealisticEvents: seeded events read as whole events
// through the store, with the links and shares asked for, exact term
// counts, and a refusal to seed over existing events.
func TestSeedWritesWholeRealisticEvents(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		o := seedOptions(400, admin.ID)
		calls := 0
		if _, err := db.Seed(ctx, o, func(_, _ int) { calls++ }); err != nil {
			t.Fatal(err)
		}
		if calls == 0 {
			t.Error("progress was never reported")
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 0 {
			t.Errorf("term counts after seeding: %d wrong, %v", n, err)
		}
		if n, err := db.RepairEventTermCopies(ctx); err != nil || n != 0 {
			t.Errorf("links' copies of their events after seeding: %d wrong, %v", n, err)
		}
		if n, err := db.RepairEventCategories(ctx); err != nil || n != 0 {
			t.Errorf("events filed under the wrong categories after seeding: %d, %v", n, err)
		}
		p, err := db.ListEvents(ctx, admin, models.EventFilter{PerPage: 500, Lang: "ja"})
		if err != nil {
			t.Fatal(err)
		}
		drafts, translated := 0, 0
		for _, e := range p.Items {
			if len(e.Venues) != 1 || len(e.Organizers) != 2 || len(e.Categories) != 2 || len(e.Tags) != 2 {
				t.Fatalf("event %d not linked as asked: %d venues, %d organizers, %d categories, %d tags",
					e.ID, len(e.Venues), len(e.Organizers), len(e.Categories), len(e.Tags))
			}
			if n := len([]rune(e.Description)); n < 400 {
				t.Errorf("event %d: description of %d characters", e.ID, n)
			}
			if e.Status == models.StatusDraft {
				drafts++
			}
			if len(e.Translations) > 0 {
				translated++
			}
		}
		hidden := 400 - p.Total // hidden events are left out of lists
		for name, c := range map[string]struct {
			got  int
			want float64
		}{"drafts": {drafts, o.Drafts}, "translated": {translated, o.Translated}, "hidden": {hidden, o.Hidden}} {
			if share := float64(c.got) / 400; math.Abs(share-c.want) > 0.06 {
				t.Errorf("%s: share %.2f, want about %.2f", name, share, c.want)
			}
		}
		if _, err := db.Seed(ctx, o, nil); !errors.Is(err, models.ErrNotEmpty) {
			t.Errorf("seeding over events: %v, want ErrNotEmpty", err)
		}
	})
}
