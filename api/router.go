package api

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// RequestTimeout bounds every API request, so a hung database gives 503
// instead of a hung client. It is a little under SPEC's 5 seconds: the 503
// is rendered after the deadline and must still reach the client in time.
const RequestTimeout = 4500 * time.Millisecond

const (
	contentTypeJSON = "application/json; charset=UTF-8"
	exposeHeaders   = "X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages"
	allowHeaders    = "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type"

	requestKey = "kalends.api_request" // fiber Locals: *Request
	routesKey  = "kalends.api_routes"  // fiber Locals: []Route (the prepared table)
)

// compiledRoute is a route of the table with its anchored regex.
type compiledRoute struct {
	route *Route
	re    *regexp.Regexp
}

// dispatcher serves every API path: one fiber handler matches the WordPress
// regex patterns itself, so unknown paths and methods are 404 rest_no_route
// (never fiber's 405) and OPTIONS works on every route.
type dispatcher struct {
	d      *Deps
	table  []Route
	routes []compiledRoute
}

// mount registers the dispatcher of routes on app under the namespace and
// its language prefixes.
func mount(app *fiber.App, d *Deps, routes []Route) {
	dp := &dispatcher{d: d, table: prepareRoutes(routes)}
	for i := range dp.table {
		rt := &dp.table[i]
		dp.routes = append(dp.routes, compiledRoute{route: rt, re: regexp.MustCompile(`(?i)^` + rt.Pattern + `/?$`)})
	}
	serve := d.Gate.Wrap(dp.serve)
	handler := serve
	if d.Parts != nil {
		handler = partsWrote(d.Parts, handler)
	}
	if d.Cache != nil {
		handler = d.Cache.Handler(handler, 0)
	}
	handler = withETag(withIfMatch(app, serve, handler))
	ns := "/" + Namespace
	for _, pre := range append([]string{""}, prefixes()...) {
		app.All(pre+ns, handler)
		app.All(pre+ns+"/*", handler)
	}
}

func prefixes() []string {
	out := make([]string, len(i18n.Codes))
	for i, c := range i18n.Codes {
		out[i] = "/" + c
	}
	return out
}

// mlLanguageArg is added to every endpoint: the language selector.
func mlLanguageArg() Arg {
	return Arg{Name: "ml_language", Type: "string", Enum: i18n.Codes, Desc: "arg.common.ml_language",
		In: "query", Kind: KEnum}
}

// prepareRoutes copies the table and adds ml_language to every endpoint
// that does not declare it (resource tables never do).
func prepareRoutes(routes []Route) []Route {
	out := make([]Route, len(routes))
	for i, rt := range routes {
		eps := make([]Endpoint, len(rt.Endpoints))
		for j, ep := range rt.Endpoints {
			args := append([]Arg(nil), ep.Args...)
			has := false
			for _, a := range args {
				has = has || a.Name == "ml_language"
			}
			if !has {
				args = append(args, mlLanguageArg())
			}
			ep.Args = args
			eps[j] = ep
		}
		rt.Endpoints = eps
		out[i] = rt
	}
	return out
}

// serve runs one API request: language, authentication, route match,
// OPTIONS, the argument pipeline (the checks that need no data), the
// endpoint's general capability, then the handler, whose models operation
// checks the record itself before anything else reads the database.
func (dp *dispatcher) serve(c *fiber.Ctx) error {
	prefix, rest, ok := splitAPIPath(c.Path())
	if !ok {
		return c.Next()
	}
	r := &Request{Deps: dp.d, Prefix: prefix, Lang: dp.d.defaultLang(), Method: c.Method()}
	if prefix != "" {
		r.Prefix = strings.ToLower(prefix)
		r.Lang = r.Prefix[1:]
	}
	// A valid ml_language in the query speaks in errors raised before the
	// arguments are read (auth, no route); the body's one wins later.
	if l := string(c.Request().URI().QueryArgs().Peek("ml_language")); i18n.Valid(l) {
		r.Lang = l
	}
	c.Locals(requestKey, r)
	c.Locals(routesKey, dp.table)
	ctx, cancel := context.WithTimeout(c.UserContext(), dp.d.requestTimeout())
	defer cancel()
	r.Ctx = ctx
	applyCORS(c, dp.d)

	u, err := authenticate(c, r)
	if err != nil {
		return err
	}
	r.User = u

	rest, uerr := url.PathUnescape(rest)
	cr, params := dp.match(rest)
	if uerr != nil || cr == nil {
		return ErrNoRoute()
	}
	r.Route = cr.route
	r.Path = params
	c.Set(fiber.HeaderAllow, strings.Join(allowedMethods(r.Route, r.User), ", "))

	method := strings.ToUpper(c.Method())
	if method == fiber.MethodOptions {
		return dp.options(c, r)
	}
	if method == fiber.MethodHead {
		method = fiber.MethodGet
	}
	ep := endpointFor(r.Route, method)
	if ep == nil {
		return ErrNoRoute()
	}
	r.Endpoint, r.Method = ep, method
	if err := parseArgs(c, r); err != nil {
		return err
	}
	if !ep.allows(r.User) {
		return refusal(r, ep.Kind)
	}
	if method != fiber.MethodGet {
		if err := r.Deps.DB.CountWrite(r.Ctx, r.User); err != nil {
			if rl := rateLimited(c, err); rl != nil {
				return rl
			}
			return err
		}
	}
	if err := ep.Handler(c, r); err != nil {
		return err
	}
	setAPIHeaders(c, r.Lang)
	return nil
}

// match finds the first route whose pattern matches rest (the path after
// the namespace) and returns its named groups.
func (dp *dispatcher) match(rest string) (*compiledRoute, map[string]string) {
	for i := range dp.routes {
		cr := &dp.routes[i]
		m := cr.re.FindStringSubmatch(rest)
		if m == nil {
			continue
		}
		params := map[string]string{}
		for j, name := range cr.re.SubexpNames() {
			if name != "" && j < len(m) {
				params[name] = m[j]
			}
		}
		// The pattern takes any run of digits; one beyond int64 names no
		// record, so it is looked up as 0 (which names nothing either) and
		// the route answers its own 404, as for any unknown id (SPEC §4).
		if id, ok := params["id"]; ok {
			if _, err := strconv.ParseInt(id, 10, 64); err != nil {
				params["id"] = "0"
			}
		}
		return cr, params
	}
	return nil, nil
}

// options answers OPTIONS on a route with its index entry.
func (dp *dispatcher) options(c *fiber.Ctx, r *Request) error {
	if c.Get(fiber.HeaderOrigin) != "" && c.Get(fiber.HeaderAccessControlRequestMethod) != "" {
		if listedOrigin(dp.d, c.Get(fiber.HeaderOrigin)) {
			c.Set(fiber.HeaderAccessControlAllowMethods, strings.Join(append(routeMethods(r.Route), "OPTIONS"), ", "))
		} else {
			c.Set(fiber.HeaderAccessControlAllowMethods, "GET, HEAD, OPTIONS")
		}
		c.Set(fiber.HeaderAccessControlMaxAge, "600")
	}
	if err := sendJSON(c, http.StatusOK, routeEntry(r, r.Route)); err != nil {
		return err
	}
	setAPIHeaders(c, r.Lang)
	return nil
}

func endpointFor(rt *Route, method string) *Endpoint {
	for i := range rt.Endpoints {
		for _, m := range rt.Endpoints[i].Methods {
			if m == method {
				return &rt.Endpoints[i]
			}
		}
	}
	return nil
}

// routeMethods lists the methods of a route in table order, once each.
func routeMethods(rt *Route) []string {
	var out []string
	seen := map[string]bool{}
	for _, ep := range rt.Endpoints {
		for _, m := range ep.Methods {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// allowedMethods lists the methods of a route the caller may use (the
// Allow header).
func allowedMethods(rt *Route, u *models.User) []string {
	var out []string
	seen := map[string]bool{}
	for _, ep := range rt.Endpoints {
		if !ep.allows(u) {
			continue
		}
		for _, m := range ep.Methods {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}
