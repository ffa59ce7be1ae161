// Package jsonld builds the schema.org JSON-LD of events, venues and
// organizers: the API's json_ld member and the script of the public pages
// are one object, built here once.
package jsonld

import (
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/internal/ordered"
	"github.com/kalends/kalends/models"
)

type (
	kv  = ordered.KV
	obj = ordered.Obj
)

// EventContext is what an event's JSON-LD needs beyond the event: its
// zone, its permalink and its venue's, and the read language.
type EventContext struct {
	Zone      *time.Location
	Permalink string
	// VenueURL is the public page of a venue.
	VenueURL func(*models.Venue) string
	// Currency is the ISO code used when the event names none (the site's).
	Currency string
	// Lang is the BCP 47 tag of the read language (inLanguage).
	Lang string
}

// tags matches HTML tags for plain-text fields.
var tags = regexp.MustCompile(`<[^>]*>`)

// eventText is an event's HTML as one plain-text string (tags dropped).
func eventText(s string) string {
	return strings.TrimSpace(html.UnescapeString(tags.ReplaceAllString(s, "")))
}

// PlainText is HTML as plain text: tags become spaces, runs of space one.
func PlainText(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(s, " "))), " ")
}

// Event is the schema.org Event of e (TEC §15.2) with its first venue as
// location and its first organizer, read in c.Lang.
func Event(e *models.Event, c EventContext) ordered.Obj {
	desc := eventText(e.Excerpt)
	if desc == "" {
		desc = eventText(e.Description)
	}
	ld := obj{
		{K: "@context", V: "http://schema.org"},
		{K: "@type", V: "Event"},
		{K: "name", V: eventText(e.Title)},
		{K: "description", V: desc},
	}
	if e.ImageURL != "" {
		ld = append(ld, kv{K: "image", V: absoluteImage(e.ImageURL, c.Permalink)})
	}
	ld = append(ld,
		kv{K: "url", V: c.Permalink},
		kv{K: "eventAttendanceMode", V: "https://schema.org/OfflineEventAttendanceMode"},
		kv{K: "eventStatus", V: "https://schema.org/EventScheduled"},
		kv{K: "startDate", V: e.StartAt.In(c.Zone).Format("2006-01-02T15:04:05-07:00")},
		kv{K: "endDate", V: e.EndAt.In(c.Zone).Format("2006-01-02T15:04:05-07:00")},
	)
	if len(e.Venues) > 0 {
		ld = append(ld, kv{K: "location", V: Venue(e.Venues[0], c.VenueURL(e.Venues[0]))})
	}
	if len(e.Organizers) > 0 {
		ld = append(ld, kv{K: "organizer", V: Organizer(e.Organizers[0])})
	}
	if values := models.CostValues(models.CostItems(e.Cost)); len(values) > 0 {
		// A string, as TEC writes it (sample 18): "0" when free.
		price := values[0]
		if f, err := strconv.ParseFloat(values[0], 64); (err == nil && f == 0) || values[0] == "free" {
			price = "0"
		}
		code := e.CurrencyCode
		if code == "" {
			code = c.Currency
		}
		ld = append(ld, kv{K: "offers", V: obj{
			{K: "@type", V: "Offer"},
			{K: "price", V: price},
			{K: "priceCurrency", V: code},
			{K: "url", V: c.Permalink},
			{K: "category", V: "primary"},
			{K: "availability", V: "inStock"},
			{K: "validFrom", V: e.PublishedAt.UTC().Format("2006-01-02") + "T00:00:00+00:00"},
		}})
	}
	ld = append(ld, kv{K: "performer", V: "Organization"}, kv{K: "inLanguage", V: c.Lang})
	if sch := schedule(e, c.Zone); sch != nil {
		ld = append(ld, kv{K: "eventSchedule", V: sch})
	}
	return ld
}

// scheduleFreq maps RRULE frequencies to ISO 8601 durations of one step.
var scheduleFreq = map[string]string{"DAILY": "D", "WEEKLY": "W", "MONTHLY": "M", "YEARLY": "Y"}

// scheduleDays maps RRULE weekdays to schema.org's.
var scheduleDays = map[string]string{"MO": "Monday", "TU": "Tuesday", "WE": "Wednesday", "TH": "Thursday",
	"FR": "Friday", "SA": "Saturday", "SU": "Sunday"}

// schedule is the schema.org Schedule of a recurring event's series when
// its rule says no more than a Schedule can (one RRULE of FREQ, INTERVAL,
// plain BYDAY, BYMONTHDAY, COUNT or UNTIL); nil otherwise, rather than a
// schedule that would show other dates.
func schedule(e *models.Event, loc *time.Location) ordered.Obj {
	r := e.SeriesRule
	if r == nil || len(r.RRules) != 1 || len(r.RDates) > 0 || e.SeriesStart.IsZero() {
		return nil
	}
	start := e.SeriesStart.In(loc)
	sch := obj{{K: "@type", V: "Schedule"}, {K: "startDate", V: start.Format(time.DateOnly)}}
	every, step := "1", ""
	for _, part := range strings.Split(r.RRules[0], ";") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "FREQ":
			step = scheduleFreq[v]
		case "INTERVAL":
			every = v
		case "COUNT":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil
			}
			sch = append(sch, kv{K: "repeatCount", V: n})
		case "UNTIL":
			t, err := time.Parse("20060102T150405Z", v)
			if err != nil {
				return nil
			}
			// The last day an occurrence can start: the day before when
			// UNTIL falls before the series' time of day.
			u := t.In(loc)
			clock := func(x time.Time) int { return x.Hour()*3600 + x.Minute()*60 + x.Second() }
			if clock(u) < clock(start) {
				u = u.AddDate(0, 0, -1)
			}
			sch = append(sch, kv{K: "endDate", V: u.Format(time.DateOnly)})
		case "BYDAY":
			var days []string
			for _, d := range strings.Split(v, ",") {
				if scheduleDays[d] == "" {
					return nil // "2TU" and the like: no Schedule says it
				}
				days = append(days, "https://schema.org/"+scheduleDays[d])
			}
			sch = append(sch, kv{K: "byDay", V: days})
		case "BYMONTHDAY":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil
			}
			sch = append(sch, kv{K: "byMonthDay", V: n})
		default:
			return nil
		}
	}
	if step == "" {
		return nil
	}
	sch = append(sch, kv{K: "repeatFrequency", V: "P" + every + step})
	if !e.AllDay {
		sch = append(sch, kv{K: "startTime", V: start.Format("15:04:05")},
			kv{K: "endTime", V: e.EndAt.In(loc).Format("15:04:05")}, kv{K: "scheduleTimezone", V: loc.String()})
	}
	if len(r.ExDates) > 0 {
		var ex []string
		for _, d := range r.ExDates {
			ex = append(ex, d.In(loc).Format(time.DateOnly))
		}
		sch = append(sch, kv{K: "exceptDate", V: ex})
	}
	return sch
}

// Venue is the schema.org Place of v, whose public page is url.
func Venue(v *models.Venue, url string) ordered.Obj {
	o := obj{{K: "@type", V: "Place"}, {K: "name", V: v.Venue}, {K: "description", V: PlainText(v.Description)},
		{K: "url", V: url}}
	var addr obj
	for _, m := range []kv{{K: "streetAddress", V: v.Address}, {K: "addressLocality", V: v.City},
		{K: "addressRegion", V: v.StateProvince}, {K: "postalCode", V: v.Zip}, {K: "addressCountry", V: v.Country}} {
		if m.V.(string) != "" {
			addr = append(addr, m)
		}
	}
	if len(addr) > 0 {
		o = append(o, kv{K: "address", V: append(obj{{K: "@type", V: "PostalAddress"}}, addr...)})
	}
	if v.GeoLat != nil && v.GeoLng != nil {
		o = append(o, kv{K: "geo", V: obj{{K: "@type", V: "GeoCoordinates"}, {K: "latitude", V: *v.GeoLat}, {K: "longitude", V: *v.GeoLng}}})
	}
	// telephone and sameAs are always there, empty when unset (sample 19).
	return append(o, kv{K: "telephone", V: v.Phone}, kv{K: "sameAs", V: v.Website})
}

// Organizer is the schema.org Person of o. The e-mail is plain text: TEC's
// HTML-entity obfuscation only breaks JSON consumers.
func Organizer(o *models.Organizer) ordered.Obj {
	out := obj{{K: "@type", V: "Person"}, {K: "name", V: o.Organizer}, {K: "description", V: PlainText(o.Description)},
		{K: "url", V: o.Website}}
	out = append(out, kv{K: "telephone", V: o.Phone})
	if o.Email != "" {
		out = append(out, kv{K: "email", V: o.Email})
	}
	return append(out, kv{K: "sameAs", V: o.Website})
}

// Script is v as the body of a <script type="application/ld+json">: JSON
// with "<", ">" and "&" escaped (encoding/json does), so no text can close
// the script element.
func Script(v ordered.Obj) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// absoluteImage makes an image of the media library (stored as a site path,
// /media/<id>/full.<ext>) absolute on the origin of the permalink.
func absoluteImage(img, permalink string) string {
	if !strings.HasPrefix(img, "/") || strings.HasPrefix(img, "//") {
		return img
	}
	if u, err := url.Parse(permalink); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host + img
	}
	return img
}
