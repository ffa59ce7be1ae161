package admin

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The events pages: the list with its filters, tabs and bulk actions, the
// create and edit form, record actions and translations. Every change goes
// through the models operations with the signed-in user, so a form can do
// exactly what the API allows that user, and is refused the same way.

const (
	eventsPath     = "/admin/events"
	eventsPerPage  = 20
	maxPickerItems = 500
)

// eventPath is the admin path of event id with a suffix ("/edit").
func eventPath(id int64, suffix string) string {
	return eventsPath + "/" + strconv.FormatInt(id, 10) + suffix
}

// listQuery is the state of the events list, kept in its URL.
type listQuery struct {
	Search, Status, When, Category, Tag, Venue, Organizer, Order string
	Desc, Featured                                               bool
	Series                                                       bool // one row per recurring series
	Page                                                         int
}

// The "when" choices of the events list: the admin has no default date
// window, it shows upcoming events first and the past on request.
const (
	whenUpcoming = "upcoming"
	whenPast     = "past"
	whenAll      = "all"
)

func readListQuery(c *fiber.Ctx) listQuery {
	q := listQuery{
		Search: strings.TrimSpace(c.Query("search")), Status: c.Query("status"), When: c.Query("when"),
		Category: c.Query("categories"), Tag: c.Query("tags"), Venue: c.Query("venue"), Organizer: c.Query("organizer"),
		Order: c.Query("orderby"), Desc: c.Query("order") == "desc", Featured: c.Query("featured") == "true",
		Series: c.Query("series") == "1",
	}
	q.Page, _ = strconv.Atoi(c.Query("page"))
	if q.Page < 1 {
		q.Page = 1
	}
	switch q.When {
	case whenPast, whenAll:
	default:
		q.When = whenUpcoming
	}
	switch q.Order {
	case models.OrderTitle, models.OrderModified:
	default:
		q.Order = models.OrderStart
	}
	return q
}

// href is the list URL of q with the changes applied.
func (q listQuery) href(change func(*listQuery)) string {
	if change != nil {
		change(&q)
	}
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("search", q.Search)
	set("status", q.Status)
	if q.When != whenUpcoming {
		set("when", q.When)
	}
	set("categories", q.Category)
	set("tags", q.Tag)
	set("venue", q.Venue)
	set("organizer", q.Organizer)
	if q.Featured {
		set("featured", "true")
	}
	if q.Series {
		set("series", "1")
	}
	if q.Order != models.OrderStart {
		set("orderby", q.Order)
	}
	if q.Desc {
		set("order", "desc")
	}
	if q.Page > 1 {
		set("page", strconv.Itoa(q.Page))
	}
	if len(v) == 0 {
		return eventsPath
	}
	return eventsPath + "?" + v.Encode()
}

// filter is the models filter of q for u's list in lang (a filter that
// cannot be read is a *ui.FilterError).
func (q listQuery) filter(now time.Time, lang string) (models.EventFilter, error) {
	f := models.EventFilter{Page: q.Page, PerPage: eventsPerPage, Lang: lang, IncludeHidden: true,
		Order: q.Order, Desc: q.Desc}
	if q.Status != "" {
		f.Statuses = []string{q.Status}
	}
	switch q.When {
	case whenUpcoming:
		f.EndsAfter = &now
	case whenPast:
		f.EndsBefore = &now
		if q.Order == models.OrderStart {
			f.Desc = !q.Desc // the most recent first
		}
	}
	raw := map[string]string{"categories": q.Category, "tags": q.Tag, "venue": q.Venue, "organizer": q.Organizer,
		"search": q.Search}
	if err := ui.ParseEventFilter(func(k string) string { return raw[k] }, &f); err != nil {
		return f, err
	}
	if q.Featured {
		yes := true
		f.Featured = &yes
	}
	if q.Series {
		f.Recurrence = models.RecurrenceSeries
	}
	return f, nil
}

func (h *handler) eventsList(c *fiber.Ctx) error {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lay := h.layoutFor(c, "admin.events.title")
	lang, t := lay.Lang, lay.T
	q := readListQuery(c)
	v := eventListView{Layout: lay, Q: q, Access: models.ListAccess(u, models.KindEvent), Trash: q.Status == models.StatusTrash,
		ClearHref: eventsPath}
	f, ferr := q.filter(h.d.Site.Now(), lang)
	var page *models.Page[models.Event]
	if ferr == nil {
		page, ferr = h.d.DB.ListEvents(ctx, u, f)
	}
	if ferr != nil {
		if v.FilterError, ferr = h.filterError(lang, ferr); ferr != nil {
			return ferr
		}
		page = &models.Page[models.Event]{}
	}
	tabs, err := h.eventTabs(c, lang, q, v.Access, t)
	if err != nil {
		return err
	}
	v.Tabs, v.Rows = tabs, h.eventListRows(lang, page.Items)
	pages := (page.Total + eventsPerPage - 1) / eventsPerPage
	v.TotalText = h.d.I18n.T(lang, "admin.list.total", map[string]any{"Count": page.Total})
	if pages > 1 {
		v.PageText = h.d.I18n.T(lang, "admin.list.page", map[string]any{"Page": q.Page, "Pages": pages})
	}
	if q.Page > 1 {
		v.PrevHref = q.href(func(x *listQuery) { x.Page-- })
	}
	if q.Page < pages {
		v.NextHref = q.href(func(x *listQuery) { x.Page++ })
	}
	for _, w := range []string{whenUpcoming, whenPast, whenAll} {
		v.Whens = append(v.Whens, option{Value: w, Label: t("admin.events.when." + w), Selected: q.When == w})
	}
	for _, o := range []string{models.OrderStart, models.OrderTitle, models.OrderModified} {
		v.Orders = append(v.Orders, option{Value: o, Label: t("admin.events.order." + o), Selected: q.Order == o})
	}
	if v.Categories, v.Tags, v.Venues, v.Organizers, err = h.filterOptions(c, lang, q.Category, q.Tag, q.Venue, q.Organizer); err != nil {
		return err
	}
	v.Bulk = h.bulkActions(lang, v.Trash, v.Access)
	return render(c, fiber.StatusOK, eventsListPage(v))
}

// eventTabs are the events list's status tabs with their counts.
func (h *handler) eventTabs(c *fiber.Ctx, lang string, q listQuery, access models.AdminListAccess, t func(string) string) ([]statusTab, error) {
	ctx, u := c.UserContext(), ui.UserOf(c)
	var tabs []statusTab
	counts, err := h.d.DB.CountPosts(ctx, u)
	if err != nil {
		return nil, err
	}
	all := 0
	for _, n := range counts[models.KindEvent] {
		all += n
	}
	tabs = append(tabs, statusTab{Label: t("admin.events.tab.all"), Count: i18n.Number(lang, all), Current: q.Status == "",
		Href: q.href(func(x *listQuery) { x.Status, x.Page = "", 1 })})
	if access.Statuses {
		for _, s := range statusOrder {
			st := s.Status
			tabs = append(tabs, statusTab{Label: t(s.LabelID), Status: st, Count: i18n.Number(lang, counts[models.KindEvent][st]),
				Current: q.Status == st, Href: q.href(func(x *listQuery) { x.Status, x.Page = st, 1 })})
		}
		trash, err := h.d.DB.ListEvents(ctx, u, models.EventFilter{Statuses: []string{models.StatusTrash}, PerPage: 1, IncludeHidden: true})
		if err != nil {
			return nil, err
		}
		tabs = append(tabs, statusTab{Label: t("admin.status.trash"), Status: models.StatusTrash, Count: i18n.Number(lang, trash.Total),
			Current: q.Status == models.StatusTrash, Href: q.href(func(x *listQuery) { x.Status, x.Page = models.StatusTrash, 1 })})
	}
	return tabs, nil
}

// eventListRows are the rows of the events list.
func (h *handler) eventListRows(lang string, items []*models.Event) []eventListRow {
	var rows []eventListRow
	for _, r := range h.eventRows(lang, items, false) {
		rows = append(rows, eventListRow{eventRow: r})
	}
	for i, e := range items {
		row := &rows[i]
		row.Hidden, row.Featured, row.Trashed = e.HideFromListings, e.Featured, e.Status == models.StatusTrash
		row.Series, row.Exception = e.Recurring(), e.IsException
		names := make([]string, len(e.Categories))
		for j, cat := range e.Categories {
			names[j] = cat.Name
		}
		row.Categories = strings.Join(names, listSeparator(lang))
		row.MissingLangs = missingLangs(e.Lang, e.Translations)
	}
	return rows
}

// filterError is the message of a filter that cannot be used (one the URL
// cannot spell, or one that names nothing), shown above the events of the
// list and the calendar; any other error is returned.
func (h *handler) filterError(lang string, err error) (string, error) {
	if msg, _, ok := ui.FilterMessage(h.d.I18n, lang, err); ok {
		return msg, nil
	}
	return "", err
}
