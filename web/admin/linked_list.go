package admin

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

func (q linkedQuery) href(change func(*linkedQuery)) string {
	if change != nil {
		change(&q)
	}
	v := url.Values{}
	if q.Search != "" {
		v.Set("search", q.Search)
	}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if len(v) == 0 {
		return q.path
	}
	return q.path + "?" + v.Encode()
}

// linkedRow is one record of a list.
type linkedRow struct {
	ID                        int64
	Name, Sub, Edit           string
	Status, StatusLabel       string
	Trashed                   bool
	MissingLangs, TransLangs  []string
	SourceLang                string
	ModifiedText, ModifiedISO string
}

func (p *linkedPages[T, In]) list(c *fiber.Ctx, h *handler) error {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lay := h.layoutFor(c, p.titleID)
	lang, t := lay.Lang, lay.T
	q := linkedQuery{path: p.path, Search: strings.TrimSpace(c.Query("search")), Status: c.Query("status")}
	q.Page, _ = strconv.Atoi(c.Query("page"))
	q.Page = max(q.Page, 1)
	if r := []rune(q.Search); len(r) > models.MaxSearchLen {
		q.Search = string(r[:models.MaxSearchLen])
	}
	v := linkedListView{Layout: lay, Kind: strings.TrimPrefix(p.path, "/admin/"), Path: p.path, Q: q,
		Access: models.ListAccess(u, p.kind), Trash: q.Status == models.StatusTrash,
		NewLabel: t(p.newID), EmptyText: t(p.empty), NameLabel: t(p.fields[0].LabelID)}
	f := models.LinkedFilter{Page: q.Page, PerPage: linkedPerPage, Words: models.SearchWords(q.Search), Lang: lang}
	if q.Status != "" {
		f.Statuses = []string{q.Status}
	}
	page, err := p.ops(h.d.DB).List(ctx, u, f)
	if err != nil {
		return err
	}
	counts, err := h.d.DB.CountPosts(ctx, u)
	if err != nil {
		return err
	}
	all := 0
	for _, n := range counts[p.kind] {
		all += n
	}
	v.Tabs = append(v.Tabs, statusTab{Label: t("admin.events.tab.all"), Count: i18n.Number(lang, all), Current: q.Status == "",
		Href: q.href(func(x *linkedQuery) { x.Status, x.Page = "", 1 })})
	if v.Access.Statuses {
		for _, s := range statusOrder {
			st := s.Status
			v.Tabs = append(v.Tabs, statusTab{Label: t(s.LabelID), Status: st, Count: i18n.Number(lang, counts[p.kind][st]),
				Current: q.Status == st, Href: q.href(func(x *linkedQuery) { x.Status, x.Page = st, 1 })})
		}
		trash, err := p.ops(h.d.DB).List(ctx, u, models.LinkedFilter{Statuses: []string{models.StatusTrash}, PerPage: 1})
		if err != nil {
			return err
		}
		v.Tabs = append(v.Tabs, statusTab{Label: t("admin.status.trash"), Status: models.StatusTrash, Count: i18n.Number(lang, trash.Total),
			Current: v.Trash, Href: q.href(func(x *linkedQuery) { x.Status, x.Page = models.StatusTrash, 1 })})
	}
	v.Rows = p.listRows(h, lang, t, page.Items)
	pages := (page.Total + linkedPerPage - 1) / linkedPerPage
	v.TotalText = h.d.I18n.T(lang, "admin.list.total", map[string]any{"Count": page.Total})
	if pages > 1 {
		v.PageText = h.d.I18n.T(lang, "admin.list.page", map[string]any{"Page": q.Page, "Pages": pages})
	}
	if q.Page > 1 {
		v.PrevHref = q.href(func(x *linkedQuery) { x.Page-- })
	}
	if q.Page < pages {
		v.NextHref = q.href(func(x *linkedQuery) { x.Page++ })
	}
	v.Bulk = h.bulkActions(lang, v.Trash, v.Access)
	return render(c, fiber.StatusOK, linkedListPage(v))
}

// listRows are the rows of the list of venues or organizers.
func (p *linkedPages[T, In]) listRows(h *handler, lang string, t func(string) string, items []*T) []linkedRow {
	var rows []linkedRow
	site := h.d.Site.Zone()
	for _, rec := range items {
		post := p.post(rec)
		name := p.values(rec)[p.fields[0].Name]
		if strings.TrimSpace(name) == "" {
			name = t("admin.event.untitled")
		}
		rows = append(rows, linkedRow{ID: post.ID, Name: name, Sub: p.sub(rec), Edit: p.recordPath(post.ID, "/edit"),
			Status: post.Status, StatusLabel: t(statusLabel[post.Status]), Trashed: post.Status == models.StatusTrash,
			MissingLangs: missingLangs(post.Lang, post.Translations), SourceLang: post.Lang,
			ModifiedText: ui.FormatDateTime(lang, post.UpdatedAt.In(site)), ModifiedISO: post.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z")})
	}
	return rows
}

func (p *linkedPages[T, In]) action(c *fiber.Ctx, h *handler) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
	back := backTo(c.FormValue("back"), p.path)
	ops := p.ops(h.d.DB)
	switch c.Params("action") {
	case "trash":
		_, err = ops.Trash(ctx, u, models.ByID(id), lang)
	case "restore":
		_, err = p.setStatus(c, h, id, models.StatusDraft)
	case "delete":
		_, err = ops.Delete(ctx, u, models.ByID(id), lang)
	default:
		return fiber.ErrNotFound
	}
	if err != nil {
		return err
	}
	h.setFlash(c, p.flash+"_"+c.Params("action"))
	return c.Redirect(back, fiber.StatusSeeOther)
}

// setStatus changes only the status of record id.
func (p *linkedPages[T, In]) setStatus(c *fiber.Ctx, h *handler, id int64, st string) (*T, error) {
	in, err := p.input(map[string]string{"status": st, "_status_only": "1"})
	if err != nil {
		return nil, err
	}
	return p.ops(h.d.DB).Update(c.UserContext(), ui.UserOf(c), models.ByID(id), in, "")
}

func (p *linkedPages[T, In]) bulk(c *fiber.Ctx, h *handler) error {
	ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
	ops := p.ops(h.d.DB)
	status := func(st string) func(id int64) error {
		return func(id int64) error { _, err := p.setStatus(c, h, id, st); return err }
	}
	return h.bulk(c, backTo(c.FormValue("back"), p.path), map[string]func(int64) error{
		"publish": status(models.StatusPublish),
		"restore": status(models.StatusDraft),
		"trash":   func(id int64) error { _, err := ops.Trash(ctx, u, models.ByID(id), lang); return err },
		"delete":  func(id int64) error { _, err := ops.Delete(ctx, u, models.ByID(id), lang); return err },
	})
}
