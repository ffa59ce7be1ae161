package api

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// eventWriteArgs are the fields of an event create (required marked) or
// update (all optional), in TEC's order; no password.
func eventWriteArgs(create bool) []Arg {
	a := func(name, typ string, kind Kind) Arg {
		return Arg{Name: name, Type: typ, Kind: kind, Desc: "arg.events.write." + name, In: "body"}
	}
	title := a("title", "string", KNonEmpty)
	title.MaxLen, title.Required = 255, create
	start, end := a("start_date", "string", KDate), a("end_date", "string", KDate)
	start.Required, end.Required = create, create
	desc, excerpt := a("description", "string", KString), a("excerpt", "string", KString)
	desc.MaxLen, excerpt.MaxLen = 65536, 65536
	slug := a("slug", "string", KString)
	slug.MaxLen = 255
	author := a("author", "integer", KPositiveInt)
	allDay := a("all_day", "boolean", KBool)
	allDay.Default, allDay.HasDefault = false, true
	image := a("image", "", KImage)
	image.MaxLen, image.Accepts = 255, "image"
	cost := a("cost", "", KRaw)
	cost.Validate, cost.Accepts = validateCost, "cost"
	website := a("website", "", KURL)
	website.Default, website.HasDefault, website.MaxLen = nil, true, 255
	link := func(name string, v func(r *Request, v any) *Reason) Arg {
		l := a(name, "array", KRaw)
		l.Items, l.Default, l.HasDefault, l.Validate = "integer", nil, true, v
		l.Accepts = map[string]string{"categories": "terms", "tags": "terms"}[name]
		if l.Accepts == "" {
			l.Accepts = name
		}
		return l
	}
	// Our extensions: recurring events.
	recurrence := a("recurrence", "", KRaw)
	recurrence.Validate, recurrence.Accepts = validateRecurrence, "recurrence"
	scope := a("scope", "string", KEnum)
	scope.Enum = []string{models.ScopeThis, models.ScopeFollowing, models.ScopeAll}
	return []Arg{
		author,
		a("date", "string", KDate),
		a("date_utc", "string", KDate),
		title,
		desc,
		slug,
		excerpt,
		a("status", "string", KStatus),
		a("timezone", "string", KTimezone),
		allDay,
		start,
		end,
		image,
		cost,
		website,
		a("currency_symbol", "string", KString),
		a("currency_code", "string", KString),
		a("currency_position", "string", KString),
		a("show_map", "boolean", KBool),
		a("show_map_link", "boolean", KBool),
		a("hide_from_listings", "boolean", KBool),
		a("sticky", "boolean", KBool),
		a("featured", "boolean", KBool),
		link("categories", validateTermLinks),
		link("tags", validateTermLinks),
		link("venue", validateVenueLinks),
		link("organizer", validateOrganizerLinks),
		recurrence,
		scope,
	}
}

// validateCost accepts a string, a number, or a list of them.
func validateCost(_ *Request, v any) *Reason {
	bad := invalid("reason.events.invalid_cost", nil)
	scalar := func(x any) bool {
		switch y := x.(type) {
		case string:
			return len(y) <= 255
		case float64:
			return !math.IsNaN(y) && !math.IsInf(y, 0)
		case int64, int, json.Number, nil:
			return true
		}
		return false
	}
	switch x := v.(type) {
	case []any:
		if len(x) > maxLinks {
			return bad
		}
		for _, it := range x {
			if !scalar(it) || it == nil {
				return bad
			}
		}
	case []string:
		if len(x) > maxLinks {
			return bad
		}
	default:
		if !scalar(x) {
			return bad
		}
	}
	return nil
}

// termRefs reads a categories/tags value: ids, slugs or names as a comma
// list or a list, {"id": N} or {"name": "…"} objects; "" or [] is an empty
// list (which clears on writes).
func termRefs(v any, _ bool) ([]models.TermRef, *Reason) {
	bad := invalid("reason.events.invalid_terms", nil)
	var out []models.TermRef
	item := func(x any) bool {
		switch y := x.(type) {
		case string:
			for _, p := range strings.Split(y, ",") {
				p = strings.TrimSpace(p)
				if p == "" {
					continue
				}
				if len(p) > 255 {
					return false
				}
				if id, err := strconv.ParseInt(p, 10, 64); err == nil {
					if id <= 0 {
						return false
					}
					out = append(out, models.TermRef{ID: id})
				} else {
					out = append(out, models.TermRef{Name: p})
				}
			}
			return true
		case float64:
			if y <= 0 || y != math.Trunc(y) || y > 1<<53 {
				return false
			}
			out = append(out, models.TermRef{ID: int64(y)})
			return true
		case int64, json.Number:
			n, ok := intValue(y)
			if !ok || n <= 0 {
				return false
			}
			out = append(out, models.TermRef{ID: n})
			return true
		case map[string]any:
			if id, ok := y["id"]; ok {
				n, ok := intValue(id)
				if !ok || n <= 0 {
					return false
				}
				out = append(out, models.TermRef{ID: n})
				return true
			}
			if name, ok := y["name"].(string); ok && strings.TrimSpace(name) != "" && len(name) <= 255 {
				out = append(out, models.TermRef{Name: strings.TrimSpace(name)})
				return true
			}
			return false
		}
		return false
	}
	if !eachLinkItem(v, item) {
		return nil, bad
	}
	if len(out) > maxLinks {
		return nil, invalid("reason.events.too_many_items", map[string]any{"Max": maxLinks})
	}
	return out, nil
}

// intValue reads an id from a JSON number or an integer-looking string.
func intValue(v any) (int64, bool) {
	switch y := v.(type) {
	case float64:
		if y != math.Trunc(y) || math.Abs(y) > 1<<53 {
			return 0, false
		}
		return int64(y), true
	case int64:
		return y, true
	case int:
		return int64(y), true
	case json.Number:
		n, err := y.Int64()
		return n, err == nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(y), 10, 64)
		return n, err == nil
	}
	return 0, false
}

func validateTermLinks(_ *Request, v any) *Reason {
	_, reason := termRefs(v, true)
	return reason
}

// linkItems flattens a venue/organizer value into items: ids (from
// numbers, strings and comma lists) and objects. nil or "" is empty.
func linkItems(v any) ([]any, bool) {
	var out []any
	item := func(x any) bool {
		switch y := x.(type) {
		case string:
			for _, p := range strings.Split(y, ",") {
				if p = strings.TrimSpace(p); p == "" {
					continue
				}
				n, err := strconv.ParseInt(p, 10, 64)
				if err != nil || n <= 0 {
					return false
				}
				out = append(out, n)
			}
			return true
		case float64, int64, int, json.Number:
			n, ok := intValue(y)
			if !ok || n <= 0 {
				return false
			}
			out = append(out, n)
			return true
		case map[string]any:
			out = append(out, y)
			return true
		}
		return false
	}
	if !eachLinkItem(v, item) || len(out) > maxLinks {
		return nil, false
	}
	return out, true
}

// eachLinkItem calls item on v or, when v is a list ([]any or []string), on
// each element, in order, stopping at the first false. A nil v is an empty
// list; lists and nulls inside a list are refused (false).
func eachLinkItem(v any, item func(x any) bool) bool {
	var list []any
	switch y := v.(type) {
	case nil:
		return true
	case []any:
		list = y
	case []string:
		list = make([]any, len(y))
		for i, s := range y {
			list[i] = s
		}
	default:
		return item(v)
	}
	for _, it := range list {
		switch it.(type) {
		case nil, []any, []string:
			return false
		}
		if !item(it) {
			return false
		}
	}
	return true
}

// linkRefs reads a venue or organizer argument: an id, {"id": N}, an
// object of the kind's fields (read by the kind's own argument table, so
// inline records follow the same rules as their routes; the models check
// the rest when they create them) or a list of these, order kept. Reason
// ids are "reason.events.invalid_<kind>" and
// "reason.events.invalid_inline_<kind>".
func linkRefs[In any](r *Request, v any, lk *linkedInput[In]) ([]models.LinkRef[In], *Reason) {
	items, ok := linkItems(v)
	if !ok {
		return nil, invalid(lk.invalidReason, nil)
	}
	refs := make([]models.LinkRef[In], 0, len(items))
	for _, it := range items {
		switch y := it.(type) {
		case int64:
			refs = append(refs, models.LinkRef[In]{ID: y})
		case map[string]any:
			if id, has := y["id"]; has {
				n, ok := intValue(id)
				if !ok || n <= 0 {
					return nil, invalid(lk.invalidReason, nil)
				}
				refs = append(refs, models.LinkRef[In]{ID: n})
				continue
			}
			if name, _ := y[lk.nameArg].(string); strings.TrimSpace(name) == "" {
				return nil, invalid(lk.inlineReason, map[string]any{"Field": lk.nameArg})
			}
			in, bad := lk.fromMap(r, y)
			if len(bad) > 0 {
				return nil, invalid(lk.inlineReason, map[string]any{"Field": bad[0].Field})
			}
			refs = append(refs, models.LinkRef[In]{New: &in})
		}
	}
	return refs, nil
}

func validateVenueLinks(r *Request, v any) *Reason {
	_, reason := linkRefs(r, v, venueInput)
	return reason
}

func validateOrganizerLinks(r *Request, v any) *Reason {
	_, reason := linkRefs(r, v, organizerInput)
	return reason
}

// eventInput builds the store input from the arguments the client sent.
func eventInput(r *Request) (models.EventInput, error) {
	in := models.EventInput{Lang: r.Lang}
	str := func(name string) *string {
		if !r.Has(name) {
			return nil
		}
		s := r.String(name)
		return &s
	}
	flag := func(name string) *bool {
		if !r.Has(name) {
			return nil
		}
		b, _ := r.Bool(name)
		return &b
	}
	if id, ok := r.Int("author"); ok && r.Has("author") {
		in.AuthorID = &id
	}
	in.Date, in.DateUTC = str("date"), str("date_utc")
	in.Title, in.Description, in.Excerpt = str("title"), str("description"), str("excerpt")
	if s := str("slug"); s != nil && (r.Path["slug"] == "" || *s != r.Path["slug"]) {
		in.Slug = s
	}
	in.Status, in.Timezone = str("status"), str("timezone")
	in.AllDay = flag("all_day")
	in.StartDate, in.EndDate = str("start_date"), str("end_date")
	in.ImageURL, in.Website = str("image"), str("website")
	in.CurrencySymbol, in.CurrencyCode, in.CurrencyPosition = str("currency_symbol"), str("currency_code"), str("currency_position")
	if r.Has("cost") {
		c := models.EncodeCost(r.Args["cost"])
		in.Cost = &c
	}
	in.ShowMap, in.ShowMapLink = flag("show_map"), flag("show_map_link")
	in.HideFromListings, in.Sticky, in.Featured = flag("hide_from_listings"), flag("sticky"), flag("featured")
	for _, t := range []struct {
		name string
		dst  **[]models.TermRef
	}{{"categories", &in.Categories}, {"tags", &in.Tags}} {
		if !r.Has(t.name) {
			continue
		}
		refs, reason := termRefs(r.Args[t.name], true)
		if reason != nil {
			return in, ErrInvalidParam(t.name, *reason)
		}
		*t.dst = &refs
	}
	if r.Has("recurrence") {
		text, _ := recurrenceText(r.Args["recurrence"])
		in.Recurrence = &text
	}
	if r.Has("scope") {
		in.Scope = r.String("scope")
	}
	var reason *Reason
	if r.Has("venue") {
		var refs []models.VenueRef
		if refs, reason = linkRefs(r, r.Args["venue"], venueInput); reason != nil {
			return in, ErrInvalidParam("venue", *reason)
		}
		in.Venues = &refs
	}
	if r.Has("organizer") {
		var refs []models.OrganizerRef
		if refs, reason = linkRefs(r, r.Args["organizer"], organizerInput); reason != nil {
			return in, ErrInvalidParam("organizer", *reason)
		}
		in.Organizers = &refs
	}
	return in, nil
}

// createEvent answers POST /events: 201, the event and a Location header.
func createEvent(c *fiber.Ctx, r *Request) error {
	in, err := eventInput(r)
	if err != nil {
		return err
	}
	e, err := r.Deps.DB.CreateEvent(r.Ctx, r.User, in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, r.Deps.APIURL(r, "/events/"+strconv.FormatInt(e.ID, 10)))
	return sendJSON(c, http.StatusCreated, presentEvent(r, e, false))
}

// updateEvent answers POST/PUT/PATCH on an event: a true partial update.
func updateEvent(c *fiber.Ctx, r *Request) error {
	in, err := eventInput(r)
	if err != nil {
		return err
	}
	e, err := r.Deps.DB.UpdateEvent(r.Ctx, r.User, itemRef(r), in)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, presentEvent(r, e, false))
}

// deleteEvent answers DELETE on an event: trash (200, then 410), or with
// force=true delete for good (editors and up), answering the event as it
// was, the one shape venues, organizers and terms (TEC's term DELETE,
// sample 63) answer too.
func deleteEvent(c *fiber.Ctx, r *Request) error {
	if force, _ := r.Bool("force"); force {
		e, err := r.Deps.DB.DeleteEvent(r.Ctx, r.User, itemRef(r), r.Lang)
		if err != nil {
			return err
		}
		return sendJSON(c, http.StatusOK, presentEvent(r, e, false))
	}
	e, err := r.Deps.DB.TrashScoped(r.Ctx, r.User, itemRef(r), r.String("scope"), r.Lang)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, presentEvent(r, e, false))
}
