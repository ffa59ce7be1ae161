package api

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// indexRoutes declares the namespace index and the OpenAPI document.
func indexRoutes() []Route {
	return []Route{
		{
			Pattern: "",
			Endpoints: []Endpoint{{
				Methods: []string{"GET"},
				Args: []Arg{
					{Name: "namespace", Default: Namespace, HasDefault: true, Desc: "arg.index.namespace", In: "query", Kind: KString},
					{Name: "context", Default: "view", HasDefault: true, Desc: "arg.index.context", In: "query", Kind: KString},
				},
				Handler: serveIndex,
			}},
		},
		{
			Pattern: "/doc",
			DocPath: "/doc",
			Endpoints: []Endpoint{{
				Methods: []string{"GET"},
				Handler: serveDoc,
			}},
		},
	}
}

// tableOf returns the prepared route table the dispatcher serves (with
// ml_language on every endpoint).
func tableOf(c *fiber.Ctx) []Route {
	t, _ := c.Locals(routesKey).([]Route)
	return t
}

// serveIndex answers GET / with the WordPress namespace index.
func serveIndex(c *fiber.Ctx, r *Request) error {
	routes := Obj{}
	for i := range tableOf(c) {
		rt := &tableOf(c)[i]
		routes = append(routes, KV{routeKey(rt), routeEntry(r, rt)})
	}
	return sendJSON(c, http.StatusOK, Obj{
		{"namespace", Namespace},
		{"routes", routes},
		{"_links", Obj{{"up", []Obj{{{"href", r.Deps.Root(r) + "/"}}}}}},
	})
}

// routeKey is the index key of a route: "/cal/events/v1/events/(?P<id>\\d+)".
func routeKey(rt *Route) string { return "/" + Namespace + rt.Pattern }

// routeEntry is a route's entry in the index, also the OPTIONS answer:
// {namespace, methods, endpoints: [{methods, args}], _links?}. Routes
// without path parameters link to themselves, as WordPress does.
func routeEntry(r *Request, rt *Route) Obj {
	eps := make([]Obj, 0, len(rt.Endpoints))
	for i := range rt.Endpoints {
		ep := &rt.Endpoints[i]
		args := Obj{}
		for j := range ep.Args {
			args = append(args, KV{ep.Args[j].Name, argEntry(r, &ep.Args[j])})
		}
		eps = append(eps, Obj{{"methods", ep.Methods}, {"args", args}})
	}
	o := Obj{{"namespace", Namespace}, {"methods", routeMethods(rt)}, {"endpoints", eps}}
	if !strings.Contains(rt.Pattern, "(") {
		o = append(o, KV{"_links", Obj{{"self", []Obj{{{"href", r.Deps.APIURL(r, rt.Pattern)}}}}}})
	}
	return o
}

// argEntry describes one argument:
// {default?, description, type?, format?, enum?, items?, required}.
func argEntry(r *Request, a *Arg) Obj {
	o := Obj{}
	switch {
	case a.DefaultFunc != nil:
		o = append(o, KV{"default", a.DefaultFunc(r)})
	case a.HasDefault:
		o = append(o, KV{"default", a.Default})
	}
	o = append(o, KV{"description", r.T(a.Desc, nil)})
	if a.Type != "" {
		o = append(o, KV{"type", a.Type})
	}
	if a.Format != "" {
		o = append(o, KV{"format", a.Format})
	}
	if len(a.Enum) > 0 {
		o = append(o, KV{"enum", a.Enum})
	}
	if a.Items != "" {
		o = append(o, KV{"items", Obj{{"type", a.Items}}})
	}
	return append(o, KV{"required", a.Required})
}
