package api

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

// kindCase sends one request to /kinds and expects either parsed args
// (want: name -> JSON value as decoded by encoding/json, plus Go types in
// types) or invalid args (invalid: name -> WordPress code).
type kindCase struct {
	name    string
	method  string
	query   string
	body    any
	want    map[string]any
	types   map[string]string
	invalid map[string]string
}

func runKindCases(t *testing.T, e *testEnv, cases []kindCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = "GET"
			}
			res := e.do(t, method, "/cal/events/v1/kinds?"+tc.query, tc.body, "")
			m := res.Map(t)
			if tc.invalid != nil {
				if res.Status != 400 || res.Code(t) != "rest_invalid_param" {
					t.Fatalf("status %d code %q, want 400 rest_invalid_param: %.400s", res.Status, res.Code(t), res.Body)
				}
				data := m["data"].(map[string]any)
				params := data["params"].(map[string]any)
				details := data["details"].(map[string]any)
				if len(params) != len(tc.invalid) {
					t.Errorf("invalid params %v, want %v", params, tc.invalid)
				}
				for name, code := range tc.invalid {
					d, _ := details[name].(map[string]any)
					if d == nil || d["code"] != code {
						t.Errorf("details[%s] = %v, want code %s", name, d, code)
					}
					if msg, _ := params[name].(string); msg == "" || strings.HasPrefix(msg, "reason.") {
						t.Errorf("params[%s] = %q is not a localized reason", name, msg)
					}
				}
				return
			}
			if res.Status != 200 {
				t.Fatalf("status %d: %.400s", res.Status, res.Body)
			}
			args := m["args"].(map[string]any)
			for k, want := range tc.want {
				if got := args[k]; !reflect.DeepEqual(got, want) {
					t.Errorf("args[%s] = %#v, want %#v", k, got, want)
				}
			}
			types := m["types"].(map[string]any)
			for k, want := range tc.types {
				if types[k] != want {
					t.Errorf("type of %s = %v, want %s", k, types[k], want)
				}
			}
		})
	}
}

func TestArgKinds(t *testing.T) {
	t.Parallel()
	e := synthEnv(t)
	long := strings.Repeat("é", 255)
	runKindCases(t, e, []kindCase{
		// Strings.
		{name: "string", query: "s=hello%20world", want: map[string]any{"s": "hello world"}, types: map[string]string{"s": "string"}},
		{name: "empty string", query: "s=", want: map[string]any{"s": ""}},
		{name: "string of 255 characters", query: "s=" + url.QueryEscape(long), want: map[string]any{"s": long}},
		{name: "string too long", query: "s=" + url.QueryEscape(long+"x"), invalid: map[string]string{"s": "rest_too_long"}},
		{name: "MaxLen", query: "long=abcdef", invalid: map[string]string{"long": "rest_too_long"}},
		{name: "invalid UTF-8", query: "s=%ff%fe", invalid: map[string]string{"s": "rest_invalid_param"}},
		{name: "NUL byte", query: "s=a%00b", invalid: map[string]string{"s": "rest_invalid_param"}},
		{name: "JSON number for a string", method: "POST", body: `{"s": 5}`, invalid: map[string]string{"s": "rest_invalid_type"}},
		{name: "JSON object for a string", method: "POST", body: `{"s": {"a":1}}`, invalid: map[string]string{"s": "rest_invalid_type"}},
		{name: "form list for a string", query: "s[]=a", invalid: map[string]string{"s": "rest_invalid_type"}},
		{name: "non-empty", query: "ne=x", want: map[string]any{"ne": "x"}},
		{name: "non-empty given blanks", query: "ne=%20%20", invalid: map[string]string{"ne": "rest_invalid_param"}},
		// Integers.
		{name: "integer", query: "i=-42", want: map[string]any{"i": float64(-42)}, types: map[string]string{"i": "int64"}},
		{name: "integer with spaces", query: "i=%2042%20", want: map[string]any{"i": float64(42)}},
		{name: "integer as float", query: "i=5.0", want: map[string]any{"i": float64(5)}},
		{name: "integer JSON", method: "POST", body: `{"i": 9007199254740993}`, types: map[string]string{"i": "int64"}},
		{name: "integer fraction", query: "i=1.5", invalid: map[string]string{"i": "rest_invalid_type"}},
		{name: "integer word", query: "i=ten", invalid: map[string]string{"i": "rest_invalid_type"}},
		{name: "integer hex", query: "i=0x10", invalid: map[string]string{"i": "rest_invalid_type"}},
		{name: "huge integer", query: "i=99999999999999999999999", invalid: map[string]string{"i": "rest_out_of_bounds"}},
		{name: "huge exponent", query: "i=1e400", invalid: map[string]string{"i": "rest_out_of_bounds"}},
		{name: "integer JSON bool", method: "POST", body: `{"i": true}`, invalid: map[string]string{"i": "rest_invalid_type"}},
		{name: "positive", query: "pi=3", want: map[string]any{"pi": float64(3)}},
		{name: "positive zero", query: "pi=0", invalid: map[string]string{"pi": "rest_out_of_bounds"}},
		{name: "positive negative", query: "pi=-3", invalid: map[string]string{"pi": "rest_out_of_bounds"}},
		// Booleans.
		{name: "bool true", query: "b=true", want: map[string]any{"b": true}, types: map[string]string{"b": "bool"}},
		{name: "bool 1", query: "b=1", want: map[string]any{"b": true}},
		{name: "bool yes", query: "b=YES", want: map[string]any{"b": true}},
		{name: "bool on", query: "b=on", want: map[string]any{"b": true}},
		{name: "bool empty", query: "b=", want: map[string]any{"b": false}},
		{name: "bool off", query: "b=off", want: map[string]any{"b": false}},
		{name: "bool JSON", method: "POST", body: `{"b": false}`, want: map[string]any{"b": false}},
		{name: "bool JSON 1", method: "POST", body: `{"b": 1}`, want: map[string]any{"b": true}},
		{name: "bool JSON string", method: "POST", body: `{"b": "0"}`, want: map[string]any{"b": false}},
		{name: "bool other", query: "b=maybe", invalid: map[string]string{"b": "rest_invalid_type"}},
		{name: "bool JSON 2", method: "POST", body: `{"b": 2}`, invalid: map[string]string{"b": "rest_invalid_type"}},
		// Numbers.
		{name: "number", query: "n=-12.5", want: map[string]any{"n": -12.5}, types: map[string]string{"n": "float64"}},
		{name: "number JSON", method: "POST", body: `{"n": 48.85}`, want: map[string]any{"n": 48.85}},
		{name: "number NaN", query: "n=NaN", invalid: map[string]string{"n": "rest_invalid_type"}},
		{name: "number Inf", query: "n=Inf", invalid: map[string]string{"n": "rest_invalid_type"}},
		{name: "number overflow", query: "n=1e999", invalid: map[string]string{"n": "rest_out_of_bounds"}},
		// Dates.
		{name: "date", query: "d=2027-03-10%2009:00", want: map[string]any{"d": "2027-03-10 09:00"}, types: map[string]string{"d": "string"}},
		{name: "date only", query: "d=2027-03-10", want: map[string]any{"d": "2027-03-10"}},
		{name: "date relative", query: "d=tomorrow%209am", want: map[string]any{"d": "tomorrow 9am"}},
		{name: "date ISO 8601", query: "d=2027-03-10T09:00:00Z", want: map[string]any{"d": "2027-03-10T09:00:00Z"}},
		{name: "date UNIX timestamp JSON", method: "POST", body: `{"d": 1800000000}`, want: map[string]any{"d": "1800000000"}},
		{name: "date garbage", query: "d=someday", invalid: map[string]string{"d": "rest_invalid_param"}},
		{name: "date JSON bool", method: "POST", body: `{"d": true}`, invalid: map[string]string{"d": "rest_invalid_type"}},
		// Lists.
		{name: "int list CSV", query: "il=1,%202%20,,3", want: map[string]any{"il": []any{float64(1), float64(2), float64(3)}}, types: map[string]string{"il": "[]int64"}},
		{name: "int list brackets", query: "il[]=4&il[]=5", want: map[string]any{"il": []any{float64(4), float64(5)}}},
		{name: "int list indexes", query: "il[0]=6&il[1]=7", want: map[string]any{"il": []any{float64(6), float64(7)}}},
		{name: "int list JSON", method: "POST", body: `{"il": [8, "9"]}`, want: map[string]any{"il": []any{float64(8), float64(9)}}},
		{name: "int list single JSON number", method: "POST", body: `{"il": 10}`, want: map[string]any{"il": []any{float64(10)}}},
		{name: "int list empty", query: "il=", want: map[string]any{"il": []any{}}},
		{name: "int list zero", query: "il=1,0", invalid: map[string]string{"il": "rest_invalid_param"}},
		{name: "int list word", query: "il=1,x", invalid: map[string]string{"il": "rest_invalid_param"}},
		{name: "int list object", method: "POST", body: `{"il": {"a": 1}}`, invalid: map[string]string{"il": "rest_invalid_type"}},
		{name: "int list form object", query: "il[a]=1", invalid: map[string]string{"il": "rest_invalid_type"}},
		{name: "int list nested", method: "POST", body: `{"il": [[1]]}`, invalid: map[string]string{"il": "rest_invalid_type"}},
		{name: "string list", query: "sl=a,%20b%20,,c", want: map[string]any{"sl": []any{"a", "b", "c"}}, types: map[string]string{"sl": "[]string"}},
		{name: "string list JSON with numbers", method: "POST", body: `{"sl": ["x", 3]}`, want: map[string]any{"sl": []any{"x", "3"}}},
		{name: "string list item too long", method: "POST", body: `{"sl": ["` + strings.Repeat("x", 256) + `"]}`, invalid: map[string]string{"sl": "rest_too_long"}},
		{name: "string list invalid UTF-8", query: "sl[]=%ff", invalid: map[string]string{"sl": "rest_invalid_param"}},
		{name: "list of 1000", query: "il=" + numList(1000), types: map[string]string{"il": "[]int64"}},
		{name: "list of 10000", query: "", method: "POST", body: `{"il": [` + numList(10000) + `]}`, invalid: map[string]string{"il": "rest_too_many_items"}},
		// Enum, URL, email, status, time zone.
		{name: "enum", query: "e=asc", want: map[string]any{"e": "asc"}},
		{name: "enum other", query: "e=ASC", invalid: map[string]string{"e": "rest_not_in_enum"}},
		{name: "url", query: "u=" + url.QueryEscape("https://example.com/a?b=c"), want: map[string]any{"u": "https://example.com/a?b=c"}},
		{name: "url empty", query: "u=", want: map[string]any{"u": ""}},
		{name: "url relative", query: "u=/a", invalid: map[string]string{"u": "rest_invalid_param"}},
		{name: "url javascript", query: "u=javascript:alert(1)", invalid: map[string]string{"u": "rest_invalid_param"}},
		{name: "email", query: "em=a@example.com", want: map[string]any{"em": "a@example.com"}},
		{name: "email with name", query: "em=" + url.QueryEscape("A <a@example.com>"), invalid: map[string]string{"em": "rest_invalid_param"}},
		{name: "status", query: "st=draft", want: map[string]any{"st": "draft"}},
		{name: "status other", query: "st=deleted", invalid: map[string]string{"st": "rest_not_in_enum"}},
		{name: "time zone", query: "tz=Europe/Paris", want: map[string]any{"tz": "Europe/Paris"}},
		{name: "time zone offset", query: "tz=UTC%2B5:30", want: map[string]any{"tz": "UTC+5:30"}},
		{name: "time zone path", query: "tz=../../etc/passwd", invalid: map[string]string{"tz": "rest_invalid_param"}},
		{name: "time zone Local", query: "tz=Local", invalid: map[string]string{"tz": "rest_invalid_param"}},
		{name: "time zone unknown", query: "tz=Mars/Olympus", invalid: map[string]string{"tz": "rest_invalid_param"}},
		// Raw values.
		{name: "raw object", method: "POST", body: `{"raw": {"venue": "Hall", "id": 5}}`, want: map[string]any{"raw": map[string]any{"venue": "Hall", "id": float64(5)}}},
		{name: "raw form object", query: "raw[city]=Oslo&raw[zip]=0150", want: map[string]any{"raw": map[string]any{"city": "Oslo", "zip": "0150"}}},
		{name: "raw nested form", query: "raw[0][organizer]=A&raw[1][organizer]=B",
			want: map[string]any{"raw": []any{map[string]any{"organizer": "A"}, map[string]any{"organizer": "B"}}}},
		{name: "raw null", method: "POST", body: `{"raw": null}`, want: map[string]any{"raw": nil}},
		{name: "raw invalid UTF-8 in form", query: "raw[a]=%ff", invalid: map[string]string{"raw": "rest_invalid_param"}},
		{name: "raw too deep", method: "POST", body: `{"raw": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, invalid: map[string]string{"raw": "rest_invalid_param"}},
		// Defaults come in the kind's Go type, whatever the table wrote.
		{name: "typed defaults", query: "", want: map[string]any{"hb": true, "dn": float64(2)}, types: map[string]string{"hb": "bool", "dn": "float64"}},
		{name: "sent value beats default", query: "hb=0", want: map[string]any{"hb": false}},
		// Several at once, in declaration order.
		{name: "all invalid args reported", query: "i=x&b=x&e=x&st=x", invalid: map[string]string{"i": "rest_invalid_type", "b": "rest_invalid_type", "e": "rest_not_in_enum", "st": "rest_not_in_enum"}},
	})
}

func numList(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprint(i + 1)
	}
	return strings.Join(s, ",")
}

func TestArgSourcesAndPrecedence(t *testing.T) {
	t.Parallel()
	e := synthEnv(t)
	post := func(target string, body any) map[string]any {
		t.Helper()
		res := e.do(t, "POST", target, body, models.RoleEditor)
		if res.Status != 200 {
			t.Fatalf("%s: %d %s", target, res.Status, res.Body)
		}
		return res.Map(t)
	}
	// JSON > query.
	m := post("/cal/events/v1/things?title=query&count=1", `{"title":"json","start":"2027-01-01"}`)
	if args := m["args"].(map[string]any); args["title"] != "json" || args["count"] != float64(1) {
		t.Errorf("JSON over query: %v", args)
	}
	// Form > query.
	m = post("/cal/events/v1/things?title=query&start=2027-01-01", url.Values{"title": {"form"}})
	if args := m["args"].(map[string]any); args["title"] != "form" || args["start"] != "2027-01-01" {
		t.Errorf("form over query: %v", args)
	}
	// Query > path: Args gets the query id, Path keeps the path id.
	res := e.do(t, "GET", "/cal/events/v1/things/7?id=9", nil, "")
	m = res.Map(t)
	if m["args"].(map[string]any)["id"] != float64(9) || m["path"].(map[string]any)["id"] != "7" {
		t.Errorf("path vs query: %s", res.Body)
	}
	// Form body with bracket syntax.
	m = post("/cal/events/v1/things", url.Values{"title": {"t"}, "start": {"2027-01-01"},
		"venue[city]": {"Oslo"}, "venue[venue]": {"Hall"}})
	if v := m["args"].(map[string]any)["venue"]; !reflect.DeepEqual(v, map[string]any{"city": "Oslo", "venue": "Hall"}) {
		t.Errorf("venue[city]: %v", v)
	}
	// A GET body is not read as a form.
	res = e.do(t, "GET", "/cal/events/v1/kinds", url.Values{"s": {"x"}}, "")
	if _, ok := res.Map(t)["args"].(map[string]any)["s"]; ok {
		t.Errorf("GET form body was read: %s", res.Body)
	}
	// Sent excludes defaults; defaults are typed.
	res = e.do(t, "GET", "/cal/events/v1/things?page=2", nil, "")
	m = res.Map(t)
	if got := fmt.Sprint(m["sent"]); got != "[page]" {
		t.Errorf("sent %s", got)
	}
	if m["types"].(map[string]any)["per_page"] != "int64" || m["args"].(map[string]any)["per_page"] != float64(120) {
		t.Errorf("per_page default: %s", res.Body)
	}
	// JSON null is "not sent".
	res = e.do(t, "GET", "/cal/events/v1/things/by-slug/caf%C3%A9", nil, "")
	if res.Map(t)["path"].(map[string]any)["slug"] != "café" {
		t.Errorf("slug not decoded: %s", res.Body)
	}
}

func TestArgRequired(t *testing.T) {
	t.Parallel()
	e := synthEnv(t)
	cases := []struct {
		name, body string
		missing    []string
	}{
		{"none sent", `{}`, []string{"title", "start"}},
		{"null is missing", `{"title":null,"start":"2027-01-01"}`, []string{"title"}},
		{"required before invalid", `{"start":"x","count":"x"}`, []string{"title"}},
	}
	for _, tc := range cases {
		res := e.do(t, "POST", "/cal/events/v1/things", tc.body, models.RoleEditor)
		if res.Status != 400 || res.Code(t) != "rest_missing_callback_param" {
			t.Fatalf("%s: %d %s", tc.name, res.Status, res.Body)
		}
		got := res.Map(t)["data"].(map[string]any)["params"]
		b, _ := json.Marshal(got)
		w, _ := json.Marshal(tc.missing)
		if string(b) != string(w) {
			t.Errorf("%s: params %s, want %s", tc.name, b, w)
		}
	}
	// Validate runs after the kind check and reports with the others.
	res := e.do(t, "POST", "/cal/events/v1/things", `{"title":"t","start":"bad","count":500}`, models.RoleEditor)
	details := res.Map(t)["data"].(map[string]any)["details"].(map[string]any)
	keys := make([]string, 0)
	for k := range details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "count,start" {
		t.Errorf("details %v", details)
	}
	if got := res.Keys(t); len(got) != 3 {
		t.Errorf("keys %v", got)
	}
	if k := dataKeys(t, res); k != "status,params,details" {
		t.Errorf("data keys %s", k)
	}
}

// dataKeys lists the keys of the error's data object in wire order.
func dataKeys(t *testing.T, r *testResp) string {
	t.Helper()
	var top struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &top); err != nil {
		t.Fatal(err)
	}
	return strings.Join((&testResp{Body: top.Data}).Keys(t), ",")
}

func TestInvalidJSONShape(t *testing.T) {
	t.Parallel()
	e := synthEnv(t)
	for _, lang := range []string{"", "/zh-hans"} {
		res := e.do(t, "POST", lang+"/cal/events/v1/things", `{"title": `, models.RoleEditor)
		if k := dataKeys(t, res); k != "status,json_error_code,json_error_message" {
			t.Errorf("data keys %s", k)
		}
		data := res.Map(t)["data"].(map[string]any)
		if data["json_error_code"] != float64(4) || strings.HasPrefix(data["json_error_message"].(string), "reason.") {
			t.Errorf("data %v", data)
		}
	}
}

func TestParsePairs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want string
	}{
		{"a=1&b=2", `{"a":"1","b":"2"}`},
		{"a=1&a=2", `{"a":"2"}`},
		{"x[]=1&x[]=2", `{"x":["1","2"]}`},
		{"x[0]=a&x[1]=b", `{"x":["a","b"]}`},
		{"venue[city]=Oslo&venue[zip]=1", `{"venue":{"city":"Oslo","zip":"1"}}`},
		{"organizer[0][organizer]=A&organizer[1][organizer]=B", `{"organizer":[{"organizer":"A"},{"organizer":"B"}]}`},
		{"x=1&x[]=2", `{"x":["2"]}`},
		{"x[=1", `{"x[":"1"}`},
		{"a+b=c+d&e=%zz", `{"a b":"c d","e":"%zz"}`},
		{"&&=&a", `{"a":""}`},
		{"x[01]=a", `{"x":{"01":"a"}}`},
		{"x" + strings.Repeat("[a]", 20) + "=1", `{}`},
	}
	for _, tc := range cases {
		b, _ := json.Marshal(parsePairs(tc.in))
		if string(b) != tc.want {
			t.Errorf("parsePairs(%q) = %s, want %s", tc.in, b, tc.want)
		}
	}
}
