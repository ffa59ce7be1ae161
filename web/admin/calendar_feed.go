package admin

import (
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// calendarEventsPath is the calendar's own feed of a range's events.
const calendarEventsPath = "/admin/calendar/events"

// calendarFeedMaxPerPage bounds one page of the feed: the month of a
// 100,000-event calendar (about 4,000 events, 1.6 MB) in one request.
const calendarFeedMaxPerPage = 5000

// calendarEvent is an event as the calendar draws it: the keys of the
// API's event (so assets/js/calendar.js reads both alike), only those the
// calendar uses. The API's list carries every field of every event (about
// 6 KB each with their venues, organizers, terms and translations): a
// month of a busy calendar (4,000 events) was 25 MB of JSON to fetch and
// parse before anything was drawn. Moves still go through the API.
type calendarEvent struct {
	ID               int64              `json:"id"`
	Title            string             `json:"title"`
	Status           string             `json:"status"`
	Author           string             `json:"author"`
	AllDay           bool               `json:"all_day"`
	StartDate        string             `json:"start_date"`
	EndDate          string             `json:"end_date"`
	UTCStartDate     string             `json:"utc_start_date"`
	UTCEndDate       string             `json:"utc_end_date"`
	Timezone         string             `json:"timezone"`
	TimezoneAbbr     string             `json:"timezone_abbr"`
	ModifiedUTC      string             `json:"modified_utc"`
	HideFromListings bool               `json:"hide_from_listings"`
	Categories       []calendarTerm     `json:"categories"`
	Venue            *calendarVenueName `json:"venue,omitempty"`
	SeriesID         *int64             `json:"series_id,omitempty"`
	// Days are the first and the last day the event is on in the site's
	// zone (the calendar's), so the script need not work them out for
	// thousands of events.
	Days [2]string `json:"days"`
}

type calendarTerm struct {
	ID int64 `json:"id"`
}

type calendarVenueName struct {
	Venue string `json:"venue"`
}

// calendarFeed is one page of the feed, with the API list's paging keys.
type calendarFeed struct {
	Events     []calendarEvent `json:"events"`
	Total      int             `json:"total"`
	TotalPages int             `json:"total_pages"`
}

// calendarEvents answers the calendar's request for the events of a range
// (ends_after to starts_before, instants in RFC 3339, as FullCalendar
// gives them) with the calendar page's filters, as the signed-in user may
// read them: the same query as the page's table (calendarFilter), paged by
// page and per_page (at most calendarFeedMaxPerPage). A filter it cannot
// read is 400 with the message in the user's language.
func (h *handler) calendarEvents(c *fiber.Ctx) error {
	u := ui.UserOf(c)
	lang, _ := c.Locals(localLang).(string)
	from, err1 := time.Parse(time.RFC3339, c.Query("ends_after"))
	to, err2 := time.Parse(time.RFC3339, c.Query("starts_before"))
	if err1 != nil || err2 != nil || !from.Before(to) {
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"message": h.d.I18n.T(lang, "admin.calendar.bad_range", nil)})
	}
	r := h.parseCalendar(c)
	if strings.Contains(r.q.Status, ",") { // every status the user may see
		r.q.Status = ""
	}
	f, err := calendarFilter(r.q, lang, from, to, models.ListAccess(u, models.KindEvent).Statuses)
	if err != nil {
		msg, ferr := h.filterError(lang, err)
		if ferr != nil {
			return ferr
		}
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"message": msg})
	}
	f.Page = max(1, c.QueryInt("page", 1))
	f.PerPage = min(max(1, c.QueryInt("per_page", calendarFeedMaxPerPage)), calendarFeedMaxPerPage)
	page, err := h.d.DB.ListEvents(c.UserContext(), u, f)
	if err != nil {
		if msg, ferr := h.filterError(lang, err); ferr == nil {
			return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"message": msg})
		}
		return err
	}
	site := h.d.Site.Zone()
	out := calendarFeed{Events: make([]calendarEvent, 0, len(page.Items)), Total: page.Total,
		TotalPages: (page.Total + f.PerPage - 1) / f.PerPage}
	for _, e := range page.Items {
		loc, err := models.LoadZone(e.Timezone, site)
		if err != nil {
			loc = site
		}
		ce := calendarEvent{ID: e.ID, Title: e.Title, Status: e.Status, Author: strconv.FormatInt(e.AuthorID, 10),
			AllDay: e.AllDay, StartDate: e.StartAt.In(loc).Format(time.DateTime), EndDate: e.EndAt.In(loc).Format(time.DateTime),
			UTCStartDate: e.StartAt.UTC().Format(time.DateTime), UTCEndDate: e.EndAt.UTC().Format(time.DateTime),
			Timezone: e.Timezone, TimezoneAbbr: models.ZoneAbbr(e.Timezone, loc, e.StartAt),
			ModifiedUTC: e.UpdatedAt.UTC().Format(time.DateTime), HideFromListings: e.HideFromListings,
			Categories: make([]calendarTerm, 0, len(e.Categories)), SeriesID: e.SeriesID}
		ce.Days = eventDays(e, site)
		for _, t := range e.Categories {
			ce.Categories = append(ce.Categories, calendarTerm{ID: t.ID})
		}
		if len(e.Venues) > 0 {
			ce.Venue = &calendarVenueName{Venue: e.Venues[0].Venue}
		}
		out.Events = append(out.Events, ce)
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(out)
}

// eventDays are the first and last days (YYYY-MM-DD) e is on in the
// calendar: an all-day event's own dates, a timed event's days in the
// site's zone (it ends on the day of its last instant; an event that ends
// as it starts is on its start day).
func eventDays(e *models.Event, site *time.Location) [2]string {
	if e.AllDay {
		loc, err := models.LoadZone(e.Timezone, site)
		if err != nil {
			loc = site
		}
		return [2]string{e.StartAt.In(loc).Format(time.DateOnly), e.EndAt.In(loc).Format(time.DateOnly)}
	}
	last := e.EndAt
	if last.After(e.StartAt) {
		last = last.Add(-time.Nanosecond)
	}
	return [2]string{e.StartAt.In(site).Format(time.DateOnly), last.In(site).Format(time.DateOnly)}
}
