package api

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
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
	author.Validate = validateAuthor
	allDay := a("all_day", "boolean", KBool)
	allDay.Default, allDay.HasDefault = false, true
	image := a("image", "string", KString)
	image.MaxLen, image.Validate = 255, validateImage
	cost := a("cost", "", KRaw)
	cost.Validate = validateCost
	website := a("website", "", KURL)
	website.Default, website.HasDefault, website.MaxLen = nil, true, 255
	link := func(name string, v func(r *Request, v any) *Reason) Arg {
		l := a(name, "array", KRaw)
		l.Items, l.Default, l.HasDefault, l.Validate = "integer", nil, true, v
		return l
	}
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
		a("show_map", "boolean", KBool),
		a("show_map_link", "boolean", KBool),
		a("hide_from_listings", "boolean", KBool),
		a("sticky", "boolean", KBool),
		a("featured", "boolean", KBool),
		link("categories", validateTermLinks),
		link("tags", validateTermLinks),
		link("venue", validateVenueLinks),
		link("organizer", validateOrganizerLinks),
	}
}

func validateAuthor(r *Request, v any) *Reason {
	id, _ := v.(int64)
	ok, err := r.Deps.DB.UserExists(r.Ctx, id)
	if err != nil || !ok {
		return invalid("reason.events.unknown_user", map[string]any{"ID": id})
	}
	return nil
}

// validateImage accepts "" (no image) or an absolute http(s) URL; Kalends
// has no media library, so an attachment id names nothing.
func validateImage(r *Request, v any) *Reason {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid("reason.events.invalid_image", nil)
	}
	return nil
}

// validateCost accepts a string, a number, or a list of them.
func validateCost(r *Request, v any) *Reason {
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

func validateTermLinks(r *Request, v any) *Reason {
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

// linkRef is one item of an event's venue or organizer argument: an
// existing record's id, or the input of a record to create inline.
type linkRef[In any] struct {
	ID  int64
	New *In
}

// parseLinkRefs reads a venue or organizer argument: an id, {"id": N}, an
// object of the kind's fields (validated by the kind's own create rules
// through fromMap, so inline records follow the same code path as their
// routes) or a list of these, order kept. nameKey is the field an inline
// record needs (TEC §14); reason ids are "reason.events.invalid_<kind>" and
// "reason.events.invalid_inline_<kind>".
func parseLinkRefs[In any](r *Request, v any, kind, nameKey string,
	fromMap func(*Request, map[string]any) (In, []Invalid)) ([]linkRef[In], *Reason) {
	items, ok := linkItems(v)
	if !ok {
		return nil, invalid("reason.events.invalid_"+kind, nil)
	}
	refs := make([]linkRef[In], 0, len(items))
	for _, it := range items {
		switch y := it.(type) {
		case int64:
			refs = append(refs, linkRef[In]{ID: y})
		case map[string]any:
			if id, has := y["id"]; has {
				n, ok := intValue(id)
				if !ok || n <= 0 {
					return nil, invalid("reason.events.invalid_"+kind, nil)
				}
				refs = append(refs, linkRef[In]{ID: n})
				continue
			}
			if name, _ := y[nameKey].(string); strings.TrimSpace(name) == "" {
				return nil, invalid("reason.events.invalid_inline_"+kind, map[string]any{"Field": nameKey})
			}
			in, bad := fromMap(r, y)
			if len(bad) > 0 {
				return nil, invalid("reason.events.invalid_inline_"+kind, map[string]any{"Field": bad[0].Name})
			}
			refs = append(refs, linkRef[In]{New: &in})
		}
	}
	return refs, nil
}

// venueRefs reads the venue argument (see parseLinkRefs).
func venueRefs(r *Request, v any) ([]models.VenueRef, *Reason) {
	refs, reason := parseLinkRefs(r, v, "venue", "venue", venueInputFromMap)
	out := make([]models.VenueRef, len(refs))
	for i, ref := range refs {
		out[i] = models.VenueRef{ID: ref.ID, New: ref.New}
	}
	return out, reason
}

// organizerRefs reads the organizer argument (see parseLinkRefs).
func organizerRefs(r *Request, v any) ([]models.OrganizerRef, *Reason) {
	refs, reason := parseLinkRefs(r, v, "organizer", "organizer", organizerInputFromMap)
	out := make([]models.OrganizerRef, len(refs))
	for i, ref := range refs {
		out[i] = models.OrganizerRef{ID: ref.ID, New: ref.New}
	}
	return out, reason
}

// checkExisting returns a reason unless every id is a record of kind.
func checkExisting(r *Request, kind models.Kind, ids []int64) *Reason {
	if len(ids) == 0 {
		return nil
	}
	have, err := r.Deps.DB.ExistingIDs(r.Ctx, kind, ids)
	for _, id := range ids {
		if err != nil || !have[id] {
			return invalid("reason.events.unknown_"+string(kind), map[string]any{"ID": id})
		}
	}
	return nil
}

func validateVenueLinks(r *Request, v any) *Reason {
	refs, reason := venueRefs(r, v)
	if reason != nil {
		return reason
	}
	var ids []int64
	for _, ref := range refs {
		if ref.New == nil {
			ids = append(ids, ref.ID)
		}
	}
	return checkExisting(r, models.KindVenue, ids)
}

func validateOrganizerLinks(r *Request, v any) *Reason {
	refs, reason := organizerRefs(r, v)
	if reason != nil {
		return reason
	}
	var ids []int64
	for _, ref := range refs {
		if ref.New == nil {
			ids = append(ids, ref.ID)
		}
	}
	return checkExisting(r, models.KindOrganizer, ids)
}

// eventInput builds the store input from the arguments the client sent.
func eventInput(r *Request) (models.EventInput, error) {
	in := models.EventInput{Lang: r.Lang, Site: r.Deps.Config.Location, Now: r.Deps.Now()}
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
	if r.Has("venue") {
		refs, reason := venueRefs(r, r.Args["venue"])
		if reason != nil {
			return in, ErrInvalidParam("venue", *reason)
		}
		in.Venues = &refs
	}
	if r.Has("organizer") {
		refs, reason := organizerRefs(r, r.Args["organizer"])
		if reason != nil {
			return in, ErrInvalidParam("organizer", *reason)
		}
		in.Organizers = &refs
	}
	in.CreateCategories = models.Can(r.User, models.ActEdit, models.Subject{Kind: models.KindCategory})
	in.CreateTags = models.Can(r.User, models.ActEdit, models.Subject{Kind: models.KindTag})
	return in, nil
}

// mayAssignEventAuthor: only editors and up may give an event to someone else.
func mayAssignEventAuthor(r *Request, in models.EventInput) bool {
	return in.AuthorID == nil || r.User == nil || *in.AuthorID == r.User.ID || r.User.Role.AtLeast(models.RoleEditor)
}

// storeError maps store errors of event writes to API errors.
func storeError(err error) error {
	var fe *models.FieldError
	if errors.As(err, &fe) {
		switch fe.Reason {
		case "reason.could_not_create_venue":
			return NewError(http.StatusBadRequest, "could-not-create-venue", "error.could-not-create-venue")
		case "reason.could_not_create_organizer":
			return NewError(http.StatusBadRequest, "could-not-create-organizer", "error.could-not-create-organizer")
		}
		// The store's reasons are generic; their messages live under reason.events.
		reason := "reason.events." + strings.TrimPrefix(fe.Reason, "reason.")
		return ErrInvalidParam(fe.Field, Reason{Code: "rest_invalid_param", ID: reason, Data: fe.Data})
	}
	if errors.Is(err, models.ErrNotFound) {
		return errEventNotFound()
	}
	return err
}

// createEvent answers POST /events: 201, the event and a Location header.
func createEvent(c *fiber.Ctx, r *Request) error {
	in, err := eventInput(r)
	if err != nil {
		return err
	}
	if !mayAssignEventAuthor(r, in) {
		return ErrForbidden(r)
	}
	e, err := r.Deps.DB.CreateEvent(r.Ctx, r.User, in)
	if err != nil {
		return storeError(err)
	}
	objs, err := presentEvents(r, []*models.Event{e}, false)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, r.Deps.APIURL(r, "/events/"+strconv.FormatInt(e.ID, 10)))
	return sendJSON(c, http.StatusCreated, objs[0])
}

// updateEvent answers POST/PUT/PATCH on an event: a true partial update.
func updateEvent(c *fiber.Ctx, r *Request) error {
	e, err := findEvent(r)
	if err != nil {
		return err
	}
	if !models.Can(r.User, models.ActEdit, subject(e)) {
		return ErrForbidden(r)
	}
	in, err := eventInput(r)
	if err != nil {
		return err
	}
	if !mayAssignEventAuthor(r, in) {
		return ErrForbidden(r)
	}
	updated, err := r.Deps.DB.UpdateEvent(r.Ctx, r.User, e.ID, in)
	if err != nil {
		return storeError(err)
	}
	objs, err := presentEvents(r, []*models.Event{updated}, false)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, objs[0])
}

// deleteEvent answers DELETE on an event: trash (200, then 410), or with
// force=true delete for good (editors and up), answering as WordPress
// does: {"deleted": true, "previous": <event>}.
func deleteEvent(c *fiber.Ctx, r *Request) error {
	e, err := findEvent(r)
	if err != nil {
		return err
	}
	if force, _ := r.Bool("force"); force {
		if !models.Can(r.User, models.ActForceDelete, subject(e)) {
			return ErrForbidden(r)
		}
		objs, err := presentEvents(r, []*models.Event{e}, false)
		if err != nil {
			return err
		}
		if err := r.Deps.DB.DeleteEvent(r.Ctx, e.ID); err != nil {
			return storeError(err)
		}
		return sendJSON(c, http.StatusOK, Obj{{"deleted", true}, {"previous", objs[0]}})
	}
	if !models.Can(r.User, models.ActTrash, subject(e)) {
		return ErrForbidden(r)
	}
	if e.Status == models.StatusTrash {
		return NewError(http.StatusGone, "event-is-in-trash", "error.event-is-in-trash")
	}
	trashed, err := r.Deps.DB.TrashEvent(r.Ctx, e.ID, r.Lang)
	if err != nil {
		return storeError(err)
	}
	objs, err := presentEvents(r, []*models.Event{trashed}, false)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, objs[0])
}
