package site

import (
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
)

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
