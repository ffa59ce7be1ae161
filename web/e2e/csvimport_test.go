package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
)

// csvFile is a spreadsheet as Japanese Excel saves it (Shift_JIS, which
// GB18030 also reads cleanly): its venue column has a header no mapping
// knows (会場), and rows 3 and 4 have a day and a time that do not exist.
const csvFile = "Event Name,Event Start Date,Event Start Time,会場\r\n" +
	"夏祭り盆踊り,08/01/2027,午後6時,渋谷公会堂\r\n" +
	"能の夕べ,02/30/2027,19:00,国立能楽堂\r\n" +
	"ジャズの夜,09/04/2027,25:00,\r\n" +
	"秋の茶会,10/10/2027,午前10時,\r\n"

// An editor imports a Shift_JIS spreadsheet in the admin, in English and
// then in Japanese: uploads it, chooses Shift_JIS from the previews of the
// encodings it reads in, maps the 会場 column to the venue by hand, runs a
// dry run (rows 3 and 4, their columns and messages in the page's
// language), imports, reloads the page while the job runs, and sees it
// finish (created the first time, unchanged the second). The pages are
// audited for English left over (Japanese) and axe's serious findings;
// with KALENDS_SCREENSHOTS set, the preview and the dry run are saved.
func TestCSVImportInTheAdmin(t *testing.T) {
	srv := browsertest.StartServer(t)
	locales := browsertest.LoadLocales(t)
	b := bundle(t)
	ed := srv.User(t, models.RoleEditor)
	data, err := eventcsv.Encode(csvFile, eventcsv.ShiftJIS)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "イベント.csv")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv(EnvScreenshots)
	ignore := []string{"Event Name", "Event Start Date", "Event Start Time", "イベント.csv", ed.User.DisplayName}
	p := srv.Page(t)
	p.SignIn(ed)
	for i, lang := range []string{"en", "ja"} {
		p.VisitIn(lang, "/admin/import")
		p.SetFiles("#csv-file", file)
		if st := p.ClickAndWait(`[data-testid="csv-upload"]`); st != http.StatusOK {
			t.Fatalf("%s: upload: %d", lang, st)
		}
		job := p.Path()
		p.WaitVisible(`[data-testid="csv-candidate-gb18030"]`)
		if !strings.Contains(p.Text(`[data-testid="csv-candidate-shift_jis"]`), "夏祭り盆踊り") {
			t.Fatalf("%s: the Shift_JIS preview reads %q", lang, p.Text(`[data-testid="csv-candidate-shift_jis"]`))
		}
		if shots != "" {
			p.Screenshot(filepath.Join(shots, "csv-encoding-"+lang+".png"))
		}
		p.Click(`[data-testid="csv-candidate-shift_jis"] input[type=radio]`)
		if st := p.ClickAndWait(`[data-testid="csv-use-encoding"]`); st != http.StatusOK {
			t.Fatalf("%s: encoding: %d", lang, st)
		}
		if got := browsertest.Eval[string](p, `document.querySelector('[data-testid="csv-col-3"]').value`); got != "" {
			t.Fatalf("%s: 会場 guessed as %q", lang, got)
		}
		p.Fill(`[data-testid="csv-setup"]`, "col3", eventcsv.FieldVenue)
		if lang == "ja" {
			for _, f := range p.Audit(locales, lang, ignore...) {
				t.Errorf("%s preview: %s", lang, f)
			}
		}
		if shots != "" {
			p.Screenshot(filepath.Join(shots, "csv-preview-"+lang+".png"))
		}
		if st := p.ClickAndWait(`[data-testid="csv-dry-run"]`); st != http.StatusOK {
			t.Fatalf("%s: dry run: %d", lang, st)
		}
		rows := p.Texts(`[data-testid="csv-problem"]`)
		want := []string{
			"3\tEvent Start Date\t" + b.T(lang, "import.csv.problem.date_invalid", map[string]any{"Value": "02/30/2027", "Order": "MM/DD/YYYY"}),
			"4\tEvent Start Time\t" + b.T(lang, "import.csv.problem.time_invalid", map[string]any{"Value": "25:00"}),
		}
		if strings.Join(rows, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: dry run rows\n%q\nwant\n%q", lang, rows, want)
		}
		if got := browsertest.Eval[string](p, `document.querySelector('[data-testid="csv-col-3"]').value`); got != eventcsv.FieldVenue {
			t.Errorf("%s: the hand-made mapping did not stay: %q", lang, got)
		}
		if lang == "ja" {
			for _, f := range p.Audit(locales, lang, ignore...) {
				t.Errorf("%s dry run: %s", lang, f)
			}
		}
		if lang == "ja" { // once: axe takes seconds
			for _, v := range p.Axe() {
				if v.Blocking() {
					t.Errorf("%s dry run: axe: %s", lang, v)
				}
			}
		}
		if shots != "" {
			p.Screenshot(filepath.Join(shots, "csv-dry-run-"+lang+".png"))
		}
		if st := p.ClickAndWait(`[data-testid="csv-import"]`); st != http.StatusOK || p.Path() != job {
			t.Fatalf("%s: import: %d %s", lang, st, p.Path())
		}
		// A reload finds the job, running or done, and follows it to the end.
		if st := p.Visit(job); st != http.StatusOK {
			t.Fatalf("%s: reload: %d", lang, st)
		}
		browsertest.WaitUntil(p, `document.querySelector('[data-testid="csv-progress"]').dataset.state === "done"`)
		created, unchanged := 2, 0
		if i > 0 {
			created, unchanged = 0, 2
		}
		summary := b.T(lang, "admin.import.csv.summary", map[string]any{"Created": created, "Updated": 0, "Unchanged": unchanged, "Failed": 2})
		if got := p.Text(`[data-testid="csv-summary"]`); strings.TrimSpace(got) != summary {
			t.Errorf("%s: summary %q, want %q", lang, got, summary)
		}
		if shots != "" {
			p.Screenshot(filepath.Join(shots, "csv-done-"+lang+".png"))
		}
		if p.Count(`[data-testid="csv-problem"]`) != 2 {
			t.Errorf("%s: %d problems listed after the import", lang, p.Count(`[data-testid="csv-problem"]`))
		}
		if st := p.Visit(job); st != http.StatusOK || p.Count(`[data-testid="csv-summary"]`) != 1 {
			t.Errorf("%s: the finished job after a reload: %d", lang, st)
		}
	}
	st, body := srv.API(t, ed, http.MethodGet, "/events?search=夏祭り&status=publish", nil)
	if st != http.StatusOK || !strings.Contains(string(body), "渋谷公会堂") || strings.Count(string(body), `"title":"夏祭り盆踊り"`) != 1 {
		t.Errorf("the imported event: %d %.600s", st, body)
	}
}
