package browsertest_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
)

// locale reads one locale file of the module (a plural message as its
// "other" form).
func locale(t *testing.T, tag string) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../i18n/locales/" + tag + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for id, v := range raw {
		var s string
		if json.Unmarshal(v, &s) != nil {
			var plural map[string]string
			if err := json.Unmarshal(v, &plural); err != nil {
				t.Fatalf("%s: %s: neither a string nor plural forms", tag, id)
			}
			s = plural["other"]
		}
		m[id] = s
	}
	return m
}

// The audit must be able to fail: a page in Japanese that shows an English
// message, a raw message id, an unfilled template and the wrong <html
// lang> is reported on each, and the Japanese texts, the product name and
// the language names are not.
func TestAuditFindsEnglishLeftOversAndRawIDs(t *testing.T) {
	en, ja := locale(t, "en"), locale(t, "ja")
	var plain, tmpl string // ids of a plain and a templated message that differ in ja
	ids := make([]string, 0, len(en))
	for id := range en {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if en[id] == ja[id] {
			continue
		}
		if strings.Contains(en[id], "{{") {
			if tmpl == "" && strings.Count(en[id], "{{") == 1 {
				tmpl = id
			}
		} else if plain == "" {
			plain = id
		}
	}
	if plain == "" || tmpl == "" {
		t.Fatal("the locales have no plain or templated message translated into Japanese")
	}
	filled := func(s string) string {
		i, j := strings.Index(s, "{{"), strings.Index(s, "}}")
		return s[:i] + "42" + s[j+2:]
	}
	body := fmt.Sprintf(`<h1 id="ok">%s</h1><p id="ok2">%s</p><nav><a>Kalends</a> <a>English</a> <a>한국어</a></nav>
		<p id="left">%s</p><button title="%s">%s</button><p id="raw">%s</p><p id="raw2">Error: %s.</p>
		<p id="tmpl">%s</p><p id="nv">Count: &lt;no value&gt;</p><p id="data">My own event</p>`,
		html.EscapeString(ja[plain]), html.EscapeString(filled(ja[tmpl])),
		html.EscapeString(en[plain]), html.EscapeString(en[plain]), html.EscapeString(ja[plain]),
		plain, "admin.no_such.message", html.EscapeString(filled(en[tmpl])))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>`+html.EscapeString(ja[plain])+` · Kalends</title></head><body>`+body+`</body></html>`)
	}))
	defer ts.Close()
	p := browsertest.NewPage(t, ts.URL)
	p.Visit("/")
	got := p.Audit(browsertest.LoadLocales(t), "ja", "My own event")
	want := []string{
		`<html lang="en">, want "ja"`,
		fmt.Sprintf("p#left: %q is the English of %s; ja has %q", en[plain], plain, ja[plain]),
		fmt.Sprintf("button@title: %q is the English of %s; ja has %q", en[plain], plain, ja[plain]),
		fmt.Sprintf("p#raw: message id %q shown unrendered", plain),
		`p#raw2: message id "admin.no_such.message" shown unrendered`,
		fmt.Sprintf("p#tmpl: %q is the English of %s; ja has %q", filled(en[tmpl]), tmpl, ja[tmpl]),
		`p#nv: template not filled in "Count: <no value>"`,
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("not reported: %s", w)
		}
	}
	for _, g := range got {
		if strings.HasPrefix(g, "h1#ok") || strings.HasPrefix(g, "p#ok2") || strings.HasPrefix(g, "title") ||
			strings.HasPrefix(g, "a") || strings.Contains(g, `"My own event"`) {
			t.Errorf("reported though right: %s", g)
		}
	}
	if t.Failed() {
		t.Logf("reported:\n%s", strings.Join(got, "\n"))
	}
}

// Walk follows same-origin admin links, one page per shape, and reports a
// page that does not answer 200.
func TestWalkFollowsAdminLinksOncePerShape(t *testing.T) {
	pages := map[string]string{
		"/admin/": `<nav><a href="/admin/events">E</a> <a href="/admin/?lang=ko">한국어</a>
			<a href="https://example.org/admin/x">out</a> <a href="/cal/events/v1/">api</a></nav>`,
		"/admin/events": `<a href="/admin/events/1/edit">1</a> <a href="/admin/events/2/edit">2</a>
			<a href="/admin/events?status=draft">d</a> <a href="/admin/events?status=trash">t</a> <a href="/admin/broken#x">b</a>`,
		"/admin/events/1/edit": `<form method="post" action="/admin/logout"><button>out</button></form><a href="/admin/logout">x</a>`,
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if r.URL.Path == "/admin/events" && r.URL.Query().Has("status") {
			body, ok = "", true
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if !ok {
			w.WriteHeader(http.StatusNotFound)
		}
		lang := r.URL.Query().Get("lang")
		if c, err := r.Cookie("l"); err == nil && lang == "" {
			lang = c.Value
		}
		if lang != "" {
			http.SetCookie(w, &http.Cookie{Name: "l", Value: lang, Path: "/"})
		}
		_, _ = fmt.Fprintf(w, `<!doctype html><html lang="%s"><body>%s</body></html>`, html.EscapeString(lang), body)
	}))
	defer ts.Close()
	p := browsertest.NewPage(t, ts.URL)
	visited, findings := p.Walk(browsertest.LoadLocales(t), "ja", "/admin/", 10)
	wantVisited := []string{"/admin/", "/admin/events", "/admin/events/1/edit", "/admin/events?status=draft", "/admin/broken"}
	if !slices.Equal(visited, wantVisited) {
		t.Errorf("visited %q, want %q", visited, wantVisited)
	}
	if !slices.Equal(findings, []string{"/admin/broken: status 404"}) {
		t.Errorf("findings %q", findings)
	}
}
