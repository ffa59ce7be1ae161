package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
)

// TestExportCSV: kalends export --format csv writes the events (drafts
// included, the trash not), venues and organizers with TEC's column names,
// which our mapping reads back field by field; UTF-8 with a BOM by
// default, Shift_JIS on request (and a clear refusal when a character has
// no Shift_JIS form); a title that a spreadsheet would run as a formula is
// escaped in the file and comes back exactly.
func TestExportCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "csv.db")
	if r := kalends(t, "migrate", "--db", dsn, "--timezone", "Asia/Tokyo"); r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s", r.code, r.stderr)
	}
	ctx := context.Background()
	db, err := models.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	formula := `=HYPERLINK("http://evil.example","チケット")`
	venue, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{Venue: ptrTo("渋谷公会堂"), City: ptrTo("東京"),
		Address: ptrTo("宇田川町1-1"), Phone: ptrTo("+81 3-1234-5678")}, "ja")
	if err == nil {
		_, _, err = db.Organizers().Create(ctx, models.Console, models.OrganizerInput{Organizer: ptrTo("東京音楽協会"), Email: ptrTo("info@example.jp")}, "ja")
	}
	if err == nil {
		_, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrTo("夏祭り盆踊り"), Description: ptrTo("<p>浴衣でお越しください。</p>"),
			StartDate: ptrTo("2027-08-14 18:30"), EndDate: ptrTo("2027-08-14 21:00"), Timezone: ptrTo("Asia/Tokyo"),
			Venues: &[]models.VenueRef{{ID: venue.ID}}, Categories: &[]models.TermRef{{Name: "祭り"}, {Name: "音楽"}},
			Tags: &[]models.TermRef{{Name: "無料"}}, Cost: ptrTo(models.EncodeCost("1000")), CurrencySymbol: ptrTo("¥"), Lang: "ja"})
	}
	if err == nil {
		_, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrTo(formula), StartDate: ptrTo("2027-09-01"),
			EndDate: ptrTo("2027-09-01"), AllDay: ptrTo(true), PostInput: models.PostInput{Status: ptrTo(models.StatusDraft)}, Lang: "ja"})
	}
	var trashed *models.Event
	if err == nil {
		trashed, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrTo("捨てたイベント"), StartDate: ptrTo("2027-10-01 10:00"),
			EndDate: ptrTo("2027-10-01 11:00"), Lang: "ja"})
	}
	if err == nil {
		_, err = db.TrashEvent(ctx, models.Console, models.ByID(trashed.ID), "ja")
	}
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}

	read := func(data []byte, enc string) (eventcsv.Mapping, [][]string) {
		t.Helper()
		text, _, _, err := eventcsv.Decode(data, enc)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil || len(rows) < 1 {
			t.Fatalf("the file is not CSV: %v\n%s", err, text)
		}
		return eventcsv.GuessMapping(eventcsv.KindEvents, rows[0]), rows[1:]
	}
	file := filepath.Join(dir, "events.csv")
	if r := kalends(t, "export", "--db", dsn, "--to", file); r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "\uFEFF") {
		t.Error("the file has no UTF-8 byte order mark")
	}
	m, rows := read(data, "")
	byField := func(row []string) map[string]string {
		out := map[string]string{}
		for i, f := range m {
			if f != "" {
				out[f] = eventcsv.UnescapeCell(row[i])
			}
		}
		return out
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want the two events not trashed:\n%s", len(rows), data)
	}
	fest, draft := byField(rows[0]), byField(rows[1])
	for field, want := range map[string]string{
		eventcsv.FieldTitle: "夏祭り盆踊り", eventcsv.FieldDescription: "<p>浴衣でお越しください。</p>", eventcsv.FieldStartDate: "2027-08-14",
		eventcsv.FieldStartTime: "18:30", eventcsv.FieldEndTime: "21:00", eventcsv.FieldTimezone: "Asia/Tokyo", eventcsv.FieldVenue: "渋谷公会堂",
		eventcsv.FieldCategories: "祭り, 音楽", eventcsv.FieldTags: "無料", eventcsv.FieldCost: "1000", eventcsv.FieldCurrencySymbol: "¥",
		eventcsv.FieldAllDay: "no", eventcsv.FieldStatus: models.StatusPublish, eventcsv.FieldMarker: "1",
	} {
		if fest[field] != want {
			t.Errorf("%s = %q, want %q", field, fest[field], want)
		}
	}
	if draft[eventcsv.FieldTitle] != formula || draft[eventcsv.FieldStatus] != models.StatusDraft || draft[eventcsv.FieldAllDay] != "yes" {
		t.Errorf("the draft came back as %q", draft)
	}
	if !strings.Contains(string(data), `"'=HYPERLINK(""http://evil.example"",""チケット"")"`) {
		t.Errorf("the formula title is not escaped in the file:\n%s", data)
	}

	// Shift_JIS for Japanese Excel: the same rows.
	r := kalends(t, "export", "--db", dsn, "--format", "csv", "--encoding", "shift_jis")
	if r.code != 0 {
		t.Fatalf("export in Shift_JIS: exit %d\n%s", r.code, r.stderr)
	}
	if _, sjis := read([]byte(r.stdout), eventcsv.ShiftJIS); len(sjis) != 2 || byField(sjis[0])[eventcsv.FieldVenue] != "渋谷公会堂" {
		t.Errorf("the Shift_JIS file reads %q", sjis)
	}
	// A character Shift_JIS lacks is refused, naming the way out.
	db, err = models.Open(ctx, dsn)
	if err == nil {
		_, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrTo("서울 재즈 페스티벌"), StartDate: ptrTo("2027-05-23 19:00"),
			EndDate: ptrTo("2027-05-23 21:00"), Lang: "ko"})
		_ = db.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if r := kalends(t, "export", "--db", dsn, "--format", "csv", "--encoding", "shift_jis"); r.code == 0 || !strings.Contains(r.stderr, "utf-8-bom") {
		t.Errorf("Hangul in Shift_JIS: exit %d, %s", r.code, r.stderr)
	}

	// Venues and organizers.
	for kind, want := range map[string][]string{"venues": {"Venue Name", "渋谷公会堂", "宇田川町1-1", "'+81 3-1234-5678"},
		"organizers": {"Organizer Email", "東京音楽協会", "info@example.jp"}} {
		r := kalends(t, "export", "--db", dsn, "--format", "csv", "--kind", kind)
		if r.code != 0 {
			t.Fatalf("export %s: exit %d\n%s", kind, r.code, r.stderr)
		}
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("the %s file lacks %q:\n%s", kind, w, r.stdout)
			}
		}
	}
	for _, args := range [][]string{{"--format", "csv", "--kind", "concerts"}, {"--format", "csv", "--encoding", "latin9"}, {"--kind", "venues"}} {
		if r := kalends(t, append([]string{"export", "--db", dsn}, args...)...); r.code != 2 {
			t.Errorf("export %v: exit %d, want a usage error\n%s", args, r.code, r.stderr)
		}
	}
	if r := kalends(t, "import", "--db", dsn, file); r.code == 0 || !strings.Contains(r.stderr, "not available yet") {
		t.Errorf("import of a CSV file: exit %d\n%s", r.code, r.stderr)
	}
}
