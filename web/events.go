package web

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
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
	if len([]rune(q.Search)) > models.MaxSearchLen {
		q.Search = string([]rune(q.Search)[:models.MaxSearchLen])
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

// filter is the models filter of q for u's list in lang.
func (q listQuery) filter(now time.Time, lang string) (models.EventFilter, error) {
	f := models.EventFilter{Page: q.Page, PerPage: eventsPerPage, Lang: lang, IncludeHidden: true,
		Search: models.SearchWords(q.Search), Order: q.Order, Desc: q.Desc}
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
	if q.Category != "" {
		id, err := strconv.ParseInt(q.Category, 10, 64)
		if err != nil {
			return f, models.Invalid("categories", "reason.events.unknown_term", nil)
		}
		f.Categories = []models.TermRef{{ID: id}}
	}
	if q.Tag != "" {
		id, err := strconv.ParseInt(q.Tag, 10, 64)
		if err != nil {
			return f, models.Invalid("tags", "reason.events.unknown_term", nil)
		}
		f.Tags = []models.TermRef{{ID: id}}
	}
	if q.Venue != "" {
		id, err := strconv.ParseInt(q.Venue, 10, 64)
		if err != nil {
			return f, models.Invalid("venue", "reason.events.unknown_venue", nil)
		}
		f.VenueIDs = []int64{id}
	}
	if q.Organizer != "" {
		id, err := strconv.ParseInt(q.Organizer, 10, 64)
		if err != nil {
			return f, models.Invalid("organizer", "reason.events.unknown_organizer", nil)
		}
		f.OrganizerIDs = []int64{id}
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

// option is one choice of a select or a group of checkboxes.
type option struct {
	Value, Label string
	Selected     bool
	Depth        int // nesting of a category
}

// statusTab is one tab of a list: a status (or all) with its count.
type statusTab struct {
	Label, Href, Count, Status string
	Current                    bool
}

// eventListRow is one event of the list.
type eventListRow struct {
	eventRow
	Hidden, Featured bool
	Categories       string
	Trashed          bool
	// Series: the event is an occurrence of a recurring series;
	// Exception: one edited on its own.
	Series, Exception bool
	MissingLangs      []string // translations not written yet
}

// eventListView is the events list page.
type eventListView struct {
	Layout      layoutView
	Q           listQuery
	Access      models.AdminListAccess
	Tabs        []statusTab
	Rows        []eventListRow
	TotalText   string
	PageText    string
	PrevHref    string
	NextHref    string
	Whens       []option
	Orders      []option
	Categories  []option
	Tags        []option
	Venues      []option
	Organizers  []option
	Trash       bool
	ClearHref   string
	FilterError string
	Bulk        []option
}

func (h *handler) eventsList(c *fiber.Ctx) error {
	ctx, u := c.UserContext(), userOf(c)
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
	var invalid *models.ValidationError
	switch {
	case errors.As(ferr, &invalid):
		v.FilterError = h.fieldMessages(lang, invalid)
		page = &models.Page[models.Event]{}
	case ferr != nil:
		return ferr
	}
	tabs, err := h.eventTabs(c, q, v.Access, t)
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
func (h *handler) eventTabs(c *fiber.Ctx, q listQuery, access models.AdminListAccess, t func(string) string) ([]statusTab, error) {
	ctx, u := c.UserContext(), userOf(c)
	var tabs []statusTab
	counts, err := h.d.DB.CountPosts(ctx, u)
	if err != nil {
		return nil, err
	}
	all := 0
	for _, n := range counts[models.KindEvent] {
		all += n
	}
	tabs = append(tabs, statusTab{Label: t("admin.events.tab.all"), Count: strconv.Itoa(all), Current: q.Status == "",
		Href: q.href(func(x *listQuery) { x.Status, x.Page = "", 1 })})
	if access.Statuses {
		for _, s := range statusOrder {
			st := s.Status
			tabs = append(tabs, statusTab{Label: t(s.LabelID), Status: st, Count: strconv.Itoa(counts[models.KindEvent][st]),
				Current: q.Status == st, Href: q.href(func(x *listQuery) { x.Status, x.Page = st, 1 })})
		}
		trash, err := h.d.DB.ListEvents(ctx, u, models.EventFilter{Statuses: []string{models.StatusTrash}, PerPage: 1, IncludeHidden: true})
		if err != nil {
			return nil, err
		}
		tabs = append(tabs, statusTab{Label: t("admin.status.trash"), Status: models.StatusTrash, Count: strconv.Itoa(trash.Total),
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

// filterOptions are the choices of the event filters (events list and
// calendar): categories as a tree, tags, venues and organizers, the chosen
// ones marked.
func (h *handler) filterOptions(c *fiber.Ctx, lang, category, tag, venue, organizer string) (cats, tags, venues, orgs []option, err error) {
	if cats, err = h.categoryOptions(c, lang, []string{category}); err != nil {
		return
	}
	if tags, err = h.tagOptions(c, lang, []string{tag}); err != nil {
		return
	}
	if venues, err = h.venueOptions(c, lang, "", venue); err != nil {
		return
	}
	orgs, err = h.organizerOptions(c, lang, "", []string{organizer})
	return
}

// missingLangs lists the languages a record is not yet translated into
// (its source language aside).
func missingLangs(source string, have []string) []string {
	var out []string
	for _, l := range translationLangs() {
		if l == source {
			continue
		}
		found := false
		for _, h := range have {
			found = found || h == l
		}
		if !found {
			out = append(out, l)
		}
	}
	return out
}

// bulkActions are the choices of the bulk form: trash view or not, and
// delete for those who may.
func (h *handler) bulkActions(lang string, trash bool, a models.AdminListAccess) []option {
	var ids []string
	if trash {
		ids = []string{"restore"}
		if a.Delete {
			ids = append(ids, "delete")
		}
	} else {
		ids = []string{"publish", "trash"}
	}
	out := make([]option, len(ids))
	for i, id := range ids {
		out[i] = option{Value: id, Label: h.d.I18n.T(lang, "admin.action."+id, nil)}
	}
	return out
}

// categoryOptions lists the categories as a tree (parents before their
// children, depth for the indent), read in lang, those in selected marked.
func (h *handler) categoryOptions(c *fiber.Ctx, lang string, selected []string) ([]option, error) {
	page, err := h.d.DB.ListTerms(c.UserContext(), userOf(c), models.TermFilter{Taxonomy: models.TaxCategory, Lang: lang,
		PerPage: maxPickerItems})
	if err != nil {
		return nil, err
	}
	children := map[int64][]*models.Term{}
	known := map[int64]bool{}
	for _, t := range page.Items {
		known[t.ID] = true
	}
	for _, t := range page.Items {
		parent := t.ParentID
		if !known[parent] {
			parent = 0
		}
		children[parent] = append(children[parent], t)
	}
	is := map[string]bool{}
	for _, s := range selected {
		is[s] = true
	}
	var out []option
	var walk func(parent int64, depth int)
	walk = func(parent int64, depth int) {
		for _, t := range children[parent] {
			id := strconv.FormatInt(t.ID, 10)
			out = append(out, option{Value: id, Label: t.Name, Selected: is[id], Depth: depth})
			if depth < 8 {
				walk(t.ID, depth+1)
			}
		}
	}
	walk(0, 0)
	return out, nil
}

// tagOptions lists the tags, those in selected marked.
func (h *handler) tagOptions(c *fiber.Ctx, lang string, selected []string) ([]option, error) {
	page, err := h.d.DB.ListTerms(c.UserContext(), userOf(c), models.TermFilter{Taxonomy: models.TaxTag, Lang: lang,
		PerPage: maxPickerItems})
	if err != nil {
		return nil, err
	}
	is := map[string]bool{}
	for _, s := range selected {
		is[s] = true
	}
	out := make([]option, len(page.Items))
	for i, t := range page.Items {
		id := strconv.FormatInt(t.ID, 10)
		out[i] = option{Value: id, Label: t.Name, Selected: is[id]}
	}
	return out, nil
}

// venueOptions lists the venues the user sees whose text has every word of
// search (all of them up to maxPickerItems without), the selected ones
// marked and always kept.
func (h *handler) venueOptions(c *fiber.Ctx, lang, search string, selected ...string) ([]option, error) {
	ops := h.d.DB.Venues()
	label := func(v *models.Venue) string {
		if v.City != "" {
			return v.Venue + " · " + v.City
		}
		return v.Venue
	}
	return pickerOptions(c, ops, lang, search, selected, func(v *models.Venue) int64 { return v.ID }, label)
}

// organizerOptions lists the organizers the user sees as venueOptions does.
func (h *handler) organizerOptions(c *fiber.Ctx, lang, search string, selected []string) ([]option, error) {
	ops := h.d.DB.Organizers()
	return pickerOptions(c, ops, lang, search, selected, func(o *models.Organizer) int64 { return o.ID },
		func(o *models.Organizer) string { return o.Organizer })
}

// pickerMatches bounds the records a picker shows while searching.
const pickerMatches = 50

// pickerOptions lists the records of a linked kind for a picker: those
// matching search (or the first maxPickerItems), with the selected ones
// first when the search leaves them out, so a search never drops a choice.
func pickerOptions[T, In any](c *fiber.Ctx, ops models.Linked[T, In], lang, search string, selected []string,
	id func(*T) int64, label func(*T) string) ([]option, error) {
	ctx, u := c.UserContext(), userOf(c)
	f := models.LinkedFilter{PerPage: maxPickerItems, Lang: lang, Words: models.SearchWords(search)}
	if len(f.Words) > 0 {
		f.PerPage = pickerMatches
	}
	page, err := ops.List(ctx, u, f)
	if err != nil {
		return nil, err
	}
	is := map[string]bool{}
	for _, s := range selected {
		if s != "" {
			is[s] = true
		}
	}
	var out []option
	listed := map[string]bool{}
	for _, rec := range page.Items {
		key := strconv.FormatInt(id(rec), 10)
		listed[key] = true
		out = append(out, option{Value: key, Label: label(rec), Selected: is[key]})
	}
	var kept []option
	for _, s := range selected {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || listed[s] {
			continue
		}
		rec, err := ops.Get(ctx, u, models.ByID(n), lang)
		if err != nil {
			continue // gone or not readable: the save will say so
		}
		listed[s] = true
		kept = append(kept, option{Value: s, Label: label(rec), Selected: true})
	}
	return append(kept, out...), nil
}

// venuePicker answers the venue search of the event form (htmx): the
// select's options for the words typed, the chosen venue kept.
func (h *handler) venuePicker(c *fiber.Ctx) error {
	lay := h.layoutFor(c, "admin.events.title")
	opts, err := h.venueOptions(c, lay.Lang, c.Query("venue_search"), c.Query("venue"))
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, venueSelectOptions(lay, opts))
}

// organizerPicker answers the organizer search of the event form (htmx):
// the checkboxes for the words typed, the checked ones kept.
func (h *handler) organizerPicker(c *fiber.Ctx) error {
	lay := h.layoutFor(c, "admin.events.title")
	var checked []string
	for _, v := range c.Request().URI().QueryArgs().PeekMulti("organizer") {
		checked = append(checked, string(v))
	}
	opts, err := h.organizerOptions(c, lay.Lang, c.Query("organizer_search"), checked)
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, organizerChecks(lay, opts))
}

// fieldMessages joins the messages of a validation error in lang.
func (h *handler) fieldMessages(lang string, e *models.ValidationError) string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = h.d.I18n.T(lang, f.Reason, f.Data)
	}
	return strings.Join(parts, " ")
}

// recordID reads the :id of a record path (404 when it is not a number).
func recordID(c *fiber.Ctx) (int64, error) {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fiber.ErrNotFound
	}
	return id, nil
}

// eventAction runs one record action (trash, restore, delete, duplicate)
// and goes back to the list (or, for a duplicate, to the copy's form).
func (h *handler) eventAction(c *fiber.Ctx) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	ctx, u, lang := c.UserContext(), userOf(c), h.pickLang(c)
	back := safeBack(c.FormValue("back"), eventsPath)
	switch c.Params("action") {
	case "trash":
		_, err = h.d.DB.TrashEvent(ctx, u, models.ByID(id), lang)
	case "restore":
		draft := models.StatusDraft
		_, err = h.d.DB.UpdateEvent(ctx, u, models.ByID(id), models.EventInput{PostInput: models.PostInput{Status: &draft}})
	case "delete":
		_, err = h.d.DB.DeleteEvent(ctx, u, models.ByID(id), lang)
	case "duplicate":
		var e *models.Event
		if e, err = h.d.DB.DuplicateEvent(ctx, u, models.ByID(id)); err == nil {
			h.setFlash(c, "event_duplicated")
			return c.Redirect(eventPath(e.ID, "/edit"), fiber.StatusSeeOther)
		}
	default:
		return fiber.ErrNotFound
	}
	if err != nil {
		return err
	}
	h.setFlash(c, "event_"+c.Params("action"))
	return c.Redirect(back, fiber.StatusSeeOther)
}

// eventsBulk applies one action to the selected events; each goes through
// its own operation, so a refusal of one does not stop the others, and the
// flash says how many were done.
func (h *handler) eventsBulk(c *fiber.Ctx) error {
	ctx, u, lang := c.UserContext(), userOf(c), h.pickLang(c)
	status := func(st string) func(id int64) error {
		return func(id int64) error {
			_, err := h.d.DB.UpdateEvent(ctx, u, models.ByID(id), models.EventInput{PostInput: models.PostInput{Status: &st}})
			return err
		}
	}
	return h.bulk(c, safeBack(c.FormValue("back"), eventsPath), map[string]func(int64) error{
		"publish": status(models.StatusPublish),
		"restore": status(models.StatusDraft),
		"trash":   func(id int64) error { _, err := h.d.DB.TrashEvent(ctx, u, models.ByID(id), lang); return err },
		"delete":  func(id int64) error { _, err := h.d.DB.DeleteEvent(ctx, u, models.ByID(id), lang); return err },
	})
}

// bulk runs the posted action on each posted id, each through its own
// operation, so a refusal of one does not stop the others; the flash says
// how many were done and how many refused. An unknown action is 400.
func (h *handler) bulk(c *fiber.Ctx, back string, actions map[string]func(id int64) error) error {
	do, ok := actions[c.FormValue("action")]
	if !ok {
		return fiber.ErrBadRequest
	}
	done, failed := 0, 0
	for _, raw := range c.Request().PostArgs().PeekMulti("ids") {
		id, perr := strconv.ParseInt(string(raw), 10, 64)
		if perr != nil {
			failed++
			continue
		}
		switch err := do(id); {
		case err == nil:
			done++
		case errors.Is(err, models.ErrForbidden), errors.Is(err, models.ErrNotFound), errors.Is(err, models.ErrInvalid):
			failed++
		default:
			return err
		}
	}
	h.setFlashCount(c, "bulk_done", done, failed)
	return c.Redirect(back, fiber.StatusSeeOther)
}

// safeBack is a same-site admin path to go back to, or def.
func safeBack(p, def string) string {
	if (strings.HasPrefix(p, eventsPath) || strings.HasPrefix(p, calendarPath)) && !strings.HasPrefix(p, "//") &&
		!strings.ContainsAny(p, "\\\r\n") {
		return p
	}
	return def
}

// tabID names a status tab for tests ("all" for no status).
func tabID(status string) string {
	if status == "" {
		return "all"
	}
	return status
}

// indent shows a category's depth in a select (an em space per level).
func indent(depth int) string { return strings.Repeat("\u2003", depth) }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// langShort is a language's short mark in the translation flags.
func langShort(code string) string {
	switch code {
	case "zh-hans":
		return "中"
	case "ja":
		return "日"
	case "ko":
		return "한"
	}
	return "EN"
}

// joinList joins names with the language's list separator.
func joinList(l layoutView, names []string) string { return strings.Join(names, listSeparator(l.Lang)) }

// listSeparator separates the items of an inline list: the ideographic
// enumeration comma in Chinese and Japanese, a comma otherwise.
func listSeparator(lang string) string {
	if lang == "zh-hans" || lang == "ja" {
		return "、"
	}
	return ", "
}
