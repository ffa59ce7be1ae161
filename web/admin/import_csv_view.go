package admin

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/csvimport"
	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web/ui"
)

// csvImportView is the page of one CSV import: its setup while it is new
// (a preview with each column's field, the kind, date order and encoding;
// a choice of encoding when more than one reads the file; a dry run's
// problems), then its progress.
type csvImportView struct {
	Layout layoutView
	CSRF   string
	Job    *models.CSVImport
	Path   string // the import's page
	Error  string // what keeps the settings from running, localized
	// Fatal is why the file cannot be read at all, localized.
	Fatal string
	// File is the file read with the chosen encoding (nil when it is not).
	File       *csvimport.File
	Encoding   string // the encoding the file was read in
	Candidates []csvCandidate
	Columns    []csvColumn
	Rows       [][]string // the preview's rows, cells clipped
	Kinds      []csvOption
	Orders     []csvOption
	Encodings  []csvOption
	Dry        *csvDryRun
	Problems   []csvProblemRow // of the job, once it ran
}

// csvCandidate is one encoding an ambiguous file reads cleanly in, with the
// first rows as it reads them.
type csvCandidate struct {
	Encoding, Label string
	Rows            [][]string
}

// csvColumn is one column of the preview: its header and its field's select.
type csvColumn struct {
	Index   int
	Header  string
	Field   string
	Options []csvOption
}

// csvOption is one option of a select.
type csvOption struct{ Value, Label string }

// csvDryRun is what a dry run found.
type csvDryRun struct {
	OK, Failed int
	Problems   []csvProblemRow
}

// csvProblemRow is one problem as the tables show it.
type csvProblemRow struct {
	Row             int
	Column, Message string
}

// csvView is the frame of an import's page.
func (h *handler) csvView(c *fiber.Ctx, j *models.CSVImport) csvImportView {
	lay := h.layoutFor(c, "admin.import.csv.title")
	v := csvImportView{Layout: lay, CSRF: lay.CSRF, Job: j, Path: fmt.Sprintf("%s/%d", csvImportPath, j.ID)}
	if j.Finished() {
		v.Problems = h.problemRows(lay.Lang, csvimport.ProblemsOf(j))
	}
	return v
}

// csvSetup reads the file of new import j with its encoding (detected when
// none is chosen) and fills the setup: the candidates of an ambiguous file,
// or the preview and the columns' selects (the mapping guessed when j has
// none yet, and stored in j).
func (h *handler) csvSetup(c *fiber.Ctx, v *csvImportView, j *models.CSVImport) error {
	t := v.Layout.T
	csvChoices(v)
	data, err := h.d.DB.CSVImportData(c.UserContext(), j)
	if err != nil {
		return err
	}
	f, used, cands, err := csvimport.Open(data, j.Encoding)
	v.Fatal = csvReadProblem(v, j, err)
	if errors.Is(err, eventcsv.ErrAmbiguous) {
		for _, cand := range cands {
			if cf, rerr := csvimport.Read(cand.Text); rerr == nil {
				v.Candidates = append(v.Candidates, csvCandidate{Encoding: cand.Encoding, Label: t(encodingLabel(cand.Encoding)),
					Rows: previewRows(append([][]string{cf.Header}, cf.Rows...), csvCandidateRows+1)})
			}
		}
	}
	if f == nil {
		return nil // v says why: a question or a problem
	}
	v.File, v.Encoding = f, used
	var m eventcsv.Mapping
	if j.Mapping == "" || json.Unmarshal([]byte(j.Mapping), &m) != nil || len(m) != len(f.Header) {
		m = eventcsv.GuessMapping(j.Kind, f.Header)
		b, _ := json.Marshal(m)
		j.Mapping = string(b)
	}
	j.Total = len(f.Rows)
	fields := eventcsv.Fields(j.Kind)
	for i, hd := range f.Header {
		col := csvColumn{Index: i, Header: hd, Field: m[i], Options: []csvOption{{"", t("admin.import.csv.ignore")}}}
		for _, fld := range fields {
			col.Options = append(col.Options, csvOption{fld, t(fieldLabel(fld))})
		}
		v.Columns = append(v.Columns, col)
	}
	v.Rows = previewRows(f.Rows, csvPreviewRows)
	return nil
}

// csvChoices fills the options of the kind, date order and encoding selects.
func csvChoices(v *csvImportView) {
	t := v.Layout.T
	for _, k := range []string{eventcsv.KindEvents, eventcsv.KindVenues, eventcsv.KindOrganizers} {
		v.Kinds = append(v.Kinds, csvOption{k, t("admin.import.csv.kind." + k)})
	}
	for _, o := range []eventcsv.DateOrder{eventcsv.MDY, eventcsv.DMY} {
		v.Orders = append(v.Orders, csvOption{string(o), t("admin.import.csv.date_order." + string(o))})
	}
	v.Encodings = append(v.Encodings, csvOption{"", t("admin.import.csv.encoding.auto")})
	for _, e := range eventcsv.Names {
		if e != eventcsv.UTF8BOM {
			v.Encodings = append(v.Encodings, csvOption{e, t(encodingLabel(e))})
		}
	}
}

// csvReadProblem says why the file cannot be read ("" when it can, or when
// the encoding is only ambiguous: the page asks). After a wrong choice of
// encoding, the encoding select is shown again.
func csvReadProblem(v *csvImportView, j *models.CSVImport, err error) string {
	switch {
	case err == nil, errors.Is(err, eventcsv.ErrAmbiguous):
		return ""
	case errors.Is(err, eventcsv.ErrUndecodable):
		return v.Layout.T("admin.import.csv.undecodable")
	case errors.Is(err, csvimport.ErrTooManyRows):
		return v.Layout.TD("admin.import.csv.too_many_rows", map[string]any{"Max": csvimport.MaxRows})
	case errors.Is(err, csvimport.ErrNoHeader):
		return v.Layout.T("admin.import.csv.empty")
	case j.Encoding != "":
		v.Encoding = j.Encoding
		return v.Layout.TD("admin.import.csv.wrong_encoding", map[string]any{"Encoding": v.Layout.T(encodingLabel(j.Encoding))})
	}
	return v.Layout.TD("admin.import.csv.unreadable", map[string]any{"Detail": err.Error()})
}

// previewRows are the first n rows but blank ones, their cells clipped.
func previewRows(rows [][]string, n int) [][]string {
	var out [][]string
	for _, r := range rows {
		if len(out) == n {
			break
		}
		if r == nil {
			continue
		}
		cells := make([]string, len(r))
		for i, cell := range r {
			if rs := []rune(cell); len(rs) > csvCellChars {
				cell = string(rs[:csvCellChars]) + "…"
			}
			cells[i] = cell
		}
		out = append(out, cells)
	}
	return out
}

// cell is row's cell i, or "" past its end.
func cell(row []string, i int) string {
	if i < len(row) {
		return row[i]
	}
	return ""
}

// percent is how far job j has come.
func percent(j *models.CSVImport) int {
	if j.Total == 0 {
		if j.Finished() {
			return 100
		}
		return 0
	}
	return j.Done * 100 / j.Total
}

// recentImports are the signed-in user's latest CSV imports.
func (h *handler) recentImports(c *fiber.Ctx) []*models.CSVImport {
	js, err := h.d.DB.ListCSVImports(c.UserContext(), ui.UserOf(c), 10)
	if err != nil {
		return nil
	}
	return js
}
