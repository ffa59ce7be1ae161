package browsertest_test

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// site serves the pages the harness is tested on, under a CSP like the
// admin's (no inline script).
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'")
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>t</title></head><body>`+body+`</body></html>`)
		}
	}
	js := func(code string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = fmt.Fprint(w, code)
		}
	}
	mux.HandleFunc("/clean", page(`<h1 id="h">Clean</h1><script src="/ok.js"></script>`))
	mux.HandleFunc("/ok.js", js(`document.getElementById("h").dataset.ran = "yes";`))
	mux.HandleFunc("/inline", page(`<h1>Inline</h1><script>document.title = "ran"</script>`))
	mux.HandleFunc("/handler", page(`<img src="/nothing.png" onerror="alert(1)" alt="">`))
	mux.HandleFunc("/throws", page(`<script src="/throw.js"></script>`))
	mux.HandleFunc("/throw.js", js(`throw new Error("boom in the page");`))
	mux.HandleFunc("/alerts", page(`<script src="/alert.js"></script><p id="after">after</p>`))
	mux.HandleFunc("/alert.js", js(`alert("hello from the page");`))
	mux.HandleFunc("/forbidden", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		_, _ = fmt.Fprint(w, `<!doctype html><html lang="en"><body><p role="alert">No.</p></body></html>`)
	})
	mux.HandleFunc("/form", page(`<form method="post" action="/echo" id="f">
		<label for="t">T</label><input id="t" name="title">
		<label for="d">D</label><input id="d" type="datetime-local" name="start_date">
		<label for="s">S</label><select id="s" name="status"><option value="draft">Draft</option><option value="publish">Publish</option></select>
		<input type="checkbox" name="categories" value="1" id="c1"><label for="c1">1</label>
		<input type="checkbox" name="categories" value="2" id="c2"><label for="c2">2</label>
		<input type="checkbox" name="categories" value="3" id="c3" checked><label for="c3">3</label>
		<input type="checkbox" name="featured" value="1" id="fe"><label for="fe">F</label>
		<input type="hidden" name="_csrf" value="x">
		<button>Save</button></form>`))
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		var b strings.Builder
		for _, k := range []string{"title", "start_date", "status", "categories", "featured", "_csrf"} {
			fmt.Fprintf(&b, "<li id=%q>%s</li>", k, html.EscapeString(strings.Join(r.PostForm[k], ",")))
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprint(w, `<!doctype html><html lang="en"><body><ul>`+b.String()+`</ul></body></html>`)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// The harness must be able to fail a test: each kind of problem the admin
// must never have is reported, and a clean page reports nothing.
func TestPageReportsWhatMustFailATest(t *testing.T) {
	ts := site(t)
	p := browsertest.NewPage(t, ts.URL)
	for _, c := range []struct {
		path, want string
	}{
		{"/clean", ""},
		{"/inline", "CSP/security: Executing inline script violates"},
		{"/handler", "CSP/security: Executing inline event handler violates"},
		{"/handler", "console error (network) from " + ts.URL + "/nothing.png: Failed to load resource"},
		{"/throws", "uncaught exception at " + ts.URL + "/throw.js:1: Uncaught Error: boom in the page"},
		{"/alerts", `JavaScript alert dialog: "hello from the page"`},
		{"/forbidden", ""},
	} {
		status := p.Visit(c.path)
		got := p.TakeProblems()
		if c.want == "" {
			if len(got) != 0 {
				t.Errorf("%s: problems reported on a clean page: %q", c.path, got)
			}
			continue
		}
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, c.want)
		}
		if !found {
			t.Errorf("%s (status %d): problems %q, want one starting %q", c.path, status, got, c.want)
		}
	}
	if p.Visit("/clean"); p.Attr("#h", "data-ran") != "yes" {
		t.Errorf("a script from the site did not run")
	}
	if st := p.Visit("/forbidden"); st != http.StatusForbidden || p.Text("[role=alert]") != "No." {
		t.Errorf("forbidden page: status %d", st)
	}
	// The page goes on after an alert: the dialog was closed.
	p.Visit("/alerts")
	p.WaitVisible("#after")
	_ = p.TakeProblems()
}

func TestFillAndSubmitAFormAsAUserWould(t *testing.T) {
	ts := site(t)
	p := browsertest.NewPage(t, ts.URL)
	p.Visit("/form")
	p.Fill("#f", "title", `<img src=x onerror=alert(1)> 日本語`)
	p.Fill("#f", "start_date", "2026-12-07T19:00")
	p.Fill("#f", "status", "publish")
	p.Choose("#f", "categories", "1", "2")
	p.Fill("#f", "featured", "on")
	if st := p.Submit("#f"); st != http.StatusCreated || p.Path() != "/echo" {
		t.Fatalf("submit: status %d at %s", st, p.Path())
	}
	for id, want := range map[string]string{
		"title": `<img src=x onerror=alert(1)> 日本語`, "start_date": "2026-12-07T19:00", "status": "publish",
		"categories": "1,2", "featured": "1", "_csrf": "x",
	} {
		if got := p.Text("#" + id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
}
