package admin

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

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

// categoryOptions lists the categories as a tree (parents before their
// children, depth for the indent), read in lang, those in selected marked.
func (h *handler) categoryOptions(c *fiber.Ctx, lang string, selected []string) ([]option, error) {
	page, err := h.d.DB.ListTerms(c.UserContext(), ui.UserOf(c), models.TermFilter{Taxonomy: models.TaxCategory, Lang: lang,
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
	page, err := h.d.DB.ListTerms(c.UserContext(), ui.UserOf(c), models.TermFilter{Taxonomy: models.TaxTag, Lang: lang,
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
	ctx, u := c.UserContext(), ui.UserOf(c)
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
