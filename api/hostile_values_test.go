package api

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// hostileValue is one bad value for an argument, in the encodings it can
// take: a raw JSON fragment (the value of "name": …) and a form/query
// fragment builder (raw, already escaped key=value pairs joined by &, so
// that bracket syntax, duplicates and undecodable bytes can be expressed).
// An empty json or a nil form means the encoding does not apply.
type hostileValue struct {
	label string
	json  string
	form  func(k string) string
	// big values go in bodies only (fasthttp answers a request line
	// over 4 KiB with a plain-text 431 before routing).
	big bool
}

// pair is one escaped form pair.
func pair(k, v string) string { return url.QueryEscape(k) + "=" + url.QueryEscape(v) }

// hvString is a string sent as a JSON string and as a form value.
func hvString(label, s string) hostileValue {
	j, _ := json.Marshal(s)
	return hostileValue{label: label, json: string(j), form: func(k string) string { return pair(k, s) },
		big: len(s) > 4000}
}

// hvJSON is a JSON-only value (numbers, booleans, null, objects, arrays).
func hvJSON(label, j string) hostileValue {
	return hostileValue{label: label, json: j, big: len(j) > 4000}
}

// hvForm is a form/query-only value; raw is the escaped tail after "k".
func hvForm(label string, f func(k string) string) hostileValue {
	return hostileValue{label: label, form: f}
}

func nested(open, close, leaf string, depth int) string {
	return strings.Repeat(open, depth) + leaf + strings.Repeat(close, depth)
}

func intList(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteByte(']')
	return b.String()
}

// hostileValues is the catalogue the sweep samples from.
func hostileValues() []hostileValue {
	huge := strings.Repeat("a", 100<<10)
	return []hostileValue{
		// Strings that look like other types or like nothing.
		hvString("empty", ""),
		hvString("spaces", "   "),
		hvString("whitespace", " \t\r\n "),
		hvString("zero string", "0"),
		hvString("minus zero string", "-0"),
		hvString("1e3 string", "1e3"),
		hvString("1e30 string", "1e30"),
		hvString("hex string", "0x10"),
		hvString("int64 overflow string", "9223372036854775808"),
		hvString("int64 underflow string", "-9223372036854775809"),
		hvString("NaN", "NaN"),
		hvString("Infinity", "Infinity"),
		hvString("-Infinity", "-Infinity"),
		hvString("decimal string", "1.5"),
		hvString("negative string", "-1"),
		hvString("true string", "true"),
		hvString("null string", "null"),
		hvString("date zero", "0000-00-00"),
		hvString("date 5-digit year", "99999-01-01"),
		hvString("date Feb 30", "2027-02-30"),
		hvString("date tomorrow 25pm", "tomorrow 25pm"),
		hvString("date bad time", "2027-03-10T25:61:61Z"),
		hvString("date huge relative", "+99999999999 days"),
		hvString("date huge relative years", "+2147483647 years"),
		hvString("date unknown weekday", "next blursday"),
		hvString("date huge timestamp", "99999999999999999999"),
		hvString("date negative timestamp", "-99999999999"),
		hvString("NUL byte", "a\x00b"),
		hvString("100 KiB", huge),
		hvString("300 two-byte runes", strings.Repeat("é", 300)),
		hvString("html", "<script>alert(1)</script>"),
		hvString("sql", "' OR 1=1 -- "),
		hvString("like wildcards", "%_\\"),
		hvString("path", "../../etc/passwd"),
		hvString("zone Local", "Local"),
		hvString("zone offset out of range", "UTC+99"),
		hvString("status any", "any"),
		hvString("status trash", "trash"),
		hvString("upper-case language", "EN"),
		hvString("comma list with blanks", " , ,1,,"),
		hvString("comma list of negatives", "-1,-2"),
		// Numbers, booleans and null where strings are expected.
		hvJSON("1e30", "1e30"),
		hvJSON("int64 overflow", "9223372036854775808"),
		hvJSON("30 digits", "123456789012345678901234567890"),
		hvJSON("-0", "-0"),
		hvJSON("1e3", "1e3"),
		hvJSON("1e400", "1e400"),
		hvJSON("-1", "-1"),
		hvJSON("0", "0"),
		hvJSON("1.5", "1.5"),
		hvJSON("true", "true"),
		hvJSON("false", "false"),
		hvJSON("null", "null"),
		// Objects and lists where scalars (or lists) are expected.
		hvJSON("empty object", "{}"),
		hvJSON("object with id", `{"id":1}`),
		hvJSON("object with bad id", `{"id":"x","name":null}`),
		hvJSON("object with empty key", `{"":""}`),
		hvJSON("nested object", `{"a":{"b":[1,{"c":null}]}}`),
		hvJSON("empty list", "[]"),
		hvJSON("list of ints", "[1,2]"),
		hvJSON("list with null", `["a",null]`),
		hvJSON("list of lists", "[[]]"),
		hvJSON("list of objects", "[{}]"),
		hvJSON("list of bools", "[true]"),
		hvJSON("list of huge numbers", "[1e30,9223372036854775808]"),
		hvJSON("list of non-positive", "[-1,0]"),
		hvJSON("objects 50 deep", nested(`{"a":`, "}", "1", 50)),
		hvJSON("lists 50 deep", nested("[", "]", "1", 50)),
		hvJSON("10000 items", intList(10000)),
		// Text JSON and forms cannot carry as such.
		{label: "lone surrogate", json: `"\ud800"`, form: func(k string) string { return url.QueryEscape(k) + "=%ED%A0%80" }},
		{label: "reversed surrogates", json: `"\udfff\ud800"`},
		{label: "invalid UTF-8", json: "\"\xff\xfe\"", form: func(k string) string { return url.QueryEscape(k) + "=%FF%FE" }},
		{label: "overlong UTF-8", json: "\"\xc0\xaf\"", form: func(k string) string { return url.QueryEscape(k) + "=%C0%AF" }},
		{label: "escaped NUL", json: `"\u0000"`, form: func(k string) string { return url.QueryEscape(k) + "=%00" }},
		hvForm("raw bytes", func(k string) string { return k + "=\xff\xfe" }),
		// A raw NUL in the request line is not HTTP: fasthttp answers a
		// plain-text 404 before routing, so it goes in bodies only.
		{label: "raw NUL", big: true, form: func(k string) string { return k + "=a\x00b" }},
		// Bracket syntax abuse and duplicates (forms and queries).
		hvForm("x[]", func(k string) string { return k + "[]=1" }),
		hvForm("x[][][]", func(k string) string { return k + "[][][]=1" }),
		hvForm("x[a][b]=", func(k string) string { return k + "[a][b]=" }),
		hvForm("x[999999999]", func(k string) string { return k + "[999999999]=1" }),
		hvForm("x[9999999999]", func(k string) string { return k + "[9999999999]=1" }),
		hvForm("x[-1]", func(k string) string { return k + "[-1]=1" }),
		hvForm("unclosed bracket", func(k string) string { return k + "[=1" }),
		hvForm("stray bracket", func(k string) string { return k + "]=1" }),
		hvForm("map then scalar", func(k string) string { return k + "[a]=1&" + k + "=2" }),
		hvForm("scalar then map", func(k string) string { return k + "=1&" + k + "[a]=2" }),
		hvForm("list then map", func(k string) string { return k + "[]=1&" + k + "[a]=2" }),
		hvForm("sparse list", func(k string) string { return k + "[0]=1&" + k + "[2]=3" }),
		hvForm("duplicate keys", func(k string) string { return k + "=1&" + k + "=2" }),
		hvForm("list of maps", func(k string) string { return k + "[][a]=1&" + k + "[][b]=2" }),
		hvForm("brackets 50 deep", func(k string) string { return k + strings.Repeat("[a]", 50) + "=1" }),
		hvForm("brackets 16 deep", func(k string) string { return k + strings.Repeat("[a]", 16) + "=1" }),
		hvForm("bad escape", func(k string) string { return k + "=%zz%" }),
		{label: "10000 bracket items", big: true, form: func(k string) string {
			var b strings.Builder
			for i := 0; i < 10000; i++ {
				if i > 0 {
					b.WriteByte('&')
				}
				b.WriteString(k + "[]=" + strconv.Itoa(i+1))
			}
			return b.String()
		}},
	}
}

// hostileNames are argument names no endpoint declares (or declares only
// in the path), sent with a plain value.
var hostileNames = []string{"zz_unknown", "__proto__", "constructor", "id", "slug", "a b", "\xff", strings.Repeat("k", 1000)}

// hostileBodies are whole request bodies with their Content-Type, sent to
// every endpoint: bodies that are not one JSON object, malformed JSON,
// mismatched or odd content types.
var hostileBodies = []struct {
	label, ct, body string
}{
	{"json array", "application/json", `[]`},
	{"json array of objects", "application/json", `[{"a":1}]`},
	{"json number", "application/json", `1`},
	{"json string", "application/json", `"x"`},
	{"json null", "application/json", `null`},
	{"json true", "application/json", `true`},
	{"truncated json", "application/json", `{`},
	{"json missing value", "application/json", `{"a":}`},
	{"json trailing value", "application/json", `{} {}`},
	{"json trailing garbage", "application/json", `{"a":1}x`},
	{"json raw byte", "application/json", "\xff"},
	{"json invalid UTF-8 key", "application/json", "{\"\xff\":1}"},
	{"json BOM", "application/json", "\xef\xbb\xbf{}"},
	{"json 50 deep", "application/json", nested(`{"a":`, "}", "1", 50)},
	{"json 10000 deep", "application/json", nested(`{"a":`, "}", "1", 10000)},
	{"json only whitespace", "application/json", " \n\t "},
	{"json with form content type", "application/x-www-form-urlencoded", `{"title":"x","venue":"y"}`},
	{"form with json content type", "application/json", `title=x&venue=y`},
	{"json as text/plain", "text/plain", `{"title":"x"}`},
	{"json latin1 charset", "application/json; charset=latin1", `{"title":"x"}`},
	{"json upper-case type", "APPLICATION/JSON", `{"title":1}`},
	{"json bad parameters", "application/json; ;;=", `{"title":1}`},
	{"form utf-16", "application/x-www-form-urlencoded; charset=utf-16", "t\x00=\x00x\x00"},
	{"multipart without boundary", "multipart/form-data", "--x\r\n\r\n"},
	{"multipart garbage", "multipart/form-data; boundary=x", "garbage"},
	{"merge-patch json", "application/merge-patch+json", `{"title":"x"}`},
	{"no content type", "", `{"title":"x"}`},
	{"form many pairs", "application/x-www-form-urlencoded", strings.Repeat("a=1&", 30000)},
	{"form empty keys", "application/x-www-form-urlencoded", "=&==&[]=1&[a]=2&&&"},
}
