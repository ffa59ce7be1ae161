package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestPublicEventSpan: the first and last start of the events the public
// lists show: published ones, not drafts, not trashed, not hidden from
// listings; none on an empty calendar. On both dialects the query reads
// two ends of an index, never the events table or an index range whole.
func TestPublicEventSpan(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		if _, _, ok, err := db.PublicEventSpan(ctx); err != nil || ok {
			t.Fatalf("empty calendar: ok=%v err=%v, want no span", ok, err)
		}
		add := func(title, start, status string, hidden bool) int64 {
			t.Helper()
			in := models.EventInput{Title: ptr(title), StartDate: ptr(start), EndDate: ptr(start), Timezone: ptr("Asia/Tokyo"),
				HideFromListings: ptr(hidden), Lang: "ja"}
			in.Status = ptr(status)
			e, err := db.CreateEvent(ctx, models.Console, in)
			if err != nil {
				t.Fatal(err)
			}
			return e.ID
		}
		add("下書きの集い", "2027-01-05 10:00", models.StatusDraft, false)
		add("隠れた夜会", "2027-02-05 10:00", models.StatusPublish, true)
		add("春の音楽祭", "2027-03-01 09:00", models.StatusPublish, false)
		add("Fête de la musique", "2029-06-21 18:00", models.StatusPublish, false)
		add("여름 축제", "2028-07-01 10:00", models.StatusPublish, false)
		add("秘密の夜会", "2035-12-31 22:00", models.StatusPublish, true)
		trashed := add("Ça ira", "2040-01-01 10:00", models.StatusPublish, false)
		if _, err := db.TrashEvent(ctx, models.Console, models.ByID(trashed), "ja"); err != nil {
			t.Fatal(err)
		}
		first, last, ok, err := db.PublicEventSpan(ctx)
		if err != nil || !ok {
			t.Fatalf("span: ok=%v err=%v", ok, err)
		}
		wantFirst := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC) // 09:00 in Tokyo
		wantLast := time.Date(2029, 6, 21, 9, 0, 0, 0, time.UTC) // 18:00 in Tokyo
		if !first.Equal(wantFirst) || !last.Equal(wantLast) {
			t.Errorf("span %v – %v, want %v – %v", first, last, wantFirst, wantLast)
		}

		plan := models.ExplainPublicSpan(t, db.Store)
		t.Logf("plan:\n%s", plan)
		for _, line := range strings.Split(plan, "\n") {
			if fullScan(db.Dialect(), line) && !strings.Contains(line, "SCAN CONSTANT ROW") { // the outer SELECT of no table
				t.Errorf("full scan in plan line %q", line)
			}
		}
		if db.Dialect() == models.SQLite {
			// Two seeks into the index that starts with (status,
			// hide_from_listings, start_at), never a scan of a range.
			if n := strings.Count(plan, "SEARCH events USING COVERING INDEX events_window_idx (status=? AND hide_from_listings=?)"); n != 2 {
				t.Errorf("plan does not seek events_window_idx twice:\n%s", plan)
			}
		} else if n := strings.Count(plan, "Select tables optimized away"); n != 2 {
			t.Errorf("MySQL does not answer both ends from the index:\n%s", plan)
		}
	})
}
