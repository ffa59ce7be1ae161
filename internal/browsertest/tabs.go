package browsertest

import (
	"strings"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// NewTabAfter runs act (a click or a key press that opens a page in a new
// tab: a link or a form with target=_blank) and returns that tab once its
// document has loaded. The tab is a Page of the same browser context
// (same cookies); it closes when the test ends.
func (p *Page) NewTabAfter(act func()) *Page {
	p.t.Helper()
	ch := chromedp.WaitNewTarget(p.ctx, func(info *target.Info) bool { return info.Type == "page" })
	act()
	var id target.ID
	select {
	case id = <-ch:
	case <-time.After(ActionTimeout):
		p.t.Fatalf("no new tab opened")
	}
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id))
	tab := &Page{t: p.t, ctx: ctx, Base: p.Base, docs: map[string]bool{}}
	p.t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		p.t.Fatalf("attach to the new tab: %v", budgetErr(err))
	}
	deadline := time.Now().Add(ActionTimeout)
	for {
		state := Eval[string](tab, `document.readyState + " " + location.href`)
		if strings.HasPrefix(state, "complete ") && !strings.HasSuffix(state, "about:blank") {
			return tab
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the new tab did not load: %s", state)
		}
		tab.do("wait a frame", chromedp.Evaluate[chromedp.Void](`new Promise(r => setTimeout(() => r(true), 20))`, chromedp.EvalAwaitPromise))
	}
}
