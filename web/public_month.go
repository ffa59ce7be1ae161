package web

import (
	"fmt"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// monthCap bounds the events one month grid reads.
const monthCap = 500

// monthView is /events/?view=month: a month as a table of weeks, each day
// with the events on it; no JavaScript.
type monthView struct {
	Frame       publicView
	Month       string // as the language writes it
	Weekdays    []string
	Weeks       [][]monthDay
	Prev, Next  string
	List        string // the list view with the same filters
	Truncated   bool
	Webcal, ICS string
}

type monthDay struct {
	Day    int
	In     bool // in the month shown (not a neighbour's day filling the week)
	Today  bool
	Events []link
}

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

// weekdayNames are the weekday headers from the week's first day (Monday
// in Chinese, Sunday otherwise, as each locale's calendars start).
func weekdayNames(lang string) (names []string, first time.Weekday) {
	all := enWeekdays[:]
	switch lang {
	case "zh-hans":
		all, first = zhWeekdays[:], time.Monday
	case "ja":
		all = jaWeekdays[:]
	case "ko":
		all = koWeekdays[:]
	}
	for i := range 7 {
		names = append(names, all[(int(first)+i)%7])
	}
	return names, first
}

// publicMonth renders the month grid for f (the list's filters).
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
	end := start.AddDate(0, 1, 0)
	f.EndsAfter, f.StartsBefore, f.PerPage, f.Lang = &start, &end, monthCap, lang
	p, err := h.d.DB.ListEvents(c.UserContext(), actor(c), f)
	if err != nil {
		return h.listError(c, lang, err)
	}
	names, first := weekdayNames(lang)
	mv := monthView{Frame: v.Frame, Month: monthTitle(lang, start), Weekdays: names, Truncated: p.Total > len(p.Items),
		Webcal: v.Webcal, ICS: v.ICS}
	at := func(month string) string {
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
	mv.Prev, mv.Next, mv.List = at(start.AddDate(0, -1, 0).Format("2006-01")), at(end.Format("2006-01")), at("")
	// The grid: from the week's first day on or before the 1st to the end
	// of the week holding the last day.
	lead := (int(start.Weekday()) - int(first) + 7) % 7
	days := end.AddDate(0, 0, -1).Day()
	for i := range (lead + days + 6) / 7 * 7 {
		day := time.Date(start.Year(), start.Month(), 1-lead+i, 0, 0, 0, 0, zone)
		next := day.AddDate(0, 0, 1)
		if i%7 == 0 {
			mv.Weeks = append(mv.Weeks, nil)
		}
		d := monthDay{Day: day.Day(), In: day.Month() == start.Month(), Today: day.Format(time.DateOnly) == now.Format(time.DateOnly)}
		for _, e := range p.Items {
			if e.StartAt.Before(next) && (e.EndAt.After(day) || e.StartAt.Equal(day)) {
				d.Events = append(d.Events, link{e.Title, h.pageURL(lang, "/event/"+url.PathEscape(e.Slug)+"/")})
			}
		}
		mv.Weeks[len(mv.Weeks)-1] = append(mv.Weeks[len(mv.Weeks)-1], d)
	}
	return h.renderPublic(c, fiber.StatusOK, publicMonthPage(mv))
}
