package models_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// tablesOf is the tables part of a site export.
func tablesOf(t *testing.T, b []byte) string {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the export is not JSON: %v\n%.300s", err, b)
	}
	return string(doc["tables"])
}

// TestSiteExportLoadsIntoAnEmptyDatabaseOnly: a dump loads into a fresh
// database and dumps the same again; a damaged or foreign file, a newer
// schema and a database that already holds records are refused with a
// clear error, and a refused load leaves the database empty.
func TestSiteExportLoadsIntoAnEmptyDatabaseOnly(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, src *models.DB) {
		ctx := context.Background()
		o := models.DefaultSeedOptions(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
		o.Events = 40
		if _, err := src.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "correct horse battery", Role: models.RoleAdministrator}); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Seed(ctx, o, nil); err != nil {
			t.Fatal(err)
		}
		var dump bytes.Buffer
		if err := src.DumpSite(ctx, &dump); err != nil {
			t.Fatal(err)
		}
		full := dump.String()

		dst := modelstest.Open(t, src.Dialect())
		bad := []struct{ name, body, want string }{
			{"not JSON", "BEGIN:VCALENDAR", "not a valid Kalends site export"},
			{"another format", `{"format": "wxr", "tables": []}`, `format is wxr`},
			{"a newer version", `{"format": "kalends-site", "version": 99, "tables": []}`, "version 99"},
			{"a newer schema", `{"format": "kalends-site", "version": 1, "migration": "99990101000000", "tables": []}`, "newer Kalends"},
			{"cut short", full[:len(full)*2/3], "not a valid Kalends site export"},
			{"an unknown table", strings.Replace(full, `"name": "venues"`, `"name": "places"`, 1), `table "places"`},
			{"an unknown column", strings.Replace(full, `"columns": ["id","login"`, `"columns": ["id","nick"`, 1), "users.nick"},
			{"a text where a number goes", strings.Replace(full, "\n[1,", "\n[\"one\",", 1), "users row 1, id: want an integer"},
			{"trailing data", full + "{}", "after the end"},
		}
		for _, c := range bad {
			_, err := dst.LoadSite(ctx, strings.NewReader(c.body))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
			}
		}
		// Nothing of the refused loads stayed: the whole file still loads.
		rep, err := dst.LoadSite(ctx, strings.NewReader(full))
		if err != nil {
			t.Fatalf("load after refused loads: %v", err)
		}
		rows := map[string]int{}
		for _, tc := range rep.Tables {
			rows[tc.Name] = tc.Rows
		}
		if rows["events"] != 40 || rows["event_terms"] != 160 || rows["users"] != 1 {
			t.Errorf("loaded %v", rows)
		}
		var again bytes.Buffer
		if err := dst.DumpSite(ctx, &again); err != nil {
			t.Fatal(err)
		}
		if tablesOf(t, again.Bytes()) != tablesOf(t, dump.Bytes()) {
			t.Error("the loaded site dumps differently from the original")
		}
		// Writes go on where the original's ids stopped.
		e, err := dst.ListEvents(ctx, models.Console, models.EventFilter{PerPage: 1, Lang: "en", Statuses: []string{models.StatusPublish}})
		if err != nil || len(e.Items) == 0 {
			t.Fatalf("list after load: %v", err)
		}
		u, err := dst.CreateUser(ctx, models.Console, models.NewUser{Login: "later", Password: "correct horse battery", Role: models.RoleEditor})
		if err != nil || u.ID != 2 {
			t.Errorf("a user created after the load: %v, id %v (want 2)", err, u)
		}
		if _, err := dst.LoadSite(ctx, strings.NewReader(full)); !errors.Is(err, models.ErrSiteNotEmpty) {
			t.Errorf("load into a site with records: %v, want ErrSiteNotEmpty", err)
		}
	})
}
