// Package ical writes events as iCalendar (RFC 5545, with the calendar
// properties of RFC 7986): one VCALENDAR with a VTIMEZONE for every zone its
// events use and one VEVENT per event. Lines are folded at 75 octets
// without splitting a UTF-8 sequence and end in CRLF.
package ical

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kalends/kalends/models"
)

// Calendar is what the VCALENDAR says about itself.
type Calendar struct {
	Name     string        // NAME and X-WR-CALNAME
	Zone     string        // X-WR-TIMEZONE (the site zone)
	Refresh  time.Duration // REFRESH-INTERVAL and X-PUBLISHED-TTL
	Host     string        // the right-hand side of every UID
	Stamp    time.Time     // DTSTAMP
	Lang     string        // BCP 47 tag of the text (LANGUAGE is not needed; kept for the caller)
	Events   []*models.Event
	URL      func(*models.Event) string // the public page of an event
	SiteZone *time.Location
	// Series are the series the events belong to, by series id
	// (models.SeriesViews): each is written once, as one VEVENT with its
	// rule and one per exception (RECURRENCE-ID), in place of its
	// occurrences. Occurrences of a series not in it are written as
	// single events.
	Series map[int64]*models.SeriesView
}

// Write renders c.
func Write(c Calendar) []byte {
	w := &writer{}
	w.line("BEGIN:VCALENDAR")
	w.line("VERSION:2.0")
	w.line("PRODID:-//Kalends//Kalends events calendar//EN")
	w.line("CALSCALE:GREGORIAN")
	w.line("METHOD:PUBLISH")
	if c.Name != "" {
		w.prop("NAME", nil, text(c.Name))
		w.prop("X-WR-CALNAME", nil, text(c.Name))
	}
	if c.Zone != "" {
		w.prop("X-WR-TIMEZONE", nil, c.Zone)
	}
	if c.Refresh > 0 {
		d := duration(c.Refresh)
		w.prop("REFRESH-INTERVAL", []string{"VALUE=DURATION"}, d)
		w.prop("X-PUBLISHED-TTL", nil, d)
	}
	zones := map[string]*zoneUse{}
	var order []string
	all := c.Events
	for _, v := range c.Series {
		all = append(append(all[:len(all):len(all)], v.Row), v.Exceptions...)
	}
	for _, e := range all {
		if e.AllDay {
			continue
		}
		loc := zoneOf(e, c.SiteZone)
		if loc == time.UTC {
			continue
		}
		z, ok := zones[loc.String()]
		if !ok {
			z = &zoneUse{loc: loc, from: e.StartAt, to: e.EndAt}
			zones[loc.String()] = z
			order = append(order, loc.String())
		}
		if e.StartAt.Before(z.from) {
			z.from = e.StartAt
		}
		if e.EndAt.After(z.to) {
			z.to = e.EndAt
		}
	}
	for _, name := range order {
		writeZone(w, zones[name])
	}
	written := map[int64]bool{}
	for _, e := range c.Events {
		v := c.Series[seriesOf(e)]
		if v == nil {
			writeEvent(w, c, e, e, nil)
			continue
		}
		if written[v.Row.ID] {
			continue
		}
		written[v.Row.ID] = true
		loc := zoneOf(v.Row, c.SiteZone)
		writeEvent(w, c, v.Row, v.Row, func() { writeRule(w, v, loc) })
		for _, x := range v.Exceptions {
			writeEvent(w, c, x, v.Row, func() {
				params, value := when(v.Row, *x.RecurrenceID, loc)
				w.prop("RECURRENCE-ID", params, value)
			})
		}
	}
	w.line("END:VCALENDAR")
	return w.b.Bytes()
}

// zoneOf is the zone an event's times are written in.
func zoneOf(e *models.Event, site *time.Location) *time.Location {
	loc, err := models.LoadZone(e.Timezone, site)
	if err != nil || loc == nil {
		return time.UTC
	}
	if loc.String() == "UTC" || loc.String() == "" || strings.HasPrefix(loc.String(), "UTC") {
		// Fixed offsets ("UTC+9") have no IANA name a client knows: UTC it is.
		return time.UTC
	}
	return loc
}

// seriesOf is the series id of e (0 for a single event).
func seriesOf(e *models.Event) int64 {
	if e.SeriesID == nil {
		return 0
	}
	return *e.SeriesID
}

// when formats t as a date-time of the kind of series' DTSTART (a DATE
// for an all-day series, UTC, or wall clock with TZID): the parameters
// and the value.
func when(series *models.Event, t time.Time, loc *time.Location) ([]string, string) {
	switch {
	case series.AllDay:
		return []string{"VALUE=DATE"}, t.In(loc).Format("20060102")
	case loc == time.UTC:
		return nil, utc(t)
	}
	return []string{"TZID=" + loc.String()}, t.In(loc).Format("20060102T150405")
}

// writeRule writes the RRULE, RDATE and EXDATE lines of a series (its
// EXDATEs and the occurrences the reader may not see).
func writeRule(w *writer, v *models.SeriesView, loc *time.Location) {
	rule := v.Row.SeriesRule
	if rule == nil {
		return
	}
	for _, r := range rule.RRules {
		if v.Row.AllDay { // UNTIL is a DATE when DTSTART is one
			r = untilAsDate(r, loc)
		}
		w.prop("RRULE", nil, r)
	}
	for _, d := range rule.RDates {
		params, value := when(v.Row, d, loc)
		w.prop("RDATE", params, value)
	}
	ex := append(append([]time.Time(nil), rule.ExDates...), v.Hidden...)
	for _, d := range ex {
		params, value := when(v.Row, d, loc)
		w.prop("EXDATE", params, value)
	}
}

// untilAsDate rewrites a rule's UTC UNTIL as the local date it falls on.
func untilAsDate(rule string, loc *time.Location) string {
	parts := strings.Split(rule, ";")
	for i, p := range parts {
		if v, ok := strings.CutPrefix(p, "UNTIL="); ok {
			if t, err := time.Parse("20060102T150405Z", v); err == nil {
				parts[i] = "UNTIL=" + t.In(loc).Format("20060102")
			}
		}
	}
	return strings.Join(parts, ";")
}

// writeEvent writes e as a VEVENT with the UID of uidOf (itself, or the
// series of an exception); extra writes the recurrence lines after its
// dates.
func writeEvent(w *writer, c Calendar, e, uidOf *models.Event, extra func()) {
	w.line("BEGIN:VEVENT")
	uid := strconv.FormatInt(uidOf.ID, 10) + "@" + c.Host
	if uidOf.UID != nil && *uidOf.UID != "" {
		uid = *uidOf.UID // imported: the UID it came with
	}
	w.prop("UID", nil, text(uid))
	w.prop("DTSTAMP", nil, utc(c.Stamp))
	w.prop("CREATED", nil, utc(e.CreatedAt))
	w.prop("LAST-MODIFIED", nil, utc(e.UpdatedAt))
	w.prop("SEQUENCE", nil, strconv.FormatInt(sequence(e), 10))
	loc := zoneOf(e, c.SiteZone)
	switch {
	case e.AllDay:
		s, end := e.StartAt.In(zoneOf(e, c.SiteZone)), e.EndAt.In(zoneOf(e, c.SiteZone))
		next := time.Date(end.Year(), end.Month(), end.Day()+1, 0, 0, 0, 0, time.UTC)
		w.prop("DTSTART", []string{"VALUE=DATE"}, s.Format("20060102"))
		w.prop("DTEND", []string{"VALUE=DATE"}, next.Format("20060102"))
	case loc == time.UTC:
		w.prop("DTSTART", nil, utc(e.StartAt))
		w.prop("DTEND", nil, utc(e.EndAt))
	default:
		tz := []string{"TZID=" + loc.String()}
		w.prop("DTSTART", tz, e.StartAt.In(loc).Format("20060102T150405"))
		w.prop("DTEND", tz, e.EndAt.In(loc).Format("20060102T150405"))
	}
	if extra != nil {
		extra()
	}
	w.prop("SUMMARY", nil, text(e.Title))
	if d := plain(e.Description); d != "" {
		w.prop("DESCRIPTION", nil, text(d))
	}
	if c.URL != nil {
		w.prop("URL", []string{"VALUE=URI"}, c.URL(e))
	}
	if len(e.Venues) > 0 {
		v := e.Venues[0]
		loc := v.Venue
		for _, p := range []string{v.Address, v.City, v.StateProvince, v.Zip, v.Country} {
			if p != "" {
				loc += ", " + p
			}
		}
		w.prop("LOCATION", nil, text(loc))
		if v.GeoLat != nil && v.GeoLng != nil {
			w.prop("GEO", nil, strconv.FormatFloat(*v.GeoLat, 'f', -1, 64)+";"+strconv.FormatFloat(*v.GeoLng, 'f', -1, 64))
		}
	}
	if len(e.Organizers) > 0 {
		o := e.Organizers[0]
		params := []string{"CN=" + param(o.Organizer)}
		addr := "mailto:" + o.Email
		if o.Email == "" {
			addr = "mailto:noreply@" + c.Host // ORGANIZER is a CAL-ADDRESS; the name is what shows
		}
		w.prop("ORGANIZER", params, addr)
	}
	var cats []string
	for _, t := range e.Categories {
		cats = append(cats, text(t.Name))
	}
	if len(cats) > 0 {
		w.prop("CATEGORIES", nil, strings.Join(cats, ","))
	}
	w.prop("STATUS", nil, "CONFIRMED")
	w.prop("TRANSP", nil, "OPAQUE")
	w.line("END:VEVENT")
}

// sequence is an event's revision number for SEQUENCE: the seconds between
// its creation and its last change, which grows with every change and
// stays put while it does not (no counter to keep).
func sequence(e *models.Event) int64 {
	if n := int64(e.UpdatedAt.Sub(e.CreatedAt) / time.Second); n > 0 {
		return n
	}
	return 0
}

func utc(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// duration is d as an RFC 5545 DURATION (hours and minutes).
func duration(d time.Duration) string {
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	s := "PT"
	if h > 0 {
		s += strconv.Itoa(h) + "H"
	}
	if m > 0 || h == 0 {
		s += strconv.Itoa(m) + "M"
	}
	return s
}

// text escapes a TEXT value (RFC 5545 §3.3.11).
func text(s string) string {
	r := strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)
	return r.Replace(s)
}

// param quotes a parameter value when it holds a character that would end
// it; a double quote cannot be in one at all and becomes a single quote.
func param(s string) string {
	s = strings.ReplaceAll(s, `"`, "'")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' {
			return ' '
		}
		return r
	}, s)
	if strings.ContainsAny(s, ":;,") {
		return `"` + s + `"`
	}
	return s
}

// writer folds and terminates content lines.
type writer struct{ b bytes.Buffer }

func (w *writer) prop(name string, params []string, value string) {
	l := name
	for _, p := range params {
		l += ";" + p
	}
	w.line(l + ":" + value)
}

// line writes one content line folded at 75 octets: a CRLF and a space
// before every continuation, never inside a UTF-8 sequence.
func (w *writer) line(l string) {
	limit := 75
	for len(l) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(l[cut]) {
			cut--
		}
		w.b.WriteString(l[:cut])
		w.b.WriteString("\r\n ")
		l = l[cut:]
		limit = 74 // the leading space counts
	}
	w.b.WriteString(l)
	w.b.WriteString("\r\n")
}
