package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

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
	venue, _, err := db.Venues().Create(ctx, models.Console, models.VenueInput{Venue: ptrOf("渋谷公会堂"), City: ptrOf("東京"),
		Address: ptrOf("宇田川町1-1"), Phone: ptrOf("+81 3-1234-5678")}, "ja")
	if err == nil {
		_, _, err = db.Organizers().Create(ctx, models.Console, models.OrganizerInput{Organizer: ptrOf("東京音楽協会"), Email: ptrOf("info@example.jp")}, "ja")
	}
	if err == nil {
		_, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrOf("夏祭り盆踊り"), Description: ptrOf("<p>浴衣でお越しください。</p>"),
			StartDate: ptrOf("2027-08-14 18:30"), EndDate: ptrOf("2027-08-14 21:00"), Timezone: ptrOf("Asia/Tokyo"),
			Venues: &[]models.VenueRef{{ID: venue.ID}}, Categories: &[]models.TermRef{{Name: "祭り"}, {Name: "音楽"}},
			Tags: &[]models.TermRef{{Name: "無料"}}, Cost: ptrOf(models.EncodeCost("1000")), CurrencySymbol: ptrOf("¥"), Lang: "ja"})
	}
	if err == nil {
		_, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrOf(formula), StartDate: ptrOf("2027-09-01"),
			EndDate: ptrOf("2027-09-01"), AllDay: ptrOf(true), PostInput: models.PostInput{Status: ptrOf(models.StatusDraft)}, Lang: "ja"})
	}
	var trashed *models.Event
	if err == nil {
		trashed, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrOf("捨てたイベント"), StartDate: ptrOf("2027-10-01 10:00"),
			EndDate: ptrOf("2027-10-01 11:00"), Lang: "ja"})
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
		_, err = db.CreateEvent(ctx, models.Console, models.EventInput{Title: ptrOf("서울 재즈 페스티벌"), StartDate: ptrOf("2027-05-23 19:00"),
			EndDate: ptrOf("2027-05-23 21:00"), Lang: "ko"})
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

	// Export, then import into an empty site: the same events, the formula
	// title included; a second import changes nothing.
	empty := "sqlite:" + filepath.Join(dir, "empty.db")
	if r := kalends(t, "user", "create", "--db", empty, "--timezone", "Asia/Tokyo", "--login", "admin", "--password", "pw-admin-csv", "--role", "administrator"); r.code != 0 {
		t.Fatalf("user create: exit %d\n%s", r.code, r.stderr)
	}
	if r := kalends(t, "import", "--db", empty, "--timezone", "Asia/Tokyo", file); r.code != 0 || !strings.HasPrefix(r.stdout, "events: created 2, updated 0, unchanged 0, failed 0") {
		t.Fatalf("import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	again := filepath.Join(dir, "again.csv")
	if r := kalends(t, "export", "--db", empty, "--timezone", "Asia/Tokyo", "--to", again); r.code != 0 {
		t.Fatalf("export of the copy: exit %d\n%s", r.code, r.stderr)
	}
	copied, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	withoutIDs := func(data []byte) [][]string {
		_, rows := read(data, "")
		for _, r := range rows {
			for i, f := range m {
				if f == eventcsv.FieldID {
					r[i] = ""
				}
			}
		}
		return rows
	}
	if a, b := withoutIDs(data), withoutIDs(copied); !reflect.DeepEqual(a, b) {
		t.Errorf("the imported events differ:\n%q\n%q", a, b)
	}
	if r := kalends(t, "import", "--db", empty, "--timezone", "Asia/Tokyo", file); r.code != 0 || !strings.HasPrefix(r.stdout, "events: created 0, updated 0, unchanged 2, failed 0") {
		t.Errorf("second import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Venues and organizers: the venue the events import made is found by
	// name and completed from the file (address, city, phone); a second
	// import changes nothing; the organizer comes over whole.
	for _, k := range []struct{ kind, first, again string }{
		{"venues", "venues: created 0, updated 1, unchanged 0, failed 0", "venues: created 0, updated 0, unchanged 1, failed 0"},
		{"organizers", "organizers: created 1, updated 0, unchanged 0, failed 0", "organizers: created 0, updated 0, unchanged 1, failed 0"},
	} {
		f := filepath.Join(dir, k.kind+".csv")
		if r := kalends(t, "export", "--db", dsn, "--kind", k.kind, "--to", f); r.code != 0 {
			t.Fatalf("export %s: exit %d\n%s", k.kind, r.code, r.stderr)
		}
		for _, want := range []string{k.first, k.again} {
			if r := kalends(t, "import", "--db", empty, "--kind", k.kind, f); r.code != 0 || !strings.HasPrefix(r.stdout, want) {
				t.Errorf("import %s: exit %d, want %q\n%s%s", k.kind, r.code, want, r.stdout, r.stderr)
			}
		}
	}
	if r := kalends(t, "export", "--db", empty, "--format", "csv", "--kind", "venues"); !strings.Contains(r.stdout, "宇田川町1-1") ||
		!strings.Contains(r.stdout, "'+81 3-1234-5678") {
		t.Errorf("the imported venue:\n%s", r.stdout)
	}
}

// TestImportCSVEncodingsAndBadRows: 1,000 events in all, 250 in each of
// four languages, written as TEC's CSV in UTF-8 import as created; the
// same files in UTF-8 with a BOM and in their language's legacy encoding
// (Shift_JIS, GB18030, Big5, EUC-KR; --encoding where more than one
// reading is clean, which the command says) find every event unchanged.
// A file with 20 bad rows reports exactly those rows, by number, and
// imports the others.
func TestImportCSVEncodingsAndBadRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "enc.db")
	if r := kalends(t, "user", "create", "--db", dsn, "--login", "admin", "--password", "pw-admin-enc", "--role", "administrator"); r.code != 0 {
		t.Fatalf("user create: exit %d\n%s", r.code, r.stderr)
	}
	langs := []struct {
		lang, legacy string
		title, venue []string
		time         string
	}{
		{"ja", eventcsv.ShiftJIS, []string{"夏祭り", "能と狂言の夕べ", "ジャズ・ライブ"}, []string{"渋谷公会堂", "国立能楽堂"}, "午後%d時"},
		{"zh-hans", eventcsv.GB18030, []string{"电影节开幕式", "周末市集", "爵士音乐会"}, []string{"上海大剧院", "北京798艺术区"}, "下午%d点"},
		{"zh-hant", eventcsv.Big5, []string{"燈節開幕", "港都音樂會", "書展"}, []string{"臺北車站廣場", "駁二藝術特區"}, "下午%d點"},
		{"ko", eventcsv.EUCKR, []string{"재즈 페스티벌", "영화제 개막식", "봄꽃 축제"}, []string{"올림픽공원", "영화의전당"}, "오후 %d시"},
	}
	write := func(name, text, enc string) string {
		t.Helper()
		data, err := eventcsv.Encode(text, enc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, l := range langs {
		var b strings.Builder
		b.WriteString("Event Name,Event Start Date,Event Start Time,Event End Date,Event End Time,Event Venue Name,Event Category\r\n")
		for i := range 250 {
			fmt.Fprintf(&b, "%s %d,%02d/%02d/2027,%s,%02d/%02d/2027,%s,%s,%s\r\n", l.title[i%3], i, 1+i%12, 1+i%28,
				fmt.Sprintf(l.time, 1+i%9), 1+i%12, 1+i%28, fmt.Sprintf(l.time, 2+i%9), l.venue[i%2], l.title[(i+1)%3])
		}
		text := b.String()
		if r := kalends(t, "import", "--db", dsn, write(l.lang+".csv", text, eventcsv.UTF8)); r.code != 0 ||
			!strings.HasPrefix(r.stdout, "events: created 250, updated 0, unchanged 0, failed 0") {
			t.Fatalf("%s in UTF-8: exit %d\n%s%s", l.lang, r.code, r.stdout, r.stderr)
		}
		for _, enc := range []string{eventcsv.UTF8BOM, l.legacy} {
			f := write(l.lang+"-"+enc+".csv", text, enc)
			r := kalends(t, "import", "--db", dsn, f)
			if r.code == 2 && strings.Contains(r.stderr, "--encoding "+enc+":") {
				r = kalends(t, "import", "--db", dsn, "--encoding", enc, f) // ambiguous: named
			}
			if r.code != 0 || !strings.HasPrefix(r.stdout, "events: created 0, updated 0, unchanged 250, failed 0") {
				t.Errorf("%s in %s: exit %d\n%s%s", l.lang, enc, r.code, r.stdout, r.stderr)
			}
		}
	}

	// Twenty bad rows among thirty: exactly those are reported, by row.
	var b strings.Builder
	b.WriteString("Event Name;Event Start Date;Event Start Time;All Day Event\n")
	var want []string
	for i := range 30 {
		row := i + 2
		switch {
		case i%3 == 0:
			fmt.Fprintf(&b, "Café Müller %d;2027-06-%02d;19:00;no\n", i, 1+i)
		case i%3 == 1:
			fmt.Fprintf(&b, "Bad date %d;2027-02-%02d;19:00;no\n", i, 29+i%3) // no such day
			want = append(want, fmt.Sprintf("row %d, Event Start Date:", row))
		case i%2 == 0:
			fmt.Fprintf(&b, "Bad time %d;2027-06-01;25:61;no\n", i)
			want = append(want, fmt.Sprintf("row %d, Event Start Time:", row))
		default:
			fmt.Fprintf(&b, ";2027-06-01;19:00;maybe\n")
			want = append(want, fmt.Sprintf("row %d, Event Name:", row))
		}
	}
	f := write("bad.csv", b.String(), eventcsv.UTF8)
	for _, dry := range []bool{true, false} {
		args := []string{"import", "--db", dsn}
		if dry {
			args = append(args, "--dry-run")
		}
		r := kalends(t, append(args, f)...)
		var rows []string
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, "row ") {
				n, _, _ := strings.Cut(line, ",")
				rows = append(rows, n)
			}
		}
		rows = slices.Compact(rows) // a row with two bad cells is one bad row
		var wantRows []string
		for _, w := range want {
			n, _, _ := strings.Cut(w, ",")
			wantRows = append(wantRows, n)
			if !strings.Contains(r.stdout, w) {
				t.Errorf("dry run %v: no %q in\n%s", dry, w, r.stdout)
			}
		}
		if r.code != 1 || !slices.Equal(rows, wantRows) || len(want) != 20 {
			t.Errorf("dry run %v: exit %d, rows %q, want %q\n%s", dry, r.code, rows, wantRows, r.stderr)
		}
	}
	if r := kalends(t, "import", "--db", dsn, f); !strings.HasPrefix(r.stdout, "events: created 0, updated 0, unchanged 10, failed 20") {
		t.Errorf("the good rows were not imported once:\n%s", r.stdout)
	}
	// The same rows typed decomposed (NFD, as macOS writes file names and
	// some spreadsheets text) are the same events.
	nfd := write("bad-nfd.csv", norm.NFD.String(b.String()), eventcsv.UTF8)
	if r := kalends(t, "import", "--db", dsn, nfd); !strings.HasPrefix(r.stdout, "events: created 0, updated 0, unchanged 10, failed 20") {
		t.Errorf("the rows in NFD were not found again:\n%s", r.stdout)
	}
}
