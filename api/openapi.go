package api

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// docResource says what a path family returns, for the response schemas
// of /doc (the route table does not carry response shapes).
type docResource struct {
	schema  string // component name
	listKey string // key of the list in list responses
	post    bool   // event, venue or organizer (403/410 answers, list keys first)
}

var docResources = map[string]docResource{
	"events":     {"Event", "events", true},
	"venues":     {"Venue", "venues", true},
	"organizers": {"Organizer", "organizers", true},
	"categories": {"Term", "categories", false},
	"tags":       {"Term", "tags", false},
	"media":      {"Media", "media", false},
}

var groupNameRe = regexp.MustCompile(`\(\?P<([A-Za-z_][A-Za-z0-9_]*)>`)

// serveDoc answers GET /doc with an OpenAPI 3.0 document generated from
// the route table, in the request language.
func serveDoc(c *fiber.Ctx, r *Request) error {
	return sendJSON(c, http.StatusOK, openAPIDoc(r, tableOf(c)))
}

// openAPIDoc builds the document: openapi, info, components, servers,
// paths (TEC's key order), paths in table order, then the webhooks
// Kalends sends (our extension).
func openAPIDoc(r *Request, table []Route) Obj {
	paths := Obj{}
	for i := range table {
		rt := &table[i]
		if rt.DocPath == "" {
			continue
		}
		paths = append(paths, KV{rt.DocPath, pathItem(r, rt)})
	}
	return Obj{
		{"openapi", "3.0.0"},
		{"info", Obj{{"version", "1.0.0"}, {"title", r.T("doc.info.title", nil)}, {"description", r.T("doc.info.description", nil)}}},
		{"components", Obj{{"schemas", docSchemas(r)}, {"securitySchemes", securitySchemes(r)}}},
		{"servers", []Obj{{{"url", r.Deps.APIURL(r, "")}}}},
		{"paths", paths},
		{"x-webhooks", webhooksDoc(r)},
	}
}

// pathItem lists one operation per method of the route.
func pathItem(r *Request, rt *Route) Obj {
	res, known := docResources[firstSegment(rt.DocPath)]
	pathParams := map[string]bool{}
	var pathOrder []string
	for _, m := range groupNameRe.FindAllStringSubmatch(rt.Pattern, -1) {
		pathParams[m[1]] = true
		pathOrder = append(pathOrder, m[1])
	}
	item := Obj{}
	for i := range rt.Endpoints {
		ep := &rt.Endpoints[i]
		for _, m := range ep.Methods {
			op := operation(r, rt, ep, m, pathParams, pathOrder, res, known)
			item = append(item, KV{strings.ToLower(m), op})
		}
	}
	return item
}

func firstSegment(p string) string {
	p = strings.TrimPrefix(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return p
}

// operation describes one method: parameters (path, then query for reads
// and deletes), requestBody for writes, responses.
func operation(r *Request, rt *Route, ep *Endpoint, method string, pathParams map[string]bool, pathOrder []string,
	res docResource, known bool) Obj {
	write := method == "POST" || method == "PUT" || method == "PATCH"
	params := []Obj{}
	declared := map[string]bool{}
	for j := range ep.Args {
		a := &ep.Args[j]
		if pathParams[a.Name] {
			declared[a.Name] = true
			params = append(params, parameter(r, a, "path"))
		}
	}
	for _, name := range pathOrder {
		if !declared[name] { // every {param} of the path needs a parameter
			params = append(params, Obj{{"in", "path"}, {"schema", Obj{{"type", "string"}}}, {"required", true}, {"name", name}})
		}
	}
	props, required := Obj{}, []string{}
	for j := range ep.Args {
		a := &ep.Args[j]
		switch {
		case pathParams[a.Name]:
		case !write || a.Name == "ml_language":
			params = append(params, parameter(r, a, "query"))
		default:
			s := argSchema(a)
			if a.Accepts != "" {
				s = acceptsSchema(a.Accepts)
			}
			s = append(s, KV{"description", r.T(a.Desc, nil)})
			props = append(props, KV{a.Name, s})
			if a.Required {
				required = append(required, a.Name)
			}
		}
	}
	id := operationID(method, rt.DocPath)
	op := Obj{{"operationId", id}, {"summary", operationSummary(r, method, rt.DocPath)}}
	if d := operationDescription(r, rt.DocPath); d != "" {
		op = append(op, KV{"description", d})
	}
	op = append(op, KV{"parameters", params})
	op = append(op, KV{"security", operationSecurity(write || method == "DELETE")})
	if write && len(props) > 0 {
		schema := Obj{{"type", "object"}, {"properties", props}}
		if len(required) > 0 {
			schema = append(schema, KV{"required", required})
		}
		if ep.Multipart {
			op = append(op, KV{"requestBody", Obj{{"content", Obj{{"multipart/form-data", Obj{{"schema", schema}}}}}}})
			return append(op, KV{"responses", responses(r, rt, method, len(pathOrder) > 0, res, known)})
		}
		op = append(op, KV{"requestBody", Obj{{"content", Obj{
			{"application/json", Obj{{"schema", schema}}},
			{"application/x-www-form-urlencoded", Obj{{"schema", schema}}},
		}}}})
	}
	return append(op, KV{"responses", responses(r, rt, method, len(pathOrder) > 0, res, known)})
}

// parameter is an OpenAPI parameter object in TEC's key order.
func parameter(r *Request, a *Arg, in string) Obj {
	p := Obj{{"in", in}, {"schema", argSchema(a)}, {"description", r.T(a.Desc, nil)},
		{"required", a.Required || in == "path"}, {"name", a.Name}}
	if in == "query" && (a.Kind == KIntList || a.Kind == KStringList) {
		p = append(p, KV{"style", "form"}, KV{"explode", false})
	}
	return p
}

// argSchema is the JSON schema of an argument: its declared type (or the
// one its Kind implies), items, format, enum and a static default.
func argSchema(a *Arg) Obj {
	typ, items := a.Type, a.Items
	if typ == "" {
		switch a.Kind {
		case KInt, KPositiveInt:
			typ = "integer"
		case KBool:
			typ = "boolean"
		case KNumber:
			typ = "number"
		case KIntList:
			typ = "array"
		case KStringList:
			typ = "array"
		case KRaw:
		default:
			typ = "string"
		}
	}
	if typ == "array" && items == "" {
		items = "string"
		if a.Kind == KIntList {
			items = "integer"
		}
	}
	s := Obj{}
	if typ != "" {
		s = append(s, KV{"type", typ})
	}
	if typ == "array" {
		s = append(s, KV{"items", Obj{{"type", items}}})
	}
	if a.Format != "" {
		s = append(s, KV{"format", a.Format})
	}
	if len(a.Enum) > 0 {
		s = append(s, KV{"enum", a.Enum})
	}
	if a.HasDefault && a.DefaultFunc == nil && a.Default != nil {
		if v, ok := typedDefault(typ, a.Default); ok {
			s = append(s, KV{"default", v})
		}
	}
	return s
}

// typedDefault converts a default as the published route description gives
// it (hide_empty's default is the string "1") to the schema's type, which an
// OpenAPI validator requires; the namespace index keeps the published value.
// A default that does not convert is left out of the schema.
func typedDefault(typ string, v any) (any, bool) {
	if _, isString := v.(string); !isString {
		return v, true // already typed in the table
	}
	switch typ {
	case "boolean":
		b, reason := parseBool(v)
		return b, reason == nil
	case "integer":
		n, reason := parseInt(v)
		return n, reason == nil
	case "number":
		f, reason := parseNumber(v)
		return f, reason == nil
	}
	return v, true
}

// responses lists the answers of an operation with their descriptions and,
// for the resources we know, their schemas.
func responses(r *Request, rt *Route, method string, single bool, res docResource, known bool) Obj {
	desc := func(id string) string { return r.T(id, nil) }
	errResp := func(status string) KV {
		return KV{status, Obj{{"description", desc("doc.response." + status)},
			{"content", Obj{{"application/json", Obj{{"schema", refTo("Error")}}}}}}}
	}
	ok := func(id string, schema Obj) Obj {
		o := Obj{{"description", desc(id)}}
		if schema != nil {
			o = append(o, KV{"content", Obj{{"application/json", Obj{{"schema", schema}}}}})
		}
		return o
	}
	var record, list Obj
	if known {
		record = refTo(res.schema)
		list = listSchema(r, res)
	}
	out := Obj{}
	switch {
	case rt.DocPath == "/doc":
		return Obj{{"200", ok("doc.response.doc", Obj{{"type", "object"}})}}
	case rt.DocPath == "/changes":
		return Obj{{"200", withCursorHeader(r, ok("doc.response.changes", changesSchema(r)))}, errResp("400"), errResp("410")}
	case method == "GET" && !single:
		out = append(out, KV{"200", withCursorHeader(r, ok("doc.response.list", list))}, errResp("400"))
		if res.post {
			out = append(out, errResp("404"))
		}
	case method == "GET":
		out = append(out, KV{"200", ok("doc.response.record", record)}, errResp("400"))
		if res.post {
			out = append(out, errResp("403"))
		}
		out = append(out, errResp("404"))
	case method == "DELETE":
		out = append(out, KV{"200", ok("doc.response.deleted", record)}, errResp("400"), errResp("401"), errResp("403"), errResp("404"))
		if res.post {
			out = append(out, errResp("410"))
		}
	case !single:
		out = append(out, KV{"201", ok("doc.response.created", record)}, errResp("400"), errResp("401"), errResp("403"))
	default:
		out = append(out, KV{"200", ok("doc.response.updated", record)}, errResp("400"), errResp("401"), errResp("403"), errResp("404"))
	}
	return out
}

// listSchema is the object a list answers with: TEC's key order differs
// between post lists and term lists.
func listSchema(r *Request, res docResource) Obj {
	b := schemaBuilder{r}
	items := KV{res.listKey, b.arrRef(res.schema, "doc.prop.list_items")}
	links := Obj{
		{"rest_url", b.pf("string", "uri", "doc.prop.list_rest_url")},
		{"next_rest_url", b.pf("string", "uri", "doc.prop.next_rest_url")},
		{"previous_rest_url", b.pf("string", "uri", "doc.prop.previous_rest_url")},
	}
	totals := Obj{{"total", b.p("integer", "doc.prop.total")}, {"total_pages", b.p("integer", "doc.prop.total_pages")}}
	var props Obj
	if res.post {
		props = append(append(Obj{items}, links...), totals...)
	} else {
		props = append(append(append(Obj{links[0]}, totals...), items), links[1:]...)
	}
	return object(props)
}

// securitySchemes are the two ways to call as a user (SPEC §7): HTTP Basic
// with an application password, or the admin's session cookie with its
// X-WP-Nonce (both together).
func securitySchemes(r *Request) Obj {
	return Obj{
		{"applicationPassword", Obj{{"type", "http"}, {"scheme", "basic"}, {"description", r.T("doc.security.basic", nil)}}},
		{"sessionCookie", Obj{{"type", "apiKey"}, {"in", "cookie"}, {"name", "kalends_session"}, {"description", r.T("doc.security.cookie", nil)}}},
		{"nonce", Obj{{"type", "apiKey"}, {"in", "header"}, {"name", "X-WP-Nonce"}, {"description", r.T("doc.security.nonce", nil)}}},
	}
}

// operationSecurity: writes need a user; reads take one optionally (a user
// may see more), the empty requirement standing for an anonymous call.
func operationSecurity(needsUser bool) []Obj {
	user := []Obj{{{"applicationPassword", []string{}}}, {{"sessionCookie", []string{}}, {"nonce", []string{}}}}
	if needsUser {
		return user
	}
	return append([]Obj{{}}, user...)
}

// operationID names an operation after its method and path, unique in the
// document: GET /events is listEvents, GET /events/{id} getEvent,
// GET /events/by-slug/{slug} getEventBySlug, PUT /venues/{id} putVenue.
func operationID(method, docPath string) string {
	segs := strings.Split(strings.Trim(docPath, "/"), "/")
	res := segs[0]
	if res == "" {
		res = "index"
	}
	title := func(s string) string {
		var b strings.Builder
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' }) {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
		return b.String()
	}
	var one string
	switch {
	case strings.HasSuffix(res, "ies"):
		one = strings.TrimSuffix(res, "ies") + "y"
	case strings.HasSuffix(res, "s"):
		one = strings.TrimSuffix(res, "s")
	default:
		one = res
	}
	m := strings.ToLower(method)
	if len(segs) >= 3 && segs[2] == "revisions" { // our extension
		switch len(segs) {
		case 3:
			return "list" + title(one) + "Revisions"
		case 4:
			return "get" + title(one) + "Revision"
		}
		return "restore" + title(one) + "Revision"
	}
	switch {
	case len(segs) == 1 && m == "get":
		return "list" + title(res)
	case len(segs) == 1 && m == "post":
		return "create" + title(one)
	case len(segs) == 1:
		return m + title(res)
	case len(segs) == 3:
		return m + title(one) + "BySlug"
	}
	return m + title(one)
}

// operationSummary is an operation's one line, in the request language.
func operationSummary(r *Request, method, docPath string) string {
	segs := strings.Split(strings.Trim(docPath, "/"), "/")
	res := segs[0]
	if res == "changes" {
		return r.T("doc.summary.changes", nil)
	}
	if res == "" || res == "doc" {
		return r.T("doc.summary."+map[bool]string{true: "index", false: "doc"}[res == ""], nil)
	}
	kind := r.T("doc.kind."+res, nil)
	if len(segs) >= 3 && segs[2] == "revisions" {
		return r.T("doc.summary."+[]string{"revisions", "revision", "restore_revision"}[min(len(segs), 5)-3], map[string]any{"Kind": kind})
	}
	action := map[string]string{"GET": "get", "POST": "update", "PUT": "replace", "PATCH": "update", "DELETE": "delete"}[method]
	switch {
	case len(segs) == 1 && method == "GET":
		action = "list"
	case len(segs) == 1:
		action = "create"
	case len(segs) == 3:
		action += "_by_slug"
	}
	return r.T("doc.summary."+action, map[string]any{"Kind": kind})
}

// acceptsSchema describes a body argument that takes several shapes, as
// the argument pipeline accepts them: terms by id, slug or name, one or a
// list, or as {"id"} / {"name"} objects; a venue or organizers by id or as
// objects of their fields (created inline); a cost as text, a number or a
// list of them. Built here beside the pipeline, not in a component that
// could drift from it.
func acceptsSchema(kind string) Obj {
	str, num := Obj{{"type", "string"}}, Obj{{"type", "integer"}}
	anyOf := func(alts ...Obj) Obj { return Obj{{"anyOf", alts}} }
	list := func(item Obj) Obj { return Obj{{"type", "array"}, {"items", item}} }
	switch kind {
	case "terms":
		ref := anyOf(num, str, Obj{{"type", "object"}, {"properties", Obj{{"id", num}, {"name", str}}}})
		return anyOf(list(ref), num, str)
	case "venue", "organizer":
		name := "venue"
		if kind == "organizer" {
			name = "organizer"
		}
		ref := anyOf(num, Obj{{"type", "object"}, {"properties", Obj{{"id", num}, {name, str}}}})
		return anyOf(list(ref), ref)
	case "cost":
		item := anyOf(str, Obj{{"type", "number"}})
		return anyOf(item, list(item))
	case "image":
		return anyOf(Obj{{"type", "string"}, {"format", "uri"}}, Obj{{"type", "string"}, {"enum", []string{""}}}, num)
	case "recurrence":
		strs := anyOf(str, list(str))
		// null is taken too, as "" (OpenAPI 3.0 has no null type to say so).
		return anyOf(str, Obj{{"type", "object"}, {"properties", Obj{{"rrule", strs}, {"rdate", strs}, {"exdate", strs}}}})
	}
	return Obj{}
}
