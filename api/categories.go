package api

import (
	"github.com/kalends/kalends/models"
)

// Categories and tags (issue 5). Where Kalends departs from TEC 6.17.2, on
// purpose:
//   - an unknown id, or an id of the other taxonomy, is 404 rest_term_invalid
//     (TEC: 400 from its validator), as SPEC §9;
//   - a slug the client sends is sanitized like a generated one (Slugify);
//     if another term of the taxonomy has it, the write is 400
//     rest_invalid_param naming slug, because silently storing "x-2" would
//     give the client a URL it did not ask for. A slug generated from the
//     name never fails: it gets the first free -2, -3, … suffix;
//   - description may be "" (clears it; TEC rejects "" with is_string), and
//     parent may be 0 on writes (moves a category to the top level);
//   - names are stored as sent, not HTML-escaped ("A & B", not "A &amp; B");
//   - rest_url, next_rest_url and previous_rest_url echo every effective
//     filter (TEC echoes none).

// termRoutes declares /categories and /tags (SPEC §5, TEC §8) as data: the
// arguments, in the order of the published route description, with our
// own descriptions. keys holds the message-id prefix ("categories" or
// "tags").
func termRoutes(taxonomy string) []Route {
	kind := models.TaxonomyKind(taxonomy)
	keys, coll := "categories", "/categories"
	if taxonomy == models.TaxTag {
		keys, coll = "tags", "/tags"
	}
	h := &termHandler{taxonomy: taxonomy, kind: kind, coll: coll, keys: keys}
	isCat := taxonomy == models.TaxCategory

	list := []Arg{
		argPage(),
		argPerPage(),
		{Name: "search", Type: "string", Desc: "arg." + keys + ".list.search", In: "query", Kind: KString, MaxLen: models.MaxSearchLen},
		{Name: "exclude", Items: "integer", Desc: "arg." + keys + ".list.exclude", In: "query", Kind: KIntList},
		{Name: "include", Items: "integer", Desc: "arg." + keys + ".list.include", In: "query", Kind: KIntList},
		{Name: "order", Type: "string", Enum: []string{"asc", "desc"}, Desc: "arg.terms.list.order", In: "query", Kind: KEnum},
		{Name: "orderby", Type: "string", Enum: models.TermOrderBys, Desc: "arg.terms.list.orderby", In: "query", Kind: KEnum},
		{Name: "hide_empty", Type: "boolean", Default: "1", HasDefault: true, Desc: "arg." + keys + ".list.hide_empty", In: "query", Kind: KBool},
	}
	if isCat {
		list = append(list, Arg{Name: "parent", Type: "integer", Desc: "arg.categories.list.parent", In: "query",
			Kind: KPositiveInt})
	}
	list = append(list,
		Arg{Name: "post", Type: "integer", Desc: "arg." + keys + ".list.post", In: "query", Kind: KPositiveInt},
		Arg{Name: "event", Type: "integer", Desc: "arg." + keys + ".list.event", In: "query", Kind: KPositiveInt},
		Arg{Name: "slug", Type: "string", Desc: "arg." + keys + ".list.slug", In: "query", Kind: KNonEmpty},
	)

	fields := func(required bool) []Arg {
		a := []Arg{
			{Name: "name", Type: "string", Required: required, Desc: "arg." + keys + ".name", In: "body", Kind: KNonEmpty},
			{Name: "description", Type: "string", Desc: "arg." + keys + ".description", In: "body", Kind: KString, MaxLen: 65536},
			{Name: "slug", Type: "string", Desc: "arg." + keys + ".slug", In: "body", Kind: KNonEmpty, Validate: validateSlugArg},
		}
		if isCat {
			a = append(a, Arg{Name: "parent", Type: "integer", Desc: "arg.categories.parent", In: "body", Kind: KInt, Validate: validateParent})
		}
		return a
	}
	id := argIDPath("arg." + keys + ".id")
	id.Required = true

	return []Route{
		{
			Pattern: coll,
			DocPath: coll,
			Endpoints: []Endpoint{
				{Methods: []string{"GET"}, Args: list, Handler: h.list},
				{Methods: []string{"POST"}, Args: fields(true), Action: models.ActCreate, Kind: kind, Handler: h.create},
			},
		},
		{
			Pattern: coll + `/(?P<id>\d+)`,
			DocPath: coll + "/{id}",
			Endpoints: []Endpoint{
				{Methods: []string{"GET"}, Args: []Arg{id}, Handler: h.get},
				{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]Arg{id}, fields(false)...), Action: models.ActEdit, Kind: kind, Handler: h.update},
				{Methods: []string{"DELETE"}, Args: []Arg{id, argTermForce()}, Action: models.ActEdit, Kind: kind, Handler: h.delete},
			},
		},
	}
}

// categoryRoutes declares /categories and /categories/{id}.
func categoryRoutes() []Route { return termRoutes(models.TaxCategory) }

// validateParent: on writes, parent is 0 (top level) or a positive id; the
// models check that it names a category and makes no cycle.
func validateParent(_ *Request, v any) *Reason {
	if id, _ := v.(int64); id < 0 {
		return rsn("rest_out_of_bounds", "reason.categories.unknown_parent", nil)
	}
	return nil
}

// validateSlugArg: a sent slug must keep a letter or digit once sanitized.
func validateSlugArg(_ *Request, v any) *Reason {
	s, _ := v.(string)
	if models.Slugify(s) == "" {
		return rsn("rest_invalid_param", "reason.terms.bad_slug", nil)
	}
	return nil
}

// argTermForce is force on term DELETE routes: terms have no trash and are
// always deleted for good, so the value changes nothing; it is accepted so
// that every DELETE of the API takes the same arguments.
func argTermForce() Arg {
	a := argForce()
	a.Desc = "arg.terms.force"
	return a
}
