package models

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// Recurring events. A series is an event with a Recurrence: RFC 5545
// RRULE values and RDATE/EXDATE dates, in the event's time zone, so 10:00
// stays 10:00 across daylight saving time. Its occurrences are
// materialized as events (series.go): the series row is the first, the
// others have parent_id = series_id = the series, and every one has its
// recurrence_id, the start the rule gave it (RFC 5545's RECURRENCE-ID).

// Recurrence is the rule of a series. Dates are wall clock in the event's
// zone (their Location is that zone).
type Recurrence struct {
	RRules  []string // RRULE values ("FREQ=WEEKLY;BYDAY=TU;COUNT=10"), UNTIL in UTC
	RDates  []time.Time
	ExDates []time.Time
}

// Limits of a recurrence.
const (
	MaxRecurrenceRules = 4
	MaxRecurrenceDates = 500
	// MaxFutureOccurrences is how many occurrences of one series are
	// materialized ahead of now, whatever the horizon.
	MaxFutureOccurrences = 1000
	maxRecurrenceCount   = 5000
	maxRecurrenceText    = 64 << 10
)

// DefaultSeriesHorizon is how far ahead of now occurrences are
// materialized when the site sets nothing (--series-horizon): two years,
// and a month more, so the API's default list window (24 months) never
// has to materialize anything.
const DefaultSeriesHorizon = (2*365 + 31) * 24 * time.Hour

// recurrenceStamp is the form of dates in the stored rule: wall clock
// with no zone (the event's).
const recurrenceStamp = "20060102T150405"

// String is the stored form: one RFC 5545 content line per rule and date.
func (r *Recurrence) String() string {
	var b strings.Builder
	line := func(name, v string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(name + ":" + v)
	}
	for _, rule := range r.RRules {
		line("RRULE", rule)
	}
	for _, d := range r.RDates {
		line("RDATE", d.Format(recurrenceStamp))
	}
	for _, d := range r.ExDates {
		line("EXDATE", d.Format(recurrenceStamp))
	}
	return b.String()
}

// Empty reports whether r has no rule and no extra date (no series).
func (r *Recurrence) Empty() bool { return r == nil || (len(r.RRules) == 0 && len(r.RDates) == 0) }

// recurrenceError is the validation error of the recurrence field, naming
// the part of the rule that is wrong.
func recurrenceError(reason, part string) error {
	if len(part) > 80 {
		part = part[:80] + "…"
	}
	return Invalid("recurrence", reason, map[string]any{"Part": part})
}

// CheckRecurrenceSyntax checks the parts of a recurrence text that need no
// time zone: the line names, the RRULE parts and the number of rules and
// dates. The API runs it with the other checks that read no data.
func CheckRecurrenceSyntax(text string) error {
	_, err := ParseRecurrence(text, time.UTC, time.Time{})
	return err
}

// ParseRecurrence reads a recurrence: RFC 5545 content lines (RRULE, RDATE,
// EXDATE, with TZID or VALUE=DATE parameters; folded lines unfolded), or
// a bare rule ("FREQ=WEEKLY;BYDAY=TU"). Dates are read in loc unless they
// say otherwise; a date without a time takes the time of day of start (the
// series' first start, in loc). It refuses what a calendar could not
// schedule from, naming the part.
func ParseRecurrence(text string, loc *time.Location, start time.Time) (*Recurrence, error) {
	if len(text) > maxRecurrenceText {
		return nil, recurrenceError("reason.events.recurrence_too_long", "")
	}
	r := &Recurrence{}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\n ", "") // RFC 5545 folding
	text = strings.ReplaceAll(text, "\n\t", "")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, params, value := splitContentLine(line)
		switch name {
		case "RRULE":
			rule, err := checkRRule(value, loc)
			if err != nil {
				return nil, err
			}
			r.RRules = append(r.RRules, rule)
		case "RDATE", "EXDATE":
			for _, v := range strings.Split(value, ",") {
				d, err := parseRecurrenceDate(strings.TrimSpace(v), params, loc, start)
				if err != nil {
					return nil, recurrenceError("reason.events.recurrence_date", name+":"+v)
				}
				if name == "RDATE" {
					r.RDates = append(r.RDates, d)
				} else {
					r.ExDates = append(r.ExDates, d)
				}
			}
		case "DTSTART":
			// Text copied from another calendar carries it: taken when it
			// is the event's start (the start is start_date's).
			if start.IsZero() {
				continue // the syntax check knows no start
			}
			d, err := parseRecurrenceDate(value, params, loc, start)
			if err != nil || !d.Equal(start) {
				return nil, recurrenceError("reason.events.recurrence_dtstart", line)
			}
		case "DTEND", "DURATION":
			return nil, recurrenceError("reason.events.recurrence_dtend", line)
		default:
			return nil, recurrenceError("reason.events.recurrence_line", line)
		}
	}
	if len(r.RRules) > MaxRecurrenceRules {
		return nil, recurrenceError("reason.events.recurrence_too_many_rules", strconv.Itoa(len(r.RRules)))
	}
	if len(r.RDates) > MaxRecurrenceDates || len(r.ExDates) > MaxRecurrenceDates {
		return nil, recurrenceError("reason.events.recurrence_too_many_dates", strconv.Itoa(max(len(r.RDates), len(r.ExDates))))
	}
	r.RDates, r.ExDates = sortedDates(r.RDates), sortedDates(r.ExDates)
	return r, nil
}

// splitContentLine splits "NAME;PARAM=V:VALUE" (a bare rule is an RRULE).
func splitContentLine(line string) (name string, params map[string]string, value string) {
	head, value, ok := strings.Cut(line, ":")
	parts := strings.Split(head, ";")
	if !ok || strings.HasPrefix(strings.ToUpper(line), "FREQ=") || strings.Contains(parts[0], "=") {
		return "RRULE", nil, line
	}
	name = strings.ToUpper(strings.TrimSpace(parts[0]))
	params = map[string]string{}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		params[strings.ToUpper(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return name, params, strings.TrimSpace(value)
}

// rruleKeys are the RRULE parts Kalends schedules from. Rules that repeat
// within a day (FREQ=HOURLY, BYHOUR…) are refused: an event calendar's
// series repeats on days.
var rruleKeys = map[string]bool{"FREQ": true, "INTERVAL": true, "COUNT": true, "UNTIL": true, "BYDAY": true,
	"BYMONTHDAY": true, "BYMONTH": true, "BYSETPOS": true, "BYYEARDAY": true, "BYWEEKNO": true, "WKST": true}

// checkRRule checks one RRULE value part by part and returns it in the
// stored form: keys upper-cased, UNTIL in UTC.
func checkRRule(value string, loc *time.Location) (string, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return "", recurrenceError("reason.events.recurrence_freq", "RRULE:")
	}
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(value, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.ToUpper(strings.TrimSpace(k)), strings.ToUpper(strings.TrimSpace(v))
		if !ok || v == "" {
			return "", recurrenceError("reason.events.recurrence_part", part)
		}
		if seen[k] {
			return "", recurrenceError("reason.events.recurrence_part_twice", k)
		}
		seen[k] = true
		switch {
		case k == "FREQ":
			switch v {
			case "DAILY", "WEEKLY", "MONTHLY", "YEARLY":
			case "SECONDLY", "MINUTELY", "HOURLY":
				return "", recurrenceError("reason.events.recurrence_within_day", part)
			default:
				return "", recurrenceError("reason.events.recurrence_part", part)
			}
		case k == "BYHOUR" || k == "BYMINUTE" || k == "BYSECOND":
			return "", recurrenceError("reason.events.recurrence_within_day", part)
		case !rruleKeys[k]:
			return "", recurrenceError("reason.events.recurrence_part", part)
		case k == "UNTIL":
			u, err := parseUntil(v, loc)
			if err != nil {
				return "", recurrenceError("reason.events.recurrence_part", part)
			}
			v = u.UTC().Format(recurrenceStamp) + "Z"
		case k == "INTERVAL" || k == "COUNT":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || (k == "INTERVAL" && n > 1000) || (k == "COUNT" && n > maxRecurrenceCount) {
				return "", recurrenceError("reason.events.recurrence_part", part)
			}
		default:
			// The library reads the other parts; a part it refuses is named.
			if _, err := rrule.StrToROption("FREQ=DAILY;" + k + "=" + v); err != nil {
				return "", recurrenceError("reason.events.recurrence_part", part)
			}
		}
		out = append(out, k+"="+v)
	}
	if !seen["FREQ"] {
		return "", recurrenceError("reason.events.recurrence_freq", value)
	}
	if seen["COUNT"] && seen["UNTIL"] {
		return "", recurrenceError("reason.events.recurrence_count_until", value)
	}
	rule := strings.Join(out, ";")
	if _, err := rrule.StrToROption(rule); err != nil {
		return "", recurrenceError("reason.events.recurrence_part", value)
	}
	return rule, nil
}

// parseUntil reads an UNTIL value: UTC (…Z), wall clock of loc, or a date
// (the end of that day in loc).
func parseUntil(v string, loc *time.Location) (time.Time, error) {
	switch {
	case len(v) == 16 && strings.HasSuffix(v, "Z"):
		return time.Parse(recurrenceStamp+"Z", v)
	case len(v) == 15:
		return time.ParseInLocation(recurrenceStamp, v, loc)
	case len(v) == 8:
		d, err := time.ParseInLocation("20060102", v, loc)
		return d.Add(24*time.Hour - time.Second), err
	}
	return time.Time{}, errors.New("not an RFC 5545 date")
}

// parseRecurrenceDate reads an RDATE or EXDATE value: RFC 5545 forms
// (UTC, wall clock of TZID or loc, or a date at start's time of day) or the
// API's own date forms, read in loc.
func parseRecurrenceDate(v string, params map[string]string, loc *time.Location, start time.Time) (time.Time, error) {
	in := loc
	if tz := params["TZID"]; tz != "" {
		z, err := LoadZone(tz, loc)
		if err != nil {
			return time.Time{}, err
		}
		in = z
	}
	atStartTime := func(d time.Time) time.Time {
		return time.Date(d.Year(), d.Month(), d.Day(), start.Hour(), start.Minute(), start.Second(), 0, loc)
	}
	var t time.Time
	var err error
	switch {
	case len(v) == 16 && (v[15] == 'Z' || v[15] == 'z') && v[8] == 'T':
		t, err = time.Parse(recurrenceStamp+"Z", strings.ToUpper(v))
	case len(v) == 15 && v[8] == 'T':
		t, err = time.ParseInLocation(recurrenceStamp, v, in)
	case len(v) == 8:
		t, err = time.ParseInLocation("20060102", v, loc)
		t = atStartTime(t)
	default:
		var form DateForm
		t, form, err = ParseDate(v, start, in)
		if err == nil && form.DateOnly {
			t = atStartTime(t)
		}
	}
	if err != nil {
		return time.Time{}, err
	}
	if !storable(t) {
		return time.Time{}, errors.New("out of range")
	}
	return Sec(t).In(loc), nil
}

// sortedDates sorts dates and drops repeats.
func sortedDates(ds []time.Time) []time.Time {
	slices.SortFunc(ds, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(ds, func(a, b time.Time) bool { return a.Equal(b) })
}

// readStoredRecurrence reads the stored form of a series' rule (written by
// String, so it parses; a damaged one reads as no rule at all).
func readStoredRecurrence(text string, loc *time.Location, start time.Time) *Recurrence {
	r, err := ParseRecurrence(text, loc, start)
	if err != nil {
		return &Recurrence{}
	}
	return r
}

// set builds the rrule-go set of r from start (wall clock in its zone).
func (r *Recurrence) set(start time.Time) (*rrule.Set, error) {
	set := &rrule.Set{}
	for _, rule := range r.RRules {
		opt, err := rrule.StrToROptionInLocation(rule, start.Location())
		if err != nil {
			return nil, fmt.Errorf("models: rule %q: %w", rule, err)
		}
		opt.Dtstart = start
		rr, err := rrule.NewRRule(*opt)
		if err != nil {
			return nil, fmt.Errorf("models: rule %q: %w", rule, err)
		}
		set.RRule(rr)
	}
	for _, d := range r.RDates {
		set.RDate(d)
	}
	for _, d := range r.ExDates {
		set.ExDate(d)
	}
	set.DTStart(start)
	return set, nil
}

// Expand returns the starts of the series from start (always the first,
// as RFC 5545 has it) up to until, in start's zone, at most limit of them
// after now; next is the first start left out (zero when the rule ends
// before).
func (r *Recurrence) Expand(start, until, now time.Time, limit int) (starts []time.Time, next time.Time, err error) {
	set, err := r.set(start)
	if err != nil {
		return nil, time.Time{}, err
	}
	starts = []time.Time{start}
	future := 0
	if start.After(now) {
		future++
	}
	iter := set.Iterator()
	for {
		t, ok := iter()
		if !ok {
			return starts, time.Time{}, nil
		}
		if !t.After(start) {
			continue
		}
		t = Sec(t).In(start.Location())
		if t.After(until) || future >= limit {
			return starts, t, nil
		}
		if t.After(now) {
			future++
		}
		starts = append(starts, t)
	}
}

// Next returns the first start after t (zero when none).
func (r *Recurrence) Next(start, after time.Time) time.Time {
	set, err := r.set(start)
	if err != nil {
		return time.Time{}
	}
	return set.After(after, false)
}

// shiftWall moves t by the wall-clock difference between from and to (days
// and time of day, in t's zone), so an occurrence keeps its place in the
// series when the series' start moves.
func shiftWall(t, from, to time.Time) time.Time {
	days := daysBetween(from, to)
	clock := func(x time.Time) int { return x.Hour()*3600 + x.Minute()*60 + x.Second() }
	secs := clock(to) - clock(from)
	return time.Date(t.Year(), t.Month(), t.Day()+days, t.Hour(), t.Minute(), t.Second()+secs, 0, t.Location())
}

// daysBetween is the number of calendar days from a's date to b's, each
// in its own zone.
func daysBetween(a, b time.Time) int {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return int(time.Date(by, bm, bd, 12, 0, 0, 0, time.UTC).Sub(time.Date(ay, am, ad, 12, 0, 0, 0, time.UTC)).Hours() / 24)
}

// occurrenceEnd is the end of the occurrence starting at s of a series
// that starts at start and ends at end: the same length, or for all-day
// events the same number of days.
func occurrenceEnd(s, start, end time.Time, allDay bool) time.Time {
	if allDay {
		return time.Date(s.Year(), s.Month(), s.Day()+daysBetween(start, end), 23, 59, 59, 0, s.Location())
	}
	return s.Add(end.Sub(start))
}

// withUntil returns the rules of r ending before cut (the split of a
// series at an occurrence): COUNT and UNTIL give way to UNTIL = cut − 1 s.
func (r *Recurrence) withUntil(cut time.Time) *Recurrence {
	out := &Recurrence{}
	until := "UNTIL=" + cut.Add(-time.Second).UTC().Format(recurrenceStamp) + "Z"
	for _, rule := range r.RRules {
		var parts []string
		for _, p := range strings.Split(rule, ";") {
			if !strings.HasPrefix(p, "COUNT=") && !strings.HasPrefix(p, "UNTIL=") {
				parts = append(parts, p)
			}
		}
		out.RRules = append(out.RRules, strings.Join(append(parts, until), ";"))
	}
	for _, d := range r.RDates {
		if d.Before(cut) {
			out.RDates = append(out.RDates, d)
		}
	}
	for _, d := range r.ExDates {
		if d.Before(cut) {
			out.ExDates = append(out.ExDates, d)
		}
	}
	return out
}

// from returns the rules of r for the part of the series from cut on, the
// occurrence at cut being its first: COUNT lowered by the occurrences
// before (done), the dates from cut on.
func (r *Recurrence) from(cut time.Time, done int) *Recurrence {
	out := &Recurrence{}
	for _, rule := range r.RRules {
		var parts []string
		for _, p := range strings.Split(rule, ";") {
			if n, ok := strings.CutPrefix(p, "COUNT="); ok {
				c, _ := strconv.Atoi(n)
				p = "COUNT=" + strconv.Itoa(max(c-done, 1))
			}
			parts = append(parts, p)
		}
		out.RRules = append(out.RRules, strings.Join(parts, ";"))
	}
	for _, d := range r.RDates {
		if !d.Before(cut) {
			out.RDates = append(out.RDates, d)
		}
	}
	for _, d := range r.ExDates {
		if !d.Before(cut) {
			out.ExDates = append(out.ExDates, d)
		}
	}
	return out
}

// PreviewRecurrence reads a rule for an event that starts at start (as
// the event form sends it: wall clock of zone, "" being the site's) and
// returns it with its first n starts, in the event's zone: what the
// admin's preview shows before anything is saved. Errors are those a save
// would give.
func (s *Store) PreviewRecurrence(text, zone, start string, n int) (*Recurrence, []time.Time, error) {
	loc, err := LoadZone(strings.TrimSpace(zone), s.site.Zone())
	if err != nil {
		return nil, nil, invalidBecause("timezone", "reason.invalid_timezone", nil, err)
	}
	first, err := parseEventDate("start_date", start, s.site.Now(), loc)
	if err != nil {
		return nil, nil, err
	}
	r, err := ParseRecurrence(text, loc, first)
	if err != nil {
		return nil, nil, err
	}
	if r.Empty() {
		return r, nil, nil
	}
	starts, _, err := r.Expand(first, first.AddDate(100, 0, 0), first, n-1)
	if err != nil {
		return nil, nil, recurrenceError("reason.events.recurrence_part", text)
	}
	return r, starts, nil
}
