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
func (k *linkedOps[T]) handleList(c *fiber.Ctx, r *Request) error {
	page, perPage := r.Page(), r.PerPage()
	var statuses []string
	for _, s := range r.StringList("status") {
		if s != "any" {
			statuses = append(statuses, s)
		}
	}
	f := models.LinkedFilter{
		Page: page, PerPage: perPage, Words: models.SearchWords(r.String("search")),
		OnlyWithUpcoming: tecTruthy(r.Args["only_with_upcoming"]), Statuses: statuses,
		Viewer: r.User, Lang: r.Lang, Now: r.Deps.Now(),
	}
	f.EventID, _ = r.Int("event")
	if r.Has("has_events") {
		b := tecTruthy(r.Args["has_events"])
		f.HasEvents = &b
	}
	items, total, err := k.list(r, f)
	if err != nil {
		return err
	}
	totalPages := (total + perPage - 1) / perPage
	if len(items) == 0 && page > 1 {
		code := k.singular() + "-archive-page-not-found"
		return NewError(http.StatusNotFound, code, "error."+code)
	}
	list := make([]Obj, 0, len(items))
	for _, v := range items {
		list = append(list, k.present(r, v, false))
	}
	// Every effective filter is echoed, in TEC's order (nil values drop out).
	var hasEvents, upcoming any
	if f.HasEvents != nil {
		hasEvents = *f.HasEvents
	}
	if f.OnlyWithUpcoming {
		upcoming = true
	}
	status := strings.Join(statuses, ",")
	if status == "" && !models.MayFilterStatus(r.User) {
		status = models.StatusPublish
	}
	var event any
	if f.EventID != 0 {
		event = f.EventID
	}
	link := func(p int) string {
		return listURL(r, "/"+k.plural, []KV{{"page", p}, {"per_page", perPage}, {"search", r.String("search")},
			{"event", event}, {"has_events", hasEvents}, {"only_with_upcoming", upcoming}, {"status", status}})
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
