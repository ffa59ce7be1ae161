package browsertest

import (
	_ "embed" // axe-core, vendored for the tests
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// axeSource is axe-core (pinned in package.json, copied by
// scripts/copy-vendor.mjs). It lives under testdata, outside assets/, so
// the app never serves it; the tests inject it into the pages they check
// through the DevTools protocol (Runtime.evaluate), which the pages'
// Content-Security-Policy does not govern.
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// AxeNode is one element a rule failed on.
type AxeNode struct {
	Target  []string `json:"target"`
	HTML    string   `json:"html"`
	Summary string   `json:"failureSummary"`
}

// AxeViolation is one rule axe found broken on a page, with the elements.
type AxeViolation struct {
	ID     string    `json:"id"`
	Impact string    `json:"impact"` // minor, moderate, serious or critical
	Help   string    `json:"help"`
	URL    string    `json:"helpUrl"`
	Nodes  []AxeNode `json:"nodes"`
}

// Blocking reports whether v is serious or critical: the accessibility
// tests allow none.
func (v AxeViolation) Blocking() bool { return v.Impact == "serious" || v.Impact == "critical" }

// String is the rule, its impact and the elements (at most five), one line.
func (v AxeViolation) String() string {
	var targets []string
	for i, n := range v.Nodes {
		if i == 5 {
			targets = append(targets, fmt.Sprintf("… %d more", len(v.Nodes)-5))
			break
		}
		targets = append(targets, strings.Join(n.Target, " "))
	}
	return fmt.Sprintf("%s (%s): %s [%s]", v.ID, v.Impact, v.Help, strings.Join(targets, "; "))
}

// Detail is String with each element's failure summary and HTML, for a
// failing test's log.
func (v AxeViolation) Detail() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", v.ID, v.Impact, v.Help)
	for i, n := range v.Nodes {
		if i == 5 {
			fmt.Fprintf(&b, "\n      … %d more", len(v.Nodes)-5)
			break
		}
		fmt.Fprintf(&b, "\n      %s: %s\n        %s", strings.Join(n.Target, " "), abbrevN(n.HTML, 200),
			strings.Join(strings.Fields(n.Summary), " "))
	}
	return b.String()
}

// axeRunJS runs axe on the document, once it is injected: every rule of
// WCAG 2.0–2.2 A and AA and axe's best practices. Elements marked
// data-third-party (a vendored widget's own markup: Swagger UI) are left
// out, as the text audit leaves them out: we check our pages, not theirs.
const axeRunJS = `(async () => {
  const ctx = document.querySelector("[data-third-party]") ? {exclude: ["[data-third-party]"]} : document;
  const r = await axe.run(ctx, {
    runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]},
    resultTypes: ["violations"],
  });
  return r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, helpUrl: v.helpUrl,
    nodes: v.nodes.map(n => ({target: n.target.map(String), html: n.html, failureSummary: n.failureSummary || ""}))}));
})()`

// Axe runs axe-core on the current page (injected on first use in each
// document) and returns its violations, most severe first.
func (p *Page) Axe() []AxeViolation {
	p.t.Helper()
	if !Eval[bool](p, `typeof window.axe === "object"`) {
		Eval[bool](p, axeSource+"\n;true")
	}
	out := EvalAwait[[]AxeViolation](p, axeRunJS)
	rank := map[string]int{"critical": 0, "serious": 1, "moderate": 2, "minor": 3}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Impact] < rank[out[j].Impact] })
	return out
}

// AxeReport gathers axe's findings over many pages: the blocking ones
// (serious or critical) and the others, each rule listed once per page.
type AxeReport struct {
	Pages    []string            // the pages checked, as named by Check's callers
	Blocking []string            // "page: violation", with details
	Moderate map[string][]string // violation line -> pages
	Spent    time.Duration       // in axe (injection and run), over all pages
}

// Check runs axe on the current page, named name in the report.
func (r *AxeReport) Check(p *Page, name string) {
	p.t.Helper()
	r.Pages = append(r.Pages, name)
	if r.Moderate == nil {
		r.Moderate = map[string][]string{}
	}
	start := time.Now()
	found := p.Axe()
	r.Spent += time.Since(start)
	for _, v := range found {
		if v.Blocking() {
			r.Blocking = append(r.Blocking, name+": "+v.Detail())
			continue
		}
		key := fmt.Sprintf("%s (%s): %s", v.ID, v.Impact, v.Help)
		if !slices.Contains(r.Moderate[key], name) {
			r.Moderate[key] = append(r.Moderate[key], name)
		}
	}
}

// ModerateLines lists the non-blocking findings, one rule a line with the
// pages it was found on.
func (r *AxeReport) ModerateLines() []string {
	var out []string
	for k, pages := range r.Moderate {
		out = append(out, fmt.Sprintf("%s — on %d page(s): %s", k, len(pages), strings.Join(pages, ", ")))
	}
	sort.Strings(out)
	return out
}

// WalkAxe visits start (already in the wanted language and colour scheme),
// then every page reachable from it through same-origin links under
// /admin/, one page of each shape (as Walk), at most limit pages, and runs
// axe on each into r, naming the page prefix+path. It returns the paths
// visited and the pages that did not answer 200.
func (p *Page) WalkAxe(r *AxeReport, prefix, start string, limit int) (visited, problems []string) {
	p.t.Helper()
	base, err := url.Parse(p.Base)
	if err != nil {
		p.t.Fatal(err)
	}
	queue := []string{start}
	shapes := map[string]bool{shape(mustURL(p.t, start)): true}
	for len(queue) > 0 && len(visited) < limit {
		path := queue[0]
		queue = queue[1:]
		if status := p.Visit(path); status != 200 {
			problems = append(problems, fmt.Sprintf("%s: status %d", path, status))
		}
		visited = append(visited, path)
		p.AwaitSettled()
		r.Check(p, prefix+path)
		for _, href := range Eval[[]string](p, `Array.from(document.querySelectorAll("a[href]:not([download])"), a => a.href)`) {
			u, err := url.Parse(href)
			if err != nil || u.Host != base.Host || u.Scheme != base.Scheme {
				continue
			}
			if !strings.HasPrefix(u.Path, "/admin/") && u.Path != "/admin" || u.Path == "/admin/logout" || u.Query().Has("lang") {
				continue
			}
			u.Fragment = ""
			// A record's translation pages are one page in three languages:
			// one of them is checked.
			if k := translations.ReplaceAllString(shape(u), "/translations/{lang}"); !shapes[k] {
				shapes[k] = true
				queue = append(queue, u.RequestURI())
			}
		}
	}
	if len(queue) > 0 {
		problems = append(problems, fmt.Sprintf("more than %d pages: not visited %v", limit, queue))
	}
	return visited, problems
}

// AwaitSettled waits until the page's own scripts have drawn what they
// draw on load: the calendar its range, the API docs their operations. The
// page polls itself (every 25 ms, for at most ActionTimeout less a second)
// and answers once.
func (p *Page) AwaitSettled() {
	p.t.Helper()
	ms := (ActionTimeout - time.Second).Milliseconds()
	ok := EvalAwait[bool](p, `new Promise(resolve => {
  const settled = () => {
    const cal = document.querySelector("#calendar");
    if (cal && cal.dataset.view !== "list" && window.FullCalendar && cal.dataset.loaded === undefined) return false;
    const docs = document.querySelector("#swagger-ui");
    if (docs && !docs.querySelector(".opblock, .information-container")) return false;
    return document.readyState === "complete";
  };
  const until = Date.now() + `+strconv.FormatInt(ms, 10)+`;
  const tick = () => settled() ? resolve(true) : Date.now() > until ? resolve(false) : setTimeout(tick, 25);
  tick();
})`)
	if !ok {
		p.t.Fatalf("%s: the calendar or the API docs did not finish drawing", p.URL())
	}
}

var translations = regexp.MustCompile(`/translations/[a-z-]+`)

func abbrevN(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
