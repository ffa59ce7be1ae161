package csvimport

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
)

// Problem message ids (i18n/locales, import.csv.problem.*).
const (
	ProblemNoName     = "import.csv.problem.no_name"
	ProblemNotBoolean = "import.csv.problem.not_boolean"
	ProblemEndsBefore = "import.csv.problem.ends_before"
	ProblemTooLong    = "import.csv.problem.too_long"
	ProblemRefused    = "import.csv.problem.refused"
	ProblemFailed     = "import.csv.problem.failed"
)

// cellProblem is the message id of an eventcsv problem code.
func cellProblem(code string) string { return "import.csv.problem." + code }

// Row is one row read: an event, or a venue or organizer, ready to write.
type Row struct {
	Line int
	// id is the record's id in a file this site exported, else 0.
	id int64
	// events
	event      models.EventInput
	title      string
	start, end string // "YYYY-MM-DD HH:MM" in the event's zone
	venue      string
	hasStatus  bool
	organizers []string
	// venues and organizers
	name    string
	venueIn models.VenueInput
	org     models.OrganizerInput
	// column is each field's header, to name the column of a refusal.
	column map[string]string
}

// Parse reads row i of f with s, in content language lang: the row, nil
// for a blank one, or its problems.
func Parse(f *File, i int, s Settings, lang string) (*Row, []Problem) {
	rec := f.Rows[i]
	if rec == nil {
		return nil, nil
	}
	line := Line(i)
	cell, column := rowCells(rec, f.Header, s.Mapping)
	var probs []Problem
	for fld, v := range cell {
		if len([]rune(v)) > MaxField {
			probs = append(probs, Problem{Row: line, Column: column[fld], ID: ProblemTooLong, Data: map[string]string{"Max": fmt.Sprint(MaxField)}})
		}
	}
	if len(probs) > 0 {
		sortProblems(probs)
		return nil, probs
	}
	var r *Row
	if s.Kind == eventcsv.KindEvents {
		r, probs = parseEvent(line, cell, column, s.Order, lang)
	} else {
		r, probs = parseLinked(line, cell, column)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	r.column = column
	if slices.Contains(s.Mapping, eventcsv.FieldMarker) {
		_, _ = fmt.Sscan(cell[eventcsv.FieldID], &r.id)
	}
	return r, nil
}

// sortProblems orders a row's problems by column, so that a row reads
// the same every time (cells are visited in map order).
func sortProblems(ps []Problem) {
	slices.SortFunc(ps, func(a, b Problem) int { return cmp.Compare(a.Column, b.Column) })
}

// rowCells are a row's cells by field (trimmed, NFC, and unescaped in a
// file this site exported) and the header of each field's column.
func rowCells(rec, header []string, m eventcsv.Mapping) (cell, column map[string]string) {
	marker := slices.Contains(m, eventcsv.FieldMarker)
	cell, column = map[string]string{}, map[string]string{}
	for i, f := range m {
		if f == "" || i >= len(header) {
			continue
		}
		column[f] = header[i]
		if i >= len(rec) {
			continue
		}
		v := strings.TrimSpace(norm.NFC.String(rec[i]))
		if marker {
			v = eventcsv.UnescapeCell(v)
		}
		cell[f] = v
	}
	return cell, column
}

// cells reads the typed cells of one row, collecting its problems.
type cells struct {
	line   int
	cell   map[string]string
	column map[string]string
	probs  []Problem
}

func (c *cells) bad(f, id string, data map[string]string) {
	c.probs = append(c.probs, Problem{Row: c.line, Column: cmp.Or(c.column[f], f), ID: id, Data: data})
}

func (c *cells) flag(f string) *bool {
	v := c.cell[f]
	if v == "" {
		return nil
	}
	if b, ok := Bool(v); ok {
		return &b
	}
	c.bad(f, ProblemNotBoolean, map[string]string{"Value": v})
	return nil
}

func (c *cells) text(f string) *string {
	if v, ok := c.cell[f]; ok {
		return &v
	}
	return nil
}

func (c *cells) names(f string) []string {
	var out []string
	for _, n := range strings.Split(c.cell[f], ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func (c *cells) day(f string, order eventcsv.DateOrder) (eventcsv.Date, bool) {
	d, p := eventcsv.ParseDate(c.cell[f], order)
	if p != nil {
		shown := "MM/DD/YYYY"
		if order == eventcsv.DMY {
			shown = "DD/MM/YYYY"
		}
		c.bad(f, cellProblem(p.Code), map[string]string{"Value": p.Value, "Order": shown})
		return d, false
	}
	return d, true
}

func (c *cells) clock(f string) (eventcsv.Clock, bool) {
	if c.cell[f] == "" {
		return eventcsv.Clock{}, false
	}
	t, p := eventcsv.ParseTime(c.cell[f])
	if p != nil {
		c.bad(f, cellProblem(p.Code), map[string]string{"Value": p.Value})
		return t, false
	}
	return t, true
}

// parseEvent reads the cells of one row of an events file.
func parseEvent(line int, cell, column map[string]string, order eventcsv.DateOrder, lang string) (*Row, []Problem) {
	c := &cells{line: line, cell: cell, column: column}
	ev := &Row{Line: line, event: models.EventInput{Lang: lang}}
	ev.title = cell[eventcsv.FieldTitle]
	if ev.title == "" {
		c.probs = append(c.probs, Problem{Row: line, Column: cmp.Or(column[eventcsv.FieldTitle], "Event Name"), ID: ProblemNoName})
	}
	allDay := c.flag(eventcsv.FieldAllDay)
	sd, okStart := c.day(eventcsv.FieldStartDate, order)
	st, hasStartTime := c.clock(eventcsv.FieldStartTime)
	ed, okEnd := sd, okStart
	if cell[eventcsv.FieldEndDate] != "" {
		ed, okEnd = c.day(eventcsv.FieldEndDate, order)
	}
	et, hasEndTime := c.clock(eventcsv.FieldEndTime)
	if !hasEndTime {
		et = st
	}
	whole := (allDay != nil && *allDay) || (!hasStartTime && cell[eventcsv.FieldStartTime] == "" && cell[eventcsv.FieldEndTime] == "")
	if okStart && okEnd {
		if whole {
			st, et = eventcsv.Clock{}, eventcsv.Clock{Hour: 23, Minute: 59}
			ev.event.AllDay = ptrOf(true)
		} else if allDay != nil {
			ev.event.AllDay = ptrOf(false)
		}
		ev.start, ev.end = sd.String()+" "+st.String(), ed.String()+" "+et.String()
		if ev.end < ev.start {
			c.bad(cmp.Or(column[eventcsv.FieldEndDate], column[eventcsv.FieldEndTime], column[eventcsv.FieldStartDate]), ProblemEndsBefore, nil)
		}
	}
	in := &ev.event
	in.Featured = c.flag(eventcsv.FieldFeatured)
	in.HideFromListings = c.flag(eventcsv.FieldHidden)
	in.ShowMap = c.flag(eventcsv.FieldShowMap)
	in.ShowMapLink = c.flag(eventcsv.FieldShowMapLink)
	if len(c.probs) > 0 {
		return nil, c.probs
	}
	in.Title = ptrOf(ev.title)
	in.StartDate, in.EndDate = ptrOf(ev.start), ptrOf(ev.end)
	in.Description, in.Excerpt = c.text(eventcsv.FieldDescription), c.text(eventcsv.FieldExcerpt)
	in.Timezone, in.Website, in.ImageURL = c.text(eventcsv.FieldTimezone), c.text(eventcsv.FieldWebsite), c.text(eventcsv.FieldImage)
	in.CurrencySymbol, in.CurrencyCode = c.text(eventcsv.FieldCurrencySymbol), c.text(eventcsv.FieldCurrencyCode)
	in.CurrencyPosition, in.Slug = c.text(eventcsv.FieldCurrencyPos), c.text(eventcsv.FieldSlug)
	if v, ok := cell[eventcsv.FieldCost]; ok {
		in.Cost = ptrOf(models.EncodeCost(v))
	}
	if v := cell[eventcsv.FieldStatus]; v != "" {
		in.Status, ev.hasStatus = ptrOf(strings.ToLower(v)), true
	}
	terms := func(f string) *[]models.TermRef {
		if _, ok := cell[f]; !ok {
			return nil
		}
		refs := []models.TermRef{}
		for _, n := range c.names(f) {
			refs = append(refs, models.TermRef{Name: n})
		}
		return &refs
	}
	in.Categories, in.Tags = terms(eventcsv.FieldCategories), terms(eventcsv.FieldTags)
	ev.venue = cell[eventcsv.FieldVenue]
	ev.organizers = c.names(eventcsv.FieldOrganizer)
	return ev, nil
}

// parseLinked reads the cells of one row of a venues or organizers file.
func parseLinked(line int, cell, column map[string]string) (*Row, []Problem) {
	c := &cells{line: line, cell: cell, column: column}
	r := &Row{Line: line, name: cell[eventcsv.FieldTitle]}
	if r.name == "" {
		c.probs = append(c.probs, Problem{Row: line, Column: column[eventcsv.FieldTitle], ID: ProblemNoName})
	}
	post := models.PostInput{Status: c.text(eventcsv.FieldStatus)}
	r.venueIn = models.VenueInput{PostInput: post, Venue: &r.name, Description: c.text(eventcsv.FieldDescription),
		Address: c.text(eventcsv.FieldAddress), City: c.text(eventcsv.FieldCity), Country: c.text(eventcsv.FieldCountry),
		Province: c.text(eventcsv.FieldProvince), State: c.text(eventcsv.FieldState), Zip: c.text(eventcsv.FieldZip),
		Phone: c.text(eventcsv.FieldPhone), Website: c.text(eventcsv.FieldWebsite), ImageURL: c.text(eventcsv.FieldImage),
		ShowMap: c.flag(eventcsv.FieldShowMap), ShowMapLink: c.flag(eventcsv.FieldShowMapLink)}
	r.org = models.OrganizerInput{PostInput: post, Organizer: &r.name, Description: c.text(eventcsv.FieldDescription),
		Phone: c.text(eventcsv.FieldPhone), Website: c.text(eventcsv.FieldWebsite), Email: c.text(eventcsv.FieldEmail),
		ImageURL: c.text(eventcsv.FieldImage)}
	if len(c.probs) > 0 {
		return nil, c.probs
	}
	return r, nil
}

// Bool reads a yes/no cell ("yes", "true", "1", はい, 是, 예 …); ok is false
// for anything else.
func Bool(v string) (b, ok bool) {
	switch strings.ToLower(v) {
	case "yes", "true", "1", "y", "x", "はい", "是", "예":
		return true, true
	case "no", "false", "0", "n", "いいえ", "否", "아니요":
		return false, true
	}
	return false, false
}

// ptrOf is a pointer to a copy of v.
func ptrOf[T any](v T) *T { return &v }
