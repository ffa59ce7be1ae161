package csvimport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/csvimport"
	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func user(t *testing.T, db *models.DB, login string, role models.Role) *models.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: login, Password: "password-" + login,
		Email: login + "@example.test", DisplayName: login, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// queue stores data as an import of u, reads it as the admin would, and
// queues it.
func queue(t *testing.T, db *models.DB, u *models.User, data []byte, enc string) *models.CSVImport {
	t.Helper()
	ctx := context.Background()
	j, err := db.CreateCSVImport(ctx, u, "イベント.csv", eventcsv.KindEvents, string(eventcsv.MDY), data)
	if err != nil {
		t.Fatal(err)
	}
	f, _, _, err := csvimport.Open(data, enc)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := json.Marshal(eventcsv.GuessMapping(j.Kind, f.Header))
	j.Mapping, j.Encoding, j.Total = string(m), enc, len(f.Rows)
	if err := db.SetCSVImport(ctx, u, j, true); err != nil {
		t.Fatal(err)
	}
	return j
}

func reload(t *testing.T, db *models.DB, j *models.CSVImport) *models.CSVImport {
	t.Helper()
	j, err := db.GetCSVImport(context.Background(), models.Console, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestImportJobs: a queued import runs under the csv-import lease, one
// instance at a time; its rows' problems are kept with row, column and
// message id and read in Japanese; an interrupted job resumes from its
// last saved row, and one interrupted maxAttempts times ends failed, never
// running forever; a contributor's rows naming an unknown category are
// refused while an author's create it; the job's file is dropped once it
// is over; another user cannot read the job.
func TestImportJobs(t *testing.T) {
	t.Parallel()
	bundle, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		author := user(t, db, "aki", models.RoleAuthor)
		contributor := user(t, db, "kon", models.RoleContributor)
		file := "Event Name,Event Start Date,Event Start Time,Event Venue Name,Event Category\r\n" +
			"夏祭り,08/01/2027,午後6時,渋谷公会堂,祭り\r\n" +
			"能の夕べ,2027-02-30,19:00,国立能楽堂,\r\n" + // row 3: no such day
			"Café Müller,2027年9月3日,下午7点,,\r\n" +
			"ジャズ,09/04/2027,25:00,,\r\n" + // row 5: no such time
			"\r\n" +
			"서울 재즈,2027-09-05,오후 7시 30분,올림픽공원,\r\n"
		j := queue(t, db, author, []byte(file), "")
		if err := csvimport.RunOnce(ctx, db, "a", time.Minute); err != nil {
			t.Fatal(err)
		}
		j = reload(t, db, j)
		if j.State != models.ImportDone || j.Created != 3 || j.Failed != 2 || j.Done != 6 || j.Total != 6 || j.Attempts != 1 {
			t.Fatalf("job: %+v", j)
		}
		probs := csvimport.ProblemsOf(j)
		var where []string
		for _, p := range probs {
			where = append(where, fmt.Sprintf("%d %s %s", p.Row, p.Column, p.Message(bundle, "ja")))
		}
		want := []string{"3 Event Start Date 「2027-02-30」という日はありません（年が最後の日付は MM/DD/YYYY として読みます。違う場合は日付の順序を変えてください）。",
			"5 Event Start Time 「25:00」という時刻はありません。"}
		if !slices.Equal(where, want) {
			t.Errorf("problems:\n%q\nwant\n%q", where, want)
		}
		if data, err := db.CSVImportData(ctx, j); err != nil || len(data) != 0 {
			t.Errorf("the file of a finished job is kept: %d bytes, %v", len(data), err)
		}
		if _, err := db.GetCSVImport(ctx, contributor, j.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("another user reads the job: %v", err)
		}
		if js, err := db.ListCSVImports(ctx, author, 10); err != nil || len(js) != 1 || js[0].ID != j.ID {
			t.Errorf("the author's imports: %v %v", js, err)
		}

		// One instance at a time: while "a" holds the lease, "b" runs
		// nothing; "a" runs it. The same file again creates nothing.
		j2 := queue(t, db, author, []byte(file), "")
		if err := csvimport.RunOnce(ctx, db, "b", time.Minute); err != nil {
			t.Fatal(err)
		}
		if j2 = reload(t, db, j2); j2.State != models.ImportQueued {
			t.Fatalf("another instance ran the job: %+v", j2)
		}
		if err := csvimport.RunOnce(ctx, db, "a", time.Minute); err != nil {
			t.Fatal(err)
		}
		if j2 = reload(t, db, j2); j2.State != models.ImportDone || j2.Created != 0 || j2.Unchanged != 3 || j2.Failed != 2 {
			t.Fatalf("the same file again: %+v", j2)
		}

		// Interrupted after 2 rows (its instance stopped): resumed from row
		// 2 by whoever holds the lease next; the rows before are not read
		// again.
		j3 := queue(t, db, author, []byte(strings.ReplaceAll(file, "2027", "2028")), "")
		if err := db.StartCSVImport(ctx, j3); err != nil {
			t.Fatal(err)
		}
		j3.Done, j3.Created, j3.Failed = 2, 1, 1
		if err := db.SaveCSVImport(ctx, j3); err != nil {
			t.Fatal(err)
		}
		if err := db.ReleaseLease(ctx, models.CSVImportLease, "a"); err != nil {
			t.Fatal(err)
		}
		if err := csvimport.RunOnce(ctx, db, "b", time.Minute); err != nil {
			t.Fatal(err)
		}
		if j3 = reload(t, db, j3); j3.State != models.ImportDone || j3.Done != 6 || j3.Created != 3 || j3.Failed != 2 || j3.Attempts != 2 {
			t.Fatalf("resumed job: %+v", j3)
		}
		if p, err := db.ListEvents(ctx, models.Console, models.EventFilter{Search: []string{"夏祭り"}, PerPage: 10, Lang: "ja",
			Statuses: csvimport.Statuses}); err != nil || p.Total != 1 {
			t.Errorf("row 2 of the resumed job was written: %v %v", p, err)
		}

		// Interrupted every time: failed with a reason after maxAttempts.
		j4 := queue(t, db, author, []byte(file), "")
		for range 3 {
			if err := db.StartCSVImport(ctx, j4); err != nil {
				t.Fatal(err)
			}
		}
		if err := csvimport.RunOnce(ctx, db, "b", time.Minute); err != nil {
			t.Fatal(err)
		}
		if j4 = reload(t, db, j4); j4.State != models.ImportFailed || j4.Error != csvimport.JobInterrupted || j4.FinishedAt == nil {
			t.Fatalf("job interrupted thrice: %+v", j4)
		}
		if msg := bundle.T("ja", j4.Error, nil); !strings.Contains(msg, "3 回中断") {
			t.Errorf("reason in Japanese: %q", msg)
		}

		// Categories: a contributor may not create one; an author may.
		cats := "Event Name,Event Start Date,Event Category\n공연,2029-03-01,새 분류\n"
		j5 := queue(t, db, contributor, []byte(cats), "")
		if err := csvimport.RunOnce(ctx, db, "b", time.Minute); err != nil {
			t.Fatal(err)
		}
		j5 = reload(t, db, j5)
		probs = csvimport.ProblemsOf(j5)
		if j5.Failed != 1 || len(probs) != 1 || probs[0].Reason != "reason.events.unknown_term" || probs[0].Column != "Event Category" {
			t.Errorf("a contributor's new category: %+v %+v", j5, probs)
		} else if msg := probs[0].Message(bundle, "ko"); !strings.Contains(msg, "저장하지 않았습니다") {
			t.Errorf("in Korean: %q", msg)
		}
		j6 := queue(t, db, author, []byte(cats), "")
		if err := csvimport.RunOnce(ctx, db, "b", time.Minute); err != nil {
			t.Fatal(err)
		}
		if j6 = reload(t, db, j6); j6.Created != 1 || j6.Failed != 0 {
			t.Errorf("an author's new category: %+v", j6)
		}
		if err := csvimport.RunOnce(ctx, db, "b", time.Minute); err != nil { // nothing left
			t.Fatal(err)
		}
	})
}

// TestEncodingsOnBothDialects: the same events written in each language's
// legacy encoding, with a BOM, and plain UTF-8 import to the same records
// on SQLite and MariaDB (the command's test does 1,000 rows on SQLite);
// Shift_JIS, which GB18030 also reads, is ambiguous until named.
func TestEncodingsOnBothDialects(t *testing.T) {
	t.Parallel()
	langs := []struct {
		legacy, title, venue, time string
	}{
		{eventcsv.ShiftJIS, "夏祭り盆踊り", "渋谷公会堂", "午後%d時"},
		{eventcsv.GB18030, "电影节开幕式", "上海大剧院", "下午%d点"},
		{eventcsv.Big5, "港都音樂會", "駁二藝術特區", "下午%d點"},
		{eventcsv.EUCKR, "재즈 페스티벌", "올림픽공원", "오후 %d시"},
	}
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		u := user(t, db, "ed", models.RoleEditor)
		for _, l := range langs {
			var b strings.Builder
			b.WriteString("Event Name,Event Start Date,Event Start Time,Event Venue Name\r\n")
			for i := range 10 {
				fmt.Fprintf(&b, "%s %d,%02d/%02d/2027,%s,%s\r\n", l.title, i, 1+i, 1+i, fmt.Sprintf(l.time, 1+i%9), l.venue)
			}
			for _, enc := range []string{eventcsv.UTF8, eventcsv.UTF8BOM, l.legacy} {
				data, err := eventcsv.Encode(b.String(), enc)
				if err != nil {
					t.Fatal(err)
				}
				named := ""
				if _, _, _, err := csvimport.Open(data, ""); errors.Is(err, eventcsv.ErrAmbiguous) {
					named = enc
				} else if err != nil {
					t.Fatalf("%s: %v", enc, err)
				}
				j := queue(t, db, u, data, named)
				if err := csvimport.RunOnce(ctx, db, "a", time.Minute); err != nil {
					t.Fatal(err)
				}
				j = reload(t, db, j)
				want := [3]int{0, 0, 10}
				if enc == eventcsv.UTF8 {
					want = [3]int{10, 0, 0}
				}
				if got := [3]int{j.Created, j.Updated, j.Unchanged}; got != want || j.Failed != 0 {
					t.Errorf("%s in %s: created, updated, unchanged %v, want %v (%+v)", l.title, enc, got, want, j)
				}
			}
		}
	})
}

// TestReadLimits: a file of more than MaxRows rows is refused whole; a
// cell longer than MaxField is its row's problem; a dry run finds exactly
// the bad rows of a file, by number.
func TestReadLimits(t *testing.T) {
	t.Parallel()
	if _, err := csvimport.Read("Event Name\n" + strings.Repeat("a\n", csvimport.MaxRows)); err != nil {
		t.Fatalf("%d rows: %v", csvimport.MaxRows, err)
	}
	if _, err := csvimport.Read("Event Name\n" + strings.Repeat("a\n", csvimport.MaxRows+1)); !errors.Is(err, csvimport.ErrTooManyRows) {
		t.Fatalf("%d rows: %v", csvimport.MaxRows+1, err)
	}
	// Rows are numbered as a spreadsheet shows them: a cell over two lines
	// is one row, an empty line is a row.
	f, err := csvimport.Read("Event Name,Event Start Date\r\n\"two\r\nlines\",2027-01-01\r\n\r\nLast,x\r\n\r\n")
	if err != nil || len(f.Rows) != 3 || f.Rows[1] != nil || f.Rows[2][0] != "Last" {
		t.Fatalf("rows %q, %v", f.Rows, err)
	}
	var b strings.Builder
	b.WriteString("Event Name\tEvent Start Date\tEvent Description\n")
	var want []int
	for i := range 60 {
		switch {
		case i%3 == 0:
			fmt.Fprintf(&b, "Fête %d\t2027-06-01\t%s\n", i, strings.Repeat("é", csvimport.MaxField+1))
			want = append(want, csvimport.Line(i))
		case i == 7:
			fmt.Fprintf(&b, "Fête %d\t3/4/27\t\n", i) // a two-digit year
			want = append(want, csvimport.Line(i))
		default:
			fmt.Fprintf(&b, "Fête %d\t2027-06-01\tok\n", i)
		}
	}
	f, err = csvimport.Read(b.String())
	if err != nil {
		t.Fatal(err)
	}
	s := csvimport.Settings{Kind: eventcsv.KindEvents, Order: eventcsv.MDY, Mapping: eventcsv.GuessMapping(eventcsv.KindEvents, f.Header)}
	ok, rep := csvimport.Check(f, s, "en")
	var rows []int
	for _, p := range rep.Problems {
		rows = append(rows, p.Row)
		if p.Row == csvimport.Line(7) && p.ID != "import.csv.problem.date_ambiguous" || p.Row != csvimport.Line(7) && (p.ID != csvimport.ProblemTooLong || p.Column != "Event Description") {
			t.Errorf("row %d: %+v", p.Row, p)
		}
	}
	if ok != 39 || rep.Failed != 21 || !slices.Equal(rows, want) {
		t.Errorf("dry run: %d good, %d failed, rows %v, want %v", ok, rep.Failed, rows, want)
	}
}
