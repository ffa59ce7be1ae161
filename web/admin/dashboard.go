package admin

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// Dashboard sizes.
const (
	upcomingDays   = 14
	dashboardRows  = 10
	recentEditRows = 8
)

// statusOrder is the order statuses are shown in, with their names.
var statusOrder = []struct{ Status, LabelID string }{
	{models.StatusPublish, "admin.status.publish"},
	{models.StatusFuture, "admin.status.future"},
	{models.StatusDraft, "admin.status.draft"},
	{models.StatusPending, "admin.status.pending"},
	{models.StatusPrivate, "admin.status.private"},
}

// statusLabel maps a status to its message id.
var statusLabel = func() map[string]string {
	m := map[string]string{models.StatusTrash: "admin.status.trash"}
	for _, s := range statusOrder {
		m[s.Status] = s.LabelID
	}
	return m
}()

// dashboard shows what needs attention: the next 14 days, what awaits
// review, counts, and the user's own recent changes. Every list goes
// through the models operations with the signed-in user, so it shows what
// the API would show them.
func (h *handler) dashboard(c *fiber.Ctx) error {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lay := h.layoutFor(c, "admin.dashboard.title")
	lang := lay.Lang
	now := h.d.Site.Now()
	until := now.Add(upcomingDays * 24 * time.Hour)
	reviews, everyone := models.ReviewQueue(u)
	// Drafts and pending events have their own panel (for those who review
	// them); others see what they see by default.
	var statuses []string
	if reviews {
		statuses = []string{models.StatusPublish, models.StatusFuture, models.StatusPrivate}
	}
	upcoming, err := h.d.DB.ListEvents(ctx, u, models.EventFilter{EndsAfter: &now, StartsBefore: &until,
		Statuses: statuses, PerPage: dashboardRows, Lang: lang})
	if err != nil {
		return err
	}
	v := dashboardView{Layout: lay, UpcomingTotal: upcoming.Total}
	v.Greeting = h.d.I18n.T(lang, "admin.dashboard.greeting", map[string]any{"Name": u.DisplayName})
	v.Upcoming = h.eventRows(lang, upcoming.Items, false)
	if reviews {
		v.MayReview = true
		v.ReviewIntro = lay.T("admin.dashboard.review.intro_own")
		if everyone {
			v.ReviewIntro = lay.T("admin.dashboard.review.intro_all")
		}
		review, err := h.d.DB.ListEvents(ctx, u, models.EventFilter{Statuses: []string{models.StatusPending, models.StatusDraft},
			PerPage: dashboardRows, Lang: lang})
		if err != nil {
			return err
		}
		v.Review, v.ReviewTotal = h.eventRows(lang, review.Items, false), review.Total
		recent, err := h.d.DB.RecentEvents(ctx, u, lang, recentEditRows)
		if err != nil {
			return err
		}
		v.Recent = h.eventRows(lang, recent, true)
	}
	counts, err := h.d.DB.CountPosts(ctx, u)
	if err != nil {
		return err
	}
	for _, k := range []struct {
		kind    models.Kind
		labelID string
	}{{models.KindEvent, "admin.nav.events"}, {models.KindVenue, "admin.nav.venues"}, {models.KindOrganizer, "admin.nav.organizers"}} {
		card := countCard{Kind: string(k.kind), Label: lay.T(k.labelID)}
		for _, s := range statusOrder {
			n := counts[k.kind][s.Status]
			card.Total += n
			card.Rows = append(card.Rows, countRow{Status: s.Status, Label: lay.T(s.LabelID), Count: i18n.Number(lang, n), Zero: n == 0})
		}
		card.TotalText = i18n.Number(lang, card.Total)
		v.Counts = append(v.Counts, card)
	}
	if v.PausedWebhooks, err = h.pausedWebhooks(c); err != nil {
		return err
	}
	return render(c, fiber.StatusOK, dashboardPage(v))
}

// eventRows turns events into table rows in lang: the start in the event's
// own zone (named when it is not the site's), or the last change for the
// recent edits.
func (h *handler) eventRows(lang string, events []*models.Event, changed bool) []eventRow {
	site := h.d.Site.Zone()
	rows := make([]eventRow, 0, len(events))
	for _, e := range events {
		loc, err := models.LoadZone(e.Timezone, site)
		if err != nil {
			loc = site
		}
		r := eventRow{ID: e.ID, Title: e.Title, Status: e.Status, StatusLabel: h.d.I18n.T(lang, statusLabel[e.Status], nil),
			Edit: "/admin/events/" + strconv.FormatInt(e.ID, 10) + "/edit"}
		if r.Title == "" {
			r.Title = h.d.I18n.T(lang, "admin.event.untitled", nil)
		}
		switch {
		case changed:
			r.When = ui.FormatDateTime(lang, e.UpdatedAt.In(site))
			r.WhenISO = e.UpdatedAt.UTC().Format(time.RFC3339)
		case e.AllDay:
			r.When = ui.FormatDate(lang, e.StartAt.In(loc))
			r.WhenISO = e.StartAt.In(loc).Format(time.DateOnly)
			r.AllDay = h.d.I18n.T(lang, "admin.event.all_day", nil)
		default:
			r.When = ui.FormatDateTime(lang, e.StartAt.In(loc))
			r.WhenISO = e.StartAt.In(loc).Format(time.RFC3339)
			if loc.String() != site.String() {
				r.Zone = models.ZoneAbbr(e.Timezone, loc, e.StartAt)
			}
		}
		if len(e.Venues) > 0 {
			r.Venue = e.Venues[0].Venue
		}
		rows = append(rows, r)
	}
	return rows
}
