package models

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DateForm tells what kind of date input ParseDate recognised.
type DateForm struct {
	// DateOnly: the input named a day and no time of day (2027-03-10,
	// today, next monday); the returned time is 00:00 of that day in loc.
	DateOnly bool
	// Absolute: the input named an instant on its own (an RFC 3339 value
	// with Z or an offset, or a UNIX timestamp); the returned time is UTC.
	// Every other form is wall-clock time in loc and is returned in loc.
	Absolute bool
}

// ErrBadDate is wrapped by every ParseDate error.
var ErrBadDate = errors.New("models: not a valid date")

// maxDateInput bounds the input: no valid form is longer.
const maxDateInput = 64

// Limits of accepted years: four digits, as the output format has.
const (
	minDateYear = 1000
	maxDateYear = 9999
)

var (
	reDateTime = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$`)
	reISO      = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})t(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(z|[+-]\d{2}(?::?\d{2})?)?$`)
	reUnix     = regexp.MustCompile(`^@?(\d{1,12})$`)
	reRelative = regexp.MustCompile(`^([+-])(\d{1,10})$`)
	reClock24  = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2}))?$`)
	reClock12  = regexp.MustCompile(`^(\d{1,2})(?::(\d{2})(?::(\d{2}))?)?(am|pm)$`)
)

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "sun": time.Sunday,
	"monday": time.Monday, "mon": time.Monday,
	"tuesday": time.Tuesday, "tue": time.Tuesday, "tues": time.Tuesday,
	"wednesday": time.Wednesday, "wed": time.Wednesday,
	"thursday": time.Thursday, "thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday,
	"friday": time.Friday, "fri": time.Friday,
	"saturday": time.Saturday, "sat": time.Saturday,
}

// unitLimit caps N in "+N unit" so that no arithmetic can overflow; any N
// under the cap that still leaves years 1000..9999 is rejected afterwards.
var unitLimit = map[string]int64{
	"minute": 9000 * 366 * 24 * 60, "hour": 9000 * 366 * 24, "day": 9000 * 366,
	"week": 9000 * 53, "month": 9000 * 12, "year": 9000,
}

// ParseDate reads a date input of SPEC §2:
//
//   - "YYYY-MM-DD HH:MM:SS", "YYYY-MM-DD HH:MM", "YYYY-MM-DD" (DateOnly);
//   - ISO 8601 / RFC 3339 with "T", optional seconds and fraction, and
//     optional "Z" or offset (Absolute only when a zone is given);
//   - a UNIX timestamp, digits only, optionally after "@" (Absolute);
//   - "now", "today", "tomorrow", "yesterday", "next <weekday>",
//     "last <weekday>", "+N unit", "-N unit" (unit: minute, hour, day, week,
//     month, year, singular or plural), each optionally followed by a time of
//     day: "HH:MM[:SS]", "9am", "5:30pm" ("12am" is 00:00, "12pm" noon).
//     today/tomorrow/yesterday and next/last <weekday> are DateOnly (00:00)
//     unless a time follows.
//
// Case and surrounding whitespace are ignored. Values without a zone are
// wall-clock times in loc and returned in loc; relative forms count from
// now as seen in loc. A wall-clock time that does not exist in loc (a DST
// gap) resolves as time.Date does: it moves forward by the gap (02:30 on
// a spring-forward night where 02:00 becomes 03:00 gives 03:30); a repeated
// wall-clock time (fall back) gives the first of the two instants.
// Calendar units ("+1 month") follow time.AddDate (Jan 31 + 1 month is
// Mar 3, as PHP's strtotime) and keep the wall-clock time; minutes and hours
// are exact durations. Results are whole seconds except an explicit
// fraction. Everything else is an error wrapping ErrBadDate, including
// impossible dates, years outside 1000..9999 (in loc or in UTC), and
// inputs over 64 bytes.
func ParseDate(s string, now time.Time, loc *time.Location) (time.Time, DateForm, error) {
	if loc == nil {
		loc = time.UTC
	}
	if len(s) > maxDateInput || !utf8.ValidString(s) {
		return time.Time{}, DateForm{}, fmt.Errorf("%w: input too long or not UTF-8", ErrBadDate)
	}
	in := strings.ToLower(strings.TrimSpace(s))
	t, f, err := parseDate(in, now, loc)
	if err != nil {
		return time.Time{}, DateForm{}, fmt.Errorf("%w: %q: %s", ErrBadDate, s, err.Error())
	}
	// Both the wall clock and UTC must stay in range: times are stored in
	// UTC, and MySQL's DATETIME ends at 9999-12-31 23:59:59.
	for _, y := range []int{t.Year(), t.UTC().Year()} {
		if y < minDateYear || y > maxDateYear {
			return time.Time{}, DateForm{}, fmt.Errorf("%w: %q: year %d outside %d..%d", ErrBadDate, s, y, minDateYear, maxDateYear)
		}
	}
	return t, f, nil
}

func parseDate(in string, now time.Time, loc *time.Location) (time.Time, DateForm, error) {
	if m := reDateTime.FindStringSubmatch(in); m != nil {
		t, err := wallClock(m[1], m[2], m[3], m[4], m[5], m[6], "", loc)
		return t, DateForm{DateOnly: m[4] == ""}, err
	}
	if m := reISO.FindStringSubmatch(in); m != nil {
		zone := loc
		if m[8] != "" {
			z, err := parseOffset(m[8])
			if err != nil {
				return time.Time{}, DateForm{}, err
			}
			zone = z
		}
		t, err := wallClock(m[1], m[2], m[3], m[4], m[5], m[6], m[7], zone)
		if err != nil || m[8] == "" {
			return t, DateForm{}, err
		}
		return t.UTC(), DateForm{Absolute: true}, nil
	}
	if m := reUnix.FindStringSubmatch(in); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n > 253402300799 { // 9999-12-31 23:59:59 UTC
			return time.Time{}, DateForm{}, errors.New("timestamp out of range")
		}
		return time.Unix(n, 0).UTC(), DateForm{Absolute: true}, nil
	}
	return parseRelative(strings.Fields(in), now, loc)
}

// parseRelative reads "base [time]", where base is one word (now, today,
// tomorrow, yesterday) or two (next/last weekday, ±N unit).
func parseRelative(words []string, now time.Time, loc *time.Location) (time.Time, DateForm, error) {
	if len(words) == 0 {
		return time.Time{}, DateForm{}, errors.New("empty")
	}
	now = now.In(loc).Truncate(time.Second)
	y, mo, d := now.Date()
	midnight := func(days int) time.Time {
		dy, dm, dd := time.Date(y, mo, d+days, 12, 0, 0, 0, time.UTC).Date()
		return dateIn(dy, dm, dd, 0, 0, 0, 0, loc)
	}
	var base time.Time
	dateOnly := false
	rest := words[1:]
	switch w := words[0]; w {
	case "now":
		base = now
	case "today":
		base, dateOnly = midnight(0), true
	case "tomorrow":
		base, dateOnly = midnight(1), true
	case "yesterday":
		base, dateOnly = midnight(-1), true
	case "next", "last":
		if len(rest) == 0 {
			return time.Time{}, DateForm{}, errors.New("weekday missing")
		}
		wd, ok := weekdays[rest[0]]
		if !ok {
			return time.Time{}, DateForm{}, errors.New("unknown weekday")
		}
		rest = rest[1:]
		// next: the first such day after today; last: the latest before today.
		diff := (int(wd) - int(now.Weekday()) + 7) % 7
		if w == "next" {
			if diff == 0 {
				diff = 7
			}
		} else {
			diff -= 7
		}
		base, dateOnly = midnight(diff), true
	default:
		m := reRelative.FindStringSubmatch(w)
		if m == nil || len(rest) == 0 {
			return time.Time{}, DateForm{}, errors.New("unrecognised form")
		}
		unit := strings.TrimSuffix(rest[0], "s")
		limit, ok := unitLimit[unit]
		if !ok {
			return time.Time{}, DateForm{}, errors.New("unknown unit")
		}
		rest = rest[1:]
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil || n > limit {
			return time.Time{}, DateForm{}, errors.New("amount too large")
		}
		if m[1] == "-" {
			n = -n
		}
		base = addUnit(now, n, unit).In(loc)
	}
	if len(rest) == 0 {
		return base, DateForm{DateOnly: dateOnly}, nil
	}
	if len(rest) > 1 {
		return time.Time{}, DateForm{}, errors.New("trailing words")
	}
	h, mi, sec, err := parseClock(rest[0])
	if err != nil {
		return time.Time{}, DateForm{}, err
	}
	by, bm, bd := base.Date()
	return dateIn(by, bm, bd, h, mi, sec, 0, loc), DateForm{}, nil
}

// addUnit adds n units to t. Minutes and hours are exact durations, added
// in UTC as whole days plus a remainder so that no time.Duration overflows;
// days and longer are calendar arithmetic on the wall clock of t.
func addUnit(t time.Time, n int64, unit string) time.Time {
	switch unit {
	case "minute", "hour":
		perDay, step := int64(24*60), time.Minute
		if unit == "hour" {
			perDay, step = 24, time.Hour
		}
		days, rem := n/perDay, n%perDay
		return t.UTC().AddDate(0, 0, int(days)).Add(time.Duration(rem) * step)
	case "day":
		return t.AddDate(0, 0, int(n))
	case "week":
		return t.AddDate(0, 0, int(7*n))
	case "month":
		return t.AddDate(0, int(n), 0)
	default: // year
		return t.AddDate(int(n), 0, 0)
	}
}

// parseClock reads a time of day: "HH:MM[:SS]" (24-hour) or "H[:MM[:SS]]am|pm".
func parseClock(w string) (h, m, s int, err error) {
	if c := reClock24.FindStringSubmatch(w); c != nil {
		h, m, s = atoi(c[1]), atoi(c[2]), atoi(c[3])
		if h > 23 || m > 59 || s > 59 {
			return 0, 0, 0, errors.New("time of day out of range")
		}
		return h, m, s, nil
	}
	if c := reClock12.FindStringSubmatch(w); c != nil {
		h, m, s = atoi(c[1]), atoi(c[2]), atoi(c[3])
		if h < 1 || h > 12 || m > 59 || s > 59 {
			return 0, 0, 0, errors.New("time of day out of range")
		}
		h %= 12 // 12am is 00, 12pm is noon
		if c[4] == "pm" {
			h += 12
		}
		return h, m, s, nil
	}
	return 0, 0, 0, errors.New("unrecognised time of day")
}

// wallClock builds a time from validated decimal parts in zone; frac holds
// up to nine fraction digits.
func wallClock(ys, mos, ds, hs, mis, ss, frac string, zone *time.Location) (time.Time, error) {
	y, mo, d := atoi(ys), atoi(mos), atoi(ds)
	h, mi, s := atoi(hs), atoi(mis), atoi(ss)
	if y < minDateYear || y > maxDateYear {
		return time.Time{}, errors.New("year out of range")
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, time.Month(mo)) {
		return time.Time{}, errors.New("no such day")
	}
	if h > 23 || mi > 59 || s > 59 {
		return time.Time{}, errors.New("time of day out of range")
	}
	ns := 0
	if frac != "" {
		ns = atoi((frac + "000000000")[:9])
	}
	return dateIn(y, time.Month(mo), d, h, mi, s, ns, zone), nil
}

// dateIn is time.Date with DST gaps resolved forward. For a wall-clock time
// that a spring-forward transition skips, time.Date may pick either offset
// (Go documents the choice as unspecified; today it returns the earlier
// instant, 02:30 becoming 01:30 standard time). Kalends moves forward by the
// gap instead, as PHP and browsers do: 02:30 becomes 03:30 summer time. A
// repeated time (fall back) keeps time.Date's choice, the first instant.
func dateIn(y int, mo time.Month, d, h, mi, s, ns int, loc *time.Location) time.Time {
	t := time.Date(y, mo, d, h, mi, s, ns, loc)
	if t.Hour() == h && t.Minute() == mi && t.Day() == d {
		return t
	}
	naive := time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	_, off := t.Zone()
	alt := naive.Add(-time.Duration(off) * time.Second).In(loc)
	if alt.After(t) {
		return alt
	}
	return t
}

// parseOffset reads "z", "+hh", "+hhmm" or "+hh:mm" (at most ±18:00).
func parseOffset(z string) (*time.Location, error) {
	if z == "z" {
		return time.UTC, nil
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	h, m := atoi(digits[:2]), 0
	if len(digits) == 4 {
		m = atoi(digits[2:])
	} else if len(digits) != 2 {
		return nil, errors.New("bad offset")
	}
	if m > 59 || h*60+m > 18*60 {
		return nil, errors.New("offset out of range")
	}
	off := (h*60 + m) * 60
	if z[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off), nil
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// atoi reads a short run of ASCII digits already matched by a pattern; ""
// is 0.
func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
