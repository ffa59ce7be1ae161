// Package csvimport imports spreadsheets of events, venues and organizers
// into the store (issue 33): the rows of a file read by internal/eventcsv
// become models inputs, each row's problems are message ids with their
// row number and column (said in the reader's language by whoever shows
// them), venues and organizers named in event rows are found by name or
// created, and a row that matches an event by title, start and venue (or,
// in a file this site exported, by id) updates it instead of adding one.
// The command line (kalends import FILE.csv) and the admin's import job
// share it.
package csvimport

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/eventcsv"
)

// Limits of one file.
const (
	// MaxRows bounds the rows of one import (the header not counted).
	MaxRows = 200_000
	// MaxField bounds one cell, in characters (a long description fits).
	MaxField = 65_535
)

// ErrTooManyRows is returned by Read for a file of more than MaxRows rows.
var ErrTooManyRows = fmt.Errorf("csvimport: more than %d rows: split the file", MaxRows)

// ErrNoHeader is returned by Read for a file without a header row.
var ErrNoHeader = errors.New("csvimport: the file has no header row")

// File is a CSV file read: its header and its rows (nil for a blank row,
// which keeps the numbering).
type File struct {
	Header []string
	Rows   [][]string
}

// Line is the spreadsheet row number of Rows[i] (the header is row 1).
func Line(i int) int { return i + 2 }

// Read splits text into its header and rows, the separator detected.
func Read(text string) (*File, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = eventcsv.DetectSeparator(text)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, ErrNoHeader
	}
	if err != nil {
		return nil, fmt.Errorf("csvimport: %w", err)
	}
	f := &File{Header: header}
	end := endLine(r, header)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		if err != nil {
			return nil, fmt.Errorf("csvimport: %w", err)
		}
		// encoding/csv skips empty lines; a spreadsheet counts them as
		// rows, so they come back as blank rows to keep the numbering.
		start, _ := r.FieldPos(0)
		for ; end+1 < start; end++ {
			if f.Rows = append(f.Rows, nil); len(f.Rows) > MaxRows {
				return nil, ErrTooManyRows
			}
		}
		end = endLine(r, rec)
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			rec = nil
		}
		if f.Rows = append(f.Rows, rec); len(f.Rows) > MaxRows {
			return nil, ErrTooManyRows
		}
	}
}

// endLine is the line the record just read ends on (a quoted cell may
// span lines).
func endLine(r *csv.Reader, rec []string) int {
	line, _ := r.FieldPos(len(rec) - 1)
	return line + strings.Count(rec[len(rec)-1], "\n")
}

// Settings are how a file is read: its kind, the date order and each
// column's field.
type Settings struct {
	Kind    string
	Order   eventcsv.DateOrder
	Mapping eventcsv.Mapping
}

// ValidKind reports whether k is a kind of file.
func ValidKind(k string) bool {
	return k == eventcsv.KindEvents || k == eventcsv.KindVenues || k == eventcsv.KindOrganizers
}

// Required are the fields a file of kind must map.
func Required(kind string) []string {
	if kind == eventcsv.KindEvents {
		return []string{eventcsv.FieldTitle, eventcsv.FieldStartDate}
	}
	return []string{eventcsv.FieldTitle}
}

// Missing lists the required fields the settings map no column to.
func (s Settings) Missing() []string {
	var out []string
	for _, f := range Required(s.Kind) {
		if !slices.Contains(s.Mapping, f) {
			out = append(out, f)
		}
	}
	return out
}

// Problem is why one row was not imported: its spreadsheet row number,
// the column's header, and what is wrong as a message id with its data
// (Reason, when set, is a second message id put into the first as
// {{.Reason}}: the store's reason for refusing a field).
type Problem struct {
	Row        int               `json:"row"`
	Column     string            `json:"column"`
	ID         string            `json:"id"`
	Data       map[string]string `json:"data,omitempty"`
	Reason     string            `json:"reason,omitempty"`
	ReasonData map[string]any    `json:"reason_data,omitempty"`
}

// Message says the problem in lang.
func (p Problem) Message(b *i18n.Bundle, lang string) string {
	data := map[string]any{}
	for k, v := range p.Data {
		data[k] = v
	}
	if p.Reason != "" {
		data["Reason"] = b.T(lang, p.Reason, p.ReasonData)
	}
	return b.T(lang, p.ID, data)
}

// Report counts what an import did (or, in a dry run, would do).
type Report struct {
	Created, Updated, Unchanged, Failed int
	// Problems lists the problems of the failed rows, at most MaxProblems
	// of them are kept by Add.
	Problems []Problem
}

// MaxProblems bounds the problems a report keeps (every failed row is
// counted in Failed).
const MaxProblems = 1000

// Add counts one failed row and keeps its problems while there is room.
func (r *Report) Add(probs ...Problem) {
	r.Failed++
	for _, p := range probs {
		if len(r.Problems) < MaxProblems {
			r.Problems = append(r.Problems, p)
		}
	}
}

// clip cuts s to n characters.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
