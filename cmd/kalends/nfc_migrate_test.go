package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// Issue 29 item 2: `kalends migrate` on a database whose text was stored
// decomposed composes it, and logs each slug it had to change to keep two
// records apart (kind, id, old and new slug).
func TestMigrateLogsTheSlugsComposingChanged(t *testing.T) {
	t.Parallel()
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			dsn := modelstest.NewDSN(t, d)
			ctx := context.Background()
			db, err := models.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = db.Close() }()
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "ed", Password: "correct horse battery", Role: models.RoleEditor})
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, title := range []string{"Fête", "Other"} {
				s := func(v string) *string { return &v }
				e, err := db.CreateEvent(ctx, u, models.EventInput{Title: s(title), StartDate: s("2031-01-01 10:00:00"), EndDate: s("2031-01-01 11:00:00")})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, e.ID)
			}
			if _, err := db.IDB().ExecContext(ctx, "UPDATE events SET slug = ? WHERE id = ?", norm.NFD.String("fête"), ids[1]); err != nil {
				t.Fatal(err)
			}
			if _, err := db.IDB().ExecContext(ctx, "DELETE FROM bun_migrations WHERE name = ?", "20261129000100"); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()

			r := kalends(t, "migrate", "--db", dsn, "--log-format", "text")
			if r.code != 0 {
				t.Fatalf("migrate: %s", r.stderr)
			}
			var line string
			for _, l := range strings.Split(r.stderr, "\n") {
				if strings.Contains(l, "kind=event") {
					line = l
				}
			}
			for _, want := range []string{"id=" + strconv.FormatInt(ids[1], 10), "field=slug", "old=" + norm.NFD.String("fête"), "new=fête-2", "kept_by=" + strconv.FormatInt(ids[0], 10)} {
				if !strings.Contains(line, want) {
					t.Errorf("no %q in the log line %q of\n%s", want, line, r.stderr)
				}
			}
		})
	}
}
