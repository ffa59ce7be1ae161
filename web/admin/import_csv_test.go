package admin

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/csvimport"
	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// sjisEvents is a short spreadsheet as Japanese Excel saves it: Shift_JIS,
// which GB18030 reads cleanly too. Its fourth column has a header no
// mapping knows (会場, venue); rows 3 and 4 have a bad date and time.
const sjisEvents = "Event Name,Event Start Date,Event Start Time,会場\r\n" +
	"夏祭り盆踊り,08/01/2027,午後6時,渋谷公会堂\r\n" +
	"能の夕べ,02/30/2027,19:00,国立能楽堂\r\n" +
	"ジャズの夜,09/04/2027,25:00,\r\n"

var problemRow = regexp.MustCompile(`(?s)<tr data-testid="csv-problem"><td class="csv-row-number">(\d+)</td><td class="csv-column">([^<]*)</td><td>([^<]*)</td>`)

// TestCSVImportPage: an editor (in Japanese) uploads a Shift_JIS file,
// is asked its encoding with a preview in each candidate, maps the unknown
// column to the venue by hand, runs a dry run (rows 3 and 4 with their
// columns and Japanese messages), imports (a queued job the page polls),
// and after the job ran sees the summary; a mapping without the start
// date is refused, and a file in no known encoding is said so.
func TestCSVImportPage(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		account(t, db, "ed", models.RoleEditor)
		b := newBrowser(t, app)
		b.chooseLanguage("ja", b.signIn("ed", "password-ed"))
		_, page := b.get("/admin/import")
		if !strings.Contains(page, `data-testid="csv-upload-form"`) || !strings.Contains(page, "スプレッドシート（CSV）") {
			t.Fatalf("import page:\n%.2000s", page)
		}
		csrf := csrfOf(t, page)
		data, err := eventcsv.Encode(sjisEvents, eventcsv.ShiftJIS)
		if err != nil {
			t.Fatal(err)
		}
		resp, body := b.upload("/admin/import/csv", csrf, "イベント.csv", data)
		job := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(job, "/admin/import/csv/") {
			t.Fatalf("upload: %d %s\n%.1000s", resp.StatusCode, job, body)
		}
		_, page = b.get(job)
		for _, want := range []string{`data-testid="csv-candidate-shift_jis"`, `data-testid="csv-candidate-gb18030"`, "Shift_JIS（日本語）", "夏祭り盆踊り", "どれですか"} {
			if !strings.Contains(page, want) {
				t.Fatalf("the encoding question lacks %q:\n%.4000s", want, page)
			}
		}
		post := func(form url.Values) (*reply, string) {
			form.Set("_csrf", csrf)
			return b.send(http.MethodPost, job, form)
		}
		resp, page = post(url.Values{"encoding": {eventcsv.ShiftJIS}, "action": {"preview"}})
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `data-testid="csv-preview"`) || !strings.Contains(page, "渋谷公会堂") ||
			!strings.Contains(page, `<option value="start_date" selected>開始日</option>`) {
			t.Fatalf("preview: %d\n%.6000s", resp.StatusCode, page)
		}
		mapping := url.Values{"col0": {"title"}, "col1": {"start_date"}, "col2": {"start_time"}, "col3": {"venue"}}
		form := url.Values{"encoding": {eventcsv.ShiftJIS}, "kind": {"events"}, "date_order": {"mdy"}, "action": {"dry_run"}}
		for k, v := range mapping {
			form[k] = v
		}
		resp, page = post(form)
		var got []string
		for _, m := range problemRow.FindAllStringSubmatch(page, -1) {
			got = append(got, m[1]+" "+m[2]+" "+m[3])
		}
		want := []string{"3 Event Start Date 「02/30/2027」という日はありません（年が最後の日付は MM/DD/YYYY として読みます。違う場合は日付の順序を変えてください）。",
			"4 Event Start Time 「25:00」という時刻はありません。"}
		if resp.StatusCode != http.StatusOK || strings.Join(got, "\n") != strings.Join(want, "\n") ||
			!strings.Contains(page, "1 行を取り込めます。2 行に問題があります。") || !strings.Contains(page, `<option value="venue" selected>会場</option>`) {
			t.Fatalf("dry run: %d %q\n%.8000s", resp.StatusCode, got, page)
		}
		if p, _ := db.ListEvents(t.Context(), models.Console, models.EventFilter{PerPage: 5, Lang: "ja", Statuses: csvimport.Statuses}); p.Total != 0 {
			t.Fatalf("the dry run wrote %d events", p.Total)
		}
		// Without a start date column: refused, saying which.
		bad := url.Values{"action": {"import"}, "col0": {"title"}, "col1": {""}, "col2": {"start_time"}, "col3": {"venue"}}
		if resp, page = post(bad); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, "「開始日」が入っている列を選んでください。") {
			t.Fatalf("no start date: %d\n%.3000s", resp.StatusCode, page)
		}
		form.Set("action", "import")
		if resp, _ = post(form); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != job {
			t.Fatalf("import: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		_, page = b.get(job)
		if !strings.Contains(page, `data-state="queued"`) || !strings.Contains(page, `hx-trigger="every 1s"`) {
			t.Fatalf("queued:\n%.3000s", page)
		}
		if err := csvimport.RunOnce(t.Context(), db, "test", time.Minute); err != nil {
			t.Fatal(err)
		}
		_, frag := b.get(job + "/progress")
		if !strings.Contains(frag, `data-state="done"`) || strings.Contains(frag, "hx-trigger") ||
			!strings.Contains(frag, "完了しました：新規 1 件、更新 0 件、変更なし 0 件、取り込めなかった行 2 件。") || len(problemRow.FindAllString(frag, -1)) != 2 {
			t.Fatalf("progress after the run:\n%.3000s", frag)
		}
		e, err := db.ListEvents(t.Context(), models.Console, models.EventFilter{PerPage: 5, Lang: "ja", Statuses: csvimport.Statuses})
		if err != nil || e.Total != 1 || e.Items[0].Title != "夏祭り盆踊り" || len(e.Items[0].Venues) != 1 || e.Items[0].Venues[0].Venue != "渋谷公会堂" {
			t.Fatalf("imported: %+v %v", e, err)
		}
		// Started: the settings form goes back to the job's page.
		if resp, _ = post(url.Values{"action": {"import"}}); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("post to a finished job: %d", resp.StatusCode)
		}
		if _, page = b.get("/admin/import"); !strings.Contains(page, `data-testid="csv-recent"`) || !strings.Contains(page, "イベント.csv") {
			t.Errorf("the import page does not list the job:\n%.3000s", page)
		}
		// Bytes in no encoding.
		resp, _ = b.upload("/admin/import/csv", csrf, "broken.csv", []byte{0x80, 0xFF, 0xFE, 0x00, 0x81, 0x00, 0xFF})
		if _, page = b.get(resp.Header.Get("Location")); !strings.Contains(page, `data-testid="csv-fatal"`) || !strings.Contains(page, "CSV UTF-8") {
			t.Errorf("undecodable:\n%.3000s", page)
		}
	})
}
