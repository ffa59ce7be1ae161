package admin

import (
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The calendar (SPEC §10): FullCalendar over the JSON API, in the UI
// language and the site zone. The server renders the frame, the filters,
// the quick-create dialog, the event popover and, for use without
// JavaScript, a table of the range's events with links to their forms.

const calendarPath = "/admin/calendar"

// calendarViews are the views of the calendar, by their URL names.
var calendarViews = []string{"month", "week", "day", "list"}

// fullCalendarLocales maps our language codes to FullCalendar's locale
// files (English is built in).
var fullCalendarLocales = map[string]string{"zh-hans": "zh-cn", "ja": "ja", "ko": "ko", "en": "en"}

// calendarQuery is the calendar's filter form, kept in its URL.
type calendarQuery struct {
	Categories, Tags, Venue, Organizer, Status, Search string
	Featured                                           bool
}

// subscribeURL is the webcal:// address of the public feed with the
// calendar's filters (the feed holds published events only).
func (h *handler) subscribeURL(lang string, q calendarQuery) string {
	args := url.Values{}
	for k, v := range map[string]string{"categories": q.Categories, "tags": q.Tags, "venue": q.Venue, "organizer": q.Organizer, "search": q.Search} {
		if v != "" {
			args.Set(k, v)
		}
	}
	u := h.d.PageURL(lang, "/events.ics")
	if len(args) > 0 {
		u += "?" + args.Encode()
	}
	return ui.WebcalURL(u)
}

// boolAttr is a boolean as a data attribute reads it.
func boolAttr(b bool) string { return strconv.FormatBool(b) }

// styleNonce is a fresh nonce for the style elements FullCalendar injects.
func styleNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawStdEncoding.EncodeToString(b)
}

// calendarRequest is what the calendar's URL asks for: the view, the date
// whose range it shows and the filters.
type calendarRequest struct {
	view string
	date time.Time
	q    calendarQuery
}

// parseCalendar reads the calendar's URL; a view or date it does not know
// falls back to the month of today.
func (h *handler) parseCalendar(c *fiber.Ctx) calendarRequest {
	site := h.d.Site.Zone()
	view := c.Query("view")
	if !contains(calendarViews, view) {
		view = "month"
	}
	date, err := time.ParseInLocation(time.DateOnly, c.Query("date"), site)
	if err != nil {
		date = h.d.Site.Now().In(site)
	}
	q := calendarQuery{Categories: c.Query("categories"), Tags: c.Query("tags"), Venue: c.Query("venue"),
		Organizer: c.Query("organizer"), Status: c.Query("status"), Search: strings.TrimSpace(c.Query("search")),
		Featured: c.Query("featured") == "true"}
	return calendarRequest{view: view, date: date, q: q}
}

// calendarScripts adds FullCalendar, its locale and the calendar's own
// script to the layout.
func calendarScripts(lay *layoutView, lang string) {
	lay.ExtraJS = append(lay.ExtraJS, assets.URL("vendor/luxon/luxon.min.js"), assets.URL("vendor/fullcalendar/fullcalendar.min.js"),
		assets.URL("vendor/fullcalendar/luxon3.min.js"))
	if fc := fullCalendarLocales[lang]; fc != "en" {
		lay.ExtraJS = append(lay.ExtraJS, assets.URL("vendor/fullcalendar/locales/"+fc+".min.js"))
	}
	lay.ExtraJS = append(lay.ExtraJS, assets.URL("js/calendar.js"))
}

// calendarFrame is the calendar page without the table of the range: the
// frame FullCalendar reads, the filter form and the quick-create choices.
func (h *handler) calendarFrame(c *fiber.Ctx, lay layoutView, r calendarRequest, access models.AdminListAccess) (calendarView, error) {
	u := ui.UserOf(c)
	lang, t := lay.Lang, lay.T
	v := calendarView{Layout: lay, View: r.view, Date: r.date.Format(time.DateOnly), FCLocale: fullCalendarLocales[lang],
		Zone: h.d.Site.Zone().String(), API: strings.TrimSuffix(h.d.APIPath, "/"), PerPage: strconv.Itoa(calendarFeedMaxPerPage),
		Scope: models.EditScope(u, models.KindEvent), UserID: strconv.FormatInt(u.ID, 10),
		MayFilter: access.Statuses, MayCreate: access.Create, Q: r.q, BackHref: c.OriginalURL()}
	v.Subscribe = h.subscribeURL(lang, r.q)
	for _, name := range calendarViews {
		v.Views = append(v.Views, option{Value: name, Label: t("admin.calendar.view." + name), Selected: name == r.view})
	}
	var err error
	q := r.q
	if v.Categories, v.Tags, v.Venues, v.Organizers, err = h.filterOptions(c, lang, q.Categories, q.Tags, q.Venue, q.Organizer); err != nil {
		return v, err
	}
	if access.Statuses {
		for _, s := range statusOrder {
			v.Statuses = append(v.Statuses, option{Value: s.Status, Label: t(s.LabelID), Selected: q.Status == s.Status})
		}
	}
	for _, s := range models.StatusChoices(u, models.KindEvent) {
		v.Quick = append(v.Quick, option{Value: s, Label: t(statusLabel[s]), Selected: s == models.StatusDraft})
	}
	return v, nil
}

// calendarFilter is the query of the events from from to to that the
// calendar's filters select (a filter that cannot be read is a
// *ui.FilterError).
func calendarFilter(q calendarQuery, lang string, from, to time.Time, statuses bool) (models.EventFilter, error) {
	f := models.EventFilter{StartsBefore: &to, EndsAfter: &from, PerPage: 200, Lang: lang, IncludeHidden: true}
	if statuses {
		f.Statuses = []string{models.StatusPublish, models.StatusFuture, models.StatusDraft, models.StatusPending, models.StatusPrivate}
		if q.Status != "" {
			f.Statuses = []string{q.Status}
		}
	}
	if q.Featured {
		yes := true
		f.Featured = &yes
	}
	raw := map[string]string{"categories": q.Categories, "tags": q.Tags, "venue": q.Venue, "organizer": q.Organizer,
		"search": q.Search}
	return f, ui.ParseEventFilter(func(k string) string { return raw[k] }, &f)
}

// calendar is the calendar page: parse the URL, query the range's events
// for the table, render.
func (h *handler) calendar(c *fiber.Ctx) error {
	u := ui.UserOf(c)
	r := h.parseCalendar(c)
	lay := h.layoutFor(c, "admin.calendar.title")
	lang := lay.Lang
	access := models.ListAccess(u, models.KindEvent)
	nonce := styleNonce()
	lay.StyleNonce = nonce
	calendarScripts(&lay, lang)
	v, err := h.calendarFrame(c, lay, r, access)
	if err != nil {
		return err
	}
	// The month (or week, or day) of the date, without JavaScript: a table.
	from, to := calendarRange(r.view, r.date)
	f, err := calendarFilter(r.q, lang, from, to, access.Statuses)
	var page *models.Page[models.Event]
	if err == nil {
		page, err = h.d.DB.ListEvents(c.UserContext(), u, f)
	}
	if err != nil {
		if v.FilterError, err = h.filterError(lang, err); err != nil {
			return err
		}
		page = &models.Page[models.Event]{}
	}
	v.Rows = h.eventRows(lang, page.Items, false)
	v.RangeText = h.d.I18n.T(lang, "admin.calendar.range", map[string]any{"From": ui.FormatDate(lang, from),
		"To": ui.FormatDate(lang, to.Add(-time.Second))})
	v.PrevHref, v.NextHref = calendarShift(c, r.view, from, -1), calendarShift(c, r.view, from, 1)
	v.MoveBack = url.QueryEscape(v.BackHref)
	return renderCalendar(c, v, nonce)
}

// calendarShift is the calendar's URL with its range moved by n ranges.
func calendarShift(c *fiber.Ctx, view string, from time.Time, n int) string {
	args := fiber.AcquireArgs()
	defer fiber.ReleaseArgs(args)
	c.Request().URI().QueryArgs().CopyTo(args)
	args.Set("view", view)
	args.Set("date", shiftRange(view, from, n).Format(time.DateOnly))
	return calendarPath + "?" + args.String()
}

// renderCalendar renders the page with a policy that lets FullCalendar's
// styles in.
func renderCalendar(c *fiber.Ctx, v calendarView, nonce string) error {
	if err := render(c, fiber.StatusOK, calendarPage(v)); err != nil {
		return err
	}
	// FullCalendar's styles come with the nonce; its icon font is a data:
	// URL inside them.
	csp := strings.Replace(ui.ContentSecurityPolicy, "style-src 'self'", "style-src 'self' 'nonce-"+nonce+"'", 1)
	c.Set(fiber.HeaderContentSecurityPolicy, strings.Replace(csp, "font-src 'self'", "font-src 'self' data:", 1))
	return nil
}

// shiftRange moves the start of a view's range by n ranges.
func shiftRange(view string, from time.Time, n int) time.Time {
	switch view {
	case "week":
		return from.AddDate(0, 0, 7*n)
	case "day":
		return from.AddDate(0, 0, n)
	}
	return from.AddDate(0, n, 0)
}

// calendarRange is the span a view shows around date, in date's zone: the
// month, the week (from Sunday) or the day.
func calendarRange(view string, date time.Time) (from, to time.Time) {
	y, m, d := date.Date()
	loc := date.Location()
	switch view {
	case "week":
		from = time.Date(y, m, d-int(date.Weekday()), 0, 0, 0, 0, loc)
		return from, from.AddDate(0, 0, 7)
	case "day":
		from = time.Date(y, m, d, 0, 0, 0, 0, loc)
		return from, from.AddDate(0, 0, 1)
	}
	from = time.Date(y, m, 1, 0, 0, 0, 0, loc)
	return from, from.AddDate(0, 1, 0)
}

func (h *handler) eventMoveForm(c *fiber.Ctx) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	e, err := h.d.DB.GetEvent(c.UserContext(), ui.UserOf(c), models.ByID(id), h.pickLang(c))
	if err != nil {
		return err
	}
	v := moveView{Layout: h.layoutFor(c, "admin.calendar.move_title"), ID: id, EventTitle: e.Title,
		F: formOf(e, h.d.Site.Zone()), Zone: models.ZoneName(e.Timezone, h.d.Site.Zone()), Back: backTo(c.Query("back"), calendarPath)}
	return render(c, fiber.StatusOK, moveFormPage(v))
}

// eventMove changes only the dates (and the all-day switch) of an event,
// through the same update as the API's PATCH.
func (h *handler) eventMove(c *fiber.Ctx) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
	start, end, allDay := ui.FormDate(c.FormValue("start_date")), ui.FormDate(c.FormValue("end_date")), c.FormValue("all_day") != ""
	back := backTo(c.FormValue("back"), calendarPath)
	repeat := repeatForm{Occurrence: c.FormValue("repeat_occurrence") != "", Scope: c.FormValue("scope")}
	in := models.EventInput{StartDate: &start, EndDate: &end, AllDay: &allDay}
	if repeat.Occurrence {
		in.Scope = repeat.Scope
	}
	_, err = h.d.DB.UpdateEvent(ctx, u, models.ByID(id), in)
	if err == nil {
		h.setFlash(c, "event_moved")
		return h.redirect(c, back)
	}
	fe, ok := h.validationErrors(lang, err, "start_date", "end_date")
	if !ok {
		return err
	}
	e, gerr := h.d.DB.GetEvent(ctx, u, models.ByID(id), lang)
	if gerr != nil {
		return gerr
	}
	v := moveView{Layout: h.layoutFor(c, "admin.calendar.move_title"), ID: id, EventTitle: e.Title, Back: back,
		F:    eventForm{StartDate: c.FormValue("start_date"), EndDate: c.FormValue("end_date"), AllDay: allDay, Repeat: repeat},
		Zone: models.ZoneName(e.Timezone, h.d.Site.Zone()), Errors: fe}
	return render(c, fiber.StatusUnprocessableEntity, moveFormPage(v))
}
