package site

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/ical"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web/ui"
)

// The iCalendar feeds: /events.ics (every filter of the events list) and
// /event/<slug>.ics, at the root and under /<lang>/. Calendar apps poll
// them; they read what an anonymous caller reads.

// feedCap bounds the events of one feed.
const feedCap = 1000

// feedRefresh is how often a subscribed calendar should poll.
const feedRefresh = time.Hour

// feedError is a plain-text error in lang naming the argument at fault.
func (h *handler) feedError(c *fiber.Ctx, lang string, status int, arg string) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
	return c.Status(status).SendString(h.d.I18n.T(lang, "ical.bad_argument", map[string]any{"Name": arg}) + "\n")
}

// feedFilterError answers a feed whose filters cannot be used, in one
// place: a filter that cannot be read (*ui.FilterError) or that names
// nothing (the store's *models.ValidationError) is a 400 naming the
// arguments at fault; a term the reader may not see is one too (it would
// name nothing for them); anything else is an error.
func (h *handler) feedFilterError(c *fiber.Ctx, lang string, err error) error {
	if _, args, ok := ui.FilterMessage(h.d.I18n, lang, err); ok {
		return h.feedError(c, lang, http.StatusBadRequest, strings.Join(args, ", "))
	}
	if hidden(err) {
		return h.feedError(c, lang, http.StatusBadRequest, "categories, tags, venue or organizer")
	}
	return err
}

// eventsFeed is /events.ics.
func (h *handler) eventsFeed(c *fiber.Ctx, lang string) error {
	f := models.EventFilter{PerPage: feedCap, Lang: lang}
	if err := ui.ParseEventFilter(func(k string) string { return c.Query(k) }, &f); err != nil {
		return h.feedFilterError(c, lang, err)
	}
	zone := h.d.Site.Zone()
	now := h.d.Site.Now().In(zone)
	from := time.Date(now.Year(), now.Month(), now.Day()-30, 0, 0, 0, 0, zone)
	to := from.AddDate(1, 1, 0)
	for _, a := range []struct {
		name string
		dst  *time.Time
		end  bool
	}{{"start_date", &from, false}, {"end_date", &to, true}} {
		if s := c.Query(a.name); s != "" {
			t, err := time.ParseInLocation(time.DateOnly, s[:min(len(s), 10)], zone)
			if err != nil {
				return h.feedError(c, lang, http.StatusBadRequest, a.name)
			}
			if a.end {
				t = t.AddDate(0, 0, 1)
			}
			*a.dst = t
		}
	}
	events, err := h.nearestEvents(c, f, from, to, now)
	if err != nil {
		return h.feedFilterError(c, lang, err)
	}
	return h.sendFeed(c, lang, events)
}

// nearestEvents are the events of f in the window [from, to) (ending
// after from, starting before to), at most feedCap of them: those not
// yet over first, in start order, then, while the cap allows, those that
// have ended, newest first; so a capped feed keeps the events nearest to
// now rather than the oldest of its window. In start order.
func (h *handler) nearestEvents(c *fiber.Ctx, f models.EventFilter, from, to, now time.Time) ([]*models.Event, error) {
	up := f
	after := from
	if now.After(after) {
		after = now
	}
	up.EndsAfter, up.StartsBefore, up.PerPage, up.SkipTotal = &after, &to, feedCap, true
	p, err := h.d.DB.ListEvents(c.UserContext(), nil, up)
	if err != nil || len(p.Items) >= feedCap || !now.After(from) {
		if p == nil {
			return nil, err
		}
		return p.Items, err
	}
	past := f
	ended := models.Sec(now).Add(time.Second) // ends by now: whole seconds
	past.EndsAfter, past.EndsBefore, past.StartsBefore = &from, &ended, &to
	past.PerPage, past.Desc, past.SkipTotal = feedCap-len(p.Items), true, true
	q, err := h.d.DB.ListEvents(c.UserContext(), nil, past)
	if err != nil {
		return nil, err
	}
	out := make([]*models.Event, 0, len(q.Items)+len(p.Items))
	for i := len(q.Items) - 1; i >= 0; i-- {
		out = append(out, q.Items[i])
	}
	return append(out, p.Items...), nil
}

// eventFeed is /event/<slug>.ics.
func (h *handler) eventFeed(c *fiber.Ctx, lang string) error {
	slug, ok := slugParam(c)
	if !ok {
		return h.feedError(c, lang, http.StatusNotFound, "slug")
	}
	e, err := h.d.DB.GetEvent(c.UserContext(), nil, models.BySlug(slug), lang)
	if errors.Is(err, models.ErrNotFound) {
		if moved, err := h.movedSlug(c, lang, models.KindEvent, slug, ".ics"); moved || err != nil {
			return err
		}
	}
	if hidden(err) || err == nil && e.Status != models.StatusPublish {
		return h.feedError(c, lang, http.StatusNotFound, "slug")
	}
	if err != nil {
		return err
	}
	return h.sendFeed(c, lang, []*models.Event{e})
}

// sendFeed writes events as a calendar with validators: ETag (the body's
// hash, as DTSTAMP is the newest change) and Last-Modified (the newest
// change), each answered 304.
func (h *handler) sendFeed(c *fiber.Ctx, lang string, events []*models.Event) error {
	var newest time.Time
	for _, e := range events {
		if e.UpdatedAt.After(newest) {
			newest = e.UpdatedAt
		}
	}
	if newest.IsZero() {
		newest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	host := h.d.Site.BaseURL
	if u, err := url.Parse(host); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	series, err := h.d.DB.SeriesViews(c.UserContext(), nil, events, lang)
	if err != nil {
		return err
	}
	for _, v := range series { // a change of the series or an exception changes the feed
		for _, e := range append([]*models.Event{v.Row}, v.Exceptions...) {
			if e.UpdatedAt.After(newest) {
				newest = e.UpdatedAt
			}
		}
	}
	body := ical.Write(ical.Calendar{Name: h.d.SiteName(c.UserContext(), lang), Zone: h.d.Site.Zone().String(),
		Refresh: feedRefresh, Host: host, Stamp: newest, Events: events, SiteZone: h.d.Site.Zone(), Series: series,
		URL: func(e *models.Event) string { return h.d.PageURL(lang, "/event/"+url.PathEscape(e.Slug)+"/") }})
	c.Set(fiber.HeaderLastModified, newest.UTC().Format(http.TimeFormat))
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	// If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
	hasINM := c.Get(fiber.HeaderIfNoneMatch) != ""
	if notModified(c, body) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	if ims, err := http.ParseTime(c.Get(fiber.HeaderIfModifiedSince)); !hasINM && err == nil && !newest.Truncate(time.Second).After(ims) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, "text/calendar; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `inline; filename="events.ics"`)
	return c.Send(body)
}
