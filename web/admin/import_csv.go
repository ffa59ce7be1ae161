package admin

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/csvimport"
	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web/ui"
)

// csvImportPath is the CSV import's base path (POST: the upload).
const csvImportPath = "/admin/import/csv"

// csvPreviewRows is how many rows the preview shows (and csvCandidateRows
// per candidate encoding); csvCellChars how much of a cell.
const (
	csvPreviewRows   = 8
	csvCandidateRows = 3
	csvCellChars     = 60
)

// importMax is the upload limit of the CSV import.
func (h *handler) importMax() int64 { return cmp.Or(h.d.ImportMaxBytes, ui.DefaultImportMaxBytes) }

// csvUpload is POST /admin/import/csv: the file stored as a new import of
// the signed-in user, then its setup page.
func (h *handler) csvUpload(c *fiber.Ctx) error {
	lang := h.pickLang(c)
	u := ui.UserOf(c)
	if !models.MayImport(u) {
		return h.renderImport(c, fiber.StatusForbidden, h.d.I18n.T(lang, "admin.import.not_allowed", nil), nil)
	}
	kind := c.FormValue("kind")
	if !csvimport.ValidKind(kind) {
		kind = eventcsv.KindEvents
	}
	fh, err := c.FormFile("file")
	if err != nil {
		return h.renderImport(c, fiber.StatusUnprocessableEntity, h.d.I18n.T(lang, "admin.import.no_file", nil), nil)
	}
	if fh.Size > h.importMax() {
		return h.renderImport(c, fiber.StatusRequestEntityTooLarge, h.tooLarge(lang), nil)
	}
	f, err := fh.Open()
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, h.importMax()+1))
	if err != nil {
		return err
	}
	if int64(len(data)) > h.importMax() {
		return h.renderImport(c, fiber.StatusRequestEntityTooLarge, h.tooLarge(lang), nil)
	}
	name := strings.TrimSpace(fh.Filename)
	if len([]rune(name)) > 200 {
		name = string([]rune(name)[:200])
	}
	j, err := h.d.DB.CreateCSVImport(c.UserContext(), u, name, kind, string(eventcsv.MDY), data)
	if err != nil {
		return err
	}
	return c.Redirect(fmt.Sprintf("%s/%d", csvImportPath, j.ID), fiber.StatusSeeOther)
}

func (h *handler) tooLarge(lang string) string {
	return h.d.I18n.T(lang, "admin.import.csv.too_large", map[string]any{"Max": h.importMax() >> 20})
}

// csvJob reads the :id import of the signed-in user (404 for anyone else's).
func (h *handler) csvJob(c *fiber.Ctx) (*models.CSVImport, error) {
	id, err := recordID(c)
	if err != nil {
		return nil, err
	}
	j, err := h.d.DB.GetCSVImport(c.UserContext(), ui.UserOf(c), id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, fiber.ErrNotFound
	}
	return j, err
}

// csvImportPage is GET /admin/import/csv/:id: the setup of a new import
// (preview, mapping, kind, date order, encoding), or the progress of one
// queued, running or finished.
func (h *handler) csvImportPage(c *fiber.Ctx) error {
	j, err := h.csvJob(c)
	if err != nil {
		return err
	}
	v := h.csvView(c, j)
	if j.State == models.ImportNew {
		if err := h.csvSetup(c, &v, j); err != nil {
			return err
		}
	}
	return render(c, fiber.StatusOK, csvImportPageView(v))
}

// csvImportProgress is GET /admin/import/csv/:id/progress: the progress
// fragment htmx polls while the job runs.
func (h *handler) csvImportProgress(c *fiber.Ctx) error {
	j, err := h.csvJob(c)
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, csvProgress(h.csvView(c, j)))
}

// csvImportSave is POST /admin/import/csv/:id: the settings saved, then
// (action) the preview again, a dry run, or the import queued.
func (h *handler) csvImportSave(c *fiber.Ctx) error {
	j, err := h.csvJob(c)
	if err != nil {
		return err
	}
	if j.State != models.ImportNew { // already started: show where it is
		return c.Redirect(fmt.Sprintf("%s/%d", csvImportPath, j.ID), fiber.StatusSeeOther)
	}
	v := h.csvView(c, j)
	kept := readChoices(c, j)
	if err := h.csvSetup(c, &v, j); err != nil {
		return err
	}
	if kept && v.File != nil {
		readMapping(c, j, &v)
	}
	action := c.FormValue("action")
	status := fiber.StatusOK
	if v.File != nil && (action == "dry_run" || action == "import") {
		v.Error = h.settingsError(v, j)
	}
	switch {
	case v.File == nil || v.Error != "":
		if action == "dry_run" || action == "import" {
			status = fiber.StatusUnprocessableEntity
		}
	case action == "dry_run":
		s, _ := csvimport.SettingsOf(j)
		ok, rep := csvimport.Check(v.File, s, h.contentLang())
		v.Dry = &csvDryRun{OK: ok, Failed: rep.Failed, Problems: h.problemRows(v.Layout.Lang, rep.Problems)}
	case action == "import":
		j.Total = len(v.File.Rows)
		if err := h.d.DB.SetCSVImport(c.UserContext(), ui.UserOf(c), j, true); err != nil && !errors.Is(err, models.ErrImportStarted) {
			return err
		}
		return c.Redirect(fmt.Sprintf("%s/%d", csvImportPath, j.ID), fiber.StatusSeeOther)
	}
	if err := h.d.DB.SetCSVImport(c.UserContext(), ui.UserOf(c), j, false); err != nil && !errors.Is(err, models.ErrImportStarted) {
		return err
	}
	v.Job = j
	return render(c, status, csvImportPageView(v))
}

// contentLang is the language rows are written in: the site's.
func (h *handler) contentLang() string {
	return i18n.OrSource(h.d.Site.Language())
}

// readChoices takes the kind, date order and encoding of the form into j;
// a new kind or encoding drops the mapping (csvSetup guesses it again).
// It reports whether the mapping was kept.
func readChoices(c *fiber.Ctx, j *models.CSVImport) bool {
	if o := eventcsv.DateOrder(c.FormValue("date_order")); o == eventcsv.MDY || o == eventcsv.DMY {
		j.DateOrder = string(o)
	}
	kept := true
	if k := c.FormValue("kind"); csvimport.ValidKind(k) && k != j.Kind {
		j.Kind, j.Mapping, kept = k, "", false
	}
	// "" is a choice (detect), so only a form that has the field changes it.
	if e := c.FormValue("encoding"); c.Request().PostArgs().Has("encoding") && e != j.Encoding && (e == "" || slices.Contains(eventcsv.Names, e)) {
		j.Encoding, j.Mapping, kept = e, "", false
	}
	return kept
}

// readMapping takes each column's field of the form (col0, col1, …) into
// j and the preview's selects.
func readMapping(c *fiber.Ctx, j *models.CSVImport, v *csvImportView) {
	m := make(eventcsv.Mapping, len(v.Columns))
	fields := eventcsv.Fields(j.Kind)
	for i := range v.Columns {
		if f := c.FormValue("col" + strconv.Itoa(i)); slices.Contains(fields, f) {
			m[i] = f
		}
		v.Columns[i].Field = m[i]
	}
	b, _ := json.Marshal(m)
	j.Mapping = string(b)
}

// settingsError says what keeps the settings from being run: a required
// field without a column, or a field chosen for two columns.
func (h *handler) settingsError(v csvImportView, j *models.CSVImport) string {
	s, _ := csvimport.SettingsOf(j)
	lang := v.Layout.Lang
	seen := map[string]bool{}
	for _, f := range s.Mapping {
		if f != "" && seen[f] {
			return h.d.I18n.T(lang, "admin.import.csv.duplicate", map[string]any{"Field": h.d.I18n.T(lang, fieldLabel(f), nil)})
		}
		seen[f] = true
	}
	var msgs []string
	for _, f := range s.Missing() {
		msgs = append(msgs, h.d.I18n.T(lang, "admin.import.csv.missing", map[string]any{"Field": h.d.I18n.T(lang, fieldLabel(f), nil)}))
	}
	return strings.Join(msgs, " ")
}

// fieldLabel is the message id of a field's name.
func fieldLabel(f string) string { return "admin.import.csv.field." + f }

// encodingLabel is the message id of an encoding's name.
func encodingLabel(e string) string {
	return "admin.import.csv.encoding." + strings.NewReplacer("-", "_").Replace(e)
}

// problemRows are problems said in lang.
func (h *handler) problemRows(lang string, ps []csvimport.Problem) []csvProblemRow {
	out := make([]csvProblemRow, len(ps))
	for i, p := range ps {
		out[i] = csvProblemRow{Row: p.Row, Column: p.Column, Message: p.Message(h.d.I18n, lang)}
	}
	return out
}
