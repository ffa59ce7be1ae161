package site

import (
	"fmt"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// monthCap bounds the events one month grid reads.
const monthCap = 500

// monthTitle is a month as lang writes it.
func monthTitle(lang string, t time.Time) string {
	switch lang {
	case "zh-hans", "ja":
		return fmt.Sprintf("%d年%d月", t.Year(), int(t.Month()))
	case "ko":
		return fmt.Sprintf("%d년 %d월", t.Year(), int(t.Month()))
	}
	return t.Month().String() + " " + fmt.Sprint(t.Year())
}

// monthIndex numbers the months of t's calendar (year*12 + month-1), so
// months compare and step as integers whatever the zone's midnights do.
func monthIndex(t time.Time) int { return t.Year()*12 + int(t.Month()) - 1 }

// monthArg is the month argument (YYYY-MM) of a monthIndex.
func monthArg(i int) string { return fmt.Sprintf("%04d-%02d", i/12, i%12+1) }

// monthRange is the months the month view pages through (monthIndex, in
// the site's zone): from the month of the first public event to the later
// of the series horizon's month and the last public event's month; on a
// calendar with no public event, the current month alone. Beyond it no
// page can show a public event (the occurrences of series stop at the
// horizon), so a crawler following "next month" comes to an end there.
// The bounds are the public ones whoever asks: one query of two index
// seeks (models.PublicEventSpan); the response cache keeps the pages.
func (h *handler) monthRange(c *fiber.Ctx, zone *time.Location, current int) (lo, hi int, err error) {
	first, last, ok, err := h.d.DB.PublicEventSpan(c.UserContext())
	if err != nil || !ok {
		return current, current, err
	}
	return monthIndex(first.In(zone)), max(monthIndex(last.In(zone)), monthIndex(h.d.Site.Horizon().In(zone))), nil
}

// publicMonth renders the month grid for f (the list's filters). A month
// outside monthRange is not there (404), but for the current month, the
// view's default, which always answers and leads into the range.
func (h *handler) publicMonth(c *fiber.Ctx, lang string, v recordPageView, f models.EventFilter) error {
	zone := h.d.Site.Zone()
	now := h.d.Site.Now().In(zone)
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, zone)
	if m := c.Query("month"); m != "" {
		t, err := time.ParseInLocation("2006-01", m, zone)
		if err != nil || t.Year() < 1970 || t.Year() > 9999 {
			return h.notFound(c, lang)
		}
		start = t
	}
	at, current := monthIndex(start), monthIndex(now)
	lo, hi, err := h.monthRange(c, zone, current)
	if err != nil {
		return err
	}
	if at != current && (at < lo || at > hi) {
		return h.notFound(c, lang)
	}
	prev, next := monthNeighbours(at, lo, hi)
	end := start.AddDate(0, 1, 0)
	f.EndsAfter, f.StartsBefore, f.PerPage, f.Lang = &start, &end, monthCap, lang
	p, err := h.d.DB.ListEvents(c.UserContext(), actor(c), f)
	if err != nil {
		return h.listError(c, lang, err)
	}
	names, first := ui.WeekdayNames(lang)
	mv := monthView{Frame: v.Frame, Month: monthTitle(lang, start), Weekdays: names, Truncated: p.Total > len(p.Items),
		Webcal: v.Webcal, ICS: v.ICS}
	if len(p.Items) == 0 || filtered(c) {
		mv.Frame.Robots = noindex
	}
	href := func(month string) string { return monthHref(c, month) }
	if prev >= 0 {
		mv.Prev = href(monthArg(prev))
	}
	if next >= 0 {
		mv.Next = href(monthArg(next))
	}
	mv.List = href("")
	mv.Weeks = h.monthWeeks(lang, start, now, first, p.Items)
	return h.renderPublic(c, fiber.StatusOK, publicMonthPage(mv))
}

// monthNeighbours are the months before and after at in the range lo..hi
// (-1 for none); from a current month outside it, the range's nearest end.
func monthNeighbours(at, lo, hi int) (prev, next int) {
	prev, next = -1, -1
	switch {
	case at < lo:
		next = lo
	case at > hi:
		prev = hi
	default:
		if at > lo {
			prev = at - 1
		}
		if at < hi {
			next = at + 1
		}
	}
	return prev, next
}

// monthHref is the page's URL with its filters showing month (YYYY-MM),
// or the list when month is empty; the page number is dropped.
func monthHref(c *fiber.Ctx, month string) string {
	q := url.Values{}
	c.Request().URI().QueryArgs().VisitAll(func(k, val []byte) { q.Set(string(k), string(val)) })
	q.Del("page")
	if month == "" {
		q.Del("view")
		q.Del("month")
	} else {
		q.Set("view", "month")
		q.Set("month", month)
	}
	if len(q) == 0 {
		return c.Path()
	}
	return c.Path() + "?" + q.Encode()
}

// monthWeeks is the grid of the month starting at start, with the events
// of items on their days: from the week's first day on or before the 1st
// to the end of the week holding the last day.
func (h *handler) monthWeeks(lang string, start, now time.Time, first time.Weekday, items []*models.Event) [][]monthDay {
	var weeks [][]monthDay
	zone := start.Location()
	end := start.AddDate(0, 1, 0)
	lead := (int(start.Weekday()) - int(first) + 7) % 7
	days := end.AddDate(0, 0, -1).Day()
	for i := range (lead + days + 6) / 7 * 7 {
		day := time.Date(start.Year(), start.Month(), 1-lead+i, 0, 0, 0, 0, zone)
		next := day.AddDate(0, 0, 1)
		if i%7 == 0 {
			weeks = append(weeks, nil)
		}
		d := monthDay{Day: day.Day(), In: day.Month() == start.Month(), Today: day.Format(time.DateOnly) == now.Format(time.DateOnly)}
		for _, e := range items {
			if e.StartAt.Before(next) && (e.EndAt.After(day) || e.StartAt.Equal(day)) {
				d.Events = append(d.Events, link{e.Title, h.d.PageURL(lang, "/event/"+url.PathEscape(e.Slug)+"/")})
			}
		}
		weeks[len(weeks)-1] = append(weeks[len(weeks)-1], d)
	}
	return weeks
}
