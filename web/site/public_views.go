package site

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/partcache"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The views of /events/: list (upcoming, or past with ?past=1), month
// (?view=month&month=YYYY-MM), day (?view=day&date=YYYY-MM-DD) and photo
// (?view=photo), each with the filter bar and the subscribe links of its
// filters. Server-rendered, no JavaScript; the view bodies are components
// of their own (viewBody), apart from the page shell.

// The views' names, as ?view= takes them.
const (
	viewList  = "list"
	viewMonth = "month"
	viewDay   = "day"
	viewPhoto = "photo"
)

// views lists the views in the order of the view switcher.
var views = []string{viewList, viewMonth, viewDay, viewPhoto}

// monthPerDay is how many events a day of the month grid shows before its
// "+N more".
const monthPerDay = 4

// viewArgs are the query arguments that choose a view's page rather than
// filter it.
var viewArgs = []string{"view", "past", "month", "date", "page"}

// viewQuery is the query of the request being answered.
type viewQuery struct {
	c    *fiber.Ctx
	path string
	q    url.Values
}

func newViewQuery(c *fiber.Ctx) viewQuery {
	q := url.Values{}
	c.Request().URI().QueryArgs().VisitAll(func(k, v []byte) { q.Set(string(k), string(v)) })
	return viewQuery{c: c, path: c.Path(), q: q}
}

// with is the page's URL with set's arguments set ("" deletes one) and
// the page number dropped.
func (vq viewQuery) with(set ...string) string {
	q := url.Values{}
	for k, v := range vq.q {
		q[k] = v
	}
	q.Del("page")
	for i := 0; i+1 < len(set); i += 2 {
		if set[i+1] == "" {
			q.Del(set[i])
		} else {
			q.Set(set[i], set[i+1])
		}
	}
	if len(q) == 0 {
		return vq.path
	}
	return vq.path + "?" + q.Encode()
}

// filterArgs are the page's filter arguments alone (for the feed).
func (vq viewQuery) filterArgs() url.Values {
	q := url.Values{}
	for k, v := range vq.q {
		q[k] = v
	}
	for _, a := range viewArgs {
		q.Del(a)
	}
	q.Del("vq")
	q.Del("oq")
	return q
}

// parseViewFilter reads the filters of the views and the feeds: those of
// ui.ParseEventFilter.
func parseViewFilter(c *fiber.Ctx, f *models.EventFilter) error {
	return ui.ParseEventFilter(func(k string) string { return c.Query(k) }, f)
}

// publicEvents is /events/: the view ?view= names (the list by default).
func (h *handler) publicEvents(c *fiber.Ctx, lang string) error {
	var f models.EventFilter
	if err := parseViewFilter(c, &f); err != nil {
		return h.listError(c, lang, err)
	}
	f.Lang = lang
	view := c.Query("view", viewList)
	vq := newViewQuery(c)
	v, err := h.viewFrame(c, lang, view, vq, f)
	if err != nil {
		return h.listError(c, lang, err)
	}
	switch view {
	case viewList, viewPhoto:
		err = h.listView(c, lang, &v, vq, f)
	case viewMonth:
		err = h.monthView(c, lang, &v, vq, f)
	case viewDay:
		err = h.dayView(c, lang, &v, vq, f)
	default:
		return h.notFound(c, lang)
	}
	if err != nil {
		return h.listError(c, lang, err)
	}
	// Filtered or empty views are not for search engines, nor are the
	// links on them (issue 20).
	if filtered(c) || v.Frame.Robots != "" {
		v.Frame.Robots = noindex + ", nofollow"
	}
	return h.renderPublic(c, fiber.StatusOK, publicViewPage(v))
}

// viewFrame is what every view shows around its events: the frame, the
// view switcher, the filter bar and the subscribe links.
func (h *handler) viewFrame(c *fiber.Ctx, lang, view string, vq viewQuery, f models.EventFilter) (viewPage, error) {
	t := func(id string) string { return h.d.I18n.T(lang, id, nil) }
	v := viewPage{View: view, Frame: h.frame(lang, "/events/", t("public.events.title"), t("public.events.lead"))}
	filterRel := ""
	if len(vq.filterArgs()) > 0 {
		filterRel = "nofollow"
	}
	for _, name := range views {
		set := []string{"view", name, "month", "", "date", "", "past", ""}
		if name == viewList {
			set[1] = ""
		}
		v.Tabs = append(v.Tabs, viewTab{Label: t("public.view." + name), Href: vq.with(set...), Current: name == view, Rel: filterRel})
	}
	v.FilterRel = filterRel
	bar, err := h.filterBar(c, lang, vq, f)
	if err != nil {
		return v, err
	}
	v.Filters = bar
	v.Subscribe = h.subscribeLinks(lang, vq.filterArgs())
	return v, nil
}

// subscribeLinks are the subscribe links of the feed with args (the
// filters): Google Calendar, Outlook (live and 365), Apple or any app
// (webcal://) and the .ics file.
func (h *handler) subscribeLinks(lang string, args url.Values) []link {
	t := func(id string) string { return h.d.I18n.T(lang, id, nil) }
	ics := h.d.PageURL(lang, "/events.ics")
	if len(args) > 0 {
		ics += "?" + args.Encode()
	}
	webcal := ui.WebcalURL(ics)
	name := t("public.site_name")
	return []link{
		{t("public.sub.google"), "https://calendar.google.com/calendar/r?cid=" + url.QueryEscape(webcal)},
		{t("public.sub.outlook"), "https://outlook.live.com/calendar/0/addfromweb?url=" + url.QueryEscape(ics) + "&name=" + url.QueryEscape(name)},
		{t("public.sub.outlook365"), "https://outlook.office.com/calendar/0/addfromweb?url=" + url.QueryEscape(ics) + "&name=" + url.QueryEscape(name)},
		{t("public.sub.apple"), webcal},
		{t("public.add.ics"), ics},
	}
}

// listView fills the list (grouped by day) and the photo grid: upcoming
// events, or with ?past=1 those that have ended, newest first; pages of
// publicPerPage.
func (h *handler) listView(c *fiber.Ctx, lang string, v *viewPage, vq viewQuery, f models.EventFilter) error {
	page, ok := queryInt(c, "page", 1)
	if !ok {
		return errBadPage
	}
	t := v.Frame.T
	now := h.d.Site.Now()
	past := c.Query("past") != ""
	f.Page, f.PerPage = page, publicPerPage
	if past {
		f.EndsBefore, f.Desc = &now, true
		v.Frame.Title, v.None = t("public.events.past_title"), t("public.events.past_none")
		v.Switch = link{t("public.events.upcoming_link"), vq.with("past", "")}
	} else {
		f.EndsAfter, v.None = &now, t("public.events.none")
		v.Switch = link{t("public.events.past_link"), vq.with("past", "1")}
	}
	p, err := h.d.DB.ListEvents(c.UserContext(), actor(c), f)
	if err != nil {
		return err
	}
	of := (p.Total + publicPerPage - 1) / publicPerPage
	if page > max(of, 1) {
		return errBadPage
	}
	cards, err := h.viewCards(c, lang, p.Items)
	if err != nil {
		return err
	}
	if v.View == viewPhoto {
		v.Photos = cards
	} else {
		v.Days = h.groupByDay(lang, cards, past)
	}
	v.Pager = h.pager(vq, page, of)
	if len(cards) == 0 {
		v.Frame.Robots = noindex
	}
	return v.Frame.withJSONLD(itemList(v.Frame.Title, v.Frame.Canonical, cards))
}

// pager links the pages before and after page of of.
func (h *handler) pager(vq viewQuery, page, of int) publicPager {
	p := publicPager{Page: page, Of: of}
	at := func(n int) string {
		u := vq.with()
		if n > 1 {
			if strings.Contains(u, "?") {
				u += "&"
			} else {
				u += "?"
			}
			u += "page=" + strconv.Itoa(n)
		}
		return u
	}
	if page > 1 {
		p.Prev = at(page - 1)
	}
	if page < of {
		p.Next = at(page + 1)
	}
	return p
}

// groupByDay puts cards under the day they start (in the site's zone); an
// upcoming event that started before today goes under today.
func (h *handler) groupByDay(lang string, cards []eventCard, past bool) []dayGroup {
	zone := h.d.Site.Zone()
	now := h.d.Site.Now().In(zone)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, zone)
	var out []dayGroup
	for _, cd := range cards {
		s := cd.Start.In(zone)
		day := time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, zone)
		if !past && day.Before(today) {
			day = today
		}
		key := day.Format(time.DateOnly)
		if len(out) == 0 || out[len(out)-1].Date != key {
			out = append(out, dayGroup{Date: key, Heading: ui.FormatDate(lang, day)})
		}
		out[len(out)-1].Cards = append(out[len(out)-1].Cards, cd)
	}
	return out
}

// dayView is one day's events by time, in pages of publicPerPage;
// previous and next lead to the nearest day with events.
func (h *handler) dayView(c *fiber.Ctx, lang string, v *viewPage, vq viewQuery, f models.EventFilter) error {
	page, ok := queryInt(c, "page", 1)
	if !ok {
		return errBadPage
	}
	zone := h.d.Site.Zone()
	now := h.d.Site.Now().In(zone)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, zone)
	if s := c.Query("date"); s != "" {
		d, err := time.ParseInLocation(time.DateOnly, s, zone)
		if err != nil || d.Year() < 1970 || d.Year() > 9999 {
			return errBadPage
		}
		day = d
	}
	next := day.AddDate(0, 0, 1)
	g := f
	g.EndsAfter, g.StartsBefore, g.Page, g.PerPage = &day, &next, page, publicPerPage
	p, err := h.d.DB.ListEvents(c.UserContext(), actor(c), g)
	if err != nil {
		return err
	}
	of := (p.Total + publicPerPage - 1) / publicPerPage
	if page > max(of, 1) {
		return errBadPage
	}
	cards, err := h.viewCards(c, lang, p.Items)
	if err != nil {
		return err
	}
	v.DayTitle, v.None = ui.FormatDate(lang, day), h.d.I18n.T(lang, "public.day.none", nil)
	v.Days = []dayGroup{{Date: day.Format(time.DateOnly), Heading: v.DayTitle, Cards: cards}}
	if len(cards) == 0 {
		v.Days = nil
		v.Frame.Robots = noindex
	}
	v.Pager = h.pager(vq, page, of)
	prev, nextDay, err := h.nearestDays(c, f, day, next)
	if err != nil {
		return err
	}
	if !prev.IsZero() {
		v.DayPrev = vq.with("date", prev.Format(time.DateOnly))
	}
	if !nextDay.IsZero() {
		v.DayNext = vq.with("date", nextDay.Format(time.DateOnly))
	}
	return nil
}

// nearestDays are the nearest days before day and from next on with an
// event f selects (zero when there is none): the next is the day the
// first event starting from next starts; the previous the day before
// when an event runs on it, else the day the last event starting before
// day starts.
func (h *handler) nearestDays(c *fiber.Ctx, f models.EventFilter, day, next time.Time) (prev, after time.Time, err error) {
	zone := day.Location()
	dayOf := func(t time.Time) time.Time {
		t = t.In(zone)
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, zone)
	}
	one := func(g models.EventFilter) (*models.Event, error) {
		g.Page, g.PerPage, g.Bare, g.SkipTotal = 1, 1, false, true
		p, err := h.d.DB.ListEvents(c.UserContext(), actor(c), g)
		if err != nil || len(p.Items) == 0 {
			return nil, err
		}
		return p.Items[0], nil
	}
	g := f
	g.StartMin = &next
	e, err := one(g)
	if err != nil {
		return prev, after, err
	}
	if e != nil {
		after = dayOf(e.StartAt)
	}
	before := day.AddDate(0, 0, -1)
	g = f
	g.EndsAfter, g.StartsBefore = &before, &day
	if e, err = one(g); err != nil {
		return prev, after, err
	}
	if e != nil {
		return before, after, nil
	}
	g = f
	g.StartsBefore, g.Desc = &before, true
	if e, err = one(g); err != nil || e == nil {
		return prev, after, err
	}
	return dayOf(e.StartAt), after, nil
}

// monthView is the month grid: each day its first monthPerDay events with
// their start times, then "+N more" to the day view, N from the exact
// per-day counts (one grouped query, models.DayCounts).
func (h *handler) monthView(c *fiber.Ctx, lang string, v *viewPage, vq viewQuery, f models.EventFilter) error {
	zone := h.d.Site.Zone()
	now := h.d.Site.Now().In(zone)
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, zone)
	if m := c.Query("month"); m != "" {
		t, err := time.ParseInLocation("2006-01", m, zone)
		if err != nil || t.Year() < 1970 || t.Year() > 9999 {
			return errBadPage
		}
		start = t
	}
	at, current := monthIndex(start), monthIndex(now)
	lo, hi, err := h.monthRange(c, zone, current)
	if err != nil {
		return err
	}
	if at != current && (at < lo || at > hi) {
		return errBadPage
	}
	prev, next := monthNeighbours(at, lo, hi)
	if prev >= 0 {
		v.MonthPrev = vq.with("month", monthArg(prev))
	}
	if next >= 0 {
		v.MonthNext = vq.with("month", monthArg(next))
	}
	n := start.AddDate(0, 1, -1).Day()
	days := make([]time.Time, n+1)
	for k := range days {
		days[k] = time.Date(start.Year(), start.Month(), 1+k, 0, 0, 0, 0, zone)
	}
	counts, firsts, err := h.d.DB.MonthDays(c.UserContext(), actor(c), f, days, monthPerDay)
	if err != nil {
		return err
	}
	m, total := h.monthGrid(lang, vq, start, now, days, counts, firsts)
	v.Month = m
	if total == 0 {
		v.Frame.Robots = noindex
	}
	return nil
}

// viewCards shapes events for the list, day and photo views: times in
// the site's zone (and the event's own when it differs), the featured
// image with the library's sizes, venue and city, categories, cost.
func (h *handler) viewCards(c *fiber.Ctx, lang string, events []*models.Event) ([]eventCard, error) {
	var ids []int64
	for _, e := range events {
		if id := models.MediaIDOf(e.ImageURL); id != 0 {
			ids = append(ids, id)
		}
	}
	media, err := h.d.DB.MediaOf(c.UserContext(), ids)
	if err != nil {
		return nil, err
	}
	zone := h.d.Site.Zone()
	out := make([]eventCard, len(events))
	for i, e := range events {
		cd := eventCard{Title: e.Title, URL: h.d.PageURL(lang, "/event/"+url.PathEscape(e.Slug)+"/"), Start: e.StartAt,
			When: h.timeRange(lang, e, zone), Featured: e.Featured, Cost: h.eventCost(lang, e)}
		cd.Date = ui.FormatDate(lang, e.StartAt.In(zone))
		if own := h.zoneOf(e); !sameOffset(own, zone, e.StartAt) {
			cd.OwnWhen = h.timeRange(lang, e, own) + " " + models.ZoneAbbr(e.Timezone, own, e.StartAt)
		}
		if len(e.Venues) > 0 {
			cd.Venue, cd.City = e.Venues[0].Venue, e.Venues[0].City
			if cd.City != "" {
				cd.Venue = venueWithCity(lang, cd.Venue, cd.City)
			}
		}
		for _, t := range e.Categories {
			cd.Chips = append(cd.Chips, link{t.Name, h.d.PageURL(lang, "/events/category/"+url.PathEscape(t.Slug)+"/")})
		}
		if len(e.Categories) > 0 {
			cd.Placeholder = e.Categories[0].Name
		}
		cd.Image = cardImageOf(e.ImageURL, media[models.MediaIDOf(e.ImageURL)])
		if cd.Image != nil {
			// The first cards are in the first screen: loaded at once
			// (their size is known, so nothing moves either way).
			cd.Image.Loading = "lazy"
			if i < 4 {
				cd.Image.Loading = "eager"
			}
		}
		out[i] = cd
	}
	return out, nil
}

// sameOffset reports whether two zones have the same offset at t.
func sameOffset(a, b *time.Location, t time.Time) bool {
	_, x := t.In(a).Zone()
	_, y := t.In(b).Zone()
	return x == y
}

// timeRange is an event's times in zone: the start and end times on one
// day, dates with them across days, "All day" for an all-day event.
func (h *handler) timeRange(lang string, e *models.Event, zone *time.Location) string {
	s, end := e.StartAt.In(zone), e.EndAt.In(zone)
	sameDay := s.Year() == end.Year() && s.YearDay() == end.YearDay()
	switch {
	case e.AllDay && sameDay:
		return h.d.I18n.T(lang, "public.all_day", nil)
	case e.AllDay:
		return ui.FormatShortDate(lang, s) + " – " + ui.FormatShortDate(lang, end)
	case sameDay:
		return ui.FormatTime(lang, s) + " – " + ui.FormatTime(lang, end)
	}
	return ui.FormatShortDate(lang, s) + " " + ui.FormatTime(lang, s) + " – " + ui.FormatShortDate(lang, end) + " " + ui.FormatTime(lang, end)
}

// cardImageOf is the image of a card: a library image with its sizes
// (srcset) and the dimensions of the size shown, an external one as it
// is (shown in a fixed aspect-ratio box), or nil for none.
func cardImageOf(imageURL string, m *models.Media) *cardImage {
	if imageURL == "" {
		return nil
	}
	if m == nil {
		if models.MediaIDOf(imageURL) != 0 {
			return nil // a library image since deleted
		}
		if !strings.HasPrefix(imageURL, "https://") && !strings.HasPrefix(imageURL, "/") {
			return nil // http: would be blocked as mixed content
		}
		return &cardImage{Src: imageURL, Width: 300, Height: 200, External: true}
	}
	img := &cardImage{Src: m.Path("full"), Width: m.Width, Height: m.Height, Alt: m.AltText}
	var set []string
	for _, f := range m.Files {
		if f.Size == "thumbnail" { // a square crop: another picture
			continue
		}
		set = append(set, m.Path(f.Size)+" "+strconv.Itoa(f.Width)+"w")
		if f.Size == "medium" {
			img.Src, img.Width, img.Height = m.Path(f.Size), f.Width, f.Height
		}
	}
	if len(set) > 1 {
		img.Srcset = strings.Join(set, ", ")
	}
	return img
}

// tecViews are TEC's view addresses, answered 301 to ours for sites that
// move in: the path after /events/ and the query it becomes.
func (h *handler) tecView(set func(c *fiber.Ctx, q url.Values) bool) func(c *fiber.Ctx, lang string) error {
	return func(c *fiber.Ctx, lang string) error {
		q := url.Values{}
		c.Request().URI().QueryArgs().VisitAll(func(k, v []byte) { q.Set(string(k), string(v)) })
		if !set(c, q) {
			return h.notFound(c, lang)
		}
		to := h.d.PageURL(lang, "/events/")
		if len(q) > 0 {
			to += "?" + q.Encode()
		}
		return c.Redirect(to, fiber.StatusMovedPermanently)
	}
}

// registerTECViews mounts TEC's view addresses under pre.
func (h *handler) registerTECViews(app *fiber.App, pre string, with func(langHandler) fiber.Handler) {
	app.Get(pre+"/events/list", with(h.tecView(func(*fiber.Ctx, url.Values) bool { return true })))
	app.Get(pre+"/events/photo", with(h.tecView(func(_ *fiber.Ctx, q url.Values) bool { q.Set("view", viewPhoto); return true })))
	app.Get(pre+"/events/month", with(h.tecView(func(_ *fiber.Ctx, q url.Values) bool { q.Set("view", viewMonth); return true })))
	app.Get(pre+"/events/month/:ym", with(h.tecView(func(c *fiber.Ctx, q url.Values) bool {
		if _, err := time.Parse("2006-01", c.Params("ym")); err != nil {
			return false
		}
		q.Set("view", viewMonth)
		q.Set("month", c.Params("ym"))
		return true
	})))
	app.Get(pre+"/events/today", with(h.tecView(func(_ *fiber.Ctx, q url.Values) bool { q.Set("view", viewDay); return true })))
	app.Get(pre+"/events/:date", with(h.tecView(func(c *fiber.Ctx, q url.Values) bool {
		if _, err := time.Parse(time.DateOnly, c.Params("date")); err != nil {
			return false
		}
		q.Set("view", viewDay)
		q.Set("date", c.Params("date"))
		return true
	})))
}

// filterListCap is how many venues or organizers the filter bar lists; a
// search box narrows them beyond.
const filterListCap = 50

// filterBar reads what the filter bar offers: the category tree, the
// tags, and the first published venues and organizers (or those a search
// box's words find), the current ones selected.
func (h *handler) filterBar(c *fiber.Ctx, lang string, vq viewQuery, f models.EventFilter) (filterBar, error) {
	ctx := c.UserContext()
	b := filterBar{Search: c.Query("search"), Featured: f.Featured != nil && *f.Featured,
		VenueQuery: c.Query("vq"), OrganizerQuery: c.Query("oq")}
	for _, k := range []string{"view", "past", "month", "date"} {
		if s := vq.q.Get(k); s != "" {
			b.Keep = append(b.Keep, link{k, s})
		}
	}
	lists, err := h.filterLists(ctx, lang, b.VenueQuery, b.OrganizerQuery)
	if err != nil {
		return b, err
	}
	pick := func(opts []filterOption, current string) []filterOption {
		out := make([]filterOption, len(opts))
		for i, o := range opts {
			o.Selected = current != "" && (current == o.Value || current == o.ID)
			out[i] = o
		}
		return out
	}
	b.Categories = pick(lists.Categories, vq.q.Get("categories"))
	b.Tags = pick(lists.Tags, vq.q.Get("tags"))
	b.Venues = pick(lists.Venues, vq.q.Get("venue"))
	b.Organizers = pick(lists.Organizers, vq.q.Get("organizer"))
	b.VenueSearch = lists.MoreVenues || b.VenueQuery != ""
	b.OrganizerSearch = lists.MoreOrganizers || b.OrganizerQuery != ""
	return b, h.keepSelected(ctx, lang, f, &b)
}

// filterLists are the options of the filter bar before any is selected.
type filterLists struct {
	Categories, Tags, Venues, Organizers []filterOption
	// MoreVenues and MoreOrganizers: more published records than listed.
	MoreVenues, MoreOrganizers bool
}

// filterLists reads the bar's options in lang, with the venues and
// organizers a search box's words find (the first published ones when
// empty). Without words they depend only on the site's data and the
// language, so they are kept in the parts cache (when there is one) until
// the next write on any instance, as the API's records are: every view of
// every visitor shows the same four lists.
func (h *handler) filterLists(ctx context.Context, lang, venueQuery, organizerQuery string) (filterLists, error) {
	var lists filterLists
	key := partcache.Key{Shape: "site/filter-lists", Lang: lang}
	gen, cached := h.d.Parts.Generation(ctx)
	cached = cached && venueQuery == "" && organizerQuery == ""
	if cached {
		if body := h.d.Parts.Get(key, gen); body != nil && json.Unmarshal(body, &lists) == nil {
			return lists, nil
		}
	}
	if err := h.filterTerms(ctx, lang, &lists); err != nil {
		return lists, err
	}
	linked := func(query string, list func(models.LinkedFilter) ([]filterOption, int, error)) ([]filterOption, bool, error) {
		lf := models.LinkedFilter{PerPage: filterListCap, Lang: lang}
		if query != "" {
			lf.Words = models.SearchWords(query)
		}
		opts, total, err := list(lf)
		return opts, total > filterListCap, err
	}
	var err error
	lists.Venues, lists.MoreVenues, err = linked(venueQuery, func(lf models.LinkedFilter) ([]filterOption, int, error) {
		p, err := h.d.DB.Venues().List(ctx, nil, lf)
		if err != nil {
			return nil, 0, err
		}
		out := make([]filterOption, len(p.Items))
		for i, vn := range p.Items {
			out[i] = filterOption{Value: strconv.FormatInt(vn.ID, 10), Label: vn.Venue}
		}
		return out, p.Total, nil
	})
	if err != nil {
		return lists, err
	}
	lists.Organizers, lists.MoreOrganizers, err = linked(organizerQuery, func(lf models.LinkedFilter) ([]filterOption, int, error) {
		p, err := h.d.DB.Organizers().List(ctx, nil, lf)
		if err != nil {
			return nil, 0, err
		}
		out := make([]filterOption, len(p.Items))
		for i, o := range p.Items {
			out[i] = filterOption{Value: strconv.FormatInt(o.ID, 10), Label: o.Organizer}
		}
		return out, p.Total, nil
	})
	if err != nil {
		return lists, err
	}
	if cached {
		if body, err := json.Marshal(lists); err == nil {
			h.d.Parts.Put(key, gen, body)
		}
	}
	return lists, nil
}

func hasSelected(opts []filterOption) bool {
	for _, o := range opts {
		if o.Selected {
			return true
		}
	}
	return false
}

// venueWithCity is a venue's name with its city, as lang writes the pair:
// the city in full-width parentheses in Chinese and Japanese, after a
// comma otherwise.
func venueWithCity(lang, venue, city string) string {
	switch lang {
	case "ja", "zh-hans":
		return venue + "（" + city + "）"
	}
	return venue + ", " + city
}

// monthGrid lays out the month starting at start as weeks of days, each
// in-month day with its first events and "+N more" (counts and firsts as
// DayCounts and FirstEventsOfDays give them); total is the month's
// events, multi-day ones counted on each of their days.
func (h *handler) monthGrid(lang string, vq viewQuery, start, now time.Time, days []time.Time, counts []int, firsts [][]*models.Event) (*monthGrid, int) {
	zone := start.Location()
	n := len(counts)
	names, first := ui.WeekdayNames(lang)
	m := &monthGrid{Title: monthTitle(lang, start), Weekdays: names}
	lead := (int(start.Weekday()) - int(first) + 7) % 7
	total := 0
	for i := range (lead + n + 6) / 7 * 7 {
		if i%7 == 0 {
			m.Weeks = append(m.Weeks, nil)
		}
		k := i - lead
		d := monthDay{}
		if k >= 0 && k < n {
			day := days[k]
			d = monthDay{Day: k + 1, In: true, Date: day.Format(time.DateOnly), Label: ui.FormatDate(lang, day),
				Today: day.Format(time.DateOnly) == now.Format(time.DateOnly), Count: counts[k]}
			if counts[k] > 0 {
				d.Href = vq.with("view", viewDay, "month", "", "date", d.Date)
			}
			for _, e := range firsts[k] {
				me := monthEvent{Title: e.Title, Href: h.d.PageURL(lang, "/event/"+url.PathEscape(e.Slug)+"/")}
				if s := e.StartAt.In(zone); !e.AllDay && !s.Before(day) {
					me.Time = ui.FormatTime(lang, s)
				}
				d.Events = append(d.Events, me)
			}
			if more := counts[k] - len(d.Events); more > 0 {
				d.More = more
				d.MoreText = h.d.I18n.T(lang, "public.month.more", map[string]any{"Count": more})
				d.MoreLabel = h.d.I18n.T(lang, "public.month.more_label", map[string]any{"Count": more, "Date": d.Label})
			}
			total += counts[k]
		}
		m.Weeks[len(m.Weeks)-1] = append(m.Weeks[len(m.Weeks)-1], d)
	}
	return m, total
}

// filterTerms fills the lists' category tree (children under their
// parents, indented) and tags.
func (h *handler) filterTerms(ctx context.Context, lang string, lists *filterLists) error {
	for _, tax := range []string{models.TaxCategory, models.TaxTag} {
		p, err := h.d.DB.ListTerms(ctx, nil, models.TermFilter{Taxonomy: tax, Lang: lang, PerPage: 200, HideEmpty: true})
		if err != nil {
			return err
		}
		if tax == models.TaxTag {
			for _, t := range p.Items {
				lists.Tags = append(lists.Tags, filterOption{Value: t.Slug, ID: strconv.FormatInt(t.ID, 10), Label: t.Name})
			}
			continue
		}
		children := map[int64][]*models.Term{}
		known := map[int64]bool{}
		for _, t := range p.Items {
			known[t.ID] = true
		}
		for _, t := range p.Items {
			parent := t.ParentID
			if !known[parent] {
				parent = 0
			}
			children[parent] = append(children[parent], t)
		}
		var walk func(parent int64, depth int)
		walk = func(parent int64, depth int) {
			for _, t := range children[parent] {
				lists.Categories = append(lists.Categories, filterOption{Value: t.Slug, ID: strconv.FormatInt(t.ID, 10),
					Label: strings.Repeat("\u3000", depth) + t.Name})
				if depth < 8 {
					walk(t.ID, depth+1)
				}
			}
		}
		walk(0, 0)
	}
	return nil
}

// keepSelected adds the venue or organizer filtered on that the bar's
// list does not hold, selected, so the filter survives the next submit.
func (h *handler) keepSelected(ctx context.Context, lang string, f models.EventFilter, bar *filterBar) error {
	// A venue or organizer filtered on that the list does not hold stays
	// selected, so the filter survives the next submit.
	for _, x := range []struct {
		ids []int64
		dst *[]filterOption
		get func(id int64) (string, error)
	}{
		{f.VenueIDs, &bar.Venues, func(id int64) (string, error) {
			vn, err := h.d.DB.Venues().Get(ctx, nil, models.ByID(id), lang)
			if err != nil {
				return "", err
			}
			return vn.Venue, nil
		}},
		{f.OrganizerIDs, &bar.Organizers, func(id int64) (string, error) {
			o, err := h.d.DB.Organizers().Get(ctx, nil, models.ByID(id), lang)
			if err != nil {
				return "", err
			}
			return o.Organizer, nil
		}},
	} {
		if len(x.ids) != 1 || hasSelected(*x.dst) {
			continue
		}
		name, err := x.get(x.ids[0])
		if hidden(err) {
			continue
		}
		if err != nil {
			return err
		}
		*x.dst = append([]filterOption{{Value: strconv.FormatInt(x.ids[0], 10), Label: name, Selected: true}}, *x.dst...)
	}
	return nil
}
