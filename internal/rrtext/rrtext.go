// Package rrtext describes an RFC 5545 recurrence (RRULE values and the
// numbers of RDATE and EXDATE dates) as one short sentence in a UI
// language: "Every week on Tuesday, 10 times", "毎月第2火曜日".
//
// Every word comes from the messages "recurrence.text.*" through T, and
// each phrase is a whole template, so every language keeps its own word
// order. A rule, or a part of one, that this package cannot say exactly
// (BYWEEKNO, BYYEARDAY, BYHOUR, an ordinal it has no word for, a malformed
// value...) is never dropped: the rule is described by the generic
// "recurrence.text.custom" sentence instead of a wrong one.
package rrtext

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/models"
)

// T renders message id in the UI language with data (go-i18n style:
// templates use {{.Name}}; when data has "Count" it selects the plural
// form).
type T func(id string, data map[string]any) string

// Message ids. They are written whole, never assembled from pieces, so a
// search for an id finds its use.
const (
	idCustom          = "recurrence.text.custom"
	idDaily           = "recurrence.text.daily"
	idEveryNDays      = "recurrence.text.every_n_days"
	idWeekly          = "recurrence.text.weekly"
	idEveryWeekday    = "recurrence.text.every_weekday"
	idEveryNWeeks     = "recurrence.text.every_n_weeks"
	idMonthly         = "recurrence.text.monthly"
	idEveryNMonths    = "recurrence.text.every_n_months"
	idYearly          = "recurrence.text.yearly"
	idEveryNYears     = "recurrence.text.every_n_years"
	idYearlyIn        = "recurrence.text.yearly_in_months"
	idEveryNYearsIn   = "recurrence.text.every_n_years_in_months"
	idCount           = "recurrence.text.count"
	idUntil           = "recurrence.text.until"
	idExtra           = "recurrence.text.extra"
	idExcluded        = "recurrence.text.excluded"
	idDatesOnly       = "recurrence.text.dates_only"
	idAnd             = "recurrence.text.and"
	idListSep         = "recurrence.text.list_sep"
	idWeekdays        = "recurrence.text.weekdays"
	idWeekday         = "recurrence.text.weekday"
	idMonthDay        = "recurrence.text.monthday"
	idLastDay         = "recurrence.text.last_day"
	idMonthDayFromEnd = "recurrence.text.monthday_from_end"
	idYearlyDate      = "recurrence.text.yearly_date"
)

// dayIDs are the weekday names, Monday first (the index is a weekday
// number of this package: 0 = Monday ... 6 = Sunday).
var dayIDs = [7]string{
	"recurrence.text.day.mo", "recurrence.text.day.tu", "recurrence.text.day.we",
	"recurrence.text.day.th", "recurrence.text.day.fr", "recurrence.text.day.sa",
	"recurrence.text.day.su",
}

// dayCodes are the RFC 5545 weekday codes in the order of dayIDs.
var dayCodes = [7]string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}

// monthIDs are the month names, January first.
var monthIDs = [12]string{
	"recurrence.text.month.1", "recurrence.text.month.2", "recurrence.text.month.3",
	"recurrence.text.month.4", "recurrence.text.month.5", "recurrence.text.month.6",
	"recurrence.text.month.7", "recurrence.text.month.8", "recurrence.text.month.9",
	"recurrence.text.month.10", "recurrence.text.month.11", "recurrence.text.month.12",
}

// ordinalIDs are the ordinals this package can say, 1 to 5 and -1 (last),
// each a whole phrase around {{.Day}} ("the second {{.Day}}", "第2{{.Day}}").
var ordinalIDs = map[int]string{
	1:  "recurrence.text.ordinal.1",
	2:  "recurrence.text.ordinal.2",
	3:  "recurrence.text.ordinal.3",
	4:  "recurrence.text.ordinal.4",
	5:  "recurrence.text.ordinal.5",
	-1: "recurrence.text.ordinal.last",
}

// Describe returns a sentence such as "Every week on Tuesday, 10 times" /
// "Every 2 weeks on Monday and Wednesday, until 31 Dec 2027" / "Every
// month on the second Tuesday" / "Every month on day 31" / "Every year on
// 4 July", in the language of t.
//
// rules are RRULE values without the "RRULE:" prefix (e.g.
// "FREQ=WEEKLY;BYDAY=TU;COUNT=10"); start is the series' first start in
// the event's zone, which gives the defaults (a WEEKLY rule without BYDAY
// repeats on start's weekday, MONTHLY without BYDAY or BYMONTHDAY on
// start's day of month, YEARLY on start's month and day). extra and
// excluded are the numbers of RDATE and EXDATE dates; when > 0 the
// sentence ends with ", plus 2 more dates" / ", except 1 date".
// untilFormat formats the UNTIL of a rule, converted to start's zone, as a
// date in the UI language (nil: "2006-01-02").
//
// A rule Describe cannot say exactly gets the generic sentence ("Repeats
// on a custom rule"); the sentences of several rules are joined with
// "; " (a repeated sentence once). Without rules it describes the extra
// dates alone, or returns "" when there are none; it returns "" when t is
// nil.
func Describe(t T, rules []string, start time.Time, extra, excluded int, untilFormat func(time.Time) string) string {
	if t == nil {
		return ""
	}
	if untilFormat == nil {
		untilFormat = func(u time.Time) string { return u.Format(time.DateOnly) }
	}
	s := describeRules(t, rules, start, untilFormat)
	if s == "" {
		if extra <= 0 {
			return ""
		}
		return t(idDatesOnly, map[string]any{"Count": extra})
	}
	if extra > 0 {
		s = t(idExtra, map[string]any{"Rule": s, "Count": extra})
	}
	if excluded > 0 {
		s = t(idExcluded, map[string]any{"Rule": s, "Count": excluded})
	}
	return s
}

// describeRules returns the sentences of rules joined with "; ", each
// sentence once; "" when there are no rules.
func describeRules(t T, rules []string, start time.Time, untilFormat func(time.Time) string) string {
	var out []string
	for _, raw := range rules {
		s, ok := describeRule(t, raw, start, untilFormat)
		if !ok {
			s = t(idCustom, nil)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

// describeRule returns the sentence of one RRULE value, or false when it
// cannot be said exactly.
func describeRule(t T, raw string, start time.Time, untilFormat func(time.Time) string) (string, bool) {
	r, ok := parseRule(raw, start.Location())
	if !ok {
		return "", false
	}
	var s string
	switch r.freq {
	case "DAILY":
		s, ok = daily(t, r)
	case "WEEKLY":
		s, ok = weekly(t, r, start)
	case "MONTHLY":
		s, ok = monthly(t, r, start)
	case "YEARLY":
		s, ok = yearly(t, r, start)
	default:
		ok = false
	}
	if !ok {
		return "", false
	}
	if r.count > 0 {
		s = t(idCount, map[string]any{"Rule": s, "Count": r.count})
	}
	if r.hasUntil {
		s = t(idUntil, map[string]any{"Rule": s, "Date": untilFormat(r.until.In(start.Location()))})
	}
	return s, true
}

// daily says a DAILY rule. BYDAY is only said with INTERVAL=1, where it
// is the same as a WEEKLY rule on those days.
func daily(t T, r rule) (string, bool) {
	if len(r.monthDays) > 0 || len(r.months) > 0 || len(r.setPos) > 0 {
		return "", false
	}
	if len(r.days) > 0 {
		if r.interval != 1 {
			return "", false
		}
		return weekdaysSentence(t, r)
	}
	if r.interval == 1 {
		return t(idDaily, nil), true
	}
	return t(idEveryNDays, map[string]any{"Count": r.interval}), true
}

// weekly says a WEEKLY rule: plain weekdays, start's weekday by default.
func weekly(t T, r rule, start time.Time) (string, bool) {
	if len(r.monthDays) > 0 || len(r.months) > 0 || len(r.setPos) > 0 {
		return "", false
	}
	if len(r.days) == 0 {
		r.days = []byDay{{day: weekdayNumber(start.Weekday())}}
	}
	return weekdaysSentence(t, r)
}

// weekdaysSentence says "every (n) week(s) on" the plain weekdays of r.
func weekdaysSentence(t T, r rule) (string, bool) {
	days, ok := plainDays(r.days)
	if !ok {
		return "", false
	}
	var list string
	if isWorkWeek(days) {
		if r.interval == 1 {
			return t(idEveryWeekday, nil), true
		}
		list = t(idWeekdays, nil)
	} else {
		names := make([]string, len(days))
		for i, d := range days {
			names[i] = t(dayIDs[d], nil)
		}
		list = joinList(t, names)
	}
	if r.interval == 1 {
		return t(idWeekly, map[string]any{"Days": list}), true
	}
	return t(idEveryNWeeks, map[string]any{"Count": r.interval, "Days": list}), true
}

// monthly says a MONTHLY rule: ordinal weekdays (1TU, or TU with
// BYSETPOS), days of the month, or start's day of month by default.
func monthly(t T, r rule, start time.Time) (string, bool) {
	if len(r.months) > 0 {
		return "", false
	}
	phrases, ok := dayPhrases(t, r, start.Day())
	if !ok {
		return "", false
	}
	list := joinList(t, phrases)
	if r.interval == 1 {
		return t(idMonthly, map[string]any{"Days": list}), true
	}
	return t(idEveryNMonths, map[string]any{"Count": r.interval, "Days": list}), true
}

// dayPhrases returns the days of a month r names: its ordinal weekdays or
// its days of the month, defaultDay when it names neither.
func dayPhrases(t T, r rule, defaultDay int) ([]string, bool) {
	switch {
	case len(r.days) > 0 && len(r.monthDays) > 0:
		return nil, false
	case len(r.days) > 0:
		return nthPhrases(t, r.days, r.setPos)
	case len(r.setPos) > 0:
		return nil, false
	case len(r.monthDays) > 0:
		return monthDayPhrases(t, r.monthDays), true
	}
	return monthDayPhrases(t, []int{defaultDay}), true
}

// yearly says a YEARLY rule: dates (BYMONTH and BYMONTHDAY, start's month
// and day by default) or ordinal weekdays of the BYMONTH months.
func yearly(t T, r rule, start time.Time) (string, bool) {
	months := r.months
	if len(months) == 0 {
		if len(r.days) > 0 { // an ordinal weekday of the whole year
			return "", false
		}
		months = []int{int(start.Month())}
	}
	if len(r.setPos) > 0 && len(months) != 1 { // BYSETPOS counts in the whole year
		return "", false
	}
	days := r.monthDays
	if len(r.days) == 0 && len(r.setPos) == 0 && len(days) == 0 {
		days = []int{start.Day()}
	}
	if len(r.days) == 0 && len(r.setPos) == 0 && allPositive(days) && len(days)*len(months) <= 12 {
		return yearlyDates(t, r.interval, months, days), true
	}
	phrases, ok := dayPhrases(t, rule{days: r.days, monthDays: days, setPos: r.setPos}, start.Day())
	if !ok {
		return "", false
	}
	names := make([]string, len(months))
	for i, m := range months {
		names[i] = t(monthIDs[m-1], nil)
	}
	data := map[string]any{"Days": joinList(t, phrases), "Months": joinList(t, names)}
	if r.interval == 1 {
		return t(idYearlyIn, data), true
	}
	data["Count"] = r.interval
	return t(idEveryNYearsIn, data), true
}

// yearlyDates says "every (n) year(s) on" each day of each month.
func yearlyDates(t T, interval int, months, days []int) string {
	var dates []string
	for _, m := range months {
		name := t(monthIDs[m-1], nil)
		for _, d := range days {
			dates = append(dates, t(idYearlyDate, map[string]any{"Day": d, "Month": name}))
		}
	}
	list := joinList(t, dates)
	if interval == 1 {
		return t(idYearly, map[string]any{"Dates": list})
	}
	return t(idEveryNYears, map[string]any{"Count": interval, "Dates": list})
}

// nthPhrases returns "the second Tuesday" phrases: of ordinal weekdays
// (2TU, -1FR), or, with BYSETPOS, of one plain weekday or of Monday to
// Friday ("the last weekday"). Ordinals other than 1 to 5 and -1 are not
// said.
func nthPhrases(t T, days []byDay, setPos []int) ([]string, bool) {
	type nth struct{ ord, day int }
	var items []nth
	if len(setPos) == 0 {
		for _, d := range days {
			items = append(items, nth{d.n, d.day})
		}
	} else {
		plain, ok := plainDays(days)
		if !ok || (len(plain) != 1 && !isWorkWeek(plain)) {
			return nil, false
		}
		day := plain[0]
		if len(plain) > 1 {
			day = -1 // Monday to Friday
		}
		for _, p := range setPos {
			items = append(items, nth{p, day})
		}
	}
	slices.SortFunc(items, func(a, b nth) int {
		return cmp.Or(cmp.Compare(ordinalRank(a.ord), ordinalRank(b.ord)), cmp.Compare(a.day, b.day))
	})
	items = slices.Compact(items)
	out := make([]string, 0, len(items))
	for _, it := range items {
		ordID, ok := ordinalIDs[it.ord]
		if !ok {
			return nil, false
		}
		dayName := t(idWeekday, nil)
		if it.day >= 0 {
			dayName = t(dayIDs[it.day], nil)
		}
		out = append(out, t(ordID, map[string]any{"Day": dayName}))
	}
	return out, true
}

// ordinalRank orders ordinals as in a month: 1, 2, ..., then -5 ... -1.
func ordinalRank(n int) int {
	if n < 0 {
		return 100 + n
	}
	return n
}

// monthDayPhrases returns "day 15" / "the last day" phrases, in the order
// of a month.
func monthDayPhrases(t T, monthDays []int) []string {
	days := slices.Clone(monthDays)
	slices.SortFunc(days, func(a, b int) int { return cmp.Compare(ordinalRank(a), ordinalRank(b)) })
	days = slices.Compact(days)
	out := make([]string, len(days))
	for i, d := range days {
		switch {
		case d > 0:
			out[i] = t(idMonthDay, map[string]any{"Day": d})
		case d == -1:
			out[i] = t(idLastDay, nil)
		default:
			out[i] = t(idMonthDayFromEnd, map[string]any{"Day": -d})
		}
	}
	return out
}

// joinList joins items with list_sep and, for the last pair, and.
func joinList(t T, items []string) string {
	if len(items) == 0 {
		return ""
	}
	s := items[0]
	for i := 1; i < len(items); i++ {
		id := idListSep
		if i == len(items)-1 {
			id = idAnd
		}
		s = t(id, map[string]any{"A": s, "B": items[i]})
	}
	return s
}

// plainDays returns the weekday numbers of days, sorted and without
// repeats, or false when one has an ordinal.
func plainDays(days []byDay) ([]int, bool) {
	out := make([]int, 0, len(days))
	for _, d := range days {
		if d.n != 0 {
			return nil, false
		}
		out = append(out, d.day)
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// isWorkWeek reports whether days (sorted, no repeats) are Monday to
// Friday.
func isWorkWeek(days []int) bool {
	return slices.Equal(days, []int{0, 1, 2, 3, 4})
}

// allPositive reports whether every n of ns is > 0.
func allPositive(ns []int) bool {
	for _, n := range ns {
		if n <= 0 {
			return false
		}
	}
	return true
}

// weekdayNumber converts a time.Weekday to this package's numbering
// (0 = Monday).
func weekdayNumber(w time.Weekday) int { return (int(w) + 6) % 7 }

// rule is a parsed RRULE value, limited to the parts Describe can say.
type rule struct {
	freq      string
	interval  int
	count     int
	until     time.Time
	hasUntil  bool
	days      []byDay
	monthDays []int
	months    []int
	setPos    []int
}

// byDay is one BYDAY item: a weekday number and its ordinal (0: none).
type byDay struct{ n, day int }

// parseRule parses an RRULE value (keys and values case-insensitive; a
// floating or date UNTIL is in loc). It returns false for anything
// malformed, repeated or not supported, so the caller falls back to the
// generic sentence.
func parseRule(raw string, loc *time.Location) (rule, bool) {
	raw = strings.TrimSpace(raw)
	if len(raw) >= 6 && strings.EqualFold(raw[:6], "RRULE:") {
		raw = raw[6:]
	}
	r := rule{interval: 1}
	seen := map[string]bool{}
	for part := range strings.SplitSeq(raw, ";") {
		if part == "" {
			continue
		}
		key, value, ok := strings.Cut(part, "=")
		key = strings.ToUpper(strings.TrimSpace(key))
		value = strings.ToUpper(strings.TrimSpace(value))
		if !ok || value == "" || seen[key] || !r.set(key, value, loc) {
			return rule{}, false
		}
		seen[key] = true
	}
	if r.freq == "" || (r.count > 0 && r.hasUntil) {
		return rule{}, false
	}
	return r, true
}

// set stores the part key=value in r; false when the key is not
// supported or the value is malformed.
func (r *rule) set(key, value string, loc *time.Location) bool {
	var ok bool
	switch key {
	case "FREQ":
		r.freq, ok = value, slices.Contains([]string{"DAILY", "WEEKLY", "MONTHLY", "YEARLY"}, value)
	case "INTERVAL":
		r.interval, ok = parseInt(value, 1, 1_000_000)
	case "COUNT":
		r.count, ok = parseInt(value, 1, 1_000_000_000)
	case "UNTIL":
		r.until, ok = parseUntil(value, loc)
		r.hasUntil = ok
	case "BYDAY":
		r.days, ok = parseByDay(value)
	case "BYMONTHDAY":
		r.monthDays, ok = parseIntList(value, -31, 31)
	case "BYMONTH":
		r.months, ok = parseIntList(value, 1, 12)
		if ok {
			slices.Sort(r.months)
			r.months = slices.Compact(r.months)
		}
	case "BYSETPOS":
		r.setPos, ok = parseIntList(value, -366, 366)
	case "WKST": // changes no sentence: "every 2 weeks on Monday and Sunday" holds whatever the week start
		_, ok = dayNumber(value)
	}
	return ok
}

// parseInt parses a decimal integer in [lo, hi], with an optional sign.
func parseInt(s string, lo, hi int) (int, bool) {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" || len(digits) > 10 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, false
	}
	return n, true
}

// parseIntList parses a comma-separated list of non-zero integers in
// [lo, hi].
func parseIntList(s string, lo, hi int) ([]int, bool) {
	var out []int
	for item := range strings.SplitSeq(s, ",") {
		n, ok := parseInt(item, lo, hi)
		if !ok || n == 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// parseByDay parses a BYDAY list: weekday codes with an optional ordinal
// (±1 to ±53).
func parseByDay(s string) ([]byDay, bool) {
	var out []byDay
	for item := range strings.SplitSeq(s, ",") {
		if len(item) < 2 {
			return nil, false
		}
		day, ok := dayNumber(item[len(item)-2:])
		if !ok {
			return nil, false
		}
		d := byDay{day: day}
		if prefix := item[:len(item)-2]; prefix != "" {
			if d.n, ok = parseInt(prefix, -53, 53); !ok || d.n == 0 {
				return nil, false
			}
		}
		out = append(out, d)
	}
	return out, true
}

// dayNumber returns the weekday number of an RFC 5545 weekday code.
func dayNumber(code string) (int, bool) {
	i := slices.Index(dayCodes[:], code)
	return i, i >= 0
}

// parseUntil parses an UNTIL value: a UTC time (20271231T235959Z), a
// floating time or a date (20271231T235959, 20271231), both in loc.
func parseUntil(s string, loc *time.Location) (time.Time, bool) {
	var u time.Time
	var err error
	switch len(s) {
	case len("20060102T150405Z"):
		u, err = time.Parse("20060102T150405Z", s)
	case len("20060102T150405"):
		u, err = time.ParseInLocation("20060102T150405", s, loc)
	case len("20060102"):
		u, err = time.ParseInLocation("20060102", s, loc)
	default:
		return time.Time{}, false
	}
	return u, err == nil
}

// Weekdays returns the RFC 5545 weekday codes, Monday first.
func Weekdays() []string { return append([]string(nil), dayCodes[:]...) }

// Weekday is the RFC 5545 code of t's weekday.
func Weekday(t time.Time) string { return dayCodes[(int(t.Weekday())+6)%7] }

// DayMessage is the message id of the name of weekday code ("TU"), "" for
// a code that names no weekday.
func DayMessage(code string) string {
	if i, ok := dayNumber(code); ok {
		return dayIDs[i]
	}
	return ""
}

// Rule describes a series' rule from the series' first start: Describe
// of its RRULEs and the numbers of its RDATEs and EXDATEs.
func Rule(t T, r *models.Recurrence, start time.Time, untilFormat func(time.Time) string) string {
	return Describe(t, r.RRules, start, len(r.RDates), len(r.ExDates), untilFormat)
}
