package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Keyboard-only driving: key presses sent through the DevTools protocol
// (Input.dispatchKeyEvent, as a real keyboard's), never clicks or values
// set by script, and what has focus after each of them.

// Key names for Press (chromedp's kb runes).
const (
	KeyTab       = kb.Tab
	KeyEnter     = kb.Enter
	KeyEscape    = kb.Escape
	KeySpace     = " "
	KeyDown      = kb.ArrowDown
	KeyUp        = kb.ArrowUp
	KeyLeft      = kb.ArrowLeft
	KeyRight     = kb.ArrowRight
	KeyBackspace = kb.Backspace
)

// KeyboardOnly makes the tab take key presses as a focused window does
// (a background tab of headless Chromium has no focused document, and Tab
// would go nowhere). Call it once before the first Press.
func (p *Page) KeyboardOnly() {
	p.t.Helper()
	p.do("emulate a focused window", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return err
	}))
}

// Press presses each key of keys in turn (a kb rune or a character), with
// Shift held when shift is true.
func (p *Page) Press(keys string, shift bool) {
	p.t.Helper()
	var opts []chromedp.KeyOption
	if shift {
		opts = append(opts, chromedp.KeyModifiers(chromedp.ModifierShift))
	}
	p.do(fmt.Sprintf("press %q", keys), chromedp.KeyEvent(keys, opts...))
}

// TypeText types text into the focused element: ASCII as key presses,
// other characters as committed text (Input.insertText, what a keyboard
// or an input method gives once a character is chosen).
func (p *Page) TypeText(text string) {
	p.t.Helper()
	var ascii strings.Builder
	flush := func() {
		if ascii.Len() > 0 {
			p.do("type "+ascii.String(), chromedp.KeyEvent(ascii.String()))
			ascii.Reset()
		}
	}
	for _, r := range text {
		if r < 0x80 {
			ascii.WriteRune(r)
			continue
		}
		flush()
		p.do("insert "+string(r), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: string(r)})
			return err
		}))
	}
	flush()
}

// Focus describes the focused element and how its focus is drawn.
type Focus struct {
	Tag, ID, Name, TestID, Role, Text string
	Type                              string // an input's type
	Outline, BoxShadow                string // computed outline and box-shadow
	FocusVisible                      bool   // it matches :focus-visible
	HasFocus                          bool   // it matches :focus (false while the window has no focus)
	DocFocus                          bool   // document.hasFocus()
	InDialog                          string // the id of the open dialog holding it, if any
}

// String names the element for messages.
func (f Focus) String() string {
	s := "<" + f.Tag
	for _, kv := range [][2]string{{"id", f.ID}, {"name", f.Name}, {"data-testid", f.TestID}, {"type", f.Type}} {
		if kv[1] != "" {
			s += fmt.Sprintf(" %s=%q", kv[0], kv[1])
		}
	}
	return s + ">" + f.Text
}

// Visible reports whether the focus is drawn: the element matches
// :focus-visible (or is a date or time input) and has an outline or a box
// shadow.
func (f Focus) Visible() bool {
	outline := f.Outline != "" && !strings.Contains(f.Outline, "none") &&
		!strings.HasSuffix(f.Outline, " 0px") && !strings.HasPrefix(f.Outline, "rgba(0, 0, 0, 0)")
	shadow := f.BoxShadow != "" && f.BoxShadow != "none"
	// Date and time inputs hold the focus in their inner fields: the
	// input matches :focus, never :focus-visible.
	dateInput := f.Tag == "input" && (f.Type == "date" || f.Type == "datetime-local" || f.Type == "time")
	return (f.FocusVisible || dateInput) && (outline || shadow)
}

const focusScript = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return {Tag: el ? "body" : ""};
  const cs = getComputedStyle(el);
  const dlg = el.closest("dialog[open]");
  return {Tag: el.tagName.toLowerCase(), ID: el.id || "", Name: el.getAttribute("name") || "",
    TestID: el.getAttribute("data-testid") || "", Role: el.getAttribute("role") || "",
    Text: (el.innerText || el.value || "").trim().slice(0, 40), Type: el.getAttribute("type") || "",
    Outline: cs.outlineStyle === "none" ? "none" : cs.outlineColor + " " + cs.outlineStyle + " " + cs.outlineWidth,
    BoxShadow: cs.boxShadow, FocusVisible: el.matches(":focus-visible"), HasFocus: el.matches(":focus"), DocFocus: document.hasFocus(), InDialog: dlg ? (dlg.id || "dialog") : ""};
})()`

// Focused describes the focused element.
func (p *Page) Focused() Focus {
	p.t.Helper()
	return Eval[Focus](p, focusScript)
}

// MustSeeFocus fails the test unless the focused element's focus is drawn.
func (p *Page) MustSeeFocus(step string) Focus {
	p.t.Helper()
	f := p.Focused()
	if !f.Visible() {
		p.t.Fatalf("%s: focus on %s is not visible (outline %q, box-shadow %q, :focus-visible %v, :focus %v, document has focus %v)",
			step, f, f.Outline, f.BoxShadow, f.FocusVisible, f.HasFocus, f.DocFocus)
	}
	return f
}

// TabTo presses Tab (Shift+Tab when back) until the focused element
// matches the CSS selector sel (none when it already does), at most limit
// times, checking at each stop that the focus is visible (passing the end
// of the page, where focus goes to the browser's controls, is no stop); it
// fails the test when sel is not reached.
func (p *Page) TabTo(sel string, back bool, limit int) Focus {
	p.t.Helper()
	js, _ := json.Marshal(sel)
	at := func() bool {
		return Eval[bool](p, `(() => { const el = document.activeElement; return !!el && el.matches(`+string(js)+`); })()`)
	}
	if at() {
		return p.MustSeeFocus("at " + sel)
	}
	var path []string
	for range limit {
		p.Press(KeyTab, back)
		f := p.Focused()
		path = append(path, f.String())
		if f.Tag == "body" {
			continue // past the page's last (or first) element: the browser's own controls, then round again
		}
		p.MustSeeFocus("tab to " + sel)
		if at() {
			return f
		}
	}
	p.t.Fatalf("tab to %s: not reached in %d presses; focus went through:\n  %s", sel, limit, strings.Join(path, "\n  "))
	return Focus{}
}

// WaitFocus waits until the focused element matches the CSS selector sel
// (after a key that moves focus by script: a dialog opening or closing).
func (p *Page) WaitFocus(sel string) Focus {
	p.t.Helper()
	js, _ := json.Marshal(sel)
	deadline := time.Now().Add(ActionTimeout)
	for {
		if Eval[bool](p, `(() => { const el = document.activeElement; return !!el && el.matches(`+string(js)+`); })()`) {
			return p.Focused()
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("focus did not reach %s; it is on %s", sel, p.Focused())
		}
		p.do("wait a frame", chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => r(true)))`, chromedp.EvalAwaitPromise))
	}
}

// FocusTrapped presses Tab and then Shift+Tab n times each inside the open
// dialog with id dialogID, failing the test when focus leaves it (a modal
// dialog keeps focus inside until it closes).
func (p *Page) FocusTrapped(dialogID string, n int) {
	p.t.Helper()
	for _, back := range []bool{false, true} {
		for i := range n {
			p.Press(KeyTab, back)
			f := p.Focused()
			if f.InDialog != dialogID && f.Tag != "body" {
				p.t.Fatalf("focus left the dialog %s after %d Tab presses (back %v): on %s", dialogID, i+1, back, f)
			}
		}
	}
}

// WaitLoaded waits until a page whose path matches the regular expression
// pathRE has loaded (after a key that submits a form or follows a link):
// evaluations that meet the page being replaced are tried again.
func (p *Page) WaitLoaded(pathRE string) {
	p.t.Helper()
	re, _ := json.Marshal(pathRE)
	expr := `new RegExp(` + string(re) + `).test(location.pathname) && document.readyState === "complete"`
	deadline := time.Now().Add(ActionTimeout)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(p.ctx, time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return
		}
		last = err
		ctx, cancel = context.WithTimeout(p.ctx, time.Second)
		_, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => setTimeout(() => r(true), 25))`, chromedp.EvalAwaitPromise))
		cancel()
	}
	p.t.Fatalf("no page at %s loaded (now %s): %v", pathRE, p.URL(), last)
}
