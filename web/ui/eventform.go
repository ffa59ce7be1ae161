package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/rrtext"
	"github.com/kalends/kalends/models"
)

// The event form's fields and their reading into a models input, shared by
// the admin (which shows and saves the form) and the public site (whose
// preview shows the page the form's unsaved content makes).

// EventForm is what the event form shows and sends, field by field named
// as the API's arguments (SPEC §10), plus the inline creations and the
// version the form was loaded from.
type EventForm struct {
	Title, Description, Excerpt, Status string
	StartDate, EndDate, Timezone        string // datetime-local (or date) values in the event's zone
	AllDay                              bool
	Venue, NewVenue                     string
	Organizers                          []string
	NewOrganizer                        string
	Categories, Tags                    []string
	NewTags                             string
	Cost, Website                       string
	Image, Slug, Date                   string // image URL, slug, publication date (site zone)
	// The event's own currency; empty when the cost text (or the site)
	// decides, and then not sent.
	CurrencySymbol, CurrencyCode, CurrencyPosition string
	Featured, Sticky, Hidden                       bool
	ShowMap, ShowMapLink                           bool
	Repeat                                         RepeatForm
	Version                                        string // the loaded record's last change, Unix seconds
}

// RepeatForm is the recurrence part of the event form.
type RepeatForm struct {
	Freq     string   // "", DAILY, WEEKLY, MONTHLY, YEARLY, or "custom"
	Interval string   // every how many days, weeks, months or years
	Days     []string // weekly: MO … SU
	Monthly  string   // "day" (the start's day of the month), "nth" (its weekday, the nth of the month) or "last"
	End      string   // "never", "until" or "count"
	Until    string   // a date
	Count    string
	Extra    string // one date per line (RDATE)
	Except   string // one date per line (EXDATE)
	Custom   string // RFC 5545 lines, when Freq is "custom"
	// Occurrence: the event is an occurrence of a series other than its
	// first; Scope is what saving it changes (this, following, all).
	Occurrence bool
	Scope      string
	// Keep: the rule is the one stored (set by the save, not read from
	// the form), so the save does not send it; an occurrence's "this and
	// following" then keeps the rest of the rule as it was.
	Keep bool
}

// Form values of date inputs.
const (
	LocalDateTime = "2006-01-02T15:04"
	LocalDate     = time.DateOnly
)

// EventFormOf fills the form from a stored event (read in its source language),
// without the version (the admin adds it).
func EventFormOf(e *models.Event, site *time.Location) EventForm {
	loc, err := models.LoadZone(e.Timezone, site)
	if err != nil {
		loc = site
	}
	layout := LocalDateTime
	if e.AllDay {
		layout = LocalDate
	}
	f := EventForm{
		Title: e.Title, Description: e.Description, Excerpt: e.Excerpt, Status: e.Status,
		StartDate: e.StartAt.In(loc).Format(layout), EndDate: e.EndAt.In(loc).Format(layout),
		Timezone: e.Timezone, AllDay: e.AllDay, Cost: strings.Join(models.CostItems(e.Cost), ", "),
		Featured: e.Featured, Sticky: e.Sticky, Hidden: e.HideFromListings, ShowMap: e.ShowMap, ShowMapLink: e.ShowMapLink,
	}
	if e.Website != nil {
		f.Website = *e.Website
	}
	f.Image, f.Slug, f.Date = e.ImageURL, e.Slug, e.PublishedAt.In(site).Format("2006-01-02T15:04:05")
	f.CurrencyCode = e.CurrencyCode
	if sym, pos := models.DetectCurrency(models.CostItems(e.Cost)); sym != e.CurrencySymbol || pos != e.CurrencyPosition {
		f.CurrencySymbol, f.CurrencyPosition = e.CurrencySymbol, e.CurrencyPosition
	}
	if len(e.Venues) > 0 {
		f.Venue = strconv.FormatInt(e.Venues[0].ID, 10)
	}
	for _, o := range e.Organizers {
		f.Organizers = append(f.Organizers, strconv.FormatInt(o.ID, 10))
	}
	for _, t := range e.Categories {
		f.Categories = append(f.Categories, strconv.FormatInt(t.ID, 10))
	}
	for _, t := range e.Tags {
		f.Tags = append(f.Tags, strconv.FormatInt(t.ID, 10))
	}
	f.Repeat = RepeatFormOf(e, loc)
	return f
}

// ReadRepeatForm reads the recurrence fields of a posted event form.
func ReadRepeatForm(c *fiber.Ctx) RepeatForm {
	var days []string
	for _, v := range c.Request().PostArgs().PeekMulti("repeat_day") {
		days = append(days, string(v))
	}
	return RepeatForm{Freq: c.FormValue("repeat_freq"), Interval: strings.TrimSpace(c.FormValue("repeat_interval")), Days: days,
		Monthly: c.FormValue("repeat_monthly"), End: c.FormValue("repeat_end"), Until: c.FormValue("repeat_until"),
		Count: strings.TrimSpace(c.FormValue("repeat_count")), Extra: c.FormValue("repeat_extra"),
		Except: c.FormValue("repeat_except"), Custom: c.FormValue("repeat_custom"),
		Occurrence: c.FormValue("repeat_occurrence") != "", Scope: c.FormValue("scope")}
}

// Text is the rule the choices make, as RFC 5545 lines ("" for none);
// start is the form's start date, which places "the 2nd Tuesday".
func (r RepeatForm) Text(start string) string {
	var lines []string
	switch r.Freq {
	case "":
		return ""
	case "custom":
		return r.Custom
	}
	parts := []string{"FREQ=" + r.Freq}
	if r.Interval != "" && r.Interval != "1" {
		parts = append(parts, "INTERVAL="+r.Interval)
	}
	day, weekday := startDay(start)
	switch r.Freq {
	case "WEEKLY":
		if len(r.Days) > 0 {
			parts = append(parts, "BYDAY="+strings.Join(r.Days, ","))
		}
	case "MONTHLY":
		switch {
		case r.Monthly == "nth" && day > 0:
			parts = append(parts, "BYDAY="+strconv.Itoa((day-1)/7+1)+weekday)
		case r.Monthly == "last" && day > 0:
			parts = append(parts, "BYDAY=-1"+weekday)
		}
	}
	switch r.End {
	case "until":
		parts = append(parts, "UNTIL="+strings.ReplaceAll(strings.TrimSpace(r.Until), "-", ""))
	case "count":
		parts = append(parts, "COUNT="+r.Count)
	}
	lines = append(lines, "RRULE:"+strings.Join(parts, ";"))
	for _, l := range dateLines(r.Extra) {
		lines = append(lines, "RDATE:"+l)
	}
	for _, l := range dateLines(r.Except) {
		lines = append(lines, "EXDATE:"+l)
	}
	return strings.Join(lines, "\n")
}

// dateLines are the non-empty lines of a dates field.
func dateLines(s string) []string {
	var out []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' || r == '、' }) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, FormDate(l))
		}
	}
	return out
}

// startDay is the day of the month and the weekday code of a form's
// start date (0 and "" when it is not a date).
func startDay(start string) (int, string) {
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(start)[:min(10, len(strings.TrimSpace(start)))])
	if err != nil {
		return 0, ""
	}
	return t.Day(), rrtext.Weekday(t)
}

// RepeatFormOf fills the recurrence fields from a stored event: the
// choices when they say its rule exactly, the rule's text otherwise.
func RepeatFormOf(e *models.Event, loc *time.Location) RepeatForm {
	r := RepeatForm{Interval: "1", End: "never", Monthly: "day", Occurrence: e.IsOccurrence(), Scope: models.ScopeThis}
	rule := e.SeriesRule
	if rule == nil || rule.Empty() {
		return r
	}
	layout := "2006-01-02 15:04"
	if e.AllDay {
		layout = time.DateOnly
	}
	var extra, except []string
	for _, d := range rule.RDates {
		extra = append(extra, d.In(loc).Format(layout))
	}
	for _, d := range rule.ExDates {
		except = append(except, d.In(loc).Format(layout))
	}
	r.Extra, r.Except = strings.Join(extra, "\n"), strings.Join(except, "\n")
	if len(rule.RRules) != 1 || !r.Choices(rule.RRules[0], e.SeriesStart) {
		r = RepeatForm{Interval: "1", End: "never", Monthly: "day", Occurrence: r.Occurrence, Scope: r.Scope,
			Freq: "custom", Custom: rule.String()}
	}
	return r
}

// Choices sets the fields from rule and reports whether they say it
// exactly.
func (r *RepeatForm) Choices(rule string, start time.Time) bool {
	for _, p := range strings.Split(rule, ";") {
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "FREQ":
			r.Freq = v
		case "INTERVAL":
			r.Interval = v
		case "COUNT":
			r.End, r.Count = "count", v
		case "UNTIL":
			t, err := time.Parse("20060102T150405Z", v)
			if err != nil {
				return false
			}
			r.End, r.Until = "until", t.In(start.Location()).Format(time.DateOnly)
		case "BYDAY":
			r.Days = strings.Split(v, ",")
		default:
			return false
		}
	}
	if len(r.Days) == 0 {
		return true
	}
	day := rrtext.Weekday(start)
	switch r.Freq {
	case "WEEKLY":
		for _, d := range r.Days {
			if rrtext.DayMessage(d) == "" {
				return false
			}
		}
		return true
	case "MONTHLY":
		if len(r.Days) != 1 {
			return false
		}
		switch r.Days[0] {
		case strconv.Itoa((start.Day()-1)/7+1) + day:
			r.Monthly = "nth"
		case "-1" + day:
			r.Monthly = "last"
		default:
			return false
		}
		r.Days = nil
		return true
	}
	return false
}

// ReadEventForm reads a posted event form.
func ReadEventForm(c *fiber.Ctx) EventForm {
	args := c.Request().PostArgs()
	multi := func(name string) []string {
		var out []string
		for _, v := range args.PeekMulti(name) {
			if s := strings.TrimSpace(string(v)); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	on := func(name string) bool { return c.FormValue(name) != "" }
	return EventForm{
		Title: c.FormValue("title"), Description: c.FormValue("description"), Excerpt: c.FormValue("excerpt"),
		Status: c.FormValue("status"), StartDate: c.FormValue("start_date"), EndDate: c.FormValue("end_date"),
		Timezone: strings.TrimSpace(c.FormValue("timezone")), AllDay: on("all_day"),
		Venue: c.FormValue("venue"), NewVenue: strings.TrimSpace(c.FormValue("new_venue")),
		Organizers: multi("organizer"), NewOrganizer: strings.TrimSpace(c.FormValue("new_organizer")),
		Categories: multi("categories"), Tags: multi("tags"), NewTags: c.FormValue("new_tags"),
		Cost: strings.TrimSpace(c.FormValue("cost")), Website: strings.TrimSpace(c.FormValue("website")),
		Image: strings.TrimSpace(c.FormValue("image")), Slug: strings.TrimSpace(c.FormValue("slug")), Date: c.FormValue("date"),
		CurrencySymbol: strings.TrimSpace(c.FormValue("currency_symbol")), CurrencyCode: strings.TrimSpace(c.FormValue("currency_code")),
		CurrencyPosition: c.FormValue("currency_position"),
		Featured:         on("featured"), Sticky: on("sticky"), Hidden: on("hide_from_listings"),
		ShowMap: on("show_map"), ShowMapLink: on("show_map_link"), Repeat: ReadRepeatForm(c), Version: c.FormValue("_version"),
	}
}

// FormDate turns a date input's value into the API's form ("T" between
// date and time becomes a space; a date alone stays a date).
func FormDate(s string) string { return strings.Replace(strings.TrimSpace(s), "T", " ", 1) }

// Input is the models input of the form, written in lang. Ids the form
// sends that are not numbers are kept as names (they then fail as unknown
// records, never silently).
func (f EventForm) Input(lang string) models.EventInput {
	str := func(s string) *string { return &s }
	b := func(v bool) *bool { return &v }
	in := models.EventInput{
		Title: str(f.Title), Description: str(f.Description), Excerpt: str(f.Excerpt),
		StartDate: str(FormDate(f.StartDate)), EndDate: str(FormDate(f.EndDate)),
		Timezone: str(f.Timezone), AllDay: b(f.AllDay), Website: str(f.Website),
		Cost:     str(models.EncodeCost(f.Cost)),
		Featured: b(f.Featured), Sticky: b(f.Sticky), HideFromListings: b(f.Hidden),
		ShowMap: b(f.ShowMap), ShowMapLink: b(f.ShowMapLink), Lang: lang,
	}
	if f.Status != "" {
		in.Status = str(f.Status)
	}
	in.ImageURL = str(f.Image)
	opt := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	in.Slug, in.Date = opt(f.Slug), opt(FormDate(f.Date))
	in.CurrencySymbol, in.CurrencyCode, in.CurrencyPosition = opt(f.CurrencySymbol), opt(f.CurrencyCode), opt(f.CurrencyPosition)
	in.Categories = formTerms(f.Categories, "")
	in.Tags = formTerms(f.Tags, f.NewTags)
	in.Venues, in.Organizers = f.venueRefs(), f.organizerRefs()
	// An occurrence's save changes what its scope says; the rule goes
	// with the scopes that reach the series.
	rule := f.Repeat.Text(f.StartDate)
	switch {
	case f.Repeat.Keep:
		if f.Repeat.Occurrence {
			in.Scope = f.Repeat.Scope
		}
	case !f.Repeat.Occurrence:
		in.Recurrence = &rule
	case f.Repeat.Scope == models.ScopeAll || f.Repeat.Scope == models.ScopeFollowing:
		in.Scope, in.Recurrence = f.Repeat.Scope, &rule
	default: // a changed rule with "this occurrence": the models say why not
		in.Scope, in.Recurrence = models.ScopeThis, &rule
	}
	return in
}

// formTerms are the terms of a form: the ids it sends (an id that is not a
// number is kept as a name) and the names typed, separated by commas.
func formTerms(ids []string, names string) *[]models.TermRef {
	out := []models.TermRef{}
	for _, s := range ids {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, models.TermRef{ID: id})
		} else {
			out = append(out, models.TermRef{Name: s})
		}
	}
	for _, n := range strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == '，' || r == '、' }) {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, models.TermRef{Name: n})
		}
	}
	return &out
}

// venueRefs is the form's venue: a new one by its name, or one picked.
func (f EventForm) venueRefs() *[]models.VenueRef {
	venues := []models.VenueRef{}
	switch {
	case f.NewVenue != "":
		venues = append(venues, models.VenueRef{New: &models.VenueInput{Venue: &f.NewVenue}})
	case f.Venue != "":
		id, _ := strconv.ParseInt(f.Venue, 10, 64)
		venues = append(venues, models.VenueRef{ID: id})
	}
	return &venues
}

// organizerRefs are the organizers picked and a new one by its name.
func (f EventForm) organizerRefs() *[]models.OrganizerRef {
	orgs := []models.OrganizerRef{}
	for _, s := range f.Organizers {
		id, _ := strconv.ParseInt(s, 10, 64)
		orgs = append(orgs, models.OrganizerRef{ID: id})
	}
	if f.NewOrganizer != "" {
		orgs = append(orgs, models.OrganizerRef{New: &models.OrganizerInput{Organizer: &f.NewOrganizer}})
	}
	return &orgs
}

// SaveInput is the models input that saving f over the stored event
// (whose form is stored) sends: the rule only when it changed, and the
// links only when they changed, as the form shows only what its user may
// read (and one venue), so sending them unchanged would unlink the records
// it could not show. Changed, they replace all.
func (f EventForm) SaveInput(stored EventForm) models.EventInput {
	f.Repeat.Keep = stored.Repeat.Text(stored.StartDate) == f.Repeat.Text(f.StartDate)
	in := f.Input("")
	if f.Venue == stored.Venue && f.NewVenue == "" {
		in.Venues = nil
	}
	if sameSet(f.Organizers, stored.Organizers) && f.NewOrganizer == "" {
		in.Organizers = nil
	}
	return in
}

// sameSet reports whether a and b hold the same values, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
