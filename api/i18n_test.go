package api

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// Acceptance tests of issue 6 (SPEC §3), request side: the four languages
// in the namespace index, OPTIONS and /doc; language selection, the
// language prefix in every URL, localized errors. Content translations are
// in i18n_content_test.go.

// inScript reports whether s has text in the script of language code
// (the source language, English: anything goes). A language of i18n.Codes
// without a rule here fails, so a new language cannot pass unchecked.
func inScript(code, s string) bool {
	var is func(rune) bool
	switch code {
	case i18n.Source:
		return true
	case "zh-hans":
		is = func(r rune) bool { return unicode.Is(unicode.Han, r) }
	case "ja":
		is = func(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) }
	case "ko":
		is = func(r rune) bool { return unicode.Is(unicode.Hangul, r) }
	default:
		return false
	}
	return strings.ContainsFunc(s, is)
}

// messageIDRE matches a message id rendered instead of its text (a gap).
var messageIDRE = regexp.MustCompile(`^[a-z0-9_-]+(\.[a-z0-9_-]+)+$`)

// stripTexts returns a copy of v without the human-readable strings (every
// string value of a "description", "title" or "message" key), and collects
// them by JSON path into texts. What is left (names, types, defaults, enums,
// required flags, structure) must not depend on the language.
func stripTexts(v any, path string, texts map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if s, ok := val.(string); ok && (k == "description" || k == "title" || k == "message" || k == "summary") {
				texts[path+"/"+k] = s
				continue
			}
			out[k] = stripTexts(val, path+"/"+k, texts)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = stripTexts(val, fmt.Sprintf("%s/%d", path, i), texts)
		}
		return out
	}
	return v
}

// describedIn checks one language's document against English's: the same
// skeleton byte for byte, and every text in the language's script and not
// the English one.
func describedIn(t *testing.T, what, code string, en, got any) {
	t.Helper()
	enTexts, gotTexts := map[string]string{}, map[string]string{}
	enSkel, _ := json.Marshal(stripTexts(en, "", enTexts))
	gotSkel, _ := json.Marshal(stripTexts(got, "", gotTexts))
	if string(enSkel) != string(gotSkel) {
		t.Errorf("%s in %s: names, types, defaults, enums or required flags differ from English:\n en: %.600s\n %s: %.600s",
			what, code, enSkel, code, gotSkel)
	}
	if len(enTexts) == 0 {
		t.Errorf("%s: no descriptions at all", what)
	}
	paths := make([]string, 0, len(gotTexts))
	for p := range gotTexts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	bad := 0
	for _, p := range paths {
		s := gotTexts[p]
		switch {
		case strings.TrimSpace(s) == "" || messageIDRE.MatchString(s):
			t.Errorf("%s in %s: %s is a gap: %q", what, code, p, s)
		case code != i18n.Source && (!inScript(code, s) || s == enTexts[p]):
			t.Errorf("%s in %s: %s is not written in %s: %q", what, code, p, code, s)
		default:
			continue
		}
		if bad++; bad > 20 {
			t.Fatalf("%s in %s: too many untranslated texts", what, code)
		}
	}
}

// concretePath turns a route regex into a path that matches it ("1" for
// each named group).
var groupRE = regexp.MustCompile(`\(\?P<[A-Za-z_]+>[^)]*\)`)

func concretePath(routeKey string) string { return groupRE.ReplaceAllString(routeKey, "1") }

func TestI18nIndexOptionsAndDocDescribeEveryArgumentInEachLanguage(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		get := func(method, target string) any {
			t.Helper()
			r := e.do(t, method, target, nil, "")
			if r.Status != 200 {
				t.Fatalf("%s %s: %d %.300s", method, target, r.Status, r.Body)
			}
			return r.JSON(t)
		}
		enIndex := get("GET", nsURL+"/")
		routes, _ := enIndex.(map[string]any)["routes"].(map[string]any)
		if len(routes) < 2 {
			t.Fatalf("index has %d routes", len(routes))
		}
		args := 0
		for _, rt := range routes {
			for _, ep := range rt.(map[string]any)["endpoints"].([]any) {
				a := ep.(map[string]any)["args"].(map[string]any)
				if _, ok := a["ml_language"]; !ok {
					t.Errorf("an endpoint without ml_language: %v", ep.(map[string]any)["methods"])
				}
				args += len(a)
			}
		}
		t.Logf("index: %d routes, %d endpoint arguments", len(routes), args)

		enDoc := e.do(t, "GET", nsURL+"/doc", nil, "")
		if enDoc.Status != 200 {
			t.Fatalf("GET /doc: %d %.300s", enDoc.Status, enDoc.Body)
		}
		for _, code := range i18n.Codes {
			describedIn(t, "index", code, enIndex, get("GET", nsURL+"/?ml_language="+code))
			// The prefix selects the same texts; only the URLs differ.
			prefixed := e.do(t, "GET", "/"+code+nsURL+"/", nil, "")
			if got := prefixed.Header.Get("Content-Language"); got != code {
				t.Errorf("/%s/ index: Content-Language %q", code, got)
			}
			want := map[string]string{}
			stripTexts(get("GET", nsURL+"/?ml_language="+code), "", want)
			have := map[string]string{}
			stripTexts(prefixed.JSON(t), "", have)
			if fmt.Sprint(want) != fmt.Sprint(have) {
				t.Errorf("/%s/ index descriptions differ from ?ml_language=%s", code, code)
			}
			langRoutes := get("GET", nsURL+"/?ml_language="+code).(map[string]any)["routes"].(map[string]any)
			for key := range routes {
				target := concretePath(key) + "?ml_language=" + code
				opt := get("OPTIONS", target)
				describedIn(t, "OPTIONS "+key, code, routes[key], opt)
				idx := langRoutes[key]
				if a, b := mustJSON(t, opt), mustJSON(t, idx); a != b {
					t.Errorf("OPTIONS %s in %s is not the index entry:\n%.300s\n%.300s", key, code, a, b)
				}
			}
			describedIn(t, "/doc", code, enDoc.JSON(t), get("GET", nsURL+"/doc?ml_language="+code))
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestI18nLanguageSelection(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		venue := idOf(t, e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "Hall"}, models.RoleAdministrator))
		tests := []struct {
			name, method, target string
			body                 any
			as                   models.Role
			status               int
			lang                 string
		}{
			{"default", "GET", nsURL + "/venues", nil, "", 200, "en"},
			{"query", "GET", nsURL + "/venues?ml_language=ja", nil, "", 200, "ja"},
			{"query code is normalized", "GET", nsURL + "/venues?ml_language=zh-hans", nil, "", 200, "zh-hans"},
			{"prefix", "GET", "/ko" + nsURL + "/venues", nil, "", 200, "ko"},
			{"query beats prefix", "GET", "/ko" + nsURL + "/venues?ml_language=ja", nil, "", 200, "ja"},
			{"body beats query and prefix", "POST", "/ko" + nsURL + fmt.Sprintf("/venues/%d?ml_language=en", venue),
				map[string]any{"ml_language": "zh-hans", "phone": "1"}, models.RoleAdministrator, 200, "zh-hans"},
			{"index", "GET", "/zh-hans" + nsURL + "/", nil, "", 200, "zh-hans"},
			{"single read", "GET", "/ja" + nsURL + fmt.Sprintf("/venues/%d", venue), nil, "", 200, "ja"},
			{"HEAD", "HEAD", "/ja" + nsURL + "/venues", nil, "", 200, "ja"},
			{"OPTIONS", "OPTIONS", nsURL + "/venues?ml_language=ko", nil, "", 200, "ko"},
			{"no route", "GET", "/ja" + nsURL + "/nowhere", nil, "", 404, "ja"},
			{"no route, query", "GET", nsURL + "/nowhere?ml_language=ko", nil, "", 404, "ko"},
			{"not found", "GET", nsURL + "/venues/999999?ml_language=ja", nil, "", 404, "ja"},
			{"forbidden", "POST", "/ko" + nsURL + "/venues", map[string]any{"venue": "X"}, "", 401, "ko"},
			{"forbidden, body language", "POST", nsURL + "/venues", map[string]any{"venue": "X", "ml_language": "ja"}, "", 401, "ja"},
			{"invalid JSON", "POST", "/ja" + nsURL + "/venues", "{", models.RoleAdministrator, 400, "ja"},
			{"invalid value keeps the prefix language", "GET", "/ko" + nsURL + "/venues?ml_language=fr", nil, "", 400, "ko"},
		}
		for _, tc := range tests {
			r := e.do(t, tc.method, tc.target, tc.body, tc.as)
			if r.Status != tc.status {
				t.Errorf("%s: %s %s: %d %.300s, want %d", tc.name, tc.method, tc.target, r.Status, r.Body, tc.status)
			}
			if got := r.Header.Get("Content-Language"); got != tc.lang {
				t.Errorf("%s: Content-Language %q, want %q", tc.name, got, tc.lang)
			}
			if r.Status >= 400 && len(r.Body) > 0 {
				msg, _ := r.Map(t)["message"].(string)
				if !inScript(tc.lang, msg) || msg == "" {
					t.Errorf("%s: message not in %s: %q", tc.name, tc.lang, msg)
				}
			}
		}

		// The site default applies when neither the request nor the path says.
		e.Deps.Site.DefaultLanguage = "ja"
		r := e.do(t, "GET", nsURL+"/venues/999999", nil, "")
		if got := r.Header.Get("Content-Language"); got != "ja" || !inScript("ja", r.Map(t)["message"].(string)) {
			t.Errorf("default ja: Content-Language %q, body %.300s", got, r.Body)
		}
		if got := e.do(t, "GET", "/ko"+nsURL+"/venues", nil, "").Header.Get("Content-Language"); got != "ko" {
			t.Errorf("prefix over the default: Content-Language %q", got)
		}
		e.Deps.Site.DefaultLanguage = "en"
	})
}

func TestI18nInvalidLanguageAndLocalizedErrors(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, target := range []string{nsURL + "/?ml_language=fr", nsURL + "/venues?ml_language=fr", "/ja" + nsURL + "/organizers?ml_language=fr"} {
			r := e.do(t, "GET", target, nil, "")
			expect(t, target, r, 400, "rest_invalid_param")
			params, _ := r.Map(t)["data"].(map[string]any)["params"].(map[string]any)
			reason, _ := params["ml_language"].(string)
			for _, code := range i18n.Codes {
				if !strings.Contains(reason, code) {
					t.Errorf("%s: the reason %q does not list %s", target, reason, code)
				}
			}
		}
		// In the body too.
		r := e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "X", "ml_language": "fr"}, models.RoleAdministrator)
		expect(t, "body ml_language=fr", r, 400, "rest_invalid_param")

		// page=foo: same code and shape in every language, the message in that language.
		var shapes []string
		for _, code := range i18n.Codes {
			r := e.do(t, "GET", nsURL+"/venues?page=foo&ml_language="+code, nil, "")
			expect(t, "page=foo "+code, r, 400, "rest_invalid_param")
			m := r.Map(t)
			msg := m["message"].(string)
			reason, _ := m["data"].(map[string]any)["params"].(map[string]any)["page"].(string)
			if code != i18n.Source && (!inScript(code, msg) || !inScript(code, reason)) {
				t.Errorf("page=foo in %s: message %q, reason %q", code, msg, reason)
			}
			if !strings.Contains(msg, "page") {
				t.Errorf("page=foo in %s: the message does not name the parameter: %q", code, msg)
			}
			texts := map[string]string{}
			delete(m["data"].(map[string]any), "params") // reasons are texts
			shapes = append(shapes, mustJSON(t, stripTexts(m, "", texts)))
		}
		for i := range shapes {
			if shapes[i] != shapes[0] {
				t.Errorf("error shape in %s differs from English: %s vs %s", i18n.Codes[i], shapes[i], shapes[0])
			}
		}
		// The exact acceptance case.
		r = e.do(t, "GET", nsURL+"/venues?page=foo&ml_language=ja", nil, "")
		if r.Code(t) != "rest_invalid_param" || !inScript("ja", r.Map(t)["message"].(string)) {
			t.Errorf("page=foo, ja: %.300s", r.Body)
		}
	})
}

// checkURLs fails when a URL of the site in v (any string starting with
// the base URL) lacks the prefix.
func checkURLs(t *testing.T, what string, v any, base, prefix string) int {
	t.Helper()
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for _, val := range x {
			n += checkURLs(t, what, val, base, prefix)
		}
	case []any:
		for _, val := range x {
			n += checkURLs(t, what, val, base, prefix)
		}
	case string:
		if strings.HasPrefix(x, base) {
			n++
			if !strings.HasPrefix(x, base+prefix+"/") {
				t.Errorf("%s: URL without the %s prefix: %s", what, prefix, x)
			}
		}
	}
	return n
}

// prefixKinds says how to create a record of each kind for the prefix test,
// and what its list needs to show it.
var prefixKinds = []struct {
	kind      string
	body      func(name string) map[string]any
	listQuery string
}{
	{"venues", func(n string) map[string]any { return map[string]any{"venue": n} }, ""},
	{"organizers", func(n string) map[string]any { return map[string]any{"organizer": n} }, ""},
	{"categories", func(n string) map[string]any { return map[string]any{"name": n} }, "&hide_empty=false"},
	{"tags", func(n string) map[string]any { return map[string]any{"name": n} }, "&hide_empty=false"},
	{"events", func(n string) map[string]any {
		return map[string]any{"title": n, "start_date": "2027-08-01 18:00:00", "end_date": "2027-08-01 21:00:00", "cost": "5"}
	}, ""},
}

func TestI18nPrefixKeptInEveryURL(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		base := e.Deps.Site.BaseURL
		for _, prefix := range []string{"/ja", "/zh-hans"} {
			api := prefix + nsURL
			for _, pk := range prefixKinds {
				kind := pk.kind
				var id int64
				for i := 0; i < 2; i++ {
					r := e.do(t, "POST", api+"/"+kind, pk.body(fmt.Sprintf("%s %s %d", prefix, kind, i)), models.RoleAdministrator)
					expect(t, "create "+kind, r, 201, "")
					if loc := r.Header.Get("Location"); !strings.HasPrefix(loc, base+api+"/"+kind+"/") {
						t.Errorf("create %s under %s: Location %q", kind, prefix, loc)
					}
					checkURLs(t, "create "+kind, r.JSON(t), base, prefix)
					id = idOf(t, r)
				}
				for _, target := range []string{
					api + "/" + kind + "?per_page=1" + pk.listQuery,
					api + "/" + kind + "?per_page=1&page=2" + pk.listQuery,
					fmt.Sprintf("%s/%s/%d", api, kind, id),
				} {
					r := e.do(t, "GET", target, nil, "")
					expect(t, target, r, 200, "")
					if n := checkURLs(t, target, r.JSON(t), base, prefix); n == 0 {
						t.Errorf("%s: no URL at all in %.300s", target, r.Body)
					}
					if link := r.Header.Get("Link"); link != "" && strings.Count(link, base+api+"/") != strings.Count(link, "<") {
						t.Errorf("%s: Link header without the prefix: %s", target, link)
					}
				}
				r := e.do(t, "GET", api+"/"+kind+"?per_page=1"+pk.listQuery, nil, "")
				m := r.Map(t)
				for _, k := range []string{"rest_url", "next_rest_url"} {
					if s, _ := m[k].(string); !strings.HasPrefix(s, base+api+"/"+kind) {
						t.Errorf("%s list: %s = %q", kind, k, s)
					}
				}
				if !strings.Contains(r.Header.Get("Link"), base+api+"/"+kind) {
					t.Errorf("%s list: Link %q", kind, r.Header.Get("Link"))
				}
				r = e.do(t, "OPTIONS", api+"/"+kind, nil, "")
				if checkURLs(t, "OPTIONS "+kind, r.JSON(t), base, prefix) == 0 {
					t.Errorf("OPTIONS %s/%s: no _links: %.300s", api, kind, r.Body)
				}
			}
			for _, target := range []string{api + "/", api + "/doc", api + "/venues/999999"} {
				r := e.do(t, "GET", target, nil, "")
				checkURLs(t, target, r.JSON(t), base, prefix)
			}
		}
	})
}

// TestI18nHostileLanguageValues: odd ml_language values are 400 (never a
// 500), and the response still names its language.
func TestI18nHostileLanguageValues(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, tc := range []struct {
			name   string
			method string
			target string
			body   any
			status int
			lang   string
		}{
			{"empty", "GET", nsURL + "/venues?ml_language=", nil, 400, "en"},
			{"upper case", "GET", nsURL + "/venues?ml_language=JA", nil, 400, "en"},
			{"BCP 47 tag", "GET", nsURL + "/venues?ml_language=ja-JP", nil, 400, "en"},
			{"NUL", "GET", nsURL + "/venues?ml_language=ja%00", nil, 400, "en"},
			{"long", "GET", nsURL + "/venues?ml_language=" + strings.Repeat("ja", 1000), nil, 400, "en"},
			{"list", "GET", nsURL + "/venues?ml_language[]=ja&ml_language[]=ko", nil, 400, "en"},
			{"array in JSON", "POST", nsURL + "/venues", `{"venue":"X","ml_language":["ja"]}`, 400, "en"},
			{"number in JSON", "POST", nsURL + "/venues", `{"venue":"X","ml_language":7}`, 400, "en"},
			{"object in JSON under a prefix", "POST", "/ko" + nsURL + "/venues", `{"venue":"X","ml_language":{"a":"ja"}}`, 400, "ko"},
			{"upper-case prefix", "GET", "/JA" + nsURL + "/venues", nil, 200, "ja"},
		} {
			r := e.do(t, tc.method, tc.target, tc.body, models.RoleAdministrator)
			if r.Status != tc.status || r.Header.Get("Content-Language") != tc.lang {
				t.Errorf("%s: %d %q %.300s, want %d %q", tc.name, r.Status, r.Header.Get("Content-Language"), r.Body, tc.status, tc.lang)
			}
			if tc.status == 400 && r.Code(t) != "rest_invalid_param" {
				t.Errorf("%s: code %q", tc.name, r.Code(t))
			}
			if tc.status == 200 {
				checkURLs(t, tc.name, r.JSON(t), e.Deps.Site.BaseURL, "/"+tc.lang)
			}
		}
	})
}
