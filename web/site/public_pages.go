package site

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/jsonld"
	"github.com/kalends/kalends/internal/ordered"
	"github.com/kalends/kalends/internal/rrtext"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// zoneOf is the zone an event is shown in.
func (h *handler) zoneOf(e *models.Event) *time.Location {
	loc, err := models.LoadZone(e.Timezone, h.d.Site.Zone())
	if err != nil {
		return h.d.Site.Zone()
	}
	return loc
}

// eventWhen is an event's dates and times as the language writes them.
func (h *handler) eventWhen(lang string, e *models.Event) string {
	loc := h.zoneOf(e)
	s, end := e.StartAt.In(loc), e.EndAt.In(loc)
	sameDay := s.Year() == end.Year() && s.YearDay() == end.YearDay()
	switch {
	case e.AllDay && sameDay:
		return ui.FormatDate(lang, s)
	case e.AllDay:
		return ui.FormatDate(lang, s) + " – " + ui.FormatDate(lang, end)
	case sameDay:
		return ui.FormatDateTime(lang, s) + " – " + ui.FormatTime(lang, end)
	}
	return ui.FormatDateTime(lang, s) + " – " + ui.FormatDateTime(lang, end)
}

// cards shapes events for a public list.
func (h *handler) cards(lang string, events []*models.Event) []eventCard {
	out := make([]eventCard, len(events))
	for i, e := range events {
		out[i] = eventCard{Title: e.Title, URL: h.d.PageURL(lang, "/event/"+url.PathEscape(e.Slug)+"/"),
			When: h.eventWhen(lang, e), Start: e.StartAt}
		if len(e.Venues) > 0 {
			out[i].Venue = e.Venues[0].Venue
		}
	}
	return out
}

// itemList is the schema.org ItemList of a list page's events.
func itemList(name, pageURL string, cards []eventCard) ordered.Obj {
	items := make([]ordered.Obj, len(cards))
	for i, cd := range cards {
		items[i] = ordered.Obj{{K: "@type", V: "ListItem"}, {K: "position", V: i + 1}, {K: "url", V: cd.URL}, {K: "name", V: cd.Title}}
	}
	return ordered.Obj{{K: "@context", V: "http://schema.org"}, {K: "@type", V: "ItemList"}, {K: "name", V: name},
		{K: "url", V: pageURL}, {K: "itemListElement", V: items}}
}

// publicEvent is /event/<slug>/.
func (h *handler) publicEvent(c *fiber.Ctx, lang string) error {
	slug, ok := slugParam(c)
	if !ok {
		return h.notFound(c, lang)
	}
	e, err := h.d.DB.GetEvent(c.UserContext(), actor(c), models.BySlug(slug), lang)
	if errors.Is(err, models.ErrNotFound) {
		if moved, err := h.movedSlug(c, lang, models.KindEvent, slug, "/"); moved || err != nil {
			return err
		}
	}
	if hidden(err) || err == nil && !onPublicPage(e.Status) {
		return h.notFound(c, lang)
	}
	if err != nil {
		return err
	}
	v, err := h.eventView(c, lang, e)
	if err != nil {
		return err
	}
	return h.renderPublic(c, fiber.StatusOK, publicEventPage(v))
}

// eventView is the page of event e in lang (a stored event, or a preview's).
func (h *handler) eventView(c *fiber.Ctx, lang string, e *models.Event) (eventPageView, error) {
	path := "/event/" + url.PathEscape(e.Slug) + "/"
	v := eventPageView{Frame: h.frame(lang, path, e.Title, jsonld.PlainText(firstNonEmpty(e.Excerpt, e.Description))),
		When: h.eventWhen(lang, e), Zone: models.ZoneAbbr(e.Timezone, h.zoneOf(e), e.StartAt), Description: e.Description,
		Image: e.ImageURL}
	v.Frame.OG[0].Content = "article"
	if e.ImageURL != "" {
		img := e.ImageURL
		if strings.HasPrefix(img, "/") { // an image of the media library: made absolute for other sites
			img = h.d.Site.BaseURL + img
		}
		v.Frame.OG = append(v.Frame.OG, metaPair{"og:image", img}, metaPair{"twitter:card", "summary_large_image"})
	} else {
		v.Frame.OG = append(v.Frame.OG, metaPair{"twitter:card", "summary"})
	}
	if e.Website != nil {
		v.Website = *e.Website
	}
	site := h.d.Site
	v.Cost = h.eventCost(lang, e)
	h.eventLinks(lang, e, &v)
	if e.SeriesRule != nil {
		if err := h.seriesBlock(c, lang, e, &v); err != nil {
			return v, err
		}
	}
	ics := h.d.PageURL(lang, "/event/"+url.PathEscape(e.Slug)+".ics")
	v.AddTo = []link{{h.d.I18n.T(lang, "public.add.google", nil), googleCalendarURL(e, v.Frame.Canonical, v.Venue)},
		{h.d.I18n.T(lang, "public.add.outlook", nil), outlookURL(e, h.zoneOf(e), v.Frame.Canonical, v.Venue)},
		{h.d.I18n.T(lang, "public.add.ics", nil), ics}}
	v.Webcal = ui.WebcalURL(ics)
	ld := jsonld.Event(e, jsonld.EventContext{Zone: h.zoneOf(e), Permalink: v.Frame.Canonical,
		VenueURL: func(vn *models.Venue) string { return h.d.PageURL(lang, "/venue/"+url.PathEscape(vn.Slug)+"/") },
		Currency: site.CurrencyCode, Lang: v.Frame.HTMLLang})
	return v, v.Frame.withJSONLD(ld)
}

// eventCost is the event's cost as text, in its currency or the site's.
func (h *handler) eventCost(lang string, e *models.Event) string {
	site := h.d.Site
	f := models.CostFormat{Symbol: e.CurrencySymbol, Position: e.CurrencyPosition, Free: h.d.I18n.T(lang, "cost.free", nil),
		Range: func(min, max string) string {
			return h.d.I18n.T(lang, "cost.range", map[string]any{"Min": min, "Max": max})
		}}
	if f.Symbol == "" {
		f.Symbol, f.Position = site.CurrencySymbol, site.CurrencyPosition
	}
	return models.CostText(models.CostItems(e.Cost), f)
}

// eventLinks adds the event's venue, organizers, categories and tags to
// its page.
func (h *handler) eventLinks(lang string, e *models.Event, v *eventPageView) {
	if len(e.Venues) > 0 {
		vn := e.Venues[0]
		v.Venue = &venueBlock{Name: vn.Venue, URL: h.d.PageURL(lang, "/venue/"+url.PathEscape(vn.Slug)+"/"),
			Address: venueAddress(vn), Map: mapURL(vn)}
	}
	for _, o := range e.Organizers {
		v.Organizers = append(v.Organizers, organizerBlock{Name: o.Organizer, URL: h.d.PageURL(lang, "/organizer/"+url.PathEscape(o.Slug)+"/"),
			Email: o.Email, Phone: o.Phone, Website: o.Website})
	}
	for _, t := range e.Categories {
		v.Categories = append(v.Categories, link{t.Name, h.d.PageURL(lang, "/events/category/"+url.PathEscape(t.Slug)+"/")})
	}
	for _, t := range e.Tags {
		v.Tags = append(v.Tags, link{t.Name, h.d.PageURL(lang, "/tag/"+url.PathEscape(t.Slug)+"/")})
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// venueAddress is a venue's address on one line.
func venueAddress(v *models.Venue) string {
	var parts []string
	for _, p := range []string{v.Address, v.City, v.StateProvince, v.Zip, v.Country} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// mapURL is an OpenStreetMap link to a venue with coordinates, "" without.
func mapURL(v *models.Venue) string {
	if v.GeoLat == nil || v.GeoLng == nil {
		return ""
	}
	lat, lng := strconv.FormatFloat(*v.GeoLat, 'f', -1, 64), strconv.FormatFloat(*v.GeoLng, 'f', -1, 64)
	return "https://www.openstreetmap.org/?mlat=" + lat + "&mlon=" + lng + "#map=17/" + lat + "/" + lng
}

// allDayEnd is the exclusive end day of an all-day event (the day after
// its last day), as calendars want it.
func allDayEnd(e *models.Event, loc *time.Location) time.Time {
	end := e.EndAt.In(loc)
	return time.Date(end.Year(), end.Month(), end.Day()+1, 0, 0, 0, 0, loc)
}

// googleCalendarURL is Google Calendar's "add event" template for e.
func googleCalendarURL(e *models.Event, page string, v *venueBlock) string {
	q := url.Values{"action": {"TEMPLATE"}, "text": {e.Title}, "details": {page}}
	if e.AllDay {
		loc := time.UTC
		if l, err := models.LoadZone(e.Timezone, time.UTC); err == nil {
			loc = l
		}
		q.Set("dates", e.StartAt.In(loc).Format("20060102")+"/"+allDayEnd(e, loc).Format("20060102"))
	} else {
		q.Set("dates", e.StartAt.UTC().Format("20060102T150405Z")+"/"+e.EndAt.UTC().Format("20060102T150405Z"))
	}
	if e.Timezone != "" {
		q.Set("ctz", e.Timezone)
	}
	if v != nil {
		q.Set("location", strings.TrimSuffix(v.Name+", "+v.Address, ", "))
	}
	return "https://calendar.google.com/calendar/render?" + q.Encode()
}

// outlookURL is Outlook on the web's compose link for e.
func outlookURL(e *models.Event, loc *time.Location, page string, v *venueBlock) string {
	q := url.Values{"path": {"/calendar/action/compose"}, "rru": {"addevent"}, "subject": {e.Title}, "body": {page}}
	if e.AllDay {
		q.Set("allday", "true")
		q.Set("startdt", e.StartAt.In(loc).Format(time.DateOnly))
		q.Set("enddt", allDayEnd(e, loc).Format(time.DateOnly))
	} else {
		q.Set("allday", "false")
		q.Set("startdt", e.StartAt.UTC().Format(time.RFC3339))
		q.Set("enddt", e.EndAt.UTC().Format(time.RFC3339))
	}
	if v != nil {
		q.Set("location", strings.TrimSuffix(v.Name+", "+v.Address, ", "))
	}
	return "https://outlook.live.com/calendar/0/deeplink/compose?" + q.Encode()
}

// nextDates is how many of a series' next occurrences an event page lists.
const nextDates = 10

// seriesBlock fills the rule's sentence and the next occurrences of a
// recurring event's page (from now, or from this occurrence when it is
// past).
func (h *handler) seriesBlock(c *fiber.Ctx, lang string, e *models.Event, v *eventPageView) error {
	t := func(id string, data map[string]any) string { return h.d.I18n.T(lang, id, data) }
	v.Repeats = rrtext.Rule(t, e.SeriesRule, e.SeriesStart, func(d time.Time) string { return ui.FormatDate(lang, d) })
	from := h.d.Site.Now()
	p, err := h.d.DB.ListEvents(c.UserContext(), nil, models.EventFilter{ParentID: e.SeriesID, EndsAfter: &from,
		PerPage: nextDates, Lang: lang})
	if err != nil {
		return err
	}
	for _, o := range p.Items {
		href := h.d.PageURL(lang, "/event/"+url.PathEscape(o.Slug)+"/")
		if o.ID == e.ID {
			href = ""
		}
		v.Next = append(v.Next, link{h.eventWhen(lang, o), href})
	}
	return nil
}
