package ical

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"time"
)

// zoneUse is a zone and the span of the events that use it.
type zoneUse struct {
	loc      *time.Location
	from, to time.Time
}

// writeZone writes the VTIMEZONE of z from Go's zone data: the observance
// in effect a year before its first event, then every change of offset up
// to a year after its last, each as STANDARD or DAYLIGHT.
func writeZone(w *writer, z *zoneUse) {
	start, end := z.from.AddDate(-1, 0, 0), z.to.AddDate(1, 0, 0)
	w.line("BEGIN:VTIMEZONE")
	w.prop("TZID", nil, z.loc.String())
	first := start.In(z.loc)
	_, off := first.Zone()
	observance(w, first, off)
	for t := start; t.Before(end); {
		next := t.Add(24 * time.Hour)
		_, a := t.In(z.loc).Zone()
		_, b := next.In(z.loc).Zone()
		if a != b {
			lo, hi := t, next // the change is in (lo, hi]: narrow it to the second
			for hi.Sub(lo) > time.Second {
				mid := lo.Add(hi.Sub(lo) / 2)
				if _, m := mid.In(z.loc).Zone(); m == a {
					lo = mid
				} else {
					hi = mid
				}
			}
			observance(w, hi.In(z.loc), a)
		}
		t = next
	}
	w.line("END:VTIMEZONE")
}

// observance writes the STANDARD or DAYLIGHT component that starts at t
// (in its zone), coming from offset from. DTSTART is local time in the
// offset before the change, as RFC 5545 §3.6.5 wants.
func observance(w *writer, t time.Time, from int) {
	name, to := t.Zone()
	kind := "STANDARD"
	if t.IsDST() {
		kind = "DAYLIGHT"
	}
	w.line("BEGIN:" + kind)
	w.prop("DTSTART", nil, t.UTC().Add(time.Duration(from)*time.Second).Format("20060102T150405"))
	w.prop("TZOFFSETFROM", nil, offset(from))
	w.prop("TZOFFSETTO", nil, offset(to))
	if name != "" && !strings.HasPrefix(name, "+") && !strings.HasPrefix(name, "-") {
		w.prop("TZNAME", nil, text(name))
	}
	w.line("END:" + kind)
}

// offset is a UTC offset in seconds as +HHMM (or +HHMMSS).
func offset(s int) string {
	sign := "+"
	if s < 0 {
		sign, s = "-", -s
	}
	if s%60 != 0 {
		return fmt.Sprintf("%s%02d%02d%02d", sign, s/3600, s%3600/60, s%60)
	}
	return fmt.Sprintf("%s%02d%02d", sign, s/3600, s%3600/60)
}

var (
	blockRE = regexp.MustCompile(`(?i)</?(p|div|br|li|h[1-6]|tr|blockquote)\b[^>]*>`)
	tagRE   = regexp.MustCompile(`<[^>]*>`)
	blankRE = regexp.MustCompile(`\n{3,}`)
)

// plain is HTML as plain text for DESCRIPTION: block ends become line
// breaks, other tags go, entities are decoded.
func plain(s string) string {
	s = blockRE.ReplaceAllString(s, "\n")
	s = html.UnescapeString(tagRE.ReplaceAllString(s, ""))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.TrimSpace(blankRE.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
