package ical

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"
)

// Item is one VEVENT of an imported file, read into what an event needs.
type Item struct {
	UID, Summary, Description, Location string
	// Start and End are wall-clock times in Zone (an IANA name; "UTC" for
	// UTC and floating times); for all-day items, days, End the last one.
	Start, End     time.Time
	Zone           string
	AllDay         bool
	Lat, Lng       *float64
	Organizer      string // CN
	OrganizerEmail string
	Categories     []string
	// Skip says why the item cannot be imported ("" when it can): a message
	// id of the i18n bundle ("import.skip.…"), with Detail as its data.
	Skip, Detail string
	// Recurrence holds the item's RRULE, RDATE and EXDATE lines as
	// written (a series; "" for a single event).
	Recurrence string
	// RecurrenceID is set on an exception of a series (the VEVENT with
	// the series' UID and a RECURRENCE-ID): the original start's wall
	// clock in RecurrenceZone ("" for a DATE: the event's zone).
	RecurrenceID   *time.Time
	RecurrenceZone string
}

// ErrNotCalendar is a file that is not iCalendar.
var ErrNotCalendar = errors.New("not an iCalendar file")

// Read parses an iCalendar file into its events. Times with a TZID the Go
// zone data does not know are read in UTC and say so in Skip.
func Read(r io.Reader) ([]Item, error) {
	cal, err := ics.ParseCalendar(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCalendar, err)
	}
	var items []Item
	for _, ev := range cal.Events() {
		items = append(items, readEvent(ev))
	}
	if len(items) == 0 && len(cal.Components) == 0 {
		return nil, fmt.Errorf("%w: no VEVENT", ErrNotCalendar)
	}
	return items, nil
}

func readEvent(ev *ics.VEvent) Item {
	it := Item{}
	get := func(p ics.ComponentProperty) *ics.IANAProperty { return ev.GetProperty(p) }
	val := func(p ics.ComponentProperty) string {
		if v := get(p); v != nil {
			return v.Value // golang-ical has undone the TEXT escapes
		}
		return ""
	}
	it.UID, it.Summary, it.Description, it.Location = val(ics.ComponentPropertyUniqueId), val(ics.ComponentPropertySummary),
		val(ics.ComponentPropertyDescription), val(ics.ComponentPropertyLocation)
	var lines []string
	for _, p := range ev.Properties {
		switch p.IANAToken {
		case "RRULE", "RDATE", "EXDATE":
			l := p.IANAToken
			for k, vs := range p.ICalParameters {
				if (k == "TZID" || k == "VALUE") && len(vs) > 0 {
					l += ";" + k + "=" + strings.Trim(vs[0], `"`)
				}
			}
			lines = append(lines, l+":"+p.Value)
		}
	}
	it.Recurrence = strings.Join(lines, "\n")
	if r := get(ics.ComponentPropertyRecurrenceId); r != nil {
		t, zone, _, err := readTime(r)
		if err != nil {
			it.Skip, it.Detail = "import.skip.bad_recurrence_id", err.Error()
			return it
		}
		it.RecurrenceID, it.RecurrenceZone = &t, zone
	}
	if g := get(ics.ComponentPropertyGeo); g != nil {
		if lat, lng, ok := strings.Cut(g.Value, ";"); ok {
			a, e1 := strconv.ParseFloat(lat, 64)
			b, e2 := strconv.ParseFloat(lng, 64)
			if e1 == nil && e2 == nil && a >= -90 && a <= 90 && b >= -180 && b <= 180 {
				it.Lat, it.Lng = &a, &b
			}
		}
	}
	if o := get(ics.ComponentPropertyOrganizer); o != nil {
		if cn := o.ICalParameters["CN"]; len(cn) > 0 {
			it.Organizer = strings.Trim(cn[0], `"`)
		}
		if m, ok := strings.CutPrefix(strings.ToLower(o.Value), "mailto:"); ok && !strings.HasPrefix(m, "noreply@") {
			it.OrganizerEmail = o.Value[len("mailto:"):]
		}
		if it.Organizer == "" {
			it.Organizer = it.OrganizerEmail
		}
	}
	for _, p := range ev.Properties {
		if p.IANAToken == string(ics.ComponentPropertyCategories) {
			// The parser has undone the escapes: a comma inside a name
			// cannot be told from the separator any more.
			for _, c := range strings.Split(p.Value, ",") {
				if c = strings.TrimSpace(c); c != "" {
					it.Categories = append(it.Categories, c)
				}
			}
		}
	}
	switch {
	case it.UID == "":
		it.Skip = "import.skip.no_uid"
		return it
	case len(it.UID) > 255:
		it.Skip = "import.skip.uid_too_long"
		return it
	case strings.EqualFold(val(ics.ComponentPropertyStatus), "CANCELLED"):
		it.Skip = "import.skip.cancelled"
		return it
	}
	start := get(ics.ComponentPropertyDtStart)
	if start == nil {
		it.Skip = "import.skip.no_start"
		return it
	}
	var err error
	it.Start, it.Zone, it.AllDay, err = readTime(start)
	if err != nil {
		it.Skip, it.Detail = "import.skip.bad_start", err.Error()
		return it
	}
	if end := get(ics.ComponentPropertyDtEnd); end != nil {
		var zone string
		var allDay bool
		it.End, zone, allDay, err = readTime(end)
		if err != nil {
			it.Skip, it.Detail = "import.skip.bad_end", err.Error()
			return it
		}
		if allDay != it.AllDay {
			it.Skip = "import.skip.mixed"
			return it
		}
		if !allDay && zone != it.Zone { // written in another zone: move to the start's
			loc, _ := time.LoadLocation(it.Zone)
			zl, _ := time.LoadLocation(zone)
			it.End = wall(time.Date(it.End.Year(), it.End.Month(), it.End.Day(), it.End.Hour(), it.End.Minute(), it.End.Second(), 0, zl).In(loc))
		}
		if it.AllDay {
			it.End = it.End.AddDate(0, 0, -1) // DTEND is exclusive
		}
	} else {
		it.End = it.Start // no end: the start day, or an instant
	}
	if it.End.Before(it.Start) {
		it.End = it.Start
	}
	return it
}

// wall is t's wall clock as a UTC-zoned time (the zone is kept apart).
func wall(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// readTime reads a DATE or DATE-TIME property: its wall clock, its zone
// (IANA name, "UTC" for UTC and floating times) and whether it is a date.
func readTime(p *ics.IANAProperty) (time.Time, string, bool, error) {
	v := strings.TrimSpace(p.Value)
	if len(p.ICalParameters["VALUE"]) > 0 && strings.EqualFold(p.ICalParameters["VALUE"][0], "DATE") || len(v) == 8 {
		t, err := time.Parse("20060102", v)
		return t, "", true, err
	}
	if strings.HasSuffix(v, "Z") {
		t, err := time.Parse("20060102T150405Z", v)
		return t, "UTC", false, err
	}
	t, err := time.Parse("20060102T150405", v)
	if err != nil {
		return t, "", false, err
	}
	zone := "UTC"
	if tz := p.ICalParameters["TZID"]; len(tz) > 0 {
		name := strings.Trim(tz[0], `"`)
		if _, err := time.LoadLocation(name); err != nil {
			return t, "", false, fmt.Errorf("unknown time zone %q", name)
		}
		zone = name
	}
	return t, zone, false, nil
}
