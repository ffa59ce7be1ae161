package api

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// realEnv serves the real route table on SQLite with a fixed clock, so
// computed defaults do not change between requests.
func realEnv(t *testing.T) *testEnv {
	t.Helper()
	e := newTestEnv(t, modelstest.Open(t, models.SQLite))
	fixed := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
	e.Deps.Site.Clock = func() time.Time { return fixed }
	return e
}

// stripDescriptions removes every "description" member, recursively.
func stripDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, vv := range x {
			if _, isText := vv.(string); (k != "description" && k != "summary") || !isText {
				out[k] = stripDescriptions(vv)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, vv := range x {
			out[i] = stripDescriptions(vv)
		}
		return out
	}
	return v
}

// checkDescriptions fails on empty descriptions and on message ids left
// untranslated.
func checkDescriptions(t *testing.T, where string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			if s, ok := vv.(string); k == "description" && ok {
				if s == "" || strings.HasPrefix(s, "arg.") || strings.HasPrefix(s, "doc.") {
					t.Errorf("%s: description %q", where, s)
				}
				continue
			}
			checkDescriptions(t, where+"."+k, vv)
		}
	case []any:
		for _, vv := range x {
			checkDescriptions(t, where, vv)
		}
	}
}

func TestNamespaceIndex(t *testing.T) {
	t.Parallel()
	e := realEnv(t)
	var first any
	for _, lang := range i18n.Codes {
		res := e.do(t, "GET", "/"+lang+"/cal/events/v1/", nil, "")
		if res.Status != 200 {
			t.Fatalf("%s: %d %s", lang, res.Status, res.Body)
		}
		if got := strings.Join(res.Keys(t), ","); got != "namespace,routes,_links" {
			t.Errorf("keys %s", got)
		}
		m := res.Map(t)
		if m["namespace"] != Namespace {
			t.Errorf("namespace %v", m["namespace"])
		}
		up := m["_links"].(map[string]any)["up"].([]any)[0].(map[string]any)["href"]
		if up != "http://example.test/"+lang+"/" {
			t.Errorf("up %v", up)
		}
		// Route keys in table order.
		var raw struct {
			Routes json.RawMessage `json:"routes"`
		}
		if err := json.Unmarshal(res.Body, &raw); err != nil {
			t.Fatal(err)
		}
		keys := (&testResp{Body: raw.Routes}).Keys(t)
		var want []string
		for _, rt := range Routes() {
			want = append(want, "/"+Namespace+rt.Pattern)
		}
		if !reflect.DeepEqual(keys, want) {
			t.Errorf("route keys %v, want %v", keys, want)
		}
		routes := m["routes"].(map[string]any)
		for _, rt := range Routes() {
			entry := routes["/"+Namespace+rt.Pattern].(map[string]any)
			_, hasLinks := entry["_links"]
			if hasLinks == strings.Contains(rt.Pattern, "(?P<") {
				t.Errorf("%s: _links present %v", rt.Pattern, hasLinks)
			}
			for _, ep := range entry["endpoints"].([]any) {
				args, ok := ep.(map[string]any)["args"].(map[string]any)
				if !ok {
					t.Fatalf("%s: args is not an object", rt.Pattern)
				}
				ml := args["ml_language"].(map[string]any)
				if fmt.Sprint(ml["enum"]) != fmt.Sprint(i18n.Codes) || ml["type"] != "string" || ml["required"] != false {
					t.Errorf("%s: ml_language %v", rt.Pattern, ml)
				}
				for name, a := range args {
					if _, ok := a.(map[string]any)["required"].(bool); !ok {
						t.Errorf("%s: %s has no required flag", rt.Pattern, name)
					}
				}
			}
		}
		checkDescriptions(t, lang, m)
		// Names, types, defaults and required flags do not change with the
		// language; only descriptions and the language prefix of links do.
		neutral := stripDescriptions(m)
		b, _ := json.Marshal(neutral)
		neutral = nil
		_ = json.Unmarshal([]byte(strings.ReplaceAll(string(b), "/"+lang+"/", "/")), &neutral)
		if first == nil {
			first = neutral
		} else if !reflect.DeepEqual(first, neutral) {
			t.Errorf("%s: index differs from zh-hans beyond descriptions", lang)
		}
	}
	// The index entry of the index itself: namespace and context defaults.
	res := e.do(t, "GET", "/cal/events/v1", nil, "")
	args := res.Map(t)["routes"].(map[string]any)["/"+Namespace].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["args"].(map[string]any)
	if args["namespace"].(map[string]any)["default"] != Namespace || args["context"].(map[string]any)["default"] != "view" {
		t.Errorf("index args %v", args)
	}
}

func TestOptionsEqualsIndexEntry(t *testing.T) {
	t.Parallel()
	e := realEnv(t)
	index := e.do(t, "GET", "/ko/cal/events/v1/", nil, "").Map(t)["routes"].(map[string]any)
	for _, rt := range Routes() {
		path := strings.NewReplacer(`(?P<id>\d+)`, "12", `(?P<slug>[^/]+)`, "some-slug", `(?P<revision>\d+)`, "1").Replace(rt.Pattern)
		res := e.do(t, "OPTIONS", "/ko/cal/events/v1"+path, nil, "")
		if res.Status != 200 {
			t.Errorf("OPTIONS %s: %d", path, res.Status)
			continue
		}
		if want := index["/"+Namespace+rt.Pattern]; !reflect.DeepEqual(res.JSON(t), want) {
			t.Errorf("OPTIONS %s differs from its index entry", path)
		}
	}
}

func validateDoc(t *testing.T, body []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(body)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	return doc
}

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	e := realEnv(t)
	var first any
	for _, lang := range i18n.Codes {
		res := e.do(t, "GET", "/"+lang+"/cal/events/v1/doc", nil, "")
		if res.Status != 200 {
			t.Fatalf("%s: %d %s", lang, res.Status, res.Body)
		}
		doc := validateDoc(t, res.Body)
		// TEC's keys in TEC's order, then the webhooks we send (issue 34).
		if got := strings.Join(res.Keys(t), ","); got != "openapi,info,components,servers,paths,x-webhooks" {
			t.Errorf("keys %s", got)
		}
		checkWebhooksDoc(t, lang, res.Body)
		if doc.OpenAPI != "3.0.0" || doc.Info.Version != "1.0.0" || doc.Info.Title == "" {
			t.Errorf("info %+v", doc.Info)
		}
		// No trailing slash: paths start with one (issue 15 item 12).
		if got := doc.Servers[0].URL; got != "http://example.test/"+lang+"/cal/events/v1" {
			t.Errorf("server %s", got)
		}
		for _, name := range []string{"Event", "Venue", "Organizer", "Term", "Image", "ImageSize", "DateDetails", "CostDetails"} {
			if doc.Components.Schemas[name] == nil {
				t.Errorf("schema %s missing", name)
			}
		}
		cd := doc.Components.Schemas["CostDetails"].Value.Properties
		if cd["currency_position"] == nil || cd["currency_position "] != nil {
			t.Errorf("currency_position key wrong")
		}
		if typ := doc.Components.Schemas["DateDetails"].Value.Properties["year"].Value.Type; !typ.Is("string") {
			t.Errorf("date details typed %v", typ)
		}
		ids := map[string]bool{}
		for _, rt := range Routes() {
			if rt.DocPath != "" && doc.Paths.Find(rt.DocPath) == nil {
				t.Errorf("path %s missing", rt.DocPath)
			}
			if rt.DocPath == "" {
				continue
			}
			for method, op := range doc.Paths.Find(rt.DocPath).Operations() {
				if op.OperationID == "" || op.Summary == "" || ids[op.OperationID] {
					t.Errorf("%s %s: operationId %q (unique) and summary %q wanted", method, rt.DocPath, op.OperationID, op.Summary)
				}
				ids[op.OperationID] = true
				if op.Security == nil || len(*op.Security) == 0 {
					t.Errorf("%s %s: no security requirement", method, rt.DocPath)
				}
			}
		}
		if len(doc.Components.SecuritySchemes) != 3 {
			t.Errorf("security schemes %v", doc.Components.SecuritySchemes)
		}
		m := res.Map(t)
		checkDescriptions(t, lang, m)
		neutral := stripDescriptions(m)
		neutral.(map[string]any)["info"] = nil
		neutral.(map[string]any)["servers"] = nil
		if first == nil {
			first = neutral
		} else if !reflect.DeepEqual(first, neutral) {
			t.Errorf("%s: document differs from zh-hans beyond descriptions", lang)
		}
	}
}

func TestOpenAPIDocumentSynthetic(t *testing.T) {
	t.Parallel()
	e := synthEnv(t)
	r := &Request{Deps: e.Deps, Lang: "en"}
	table := prepareRoutes(append(indexRoutes(), syntheticRoutes()...))
	body, err := marshal(openAPIDoc(r, table))
	if err != nil {
		t.Fatal(err)
	}
	doc := validateDoc(t, body)
	item := doc.Paths.Find("/things/{id}")
	if item == nil || item.Get == nil || item.Put == nil || item.Patch == nil || item.Delete == nil {
		t.Fatalf("operations of /things/{id}: %+v", item)
	}
	if p := item.Get.Parameters.GetByInAndName("path", "id"); p == nil || !p.Required {
		t.Errorf("path id: %+v", p)
	}
	post := doc.Paths.Find("/things").Post
	if post.RequestBody == nil || post.RequestBody.Value.Content.Get("application/json") == nil ||
		post.RequestBody.Value.Content.Get("application/x-www-form-urlencoded") == nil {
		t.Fatalf("request body: %+v", post.RequestBody)
	}
	req := post.RequestBody.Value.Content.Get("application/json").Schema.Value.Required
	if strings.Join(req, ",") != "title,start" {
		t.Errorf("required %v", req)
	}
	if post.Parameters.GetByInAndName("query", "ml_language") == nil {
		t.Error("ml_language is not a query parameter of writes")
	}
	if doc.Paths.Find("/things").Get.Parameters.GetByInAndName("query", "per_page").Schema.Value.Default != float64(120) {
		t.Error("per_page default")
	}
}

// checkWebhooksDoc: x-webhooks describes one POST per kind that the change
// feed reports, with the three Standard Webhooks headers, a body whose type
// lists that kind's three actions and whose data is the kind's schema or
// {kind, id}, and descriptions in the document's language.
func checkWebhooksDoc(t *testing.T, lang string, body []byte) {
	t.Helper()
	var doc struct {
		Hooks map[string]struct {
			Post struct {
				Summary     string `json:"summary"`
				Description string `json:"description"`
				Parameters  []struct {
					Name, In string
				} `json:"parameters"`
				RequestBody struct {
					Content map[string]struct {
						Schema struct {
							Properties struct {
								Type struct {
									Enum []string `json:"enum"`
								} `json:"type"`
								Data struct {
									OneOf []map[string]any `json:"oneOf"`
								} `json:"data"`
							} `json:"properties"`
						} `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
				Responses map[string]any `json:"responses"`
			} `json:"post"`
		} `json:"x-webhooks"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{"event": "Event", "venue": "Venue", "organizer": "Organizer", "category": "Term", "tag": "Term", "media": "Media"}
	if len(doc.Hooks) != len(schemas) {
		t.Errorf("%s: %d webhooks, want %d", lang, len(doc.Hooks), len(schemas))
	}
	for kind, schema := range schemas {
		op := doc.Hooks[kind].Post
		var headers []string
		for _, p := range op.Parameters {
			headers = append(headers, p.In+":"+p.Name)
		}
		if got := strings.Join(headers, ","); got != "header:webhook-id,header:webhook-timestamp,header:webhook-signature" {
			t.Errorf("%s %s: parameters %s", lang, kind, got)
		}
		props := op.RequestBody.Content["application/json"].Schema.Properties
		if got := strings.Join(props.Type.Enum, ","); got != kind+".created,"+kind+".updated,"+kind+".removed" {
			t.Errorf("%s %s: types %s", lang, kind, got)
		}
		if len(props.Data.OneOf) != 2 || props.Data.OneOf[0]["$ref"] != "#/components/schemas/"+schema {
			t.Errorf("%s %s: data %v", lang, kind, props.Data.OneOf)
		}
		if op.Responses["2XX"] == nil || !strings.Contains(op.Description, "webhook-id") || op.Summary == "" {
			t.Errorf("%s %s: summary %q, responses %v", lang, kind, op.Summary, op.Responses)
		}
		if lang != "en" && strings.Contains(op.Description, "Standard Webhooks specification says") {
			t.Errorf("%s %s: the description is the English one", lang, kind)
		}
	}
}
