package api

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/jsonld"
	"github.com/kalends/kalends/internal/ordered"
	"github.com/kalends/kalends/models"
)

// localTime formats t in loc as TEC does ("2006-01-02 15:04:05").
func localTime(t time.Time, loc *time.Location) string { return t.In(loc).Format(time.DateTime) }

// dateDetails is TEC's *_details object: zero-padded strings.
func dateDetails(t time.Time, loc *time.Location) Obj {
	t = t.In(loc)
	return Obj{
		{"year", zeroPad(t.Year(), 4)},
		{"month", zeroPad(int(t.Month()), 2)},
		{"day", zeroPad(t.Day(), 2)},
		{"hour", zeroPad(t.Hour(), 2)},
		{"minutes", zeroPad(t.Minute(), 2)},
		{"seconds", zeroPad(t.Second(), 2)},
	}
}

// twoDigits holds "00" to "99": a list formats four date details per event,
// and fmt.Sprintf allocated for each of their 24 numbers.
var twoDigits = func() (d [100]string) {
	for i := range d {
		d[i] = string([]byte{byte('0' + i/10), byte('0' + i%10)})
	}
	return d
}()

// zeroPad is fmt.Sprintf("%0*d", width, n) without fmt for the usual cases.
func zeroPad(n, width int) string {
	switch {
	case width == 2 && n >= 0 && n < 100:
		return twoDigits[n]
	case width == 4 && n >= 1000 && n < 10000:
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%0*d", width, n)
}

// eventURL is the public permalink: /event/<slug>/ once published, the
// plain ?post_type=tribe_events&p=<id> form otherwise, as WordPress.
func eventURL(r *Request, e *models.Event) string {
	if e.Status == models.StatusPublish || e.Status == models.StatusPrivate {
		return r.Deps.PageRoot(r) + "/event/" + url.PathEscape(e.Slug) + "/"
	}
	return r.Deps.PageRoot(r) + "/?post_type=tribe_events&p=" + strconv.FormatInt(e.ID, 10)
}

// costFormat is the currency and localized texts used to format e's cost.
func costFormat(r *Request, e *models.Event) models.CostFormat {
	f := models.CostFormat{Symbol: e.CurrencySymbol, Position: e.CurrencyPosition, Free: r.T("cost.free", nil),
		Range: func(min, max string) string { return r.T("cost.range", map[string]any{"Min": min, "Max": max}) }}
	if f.Symbol == "" {
		f.Symbol, f.Position = r.Deps.site().CurrencySymbol, r.Deps.site().CurrencyPosition
	}
	if f.Position == "" {
		f.Position = "prefix"
	}
	return f
}

// presentEvent shapes a whole event (models fill its venues, organizers
// and terms) as TEC does (SPEC §4): TEC's key order, then lang and
// translations, then json_ld on single reads (with the embedded venue and
// organizers' own json_ld).
func presentEvent(r *Request, e *models.Event, single bool) Obj {
	site := r.Deps.location()
	vs, os := e.Venues, e.Organizers
	loc, err := models.LoadZone(e.Timezone, site)
	if err != nil {
		loc = site
	}
	gid := r.Deps.GlobalID(e.ID)
	permalink := eventURL(r, e)
	website := permalink
	if e.Website != nil {
		website = *e.Website
	}
	items := models.CostItems(e.Cost)
	image := recordImage(r, e.ImageURL)
	cats, tags := make([]Obj, len(e.Categories)), make([]Obj, len(e.Tags))
	for i, t := range e.Categories {
		cats[i] = r.embedded(t, false, func() Obj { return presentTermEmbedded(r, t) })
	}
	for i, t := range e.Tags {
		tags[i] = r.embedded(t, false, func() Obj { return presentTermEmbedded(r, t) })
	}
	var venue any = []any{}
	switch len(vs) {
	case 0:
	case 1:
		venue = r.embedded(vs[0], single, func() Obj { return presentVenue(r, vs[0], single) })
	default:
		list := make([]Obj, len(vs))
		for i, v := range vs {
			list[i] = r.embedded(v, single, func() Obj { return presentVenue(r, v, single) })
		}
		venue = list
	}
	orgs := make([]Obj, len(os))
	for i, o := range os {
		orgs[i] = r.embedded(o, single, func() Obj { return presentOrganizer(r, o, single) })
	}
	values := models.CostValues(items)
	obj := Obj{
		{"id", e.ID},
		{"global_id", gid},
		{"global_id_lineage", []string{gid}},
		{"author", strconv.FormatInt(e.AuthorID, 10)},
		{"status", e.Status},
		{"date", localTime(e.PublishedAt, site)},
		{"date_utc", localTime(e.PublishedAt, time.UTC)},
		{"modified", localTime(e.UpdatedAt, site)},
		{"modified_utc", localTime(e.UpdatedAt, time.UTC)},
		{"url", permalink},
		{"rest_url", r.Deps.APIURL(r, "/events/"+strconv.FormatInt(e.ID, 10))},
		{"title", e.Title},
		{"description", autop(e.Description)},
		{"excerpt", autop(e.Excerpt)},
		{"slug", e.Slug},
		{"image", image},
		{"all_day", e.AllDay},
		{"start_date", localTime(e.StartAt, loc)},
		{"start_date_details", dateDetails(e.StartAt, loc)},
		{"end_date", localTime(e.EndAt, loc)},
		{"end_date_details", dateDetails(e.EndAt, loc)},
		{"utc_start_date", localTime(e.StartAt, time.UTC)},
		{"utc_start_date_details", dateDetails(e.StartAt, time.UTC)},
		{"utc_end_date", localTime(e.EndAt, time.UTC)},
		{"utc_end_date_details", dateDetails(e.EndAt, time.UTC)},
		{"timezone", e.Timezone},
		{"timezone_abbr", models.ZoneAbbr(e.Timezone, loc, e.StartAt)},
		{"cost", models.CostText(items, costFormat(r, e))},
		{"cost_details", Obj{
			{"currency_symbol", e.CurrencySymbol},
			{"currency_code", e.CurrencyCode},
			{"currency_position", e.CurrencyPosition},
			{"values", values},
		}},
		{"website", website},
		{"show_map", e.ShowMap},
		{"show_map_link", e.ShowMapLink},
		{"hide_from_listings", e.HideFromListings},
		{"sticky", e.Sticky},
		{"featured", e.Featured},
		{"categories", cats},
		{"tags", tags},
		{"venue", venue},
		{"organizer", orgs},
		{"custom_fields", []any{}},
		{"lang", e.Lang},
		{"translations", nonNil(e.Translations)},
	}
	if e.Recurring() {
		obj = append(obj, presentRecurrence(r, e, loc)...)
	}
	if single {
		obj = append(obj, KV{"json_ld", eventJSONLD(r, e, loc, permalink)})
	}
	return obj
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// blockStart tells whether HTML text already starts with a block element,
// in which case autop leaves it alone.
var blockStart = regexp.MustCompile(`(?i)^<(p|div|ul|ol|h[1-6]|table|blockquote|pre|figure|section|article|hr|dl)[\s>/]`)

// blankLine separates paragraphs.
var blankLine = regexp.MustCompile(`\n\s*\n`)

// autop wraps plain text paragraphs in <p> as WordPress's content filter
// does (TEC outputs "Short summary" as "<p>Short summary</p>").
func autop(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if s == "" || blockStart.MatchString(s) {
		return s
	}
	paras := blankLine.Split(s, -1)
	for i, p := range paras {
		paras[i] = "<p>" + strings.ReplaceAll(strings.TrimSpace(p), "\n", "<br />\n") + "</p>"
	}
	return strings.Join(paras, "\n")
}

// eventJSONLD is the schema.org Event of a single read (internal/jsonld),
// with the request language as inLanguage.
func eventJSONLD(r *Request, e *models.Event, loc *time.Location, permalink string) ordered.Obj {
	return jsonld.Event(e, jsonld.EventContext{Zone: loc, Permalink: permalink,
		VenueURL: func(v *models.Venue) string { return linkedURL(r, "venue", v.Slug) },
		Currency: r.Deps.site().CurrencyCode, Lang: i18n.Tag(r.Lang).String()})
}
