package api

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// handleList answers GET /venues and GET /organizers (SPEC §5): four
// queries whatever per_page is, total right for any filter, 404 past the
// last page, and every effective filter echoed in the envelope's URLs.
func (k *linkedOps[T, In]) handleList(c *fiber.Ctx, r *Request) error {
	if err := setChangesCursor(c, r); err != nil {
		return err
	}
	page, perPage := r.Page(), r.PerPage()
	var statuses []string
	for _, s := range r.StringList("status") {
		if s != "any" {
			statuses = append(statuses, s)
		}
	}
	f := models.LinkedFilter{
		Page: page, PerPage: perPage, Words: models.SearchWords(r.String("search")),
		OnlyWithUpcoming: tecTruthy(r.Args["only_with_upcoming"]), Statuses: statuses, Lang: r.Lang,
	}
	f.EventID, _ = r.Int("event")
	var modEcho []KV
	var err error
	if f.ModifiedAfter, f.ModifiedBefore, modEcho, err = modifiedBounds(r); err != nil {
		return err
	}
	if r.String("orderby") == orderByModified {
		f.Order = models.OrderModified
	}
	f.Asc = r.String("order") == "asc"
	modEcho = append(modEcho, orderEcho(r, linkedOrderBys[0], "desc")...)
	if r.Has("has_events") {
		b := tecTruthy(r.Args["has_events"])
		f.HasEvents = &b
	}
	gen, parts := r.Deps.Parts.Generation(r.Ctx)
	res, err := k.ops(r.Deps.DB).List(r.Ctx, r.User, f)
	if err != nil {
		return err
	}
	items, total := res.Items, res.Total
	totalPages := (total + perPage - 1) / perPage
	if len(items) == 0 && page > 1 {
		return archiveNotFound(k.kind)
	}
	list := make([]any, 0, len(items))
	for _, v := range items {
		list = append(list, partOf(r, gen, parts, string(k.kind), k.post(v).ID, func() Obj { return k.present(r, v, false) }))
	}
	// Every effective filter is echoed, in TEC's order (nil values drop out).
	var hasEvents, upcoming any
	if f.HasEvents != nil {
		hasEvents = *f.HasEvents
	}
	if f.OnlyWithUpcoming {
		upcoming = true
	}
	status := strings.Join(res.Statuses, ",")
	var event any
	if f.EventID != 0 {
		event = f.EventID
	}
	link := func(p int) string {
		return listURL(r, "/"+k.plural, append([]KV{{"page", p}, {"per_page", perPage}, {"search", r.String("search")},
			{"event", event}, {"has_events", hasEvents}, {"only_with_upcoming", upcoming}, {"status", status}}, modEcho...))
	}
	out := Obj{{k.plural, list}, {"rest_url", link(page)}}
	var next, prev string
	if page < totalPages {
		next = link(page + 1)
		out = append(out, KV{"next_rest_url", next})
	}
	if page > 1 {
		prev = link(min(page-1, max(totalPages, 1)))
		out = append(out, KV{"previous_rest_url", prev})
	}
	out = append(out, KV{"total", total}, KV{"total_pages", totalPages})
	setListHeaders(c, r, int64(total), totalPages, next, prev)
	return sendJSON(c, http.StatusOK, out)
}
