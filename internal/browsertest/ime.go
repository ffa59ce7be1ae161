package browsertest

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Input methods (Chinese, Japanese and Korean), driven as Chromium's own
// IME bridge drives a page: Input.imeSetComposition for the text being
// composed, Input.insertText to commit it, and key events with key code 229
// (the code a browser gives keys that an input method takes) in between.

// Compose sets the text being composed at the focused element's caret, with
// the caret at its end (an empty text cancels the composition).
func (p *Page) Compose(text string) {
	p.t.Helper()
	n := int64(utf8.RuneCountInString(text))
	p.cdp("compose "+abbrev(text), func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.ImeSetComposition, input.ImeSetCompositionParams{Text: text, SelectionStart: n, SelectionEnd: n})
		return err
	})
}

// Commit ends the composition with text, as choosing a candidate does
// (Input.insertText during a composition commits it). Without a
// composition it inserts text as an emoji keyboard or a paste would.
func (p *Page) Commit(text string) {
	p.t.Helper()
	p.cdp("commit "+abbrev(text), func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
}

// IMEKey presses and releases key (a KeyboardEvent.key such as "Enter",
// " " or "k") as an input method sees it: key code 229 and no text of its
// own, so the page gets keydown and keyup (with isComposing set while a
// composition is open) and nothing is typed by the key itself.
func (p *Page) IMEKey(key, code string) {
	p.t.Helper()
	p.cdp("IME key "+key, func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Key: key, Code: code,
				WindowsVirtualKeyCode: 229, NativeVirtualKeyCode: 229}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Key presses and releases a key that is not an input method's: Enter
// ("Enter", "Enter", 13, "\r"), for instance.
func (p *Page) Key(key, code string, keyCode int64, text string) {
	p.t.Helper()
	p.cdp("key "+key, func(ctx context.Context, t *chromedp.Target) error {
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: key, Code: code, Text: text,
			UnmodifiedText: text, WindowsVirtualKeyCode: keyCode, NativeVirtualKeyCode: keyCode}
		if text == "" {
			down.Type = input.DispatchKeyEventTypeRawKeyDown
		}
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp,
			Key: key, Code: code, WindowsVirtualKeyCode: keyCode, NativeVirtualKeyCode: keyCode})
		return err
	})
}

func (p *Page) cdp(what string, f func(ctx context.Context, t *chromedp.Target) error) {
	p.t.Helper()
	p.do(what, chromedp.Func(f))
}

// InputEvent is one event that RecordInputEvents saw.
type InputEvent struct {
	Type        string `json:"type"`
	Target      string `json:"target"` // the id or tag of the element the event was dispatched at
	Data        string `json:"data"`
	InputType   string `json:"inputType"`
	Key         string `json:"key"`
	KeyCode     int    `json:"keyCode"`
	IsComposing bool   `json:"isComposing"`
}

// recorderJS is evaluated in the page by the tests only (it is no part of
// the product): it logs composition, input and key events, captured on
// the window, into window.__inputEvents.
const recorderJS = `(() => {
  window.__inputEvents = [];
  if (window.__inputRecorder) return true;
  window.__inputRecorder = true;
  const types = ["compositionstart", "compositionupdate", "compositionend", "beforeinput", "input", "keydown", "keyup", "submit"];
  for (const type of types) {
    window.addEventListener(type, e => {
      const t = e.target;
      window.__inputEvents.push({type: e.type, target: t && (t.id || (t.getAttribute && t.getAttribute("name")) || t.nodeName || ""),
        data: e.data == null ? "" : String(e.data), inputType: e.inputType || "", key: e.key || "", keyCode: e.keyCode || 0,
        isComposing: !!e.isComposing});
    }, true);
  }
  return true;
})()`

// RecordInputEvents starts (or restarts) the log of input events.
func (p *Page) RecordInputEvents() {
	p.t.Helper()
	Eval[bool](p, recorderJS)
}

// InputEvents returns the events logged since RecordInputEvents.
func (p *Page) InputEvents() []InputEvent {
	p.t.Helper()
	raw := Eval[json.RawMessage](p, `window.__inputEvents || []`)
	var evs []InputEvent
	if err := json.Unmarshal(raw, &evs); err != nil {
		p.t.Fatalf("input events: %v", err)
	}
	return evs
}
