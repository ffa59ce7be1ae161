package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/kalends/kalends/models/modelstest"
)

// Page is one browser tab in a browser context of its own (own cookies and
// storage), opened by NewPage. Its methods fail the test on error, each
// bounded by ActionTimeout and the suite's budget; none sleeps. When the
// test ends, every JavaScript error, uncaught exception, CSP violation
// (any message of the browser's security log), failed subresource and
// alert, confirm or prompt dialog the page saw fails it, unless the test
// took them with TakeProblems. A failed test leaves a screenshot and the
// HTML of the page in a temporary directory named in the log.
type Page struct {
	t    testing.TB
	ctx  context.Context
	Base string // the server's root URL, prepended to paths

	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
	dialogs  []string
	docs     map[string]bool // URLs loaded as documents: their 4xx status is not a problem
	flushes  int
}

// Page opens a tab on the server (see NewPage).
func (s *Server) Page(t testing.TB) *Page {
	t.Helper()
	return NewPage(t, s.URL)
}

// NewPage opens a tab in a new browser context for a site at base.
func NewPage(t testing.TB, base string) *Page {
	t.Helper()
	b := browser(t)
	ctx, cancel := chromedp.NewContext(b, chromedp.WithNewBrowserContext())
	p := &Page{t: t, ctx: ctx, Base: strings.TrimSuffix(base, "/"), docs: map[string]bool{}}
	// The first Do opens the tab and binds it to ctx, without a deadline.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatalf("browsertest: open a tab: %v", budgetErr(err))
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		if ev, ok := ev.(*network.EventResponseReceived); ok && ev.Type == network.ResourceTypeDocument {
			p.mu.Lock()
			p.docs[ev.Response.URL] = true
			p.mu.Unlock()
		}
	}); err != nil {
		cancel()
		t.Fatal(err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.messages = append(p.messages, m)
			p.mu.Unlock()
		}
	}()
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.dialogs = append(p.dialogs, fmt.Sprintf("%s dialog: %q", ev.Type, ev.Message))
			p.mu.Unlock()
			// Close it, or the page (and the action that opened it) hangs.
			// A beforeunload dialog is accepted so that navigation goes on.
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog,
				page.HandleJavaScriptDialogParams{Accept: ev.Type == page.DialogTypeBeforeunload})
		}
	}()
	t.Cleanup(func() {
		defer cancel()
		if problems := p.problems(); len(problems) > 0 {
			t.Errorf("the browser reported:\n  %s", strings.Join(problems, "\n  "))
		}
		if t.Failed() {
			p.keepEvidence()
		}
	})
	return p
}

// timeout is an action context of p.
func (p *Page) timeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.ctx, ActionTimeout)
}

// do runs actions, failing the test with what on error.
func (p *Page) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := p.timeout()
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, budgetErr(err))
	}
}

// get runs one action and returns its value, failing the test on error.
func get[T any](p *Page, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := p.timeout()
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.t.Fatalf("%s: %v", what, budgetErr(err))
	}
	return v
}

// abs makes a path absolute on the page's site.
func (p *Page) abs(path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	return p.Base + path
}

// Visit loads path (or a full URL) and returns the HTTP status of the
// document once it has loaded.
func (p *Page) Visit(path string) int {
	p.t.Helper()
	res := get(p, "visit "+path, chromedp.NavigateResponse(p.abs(path)))
	return int(res.Status)
}

// VisitIn loads path in lang, chosen as a reader chooses it: with the
// language switcher of the page (a form post the admin remembers: in the
// profile when signed in, in a cookie otherwise), which comes back to the
// page. It returns the status of that last load. A page without the
// switcher is loaded with ?lang=, which shows it in lang and stores nothing.
func (p *Page) VisitIn(lang, path string) int {
	p.t.Helper()
	status := p.Visit(path)
	if strings.EqualFold(p.Lang(), lang) {
		return status
	}
	return p.SetLanguage(lang)
}

// SetLanguage chooses lang in the current page's language switcher (see
// VisitIn) and returns the status of the page it comes back to.
func (p *Page) SetLanguage(lang string) int {
	p.t.Helper()
	button := `[data-testid="language-form"] [data-testid="lang-` + strings.ToLower(lang) + `"]`
	if p.Count(button) == 0 {
		return p.Visit(WithLang(p.URL(), lang))
	}
	p.Click(`[data-testid="language-switcher"] summary`)
	return p.ClickAndWait(button)
}

// WithLang sets the lang query parameter of a path or URL.
func WithLang(path, lang string) string {
	u, err := url.Parse(path)
	if err != nil {
		return path
	}
	q := u.Query()
	q.Set("lang", lang)
	u.RawQuery = q.Encode()
	return u.String()
}

// URL is the address of the current document.
func (p *Page) URL() string {
	p.t.Helper()
	return get(p, "location", chromedp.Location())
}

// Path is the path of the current document (without the query).
func (p *Page) Path() string {
	p.t.Helper()
	u, err := url.Parse(p.URL())
	if err != nil {
		p.t.Fatal(err)
	}
	return u.Path
}

// WaitVisible waits until an element matching the CSS selector is visible.
func (p *Page) WaitVisible(sel string) {
	p.t.Helper()
	p.do("wait for "+sel+" to be visible", chromedp.WaitVisible(chromedp.CSS(sel)))
}

// WaitGone waits until no element matches the CSS selector.
func (p *Page) WaitGone(sel string) {
	p.t.Helper()
	p.do("wait for "+sel+" to go", chromedp.WaitNotPresent(chromedp.CSS(sel)))
}

// Text is the rendered text of the first element matching the selector,
// once it is there.
func (p *Page) Text(sel string) string {
	p.t.Helper()
	return strings.TrimSpace(get(p, "text of "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// Texts is the rendered text of every element matching the selector, now
// (no wait; empty when none matches).
func (p *Page) Texts(sel string) []string {
	p.t.Helper()
	return Eval[[]string](p, `Array.from(document.querySelectorAll(`+jsString(sel)+`), e => e.innerText.trim())`)
}

// Count is the number of elements matching the selector, now.
func (p *Page) Count(sel string) int {
	p.t.Helper()
	return Eval[int](p, `document.querySelectorAll(`+jsString(sel)+`).length`)
}

// Attr is an attribute of the first element matching the selector ("" when
// the element has none), once the element is there.
func (p *Page) Attr(sel, name string) string {
	p.t.Helper()
	r := get(p, "attribute "+name+" of "+sel, chromedp.AttributeValue(chromedp.CSS(sel), name))
	return r.Value
}

// Lang is the document's <html lang>.
func (p *Page) Lang() string {
	p.t.Helper()
	return Eval[string](p, `document.documentElement.lang`)
}

// Title is the document's title.
func (p *Page) Title() string {
	p.t.Helper()
	return get(p, "title", chromedp.Title())
}

// HTML is the serialized document.
func (p *Page) HTML() string {
	p.t.Helper()
	return Eval[string](p, `document.documentElement.outerHTML`)
}

// Eval evaluates a JavaScript expression in the page and decodes its value.
func Eval[T any](p *Page, expr string) T {
	p.t.Helper()
	return get(p, "evaluate "+abbrev(expr), chromedp.Evaluate[T](expr))
}

// Type focuses the element matching sel and types text as keystrokes
// ("\r" is Enter), firing the key events a user's typing fires.
func (p *Page) Type(sel, text string) {
	p.t.Helper()
	p.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text, chromedp.NodeVisible))
}

// Hover moves the mouse over the centre of the first element matching sel.
func (p *Page) Hover(sel string) {
	p.t.Helper()
	type box struct{ X, Y float64 }
	args, _ := json.Marshal(sel)
	b := Eval[box](p, `(() => { const el = document.querySelector(`+string(args)+`); if (!el) return {X: -1, Y: -1};
		el.scrollIntoView({block: "center"}); const r = el.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`)
	if b.X < 0 {
		p.t.Fatalf("hover %s: no such element", sel)
	}
	p.do("hover "+sel, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.X, b.Y))
}

// Drag presses the mouse on the centre of the first element matching from
// (scrolled into view), moves it in steps to the centre of the first
// element matching to, and releases it there, as a user's drag does.
func (p *Page) Drag(from, to string) {
	p.t.Helper()
	type box struct{ X, Y float64 }
	center := func(sel string) box {
		args, _ := json.Marshal(sel)
		return Eval[box](p, `(() => { const el = document.querySelector(`+string(args)+`);
			if (!el) return {X: -1, Y: -1}; el.scrollIntoView({block: "center"}); const r = el.getBoundingClientRect();
			return {X: r.left + r.width / 2, Y: r.top + Math.min(r.height / 2, 8)}; })()`)
	}
	a := center(from)
	b := center(to)
	if a.X < 0 || b.X < 0 {
		p.t.Fatalf("drag %s to %s: no such element", from, to)
	}
	actions := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, a.X, a.Y),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, a.X, a.Y, chromedp.ButtonLeft)}
	for i := 1; i <= 10; i++ {
		f := float64(i) / 10
		actions = append(actions, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, a.X+(b.X-a.X)*f, a.Y+(b.Y-a.Y)*f, chromedp.ButtonLeft))
	}
	actions = append(actions, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, b.X, b.Y, chromedp.ButtonLeft))
	p.do("drag "+from+" to "+to, actions...)
}

// WaitUntil waits until a JavaScript expression is true in the page
// (polled by the browser, bounded as every action). A document replaced
// while it is polled (a navigation still finishing as the poll starts: CI
// once saw the CSV import's job page do so right after its reload) takes
// its JavaScript context with it, and the poll fails with the context
// gone: the poll starts again in the new document, within the same bound.
func WaitUntil(p *Page, expr string) {
	p.t.Helper()
	ctx, cancel := p.timeout()
	defer cancel()
	retry := time.NewTicker(20 * time.Millisecond)
	defer retry.Stop()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr))
		if err == nil {
			return
		}
		if ctx.Err() != nil || !contextReplaced(err) {
			p.t.Fatalf("wait until %s: %v", abbrev(expr), budgetErr(err))
		}
		select {
		case <-ctx.Done():
		case <-retry.C:
		}
	}
}

// contextReplaced tells whether err says the page's JavaScript context
// went away under a call (the document was replaced by a navigation).
func contextReplaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

// EvalAwait evaluates a JavaScript expression whose value is a promise
// (an async function's call) and decodes what it resolves to.
func EvalAwait[T any](p *Page, expr string) T {
	p.t.Helper()
	return get(p, "evaluate "+abbrev(expr), chromedp.Evaluate[T](expr, func(e *runtime.EvaluateParams) { yes := true; e.AwaitPromise = &yes }))
}

// Fill sets the field named name in the form matching formSel ("" for the
// whole page) as a user would, firing input and change events: text-like
// inputs, textareas and selects take value; a checkbox is checked unless
// value is "", "0", "false" or "off"; a radio group selects the one with
// that value. Hidden fields cannot be filled, as a user cannot.
func (p *Page) Fill(formSel, name, value string) {
	p.t.Helper()
	p.fill(formSel, name, []string{value}, false)
}

// Choose checks exactly the checkboxes (or selects exactly the options of a
// multiple select) named name whose values are given.
func (p *Page) Choose(formSel, name string, values ...string) {
	p.t.Helper()
	p.fill(formSel, name, values, true)
}

func (p *Page) fill(formSel, name string, values []string, multi bool) {
	p.t.Helper()
	args, _ := json.Marshal([]any{formSel, name, values, multi})
	if msg := Eval[string](p, `(`+fillJS+`)(...`+string(args)+`)`); msg != "" {
		p.t.Fatalf("fill %s%s: %s", scopeOf(formSel), name, msg)
	}
}

func scopeOf(formSel string) string {
	if formSel == "" {
		return ""
	}
	return formSel + " "
}

// fillJS sets a field; it returns "" or what went wrong.
const fillJS = `function (formSel, name, values, multi) {
  const root = formSel ? document.querySelector(formSel) : document;
  if (!root) return "no element matches " + formSel;
  const els = Array.from(root.querySelectorAll('[name="' + CSS.escape(name) + '"]'));
  if (els.length === 0) return "no field with this name";
  const fire = el => { el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); };
  if (els.some(el => el.type === "hidden")) return "a hidden field, which a user cannot fill";
  if (els.some(el => el.disabled)) return "a disabled field";
  const on = v => !["", "0", "false", "off"].includes(v);
  const el = els[0];
  if (el.type === "checkbox") {
    if (multi) {
      const missing = values.filter(v => !els.some(e => e.value === v));
      if (missing.length) return "no checkbox with value " + missing.join(", ");
      for (const e of els) { const want = values.includes(e.value); if (e.checked !== want) { e.checked = want; fire(e); } }
    } else {
      const want = on(values[0]);
      if (el.checked !== want) { el.checked = want; fire(el); }
    }
    return "";
  }
  if (el.type === "radio") {
    const r = els.find(e => e.value === values[0]);
    if (!r) return "no radio button with value " + values[0];
    r.checked = true; fire(r); return "";
  }
  if (el.tagName === "SELECT") {
    const opts = Array.from(el.options);
    const missing = values.filter(v => !opts.some(o => o.value === v));
    if (missing.length) return "no option with value " + missing.join(", ");
    if (multi) { for (const o of opts) o.selected = values.includes(o.value); } else { el.value = values[0]; }
    fire(el); return "";
  }
  if (multi) return "not a checkbox group or a multiple select";
  el.focus();
  el.value = values[0];
  if (el.value !== values[0]) return "the field did not take the value " + JSON.stringify(values[0]) + " (type " + el.type + ")";
  fire(el);
  return "";
}`

// Submit clicks the first submit button of the form matching formSel and
// returns the HTTP status of the page it loads.
func (p *Page) Submit(formSel string) int {
	p.t.Helper()
	return p.ClickAndWait(formSel + ` [type=submit], ` + formSel + ` button:not([type])`)
}

// Click clicks the first element matching the selector (waiting until it is
// visible); it does not wait for what follows.
func (p *Page) Click(sel string) {
	p.t.Helper()
	p.do("click "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// ClickAndWait clicks the first element matching the selector and waits
// for the document it loads; it returns that document's HTTP status.
func (p *Page) ClickAndWait(sel string) int {
	p.t.Helper()
	ctx, cancel := p.timeout()
	defer cancel()
	res, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		p.t.Fatalf("click %s and wait for the next page: %v", sel, budgetErr(err))
	}
	return int(res.Status)
}

// Viewport sets the size of the page's viewport in CSS pixels.
func (p *Page) Viewport(width, height int64) {
	p.t.Helper()
	p.do("set the viewport", chromedp.EmulateViewport(width, height))
}

// ColorScheme emulates prefers-color-scheme: "light" or "dark".
func (p *Page) ColorScheme(scheme string) {
	p.t.Helper()
	p.do("emulate "+scheme, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	}))
}

// Screenshot writes a PNG of the whole page (beyond the viewport) to file,
// once the page's fonts have loaded.
func (p *Page) Screenshot(file string) {
	p.t.Helper()
	p.do("wait for the fonts", chromedp.Evaluate[chromedp.Void](`document.fonts.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	png := get(p, "screenshot", chromedp.FullScreenshot(100))
	if err := os.MkdirAll(filepath.Dir(file), 0o750); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(file, png, 0o600); err != nil {
		p.t.Fatal(err)
	}
}

// ViewportScreenshot writes a PNG of what the viewport shows (a modal
// dialog over the page) to file.
func (p *Page) ViewportScreenshot(file string) {
	p.t.Helper()
	p.do("wait for the fonts", chromedp.Evaluate[chromedp.Void](`document.fonts.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	png := get(p, "screenshot", chromedp.CaptureScreenshot())
	if err := os.MkdirAll(filepath.Dir(file), 0o750); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(file, png, 0o600); err != nil {
		p.t.Fatal(err)
	}
}

// SignIn signs a in through the sign-in form (SPEC §10: fields login and
// password) and fails unless it lands on an admin page other than the
// sign-in page with status 200.
func (p *Page) SignIn(a Account) {
	p.t.Helper()
	if st := p.Visit("/admin/login"); st != 200 {
		p.t.Fatalf("sign-in page: status %d", st)
	}
	form := `form:has(input[name="password"])`
	p.Fill(form, "login", a.Login)
	p.Fill(form, "password", a.Password)
	if st := p.Submit(form); st != 200 {
		p.t.Fatalf("sign in as %s: status %d", a.Login, st)
	}
	if path := p.Path(); path == "/admin/login" || !strings.HasPrefix(path, "/admin/") {
		p.t.Fatalf("sign in as %s: still on %s", a.Login, path)
	}
}

// TakeProblems returns what the browser reported so far (see Page) and
// forgets it, for tests that expect a problem.
func (p *Page) TakeProblems() []string {
	p.t.Helper()
	problems := p.problems()
	p.mu.Lock()
	p.messages, p.dialogs = nil, nil
	p.mu.Unlock()
	return problems
}

// problems waits until every console message sent so far has arrived, then
// lists those that are problems.
func (p *Page) problems() []string {
	p.flush()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.messages {
		if isMarker(m) {
			continue
		}
		switch {
		case m.Source == "security":
			out = append(out, "CSP/security: "+m.Text)
		case m.Source == "network" && p.docs[m.URL]:
			// a document's own status (a 403 or 404 page the test asked for)
		case m.Source == "network" && strings.HasSuffix(m.URL, "/favicon.ico"):
			// Chromium's own request for a favicon the page did not name
		case m.Type == chromedp.ConsoleException:
			out = append(out, fmt.Sprintf("uncaught exception at %s:%d: %s", m.URL, m.Line+1, m.Text))
		case m.Type == chromedp.ConsoleError:
			where := m.URL
			if where == "" {
				where = "the page"
			}
			out = append(out, fmt.Sprintf("console error (%s) from %s: %s", orDefault(m.Source, "console"), where, m.Text))
		}
	}
	for _, d := range p.dialogs {
		if !strings.HasPrefix(d, string(page.DialogTypeBeforeunload)) {
			out = append(out, "JavaScript "+d)
		}
	}
	return out
}

const markerPrefix = "kalends-browsertest-flush-"

func isMarker(m chromedp.ConsoleMessage) bool { return strings.HasPrefix(m.Text, markerPrefix) }

// flush logs a marker and waits (bounded) until it comes back through the
// console subscription, so every earlier message has been collected.
func (p *Page) flush() {
	p.mu.Lock()
	p.flushes++
	marker := fmt.Sprintf("%s%d", markerPrefix, p.flushes)
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`console.debug(`+jsString(marker)+`)`)); err != nil {
		p.t.Logf("browsertest: could not flush the console: %v", budgetErr(err))
		return
	}
	err := modelstest.Await(5*time.Second, func() error {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, m := range p.messages {
			if m.Text == marker {
				return nil
			}
		}
		return fmt.Errorf("console marker %s not seen", marker)
	})
	if err != nil {
		p.t.Logf("browsertest: %v", err)
	}
}

// keepEvidence saves a screenshot and the HTML of a failed test's page.
func (p *Page) keepEvidence() {
	dir, err := os.MkdirTemp("", "kalends-browser-failure-")
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "page.png"), png, 0o600)
	}
	if html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "page.html"), []byte(html), 0o600)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	p.t.Logf("browsertest: the page (%s) at failure is saved in %s", loc, dir)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func abbrev(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// SetFiles chooses files for the file input matching sel, as a user picking
// them (or dropping them) would.
func (p *Page) SetFiles(sel string, paths ...string) {
	p.t.Helper()
	p.do("set files on "+sel, chromedp.SetUploadFiles(chromedp.CSS(sel), paths, chromedp.NodeReady))
}
