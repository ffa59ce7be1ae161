package api

import (
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// termHandler serves the routes of one taxonomy.
type termHandler struct {
	taxonomy string      // models.TaxCategory or models.TaxTag
	kind     models.Kind // KindCategory or KindTag
	coll     string      // "/categories" or "/tags"
	keys     string      // message-id segment and list key: "categories" or "tags"
}

// list answers GET /categories and GET /tags.
func (h *termHandler) list(c *fiber.Ctx, r *Request) error {
	if err := setChangesCursor(c, r); err != nil {
		return err
	}
	f := models.TermFilter{
		Taxonomy: h.taxonomy, Lang: r.Lang, Page: r.Page(), PerPage: r.PerPage(),
		Search: r.String("search"), Include: r.IntList("include"), Exclude: r.IntList("exclude"),
		Order: r.String("order"), OrderBy: r.String("orderby"), HideEmpty: true, Slug: r.String("slug"),
	}
	if r.Has("hide_empty") {
		f.HideEmpty, _ = r.Bool("hide_empty")
	}
	if id, ok := r.Int("parent"); ok && r.Has("parent") {
		f.ParentID = &id
	}
	eventArg := "post"
	if r.Has("event") { // event is an alias of post and wins when both are sent
		eventArg = "event"
	}
	if id, ok := r.Int("post"); ok && r.Has("post") {
		f.PostID = id
	}
	if id, ok := r.Int("event"); ok && r.Has("event") {
		f.EventID = id
	}
	gen, parts := r.Deps.Parts.Generation(r.Ctx)
	page, err := r.Deps.DB.ListTerms(r.Ctx, r.User, f)
	if err != nil {
		return err
	}
	terms, total := page.Items, page.Total
	if f.EventID == 0 {
		f.EventID = f.PostID
	}
	totalPages := 0
	if total > 0 {
		totalPages = (total + f.PerPage - 1) / f.PerPage
	}

	// Every effective filter goes into the links, so each reproduces its page.
	filters := func(page int) []KV {
		q := []KV{}
		if page > 1 {
			q = append(q, KV{"page", page})
		}
		if r.Has("per_page") {
			q = append(q, KV{"per_page", f.PerPage})
		}
		q = append(q, KV{"search", f.Search}, KV{"exclude", f.Exclude}, KV{"include", f.Include},
			KV{"order", f.Order}, KV{"orderby", f.OrderBy})
		if r.Has("hide_empty") {
			q = append(q, KV{"hide_empty", f.HideEmpty})
		}
		if f.ParentID != nil {
			q = append(q, KV{"parent", *f.ParentID})
		}
		if f.EventID > 0 {
			q = append(q, KV{eventArg, f.EventID})
		}
		q = append(q, KV{"slug", f.Slug})
		if r.Has("ml_language") {
			q = append(q, KV{"ml_language", r.Lang})
		}
		return q
	}
	base := h.coll + "/"
	var next, prev string
	if f.Page < totalPages {
		next = listURL(r, base, filters(f.Page+1))
	}
	if f.Page > 1 {
		p := f.Page - 1
		if p > totalPages && totalPages > 0 {
			p = totalPages // past the end: the previous page is the last one
		}
		prev = listURL(r, base, filters(p))
	}
	items := make([]any, len(terms))
	for i, t := range terms {
		items[i] = partOf(r, gen, parts, partTerm, t.ID, func() Obj { return presentTerm(r, t) })
	}
	body := Obj{
		{"rest_url", listURL(r, base, filters(f.Page))},
		{"total", total},
		{"total_pages", totalPages},
		{h.keys, items},
	}
	if next != "" {
		body = append(body, KV{"next_rest_url", next})
	}
	if prev != "" {
		body = append(body, KV{"previous_rest_url", prev})
	}
	setListHeaders(c, r, int64(total), totalPages, next, prev)
	return sendJSON(c, http.StatusOK, body)
}

// get answers GET /categories/{id} and /tags/{id}.
func (h *termHandler) get(c *fiber.Ctx, r *Request) error {
	t, err := r.Deps.DB.GetTerm(r.Ctx, r.User, h.taxonomy, h.pathID(r), r.Lang)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, presentTermSingle(r, t))
}

// create answers POST /categories and /tags: 201, the term, and a Location
// header with its own URL.
func (h *termHandler) create(c *fiber.Ctx, r *Request) error {
	t, err := r.Deps.DB.CreateTerm(r.Ctx, r.User, h.taxonomy, h.input(r), r.Lang)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, r.Deps.APIURL(r, h.coll+"/"+strconv.FormatInt(t.ID, 10)))
	return sendJSON(c, http.StatusCreated, presentTermSingle(r, t))
}

// update answers POST/PUT/PATCH on an item: only the fields sent change.
func (h *termHandler) update(c *fiber.Ctx, r *Request) error {
	t, err := r.Deps.DB.UpdateTerm(r.Ctx, r.User, h.taxonomy, h.pathID(r), h.input(r), r.Lang)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, presentTermSingle(r, t))
}

// delete answers DELETE on an item: the term goes for good and comes back
// as it was, count included.
func (h *termHandler) delete(c *fiber.Ctx, r *Request) error {
	t, err := r.Deps.DB.DeleteTerm(r.Ctx, r.User, h.taxonomy, h.pathID(r), r.Lang)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, presentTerm(r, t))
}

// pathID reads the id of the path (the route regex guarantees digits; an
// overflowing number names nothing).
func (h *termHandler) pathID(r *Request) int64 {
	id, err := strconv.ParseInt(r.Path["id"], 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// input collects the fields the client sent.
func (h *termHandler) input(r *Request) models.TermInput {
	var in models.TermInput
	str := func(name string) *string {
		if !r.Has(name) {
			return nil
		}
		s := r.String(name)
		return &s
	}
	in.Name, in.Description, in.Slug = str("name"), str("description"), str("slug")
	if id, ok := r.Int("parent"); ok && r.Has("parent") && h.taxonomy == models.TaxCategory {
		in.ParentID = &id
	}
	return in
}
