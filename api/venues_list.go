package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// handleList answers GET /venues and GET /organizers (SPEC §5): four
// queries whatever per_page is, total right for any filter, 404 past the
// last page, and every effective filter echoed in the envelope's URLs.
func (k *linkedOps[T]) handleList(c *fiber.Ctx, r *Request) error {
	page, _ := r.Int("page")
	perPage, _ := r.Int("per_page")
	if page < 1 {
		page = 1
	}
	if perPage < 1 {
		perPage = 120
	}
	if max := int64(r.Deps.Config.MaxPerPage); max > 0 && perPage > max {
		perPage = max
	}
	var statuses []string
	for _, s := range r.StringList("status") {
		if s != "any" {
			statuses = append(statuses, s)
		}
	}
	if !models.MayFilterStatus(r.User) {
		for _, s := range statuses {
			if s != models.StatusPublish {
				return ErrInvalidParam("status", Reason{Code: "rest_invalid_param", ID: "reason.linked.status_not_allowed"})
			}
		}
	}
	f := models.LinkedFilter{
		Page: int(page), PerPage: int(perPage), Words: models.SearchWords(r.String("search")),
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
	totalPages := (total + int(perPage) - 1) / int(perPage)
	if len(items) == 0 && page > 1 {
		code := k.singular() + "-archive-page-not-found"
		return NewError(http.StatusNotFound, code, "error."+code)
	}
	list := make([]Obj, 0, len(items))
	for _, v := range items {
		list = append(list, k.present(r, v, false))
	}
	// The echoed query, in TEC's order; page is set per link.
	var q []KV
	q = append(q, KV{"per_page", strconv.FormatInt(perPage, 10)})
	if s := r.String("search"); s != "" {
		q = append(q, KV{"search", s})
	}
	if f.EventID != 0 {
		q = append(q, KV{"event", strconv.FormatInt(f.EventID, 10)})
	}
	if f.HasEvents != nil {
		q = append(q, KV{"has_events", strconv.FormatBool(*f.HasEvents)})
	}
	if f.OnlyWithUpcoming {
		q = append(q, KV{"only_with_upcoming", "true"})
	}
	switch {
	case len(statuses) > 0:
		q = append(q, KV{"status", strings.Join(statuses, ",")})
	case !models.MayFilterStatus(r.User):
		q = append(q, KV{"status", models.StatusPublish})
	}
	link := func(p int64) string { return linkedPageURL(r, "/"+k.plural, p, q) }
	out := Obj{{k.plural, list}, {"rest_url", link(page)}}
	var next, prev string
	if page < int64(totalPages) {
		next = link(page + 1)
		out = append(out, KV{"next_rest_url", next})
	}
	if page > 1 {
		prev = link(min(page-1, int64(max(totalPages, 1))))
		out = append(out, KV{"previous_rest_url", prev})
	}
	out = append(out, KV{"total", total}, KV{"total_pages", totalPages})
	linkedListHeaders(c, total, totalPages, next, prev)
	return sendJSON(c, http.StatusOK, out)
}
