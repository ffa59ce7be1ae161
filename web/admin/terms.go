package admin

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The pages of event categories and tags: the list with search, sort,
// pages and bulk delete, the create and edit form, delete (for good, after
// a confirmation step) and translations. Both taxonomies share the
// handlers; termKind holds what differs. Every change goes through the
// term operations with the signed-in user, so the refusals are the API's.

// termKind is one taxonomy as the admin shows it: its path, its
// taxonomy, and the message ids of its texts (written whole).
type termKind struct {
	Path     string // "/admin/categories"
	Taxonomy string // models.TaxCategory or models.TaxTag
	Tree     bool   // categories nest

	TitleID, NewID, EditID, EmptyID, EmptyHintID, BulkID string
	FormErrorsID, ConfirmID, TableID                     string
	// Flash keys (see flashes).
	FlashCreated, FlashSaved, FlashDeleted string
}

var (
	categoriesKind = &termKind{Path: "/admin/categories", Taxonomy: models.TaxCategory, Tree: true,
		TitleID: "admin.categories.title", NewID: "admin.categories.new", EditID: "admin.categories.edit",
		EmptyID: "admin.categories.empty", EmptyHintID: "admin.categories.empty_hint", BulkID: "admin.categories.bulk",
		FormErrorsID: "admin.categories.form_errors", ConfirmID: "admin.categories.confirm_delete",
		TableID: "categories-table", FlashCreated: "category_created", FlashSaved: "category_saved",
		FlashDeleted: "category_deleted"}
	tagsKind = &termKind{Path: "/admin/tags", Taxonomy: models.TaxTag,
		TitleID: "admin.tags.title", NewID: "admin.tags.new", EditID: "admin.tags.edit",
		EmptyID: "admin.tags.empty", EmptyHintID: "admin.tags.empty_hint", BulkID: "admin.tags.bulk",
		FormErrorsID: "admin.tags.form_errors", ConfirmID: "admin.tags.confirm_delete",
		TableID: "tags-table", FlashCreated: "tag_created", FlashSaved: "tag_saved", FlashDeleted: "tag_deleted"}
)

const (
	termsPerPage = 20
	// maxTreeTerms bounds the categories the list lays out as a tree; with
	// more, the list is flat (parents named beside each category).
	maxTreeTerms = 1000
)

// termPath is the admin path of term id with a suffix ("/edit").
func (k *termKind) termPath(id int64, suffix string) string {
	return k.Path + "/" + strconv.FormatInt(id, 10) + suffix
}

// The sort orders of a term list (TermFilter.OrderBy values).
const (
	termOrderName  = "name"
	termOrderSlug  = "slug"
	termOrderCount = "count"
)

// termQuery is the state of a term list, kept in its URL.
type termQuery struct {
	Search, Order string
	Desc          bool
	Page          int
}

func readTermQuery(c *fiber.Ctx) termQuery {
	q := termQuery{Search: strings.TrimSpace(c.Query("search")), Order: c.Query("orderby"), Desc: c.Query("order") == "desc"}
	q.Page, _ = strconv.Atoi(c.Query("page"))
	if q.Page < 1 {
		q.Page = 1
	}
	switch q.Order {
	case termOrderSlug, termOrderCount:
	default:
		q.Order = termOrderName
	}
	if len([]rune(q.Search)) > models.MaxSearchLen {
		q.Search = string([]rune(q.Search)[:models.MaxSearchLen])
	}
	return q
}

// href is the list URL of q at base with the changes applied.
func (q termQuery) href(base string, change func(*termQuery)) string {
	if change != nil {
		change(&q)
	}
	v := url.Values{}
	if q.Search != "" {
		v.Set("search", q.Search)
	}
	if q.Order != termOrderName {
		v.Set("orderby", q.Order)
	}
	if q.Desc {
		v.Set("order", "desc")
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if len(v) == 0 {
		return base
	}
	return base + "?" + v.Encode()
}

// termRow is one term of the list.
type termRow struct {
	ID           int64
	Name, Slug   string
	Count        string
	Parent       string // the parent's name, in a flat list of categories
	Depth        int    // nesting, in the tree of categories
	Edit         string
	MissingLangs []string
}

// termsList shows the terms of k: for categories in name order without a
// search, the whole tree (parents before their children, indented) cut
// into pages; otherwise a flat page in the order asked for.
func (h *handler) termsList(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		u := ui.UserOf(c)
		lay := h.layoutFor(c, k.TitleID)
		lang, t := lay.Lang, lay.T
		q := readTermQuery(c)
		v := termListView{Layout: lay, K: k, Q: q, Access: models.TermAccess(u, k.Taxonomy), Back: q.href(k.Path, nil)}
		rows, total, err := h.termRows(c, k, lang, q)
		if err != nil {
			return err
		}
		v.Rows = rows
		pages := (total + termsPerPage - 1) / termsPerPage
		v.TotalText = h.d.I18n.T(lang, "admin.list.total", map[string]any{"Count": total})
		if pages > 1 {
			v.PageText = h.d.I18n.T(lang, "admin.list.page", map[string]any{"Page": q.Page, "Pages": pages})
		}
		if q.Page > 1 {
			v.PrevHref = q.href(k.Path, func(x *termQuery) { x.Page = min(x.Page-1, max(pages, 1)) })
		}
		if q.Page < pages {
			v.NextHref = q.href(k.Path, func(x *termQuery) { x.Page++ })
		}
		for _, o := range []struct{ value, labelID string }{
			{termOrderName, "admin.terms.field.name"}, {termOrderSlug, "admin.terms.field.slug"},
			{termOrderCount, "admin.terms.col.count"},
		} {
			v.Orders = append(v.Orders, option{Value: o.value, Label: t(o.labelID), Selected: q.Order == o.value})
		}
		return render(c, fiber.StatusOK, termsListPage(v))
	}
}

// termRows are the rows of a page of the terms list and the number of
// terms in all its pages: for categories in name order without a search,
// the whole tree cut into pages; otherwise a flat page.
func (h *handler) termRows(c *fiber.Ctx, k *termKind, lang string, q termQuery) (rows []termRow, total int, err error) {
	ctx, u := c.UserContext(), ui.UserOf(c)
	f := models.TermFilter{Taxonomy: k.Taxonomy, Lang: lang, Page: q.Page, PerPage: termsPerPage, Search: q.Search,
		OrderBy: q.Order, Order: "asc"}
	if q.Desc {
		f.Order = "desc"
	}
	var items []*models.Term
	tree := k.Tree && q.Search == "" && q.Order == termOrderName
	if tree {
		all, err := h.d.DB.ListTerms(ctx, u, models.TermFilter{Taxonomy: k.Taxonomy, Lang: lang, PerPage: maxTreeTerms,
			Order: f.Order})
		if err != nil {
			return nil, 0, err
		}
		tree = all.Total <= maxTreeTerms
		if tree {
			flat, depths := treeOrder(all.Items)
			total = len(flat)
			from, to := min((q.Page-1)*termsPerPage, total), min(q.Page*termsPerPage, total)
			for i := from; i < to; i++ {
				row := h.termRow(k, lang, flat[i])
				row.Depth = depths[i]
				rows = append(rows, row)
			}
		}
	}
	if !tree {
		page, err := h.d.DB.ListTerms(ctx, u, f)
		if err != nil {
			return nil, 0, err
		}
		items, total = page.Items, page.Total
		parents, err := h.parentNames(c, k, lang, items)
		if err != nil {
			return nil, 0, err
		}
		for _, term := range items {
			row := h.termRow(k, lang, term)
			row.Parent = parents[term.ParentID]
			rows = append(rows, row)
		}
	}
	return rows, total, nil
}

// termRow is the list row of term, its count written for lang.
func (h *handler) termRow(k *termKind, lang string, term *models.Term) termRow {
	return termRow{ID: term.ID, Name: term.Name, Slug: term.Slug, Count: i18n.Number(lang, term.Count),
		Edit: k.termPath(term.ID, "/edit"), MissingLangs: missingLangs(term.Lang, term.Translations)}
}

// parentNames names the parents of the categories in items, read in
// lang, in one list query.
func (h *handler) parentNames(c *fiber.Ctx, k *termKind, lang string, items []*models.Term) (map[int64]string, error) {
	out := map[int64]string{}
	var ids []int64
	for _, t := range items {
		if t.ParentID != 0 && k.Tree {
			ids = append(ids, t.ParentID)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	page, err := h.d.DB.ListTerms(c.UserContext(), ui.UserOf(c), models.TermFilter{Taxonomy: k.Taxonomy, Lang: lang,
		Include: ids, PerPage: len(ids)})
	if err != nil {
		return nil, err
	}
	for _, t := range page.Items {
		out[t.ID] = t.Name
	}
	return out, nil
}

// treeOrder lays terms out as a tree: each parent followed by its children
// (in the order given), with their depth. A term whose parent is not among
// terms is at the top; a broken chain cannot loop.
func treeOrder(terms []*models.Term) ([]*models.Term, []int) {
	known := map[int64]bool{}
	for _, t := range terms {
		known[t.ID] = true
	}
	children := map[int64][]*models.Term{}
	for _, t := range terms {
		parent := t.ParentID
		if !known[parent] {
			parent = 0
		}
		children[parent] = append(children[parent], t)
	}
	var out []*models.Term
	var depths []int
	seen := map[int64]bool{}
	var walk func(parent int64, depth int)
	walk = func(parent int64, depth int) {
		for _, t := range children[parent] {
			if seen[t.ID] {
				continue
			}
			seen[t.ID] = true
			out, depths = append(out, t), append(depths, depth)
			walk(t.ID, depth+1)
		}
	}
	walk(0, 0)
	return out, depths
}

// termsBulk deletes the selected terms, after a confirmation step: the
// first post shows what goes (confirm is empty), the second deletes. Each
// term goes through its own operation, so a refusal of one does not stop
// the others, and the flash says how many went.
func (h *handler) termsBulk(k *termKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
		back := backTo(c.FormValue("back"), k.Path)
		if c.FormValue("action") != "delete" {
			return fiber.ErrBadRequest
		}
		var ids []int64
		for _, raw := range c.Request().PostArgs().PeekMulti("ids") {
			if id, err := strconv.ParseInt(string(raw), 10, 64); err == nil && id > 0 {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return c.Redirect(back, fiber.StatusSeeOther)
		}
		if c.FormValue("confirm") == "" {
			return h.confirmDelete(c, k, ids, k.Path+"/bulk", back, "", fiber.StatusOK)
		}
		done, failed := 0, 0
		for _, id := range ids {
			_, err := h.d.DB.DeleteTerm(ctx, u, k.Taxonomy, id, lang)
			var exists *models.TermExistsError
			switch {
			case err == nil:
				done++
			case errors.Is(err, models.ErrForbidden), errors.Is(err, models.ErrNotFound), errors.As(err, &exists):
				failed++
			default:
				return err
			}
		}
		h.setFlashCount(c, "terms_deleted", done, failed)
		return c.Redirect(back, fiber.StatusSeeOther)
	}
}

// confirmDelete shows the terms ids will delete and the button that does
// it (posting to action, the bulk path or one term's delete path). The
// confirmed post goes through the operation, which refuses those who may
// not delete; nobody is offered the button that leads here without the
// right.
func (h *handler) confirmDelete(c *fiber.Ctx, k *termKind, ids []int64, action, back, problem string, status int) error {
	lay := h.layoutFor(c, "admin.terms.confirm_delete.title")
	page, err := h.d.DB.ListTerms(c.UserContext(), ui.UserOf(c), models.TermFilter{Taxonomy: k.Taxonomy, Lang: lay.Lang,
		Include: ids, PerPage: len(ids)})
	if err != nil {
		return err
	}
	v := confirmView{Layout: lay, K: k, Action: action, Back: back, Problem: problem, Single: action != k.Path+"/bulk"}
	for _, t := range page.Items {
		v.Names = append(v.Names, t.Name)
		v.IDs = append(v.IDs, strconv.FormatInt(t.ID, 10))
	}
	return render(c, status, confirmDeletePage(v))
}

// treeMark shows a category's depth in the list (a dash per level, as
// WordPress does), beside the indent.
func treeMark(depth int) string { return strings.Repeat("— ", depth) }
