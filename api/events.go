package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// eventRoutes declares /events, /events/{id} and /events/by-slug/{slug}
// with the arguments of the published route description and TEC's index.
func eventRoutes() []Route {
	ev := models.KindEvent
	item := func(path Arg, update []Arg) []Endpoint {
		return []Endpoint{
			{Methods: []string{"GET"}, Args: []Arg{path}, Handler: getEvent},
			{Methods: []string{"DELETE"}, Args: []Arg{path, argForce(), argDeleteScope()}, Action: models.ActTrash, Kind: ev, Handler: deleteEvent},
			{Methods: []string{"POST", "PUT", "PATCH"}, Args: update, Action: models.ActEdit, Kind: ev, Handler: updateEvent},
		}
	}
	idPath := argIDPath("arg.events.id")
	slugPath := argSlugPath("arg.events.slug_path", true)
	// On the by-slug update route TEC lists one optional "slug": the path
	// finds the event (Request.Path), a body value renames it.
	slugUpdate := argSlugPath("arg.events.slug_path", false)
	return []Route{
		{Pattern: "/events", DocPath: "/events", Endpoints: []Endpoint{
			{Methods: []string{"GET"}, Args: eventListArgs(), Handler: listEvents},
			{Methods: []string{"POST"}, Args: eventWriteArgs(true), Action: models.ActCreate, Kind: ev, Handler: createEvent},
		}},
		{Pattern: `/events/(?P<id>\d+)`, DocPath: "/events/{id}",
			Endpoints: item(idPath, append([]Arg{idPath}, eventWriteArgs(false)...))},
		{Pattern: `/events/by-slug/(?P<slug>[^/]+)`, DocPath: "/events/by-slug/{slug}",
			Endpoints: item(slugPath, append([]Arg{slugUpdate}, withoutArg(eventWriteArgs(false), "slug")...))},
	}
}

// withoutArg returns args without the one named name.
func withoutArg(args []Arg, name string) []Arg {
	out := make([]Arg, 0, len(args))
	for _, a := range args {
		if a.Name != name {
			out = append(out, a)
		}
	}
	return out
}

// eventListArgs are the arguments of GET /events, in TEC's order, without
// password and ticketed (not supported), plus our documented extensions.
func eventListArgs() []Arg {
	date := func(name string) Arg {
		return Arg{Name: name, Kind: KDate, Desc: "arg.events.list." + name, In: "query"}
	}
	start := date("start_date")
	start.Type, start.HasDefault = "string", true
	start.DefaultFunc = func(r *Request) any { return defaultListStart(r).Format(time.DateTime) }
	end := date("end_date")
	end.Type, end.HasDefault = "string", true
	end.DefaultFunc = func(r *Request) any { return defaultListEnd(r).Format(time.DateTime) }
	ids := func(name string) Arg {
		return Arg{Name: name, Type: "array", Items: "integer", Kind: KIntList, Desc: "arg.events.list." + name, In: "query", Validate: maxItems}
	}
	return append([]Arg{
		argPage(),
		argPerPage(),
		start,
		end,
		date("starts_before"),
		date("starts_after"),
		date("ends_before"),
		date("ends_after"),
		{Name: "strict_dates", Kind: KBool, Default: "false", HasDefault: true, Desc: "arg.events.list.strict_dates", In: "query"},
		argSearch(),
		{Name: "categories", Type: "array", Items: "integer", Kind: KRaw, Desc: "arg.events.list.categories", In: "query", Validate: validateTermFilter},
		{Name: "tags", Type: "array", Items: "integer", Kind: KRaw, Desc: "arg.events.list.tags", In: "query", Validate: validateTermFilter},
		ids("venue"),
		ids("organizer"),
		{Name: "featured", Type: "boolean", Kind: KBool, Desc: "arg.events.list.featured", In: "query"},
		{Name: "status", Type: "string", Format: "string", Kind: KStringList, Desc: "arg.events.list.status", In: "query", Validate: validateListStatus},
		{Name: "geoloc", Type: "boolean", Kind: KBool, Desc: "arg.events.list.geoloc", In: "query"},
		{Name: "geoloc_lat", Type: "number", Format: "double", Kind: KNumber, Desc: "arg.events.list.geoloc_lat", In: "query", Validate: validateCoord("geoloc_lat", "geoloc_lng", 90)},
		{Name: "geoloc_lng", Type: "number", Format: "double", Kind: KNumber, Desc: "arg.events.list.geoloc_lng", In: "query", Validate: validateCoord("geoloc_lng", "geoloc_lat", 180)},
		{Name: "include", Type: "array", Items: "integer", Kind: KIntList, Desc: "arg.events.list.include", In: "query"},
		{Name: "post_parent", Type: "integer", Kind: KPositiveInt, Desc: "arg.events.list.post_parent", In: "query"},
		{Name: "recurrence", Type: "string", Enum: []string{models.RecurrenceOccurrences, models.RecurrenceSeries, models.RecurrenceFirst},
			Default: models.RecurrenceOccurrences, HasDefault: true, Kind: KEnum, Desc: "arg.events.list.recurrence", In: "query"},
		{Name: "include_hidden", Kind: KBool, Default: "false", HasDefault: true, Desc: "arg.events.list.include_hidden", In: "query"},
	}, modifiedArgs("arg.changes.events_", eventOrderBys, "asc")...)
}

// eventOrderBys are the orders of GET /events, the default first.
var eventOrderBys = []string{"start_date", orderByModified, "title"}

// defaultListStart is TEC's default window start: 00:00:00 of yesterday
// in the site zone.
func defaultListStart(r *Request) time.Time {
	now := r.Deps.now().In(r.Deps.location())
	y, m, d := now.Date()
	return time.Date(y, m, d-1, 0, 0, 0, 0, now.Location())
}

// defaultListEnd is TEC's default window end: now + 24 months, 23:59:59.
func defaultListEnd(r *Request) time.Time {
	now := r.Deps.now().In(r.Deps.location())
	y, m, d := now.AddDate(0, 24, 0).Date()
	return time.Date(y, m, d, 23, 59, 59, 0, now.Location())
}

func invalid(id string, data map[string]any) *Reason {
	return &Reason{Code: models.CodeInvalidParam, Reason: id, Data: data}
}

// validateListStatus accepts known statuses; which of them the caller may
// ask for is the models' rule (SPEC §6).
func validateListStatus(_ *Request, v any) *Reason {
	list, _ := v.([]string)
	for _, s := range list {
		if !models.ValidStatus(s) {
			return invalid("reason.events.unknown_status", map[string]any{"Value": s})
		}
	}
	return nil
}

// validateCoord requires the other coordinate too and a value in range.
func validateCoord(_, other string, limit float64) func(r *Request, v any) *Reason {
	return func(r *Request, v any) *Reason {
		f, _ := v.(float64)
		if f < -limit || f > limit || f != f {
			return invalid("reason.events.coordinate_out_of_range", map[string]any{"Max": limit})
		}
		if !r.Has(other) {
			return invalid("reason.events.coordinates_together", map[string]any{"Other": other})
		}
		return nil
	}
}

// maxItems bounds the ids of a link or filter argument.
func maxItems(_ *Request, v any) *Reason {
	if ids, _ := v.([]int64); len(ids) > maxLinks {
		return invalid("reason.events.too_many_items", map[string]any{"Max": maxLinks})
	}
	return nil
}

// itemRef is the record an item route names: by slug on by-slug routes,
// else by id (0 names nothing, as do ids beyond int64). Handlers find the
// record with it, never with Args (see Request.Path).
func itemRef(r *Request) models.Ref {
	if slug, ok := r.Path["slug"]; ok {
		return models.BySlug(slug)
	}
	id, _ := strconv.ParseInt(r.Path["id"], 10, 64)
	return models.ByID(id)
}

// getEvent answers GET /events/{id} and /events/by-slug/{slug}.
func getEvent(c *fiber.Ctx, r *Request) error {
	gen, parts := r.Deps.Parts.Generation(r.Ctx)
	if !parts {
		e, err := r.Deps.DB.GetEvent(r.Ctx, r.User, itemRef(r), r.Lang)
		if err != nil {
			return err
		}
		return sendJSON(c, http.StatusOK, presentEvent(r, e, true))
	}
	// The permission checks need the stored row; the rest comes from the
	// ready part when there is one.
	e, err := r.Deps.DB.GetEventBare(r.Ctx, r.User, itemRef(r))
	if err != nil {
		return err
	}
	b, err := eventPart(r, e, gen)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, b)
}
