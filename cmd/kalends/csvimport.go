package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
)

// csvMaxRows bounds the rows of one CSV import.
const csvMaxRows = 200_000

// csvProblem is why one row was not imported: its spreadsheet row number
// (the header is row 1), the column and what is wrong.
type csvProblem struct {
	Row     int
	Column  string
	Message string
}

// csvEvent is one row of an events file, read.
type csvEvent struct {
	row        int
	id         int64 // from a file this site exported, else 0
	in         models.EventInput
	title      string
	start, end string // "YYYY-MM-DD HH:MM" in the event's zone
	venue      string
	hasStatus  bool
	organizers []string
}

// csvImportReport counts what an import did.
type csvImportReport struct {
	Created, Updated, Unchanged, Failed int
	Problems                            []csvProblem
}

// importCSV reads a CSV file of events (the command line's part of issue
// 33's CSV import): the encoding detected or --encoding (several clean
// readings are refused, naming --encoding), the separator detected, the
// columns by TEC's names or ours, dates in --date-order. Each row is
// written on its own; a row with a problem is reported with its row
// number and column, and the others go on. A row matching an event by
// title, start and venue updates it (or leaves it when nothing differs),
// so importing the same file again creates nothing; the id column counts
// only in files this site exported. --dry-run reads and checks every row
// and writes nothing.
func importCSV(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	kind := cmp.Or(cmd.kind, eventcsv.KindEvents)
	if kind != eventcsv.KindEvents && kind != eventcsv.KindVenues && kind != eventcsv.KindOrganizers {
		return &usageError{"--kind must be events, venues or organizers"}
	}
	order := eventcsv.DateOrder(cmp.Or(strings.ToLower(cmd.dateOrder), string(eventcsv.MDY)))
	if order != eventcsv.MDY && order != eventcsv.DMY {
		return &usageError{"--date-order must be mdy or dmy"}
	}
	data, err := readLimited(cmd.file, importMax)
	if err != nil {
		return err
	}
	text, _, cands, err := eventcsv.Decode(data, cmd.encoding)
	if errors.Is(err, eventcsv.ErrAmbiguous) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s reads cleanly in more than one encoding; name it with --encoding:", cmd.file)
		for _, c := range cands {
			first, _, _ := strings.Cut(c.Text, "\n")
			fmt.Fprintf(&b, "\n  --encoding %s: %s", c.Encoding, truncateRunes(first, 60))
		}
		return &usageError{b.String()}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", cmd.file, err)
	}
	rows, header, err := readCSV(text)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd.file, err)
	}
	mapping := eventcsv.GuessMapping(kind, header)
	switch {
	case kind == eventcsv.KindEvents && (!slices.Contains(mapping, eventcsv.FieldTitle) || !slices.Contains(mapping, eventcsv.FieldStartDate)):
		return &usageError{fmt.Sprintf("%s: no column of the event's name and start date (e.g. \"Event Name\" and \"Event Start Date\"); its columns are %q", cmd.file, header)}
	case !slices.Contains(mapping, eventcsv.FieldTitle):
		return &usageError{fmt.Sprintf("%s: no column of the %s' names (e.g. \"Venue Name\" or \"Organizer Name\"); its columns are %q", cmd.file, kind, header)}
	}
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	u, err := importUser(ctx, db, cmd.login)
	if err != nil {
		return err
	}
	bundle, err := i18n.New(logger)
	if err != nil {
		return err
	}
	lang := i18n.OrSource(siteOf(cmd.cfg).Language())
	rep := &csvImportReport{}
	if kind != eventcsv.KindEvents {
		w := &csvWriter{db: db, u: u, lang: lang, site: siteOf(cmd.cfg).Zone(), bundle: bundle}
		return w.importLinked(ctx, cmd, kind, rows, header, mapping, rep, stdout)
	}
	var events []*csvEvent
	for i, r := range rows {
		ev, probs := parseCSVEvent(i+2, r, header, mapping, order, lang)
		if len(probs) > 0 {
			rep.Failed++
			rep.Problems = append(rep.Problems, probs...)
			continue
		}
		events = append(events, ev)
	}
	if !cmd.dryRun {
		w := &csvWriter{db: db, u: u, lang: lang, site: siteOf(cmd.cfg).Zone(), bundle: bundle}
		for _, ev := range events {
			w.write(ctx, ev, rep)
		}
	}
	verb := ""
	if cmd.dryRun {
		verb = " (dry run: nothing written)"
		_, _ = fmt.Fprintf(stdout, "events: %d rows to import, %d with problems%s\n", len(events), rep.Failed, verb)
	} else {
		_, _ = fmt.Fprintf(stdout, "events: created %d, updated %d, unchanged %d, failed %d\n", rep.Created, rep.Updated, rep.Unchanged, rep.Failed)
	}
	for _, p := range rep.Problems {
		_, _ = fmt.Fprintf(stdout, "row %d, %s: %s\n", p.Row, p.Column, p.Message)
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%d rows of %s were not imported (listed above)", rep.Failed, cmd.file)
	}
	return nil
}

// readCSV splits text into its header and rows (the separator detected),
// at most csvMaxRows rows.
func readCSV(text string) (rows [][]string, header []string, err error) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = eventcsv.DetectSeparator(text)
	r.FieldsPerRecord = -1
	header, err = r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("no header row: %w", err)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, header, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if len(rows) == csvMaxRows {
			return nil, nil, fmt.Errorf("more than %d rows: split the file", csvMaxRows)
		}
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			rows = append(rows, nil) // a blank row keeps the numbering
			continue
		}
		rows = append(rows, rec)
	}
}

// parseCSVEvent reads row number line of an events file into an event's
// input, or says what is wrong with it, cell by cell.
func parseCSVEvent(line int, rec, header []string, m eventcsv.Mapping, order eventcsv.DateOrder, lang string) (*csvEvent, []csvProblem) {
	if rec == nil {
		return nil, nil
	}
	marker := slices.Contains(m, eventcsv.FieldMarker)
	cell, column := rowCells(rec, header, m)
	var probs []csvProblem
	bad := func(f, msg string) { probs = append(probs, csvProblem{Row: line, Column: column[f], Message: msg}) }
	ev := &csvEvent{row: line, in: models.EventInput{Lang: lang}}
	ev.title = cell[eventcsv.FieldTitle]
	if ev.title == "" {
		probs = append(probs, csvProblem{Row: line, Column: cmp.Or(column[eventcsv.FieldTitle], "Event Name"), Message: "the event has no name"})
	}
	boolean := func(f string) *bool {
		v, ok := cell[f]
		if !ok || v == "" {
			return nil
		}
		if b, ok := csvBool(v); ok {
			return ptrOf(b)
		}
		bad(f, fmt.Sprintf("not yes or no: %q", v))
		return nil
	}
	allDay := boolean(eventcsv.FieldAllDay)
	day := func(f string) (eventcsv.Date, bool) {
		d, p := eventcsv.ParseDate(cell[f], order)
		if p != nil {
			bad(f, dateProblem(p, order))
			return d, false
		}
		return d, true
	}
	clock := func(f string) (eventcsv.Clock, bool) {
		if cell[f] == "" {
			return eventcsv.Clock{}, false
		}
		c, p := eventcsv.ParseTime(cell[f])
		if p != nil {
			bad(f, timeProblem(p))
			return c, false
		}
		return c, true
	}
	sd, okStart := day(eventcsv.FieldStartDate)
	st, hasStartTime := clock(eventcsv.FieldStartTime)
	ed, okEnd := sd, okStart
	if cell[eventcsv.FieldEndDate] != "" {
		ed, okEnd = day(eventcsv.FieldEndDate)
	}
	et, hasEndTime := clock(eventcsv.FieldEndTime)
	if !hasEndTime {
		et = st
	}
	whole := (allDay != nil && *allDay) || (!hasStartTime && cell[eventcsv.FieldStartTime] == "" && cell[eventcsv.FieldEndTime] == "")
	if okStart && okEnd {
		if whole {
			st, et = eventcsv.Clock{}, eventcsv.Clock{Hour: 23, Minute: 59}
			ev.in.AllDay = ptrOf(true)
		} else if allDay != nil {
			ev.in.AllDay = ptrOf(false)
		}
		ev.start, ev.end = sd.String()+" "+st.String(), ed.String()+" "+et.String()
		if ev.end < ev.start {
			bad(eventcsv.FieldEndDate, "the event ends before it starts")
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	ev.in.Title = ptrOf(ev.title)
	ev.in.StartDate, ev.in.EndDate = ptrOf(ev.start), ptrOf(ev.end)
	set := func(f string, dst **string) {
		if v, ok := cell[f]; ok {
			*dst = ptrOf(v)
		}
	}
	set(eventcsv.FieldDescription, &ev.in.Description)
	set(eventcsv.FieldExcerpt, &ev.in.Excerpt)
	set(eventcsv.FieldTimezone, &ev.in.Timezone)
	set(eventcsv.FieldWebsite, &ev.in.Website)
	set(eventcsv.FieldImage, &ev.in.ImageURL)
	set(eventcsv.FieldCurrencySymbol, &ev.in.CurrencySymbol)
	set(eventcsv.FieldCurrencyCode, &ev.in.CurrencyCode)
	set(eventcsv.FieldCurrencyPos, &ev.in.CurrencyPosition)
	set(eventcsv.FieldSlug, &ev.in.Slug)
	if v, ok := cell[eventcsv.FieldCost]; ok {
		ev.in.Cost = ptrOf(models.EncodeCost(v))
	}
	if v := cell[eventcsv.FieldStatus]; v != "" {
		ev.in.Status, ev.hasStatus = ptrOf(strings.ToLower(v)), true
	}
	ev.in.Featured = boolean(eventcsv.FieldFeatured)
	ev.in.HideFromListings = boolean(eventcsv.FieldHidden)
	ev.in.ShowMap = boolean(eventcsv.FieldShowMap)
	ev.in.ShowMapLink = boolean(eventcsv.FieldShowMapLink)
	if len(probs) > 0 {
		return nil, probs
	}
	names := func(f string) []string {
		var out []string
		for _, n := range strings.Split(cell[f], ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
		return out
	}
	if _, ok := cell[eventcsv.FieldCategories]; ok {
		refs := []models.TermRef{}
		for _, n := range names(eventcsv.FieldCategories) {
			refs = append(refs, models.TermRef{Name: n})
		}
		ev.in.Categories = &refs
	}
	if _, ok := cell[eventcsv.FieldTags]; ok {
		refs := []models.TermRef{}
		for _, n := range names(eventcsv.FieldTags) {
			refs = append(refs, models.TermRef{Name: n})
		}
		ev.in.Tags = &refs
	}
	ev.venue = cell[eventcsv.FieldVenue]
	ev.organizers = names(eventcsv.FieldOrganizer)
	if marker {
		_, _ = fmt.Sscan(cell[eventcsv.FieldID], &ev.id)
	}
	return ev, nil
}

// rowCells are a row's cells by field (trimmed, NFC, and unescaped in a
// file this site exported) and the header of each field's column.
func rowCells(rec, header []string, m eventcsv.Mapping) (cell, column map[string]string) {
	marker := slices.Contains(m, eventcsv.FieldMarker)
	cell, column = map[string]string{}, map[string]string{}
	for i, f := range m {
		if f == "" || i >= len(rec) {
			continue
		}
		v := strings.TrimSpace(norm.NFC.String(rec[i]))
		if marker {
			v = eventcsv.UnescapeCell(v)
		}
		cell[f], column[f] = v, header[i]
	}
	return cell, column
}

// csvBool reads a yes/no cell ("yes", "true", "1", はい, 是, 예 …); ok is
// false for anything else.
func csvBool(v string) (b, ok bool) {
	switch strings.ToLower(v) {
	case "yes", "true", "1", "y", "x", "はい", "是", "예":
		return true, true
	case "no", "false", "0", "n", "いいえ", "否", "아니요":
		return false, true
	}
	return false, false
}

// dateProblem and timeProblem say a cell's problem in a sentence.
func dateProblem(p *eventcsv.CellError, order eventcsv.DateOrder) string {
	switch p.Code {
	case eventcsv.ProblemDateInvalid:
		return fmt.Sprintf("no such day: %q (dates with the year last are read %s; see --date-order)", p.Value, strings.ToUpper(string(order)))
	case eventcsv.ProblemDateAmbiguous:
		return fmt.Sprintf("a two-digit year is ambiguous: %q (write the year in full)", p.Value)
	}
	return fmt.Sprintf("not a date: %q (write 2026-05-03, 2026年5月3日 or MM/DD/YYYY)", p.Value)
}

func timeProblem(p *eventcsv.CellError) string {
	if p.Code == eventcsv.ProblemTimeInvalid {
		return fmt.Sprintf("no such time: %q", p.Value)
	}
	return fmt.Sprintf("not a time: %q (write 19:00, 7:00 PM or 午後7時)", p.Value)
}

// csvWriter writes the rows read, finding or creating their venues and
// organizers by name.
type csvWriter struct {
	db     *models.DB
	u      *models.User
	lang   string
	site   *time.Location
	bundle *i18n.Bundle
	venues map[string]int64 // by NameKey
	orgs   map[string]int64
}

// load reads the names of every venue and organizer not trashed.
func (w *csvWriter) load(ctx context.Context) error {
	if w.venues != nil {
		return nil
	}
	w.venues, w.orgs = map[string]int64{}, map[string]int64{}
	for page := 1; ; page++ {
		p, err := w.db.Venues().List(ctx, models.Console, models.LinkedFilter{Page: page, PerPage: csvPage, Statuses: csvStatuses, Lang: w.lang})
		if err != nil {
			return err
		}
		for _, v := range p.Items {
			if _, dup := w.venues[models.NameKey(v.Venue)]; !dup {
				w.venues[models.NameKey(v.Venue)] = v.ID
			}
		}
		if len(p.Items) < csvPage {
			break
		}
	}
	for page := 1; ; page++ {
		p, err := w.db.Organizers().List(ctx, models.Console, models.LinkedFilter{Page: page, PerPage: csvPage, Statuses: csvStatuses, Lang: w.lang})
		if err != nil {
			return err
		}
		for _, o := range p.Items {
			if _, dup := w.orgs[models.NameKey(o.Organizer)]; !dup {
				w.orgs[models.NameKey(o.Organizer)] = o.ID
			}
		}
		if len(p.Items) < csvPage {
			return nil
		}
	}
}

// write creates, updates or leaves the event of one row, counting it in
// rep; a refusal is the row's problem.
func (w *csvWriter) write(ctx context.Context, ev *csvEvent, rep *csvImportReport) {
	fail := func(err error) {
		rep.Failed++
		rep.Problems = append(rep.Problems, csvProblem{Row: ev.row, Column: "-", Message: w.message(err)})
	}
	if err := w.load(ctx); err != nil {
		fail(err)
		return
	}
	venueRefs := []models.VenueRef{}
	if ev.venue != "" {
		id, ok := w.venues[models.NameKey(ev.venue)]
		if !ok {
			v, _, err := w.db.Venues().Create(ctx, w.u, models.VenueInput{Venue: ptrOf(ev.venue)}, w.lang)
			if err != nil {
				fail(err)
				return
			}
			id = v.ID
			w.venues[models.NameKey(ev.venue)] = id
		}
		venueRefs = append(venueRefs, models.VenueRef{ID: id})
	}
	orgRefs := []models.OrganizerRef{}
	for _, n := range ev.organizers {
		id, ok := w.orgs[models.NameKey(n)]
		if !ok {
			o, _, err := w.db.Organizers().Create(ctx, w.u, models.OrganizerInput{Organizer: ptrOf(n)}, w.lang)
			if err != nil {
				fail(err)
				return
			}
			id = o.ID
			w.orgs[models.NameKey(n)] = id
		}
		orgRefs = append(orgRefs, models.OrganizerRef{ID: id})
	}
	ev.in.Venues, ev.in.Organizers = &venueRefs, &orgRefs
	old, err := w.find(ctx, ev)
	if err != nil {
		fail(err)
		return
	}
	if old == nil {
		if _, err := w.db.CreateEvent(ctx, w.u, ev.in); err != nil {
			fail(err)
			return
		}
		rep.Created++
		return
	}
	if w.same(old, ev) {
		rep.Unchanged++
		return
	}
	if _, err := w.db.UpdateEvent(ctx, w.u, models.ByID(old.ID), ev.in); err != nil {
		fail(err)
		return
	}
	rep.Updated++
}

// find is the event a row stands for: the id of a file this site
// exported, else the one with the same title, start and venue.
func (w *csvWriter) find(ctx context.Context, ev *csvEvent) (*models.Event, error) {
	loc := w.site
	if ev.in.Timezone != nil && *ev.in.Timezone != "" {
		if z, err := models.LoadZone(*ev.in.Timezone, w.site); err == nil {
			loc = z
		}
	}
	start, err := time.ParseInLocation("2006-01-02 15:04", ev.start, loc)
	if err != nil {
		return nil, err
	}
	next := start.Add(time.Minute)
	p, err := w.db.ListEvents(ctx, models.Console, models.EventFilter{StartMin: &start, StartsBefore: &next, PerPage: 100,
		Lang: w.lang, Statuses: csvStatuses, IncludeHidden: true})
	if err != nil {
		return nil, err
	}
	for _, e := range p.Items {
		if ev.id != 0 && e.ID == ev.id {
			return e, nil
		}
	}
	for _, e := range p.Items {
		venue := ""
		if len(e.Venues) > 0 {
			venue = e.Venues[0].Venue
		}
		if models.NameKey(e.Title) == models.NameKey(ev.title) && models.NameKey(venue) == models.NameKey(ev.venue) {
			return e, nil
		}
	}
	return nil, nil
}

// same reports whether the event already holds what the row says.
func (w *csvWriter) same(e *models.Event, ev *csvEvent) bool {
	loc := w.site
	if z, err := models.LoadZone(e.Timezone, w.site); err == nil {
		loc = z
	}
	eq := func(p *string, v string) bool { return p == nil || *p == v }
	eqb := func(p *bool, v bool) bool { return p == nil || *p == v }
	website := ""
	if e.Website != nil {
		website = *e.Website
	}
	var orgs, cats, tags []string
	for _, o := range e.Organizers {
		orgs = append(orgs, models.NameKey(o.Organizer))
	}
	for _, c := range e.Categories {
		cats = append(cats, models.NameKey(c.Name))
	}
	for _, t := range e.Tags {
		tags = append(tags, models.NameKey(t.Name))
	}
	keys := func(refs *[]models.TermRef) []string {
		var out []string
		if refs != nil {
			for _, r := range *refs {
				out = append(out, models.NameKey(r.Name))
			}
		}
		slices.Sort(out)
		return out
	}
	var wantOrgs []string
	for _, n := range ev.organizers {
		wantOrgs = append(wantOrgs, models.NameKey(n))
	}
	slices.Sort(cats)
	slices.Sort(tags)
	start, end := e.StartAt.In(loc).Format("2006-01-02 15:04"), e.EndAt.In(loc).Format("2006-01-02 15:04")
	if e.AllDay {
		end = e.EndAt.In(loc).Format(time.DateOnly) + " 23:59"
	}
	return e.Title == ev.title && eq(ev.in.Description, e.Description) && eq(ev.in.Excerpt, e.Excerpt) &&
		start == ev.start && end == ev.end && eqb(ev.in.AllDay, e.AllDay) && (ev.in.Timezone == nil || *ev.in.Timezone == "" || *ev.in.Timezone == e.Timezone) &&
		eq(ev.in.Website, website) && eq(ev.in.ImageURL, e.ImageURL) && eq(ev.in.Cost, e.Cost) &&
		eq(ev.in.CurrencySymbol, e.CurrencySymbol) && eq(ev.in.CurrencyCode, e.CurrencyCode) && eq(ev.in.CurrencyPosition, e.CurrencyPosition) &&
		eqb(ev.in.Featured, e.Featured) && eqb(ev.in.HideFromListings, e.HideFromListings) && eqb(ev.in.ShowMap, e.ShowMap) &&
		eqb(ev.in.ShowMapLink, e.ShowMapLink) && (!ev.hasStatus || *ev.in.Status == e.Status) &&
		slices.Equal(orgs, wantOrgs) && (ev.in.Categories == nil || slices.Equal(cats, keys(ev.in.Categories))) &&
		(ev.in.Tags == nil || slices.Equal(tags, keys(ev.in.Tags)))
}

// message is a refusal of the store in English (the command line's
// language), its reasons read from the locale files.
func (w *csvWriter) message(err error) string {
	var ve *models.ValidationError
	if errors.As(err, &ve) {
		var parts []string
		for _, f := range ve.Fields {
			parts = append(parts, f.Field+": "+w.bundle.T(i18n.Source, f.Reason, f.Data))
		}
		return strings.Join(parts, "; ")
	}
	return err.Error()
}

// readLimited reads file, refusing one longer than limit.
func readLimited(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file) //nolint:gosec // G304: the operator names the file to import.
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB", file, limit>>20)
	}
	return data, nil
}

// truncateRunes cuts s to n characters.
func truncateRunes(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return string(r)
}

// ptrOf is a pointer to a copy of v.
func ptrOf[T any](v T) *T { return &v }

// importLinked imports a file of venues or organizers: a row names one by
// its name, matched (after NFC and case folding) with one not trashed, which
// is updated when a field differs; others are created. Each row is
// written on its own; --dry-run only checks.
func (w *csvWriter) importLinked(ctx context.Context, cmd *command, kind string, rows [][]string, header []string,
	m eventcsv.Mapping, rep *csvImportReport, stdout io.Writer) error {
	if err := w.load(ctx); err != nil {
		return err
	}
	ok := 0
	for i, rec := range rows {
		line := i + 2
		if rec == nil {
			continue
		}
		cell, column := rowCells(rec, header, m)
		var probs []csvProblem
		name := cell[eventcsv.FieldTitle]
		if name == "" {
			probs = append(probs, csvProblem{Row: line, Column: column[eventcsv.FieldTitle], Message: "the record has no name"})
		}
		flag := func(f string) *bool {
			v := cell[f]
			if v == "" {
				return nil
			}
			b, good := csvBool(v)
			if !good {
				probs = append(probs, csvProblem{Row: line, Column: column[f], Message: fmt.Sprintf("not yes or no: %q", v)})
				return nil
			}
			return &b
		}
		text := func(f string) *string {
			if v, has := cell[f]; has {
				return &v
			}
			return nil
		}
		post := models.PostInput{Status: text(eventcsv.FieldStatus)}
		venue := models.VenueInput{PostInput: post, Venue: &name, Description: text(eventcsv.FieldDescription),
			Address: text(eventcsv.FieldAddress), City: text(eventcsv.FieldCity), Country: text(eventcsv.FieldCountry),
			Province: text(eventcsv.FieldProvince), State: text(eventcsv.FieldState), Zip: text(eventcsv.FieldZip),
			Phone: text(eventcsv.FieldPhone), Website: text(eventcsv.FieldWebsite), ImageURL: text(eventcsv.FieldImage),
			ShowMap: flag(eventcsv.FieldShowMap), ShowMapLink: flag(eventcsv.FieldShowMapLink)}
		org := models.OrganizerInput{PostInput: post, Organizer: &name, Description: text(eventcsv.FieldDescription),
			Phone: text(eventcsv.FieldPhone), Website: text(eventcsv.FieldWebsite), Email: text(eventcsv.FieldEmail),
			ImageURL: text(eventcsv.FieldImage)}
		if len(probs) > 0 {
			rep.Failed++
			rep.Problems = append(rep.Problems, probs...)
			continue
		}
		ok++
		if cmd.dryRun {
			continue
		}
		if err := w.writeLinked(ctx, kind, name, venue, org, rep); err != nil {
			rep.Failed++
			rep.Problems = append(rep.Problems, csvProblem{Row: line, Column: "-", Message: w.message(err)})
		}
	}
	if cmd.dryRun {
		_, _ = fmt.Fprintf(stdout, "%s: %d rows to import, %d with problems (dry run: nothing written)\n", kind, ok, rep.Failed)
	} else {
		_, _ = fmt.Fprintf(stdout, "%s: created %d, updated %d, unchanged %d, failed %d\n", kind, rep.Created, rep.Updated, rep.Unchanged, rep.Failed)
	}
	for _, p := range rep.Problems {
		_, _ = fmt.Fprintf(stdout, "row %d, %s: %s\n", p.Row, p.Column, p.Message)
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%d rows of %s were not imported (listed above)", rep.Failed, cmd.file)
	}
	return nil
}

// writeLinked creates, updates or leaves the venue or organizer name.
func (w *csvWriter) writeLinked(ctx context.Context, kind, name string, venue models.VenueInput, org models.OrganizerInput, rep *csvImportReport) error {
	key := models.NameKey(name)
	if kind == eventcsv.KindVenues {
		id, found := w.venues[key]
		if !found {
			v, _, err := w.db.Venues().Create(ctx, w.u, venue, w.lang)
			if err == nil {
				w.venues[key] = v.ID
				rep.Created++
			}
			return err
		}
		old, err := w.db.Venues().Get(ctx, w.u, models.ByID(id), w.lang)
		if err != nil {
			return err
		}
		eq := func(p *string, v string) bool { return p == nil || *p == v }
		eqb := func(p *bool, v bool) bool { return p == nil || *p == v }
		if old.Venue == name && eq(venue.Description, old.Description) && eq(venue.Address, old.Address) && eq(venue.City, old.City) &&
			eq(venue.Country, old.Country) && eq(venue.Province, old.Province) && eq(venue.State, old.State) && eq(venue.Zip, old.Zip) &&
			eq(venue.Phone, old.Phone) && eq(venue.Website, old.Website) && eq(venue.ImageURL, old.ImageURL) &&
			eq(venue.Status, old.Status) && eqb(venue.ShowMap, old.ShowMap) && eqb(venue.ShowMapLink, old.ShowMapLink) {
			rep.Unchanged++
			return nil
		}
		if _, err := w.db.Venues().Update(ctx, w.u, models.ByID(id), venue, w.lang); err != nil {
			return err
		}
		rep.Updated++
		return nil
	}
	id, found := w.orgs[key]
	if !found {
		o, _, err := w.db.Organizers().Create(ctx, w.u, org, w.lang)
		if err == nil {
			w.orgs[key] = o.ID
			rep.Created++
		}
		return err
	}
	old, err := w.db.Organizers().Get(ctx, w.u, models.ByID(id), w.lang)
	if err != nil {
		return err
	}
	eq := func(p *string, v string) bool { return p == nil || *p == v }
	if old.Organizer == name && eq(org.Description, old.Description) && eq(org.Phone, old.Phone) && eq(org.Website, old.Website) &&
		eq(org.Email, old.Email) && eq(org.ImageURL, old.ImageURL) && eq(org.Status, old.Status) {
		rep.Unchanged++
		return nil
	}
	if _, err := w.db.Organizers().Update(ctx, w.u, models.ByID(id), org, w.lang); err != nil {
		return err
	}
	rep.Updated++
	return nil
}
