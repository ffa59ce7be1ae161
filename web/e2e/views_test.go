package e2e

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

// viewsSeed makes, as ed, a busy day (seven events, so the month says
// "+3 more"), an event with a library image and a category in
// Japanese, and a featured one, all in the days ahead.
func viewsSeed(t *testing.T, srv *browsertest.Server, ed browsertest.Account) (busy string) {
	t.Helper()
	d := axeSeed(t, srv, ed) // the image, venue, category and series of the axe pages
	_ = d
	busy = time.Now().UTC().AddDate(0, 0, 4).Format(time.DateOnly)
	for i := range 7 {
		srv.CreateEvent(t, ed, map[string]any{"title": fmt.Sprintf("Marché %d — 朝市", i+1),
			"start_date": fmt.Sprintf("%s %02d:00:00", busy, 9+i), "end_date": fmt.Sprintf("%s %02d:30:00", busy, 9+i),
			"categories": []string{"Musique 音楽"}, "featured": i == 0})
	}
	return busy
}

// TestPublicViewsInTheBrowser walks the four views in English and
// Japanese as a visitor: events under day headings with times, chips and
// thumbnails; a filter chosen in the bar survives the trip through the
// URL and reaches the subscribe links; the month's "+N more" adds up to
// the day's count and leads to the day; the phone shows the month as a
// list. Chinese and Korean are rendered and walked.
func TestPublicViewsInTheBrowser(t *testing.T) {
	srv := browsertest.StartServer(t, "--media-store", "db")
	ed := srv.User(t, models.RoleEditor)
	busy := viewsSeed(t, srv, ed)
	p := srv.Page(t)
	for _, lang := range []string{"en", "ja"} {
		if st := p.Visit(inLang(lang, "/events/")); st != 200 {
			t.Fatalf("%s list: %d", lang, st)
		}
		if n := p.Count(".day-heading"); n < 2 {
			t.Errorf("%s list: %d day headings", lang, n)
		}
		if n := p.Count(`[data-testid="row-time"]`); n < 8 {
			t.Errorf("%s list: %d times", lang, n)
		}
		if p.Count(`[data-testid="chip"]`) == 0 || p.Count(`img[data-testid="thumb"][srcset][width][height]`) == 0 || p.Count(`[data-testid="featured"]`) == 0 {
			t.Errorf("%s list: no chips, no thumbnail with srcset and size, or no featured mark", lang)
		}
		want := map[string]string{"en": "9:00 AM – 9:30 AM", "ja": "9:00 – 9:30"}[lang]
		if !strings.Contains(strings.Join(p.Texts(`[data-testid="row-time"]`), "|"), want) {
			t.Errorf("%s list: no time %q", lang, want)
		}
		// A filter from the bar: in the URL, still chosen, in the feed.
		p.Fill(`[data-testid="filters"]`, "categories", p.Attr(`#f-categories option:nth-child(2)`, "value"))
		p.Fill(`[data-testid="filters"]`, "featured", "1")
		if st := p.Submit(`[data-testid="filters"]`); st != 200 {
			t.Fatalf("%s filtered: %d", lang, st)
		}
		u, _ := url.Parse(p.URL())
		if u.Query().Get("categories") == "" || u.Query().Get("featured") != "1" {
			t.Errorf("%s filtered: URL %s", lang, p.URL())
		}
		if p.Attr(`#f-categories option:checked`, "value") != u.Query().Get("categories") || !browsertest.Eval[bool](p, `document.querySelector('#f-featured').checked`) {
			t.Errorf("%s filtered: the bar lost its filters", lang)
		}
		if n := p.Count(`[data-testid="event-row"]`); n != 1 {
			t.Errorf("%s filtered: %d events, want the one featured", lang, n)
		}
		hrefs := browsertest.Eval[[]string](p, `Array.from(document.querySelectorAll('[data-testid="subscribe"] a'), a => a.href)`)
		if len(hrefs) != 5 {
			t.Fatalf("%s: %d subscribe links", lang, len(hrefs))
		}
		for _, h := range hrefs {
			dec, _ := url.QueryUnescape(h)
			dec, _ = url.QueryUnescape(dec)
			if !strings.Contains(dec, "events.ics?categories=") || !strings.Contains(dec, "featured=1") {
				t.Errorf("%s: subscribe link without the filters: %s", lang, h)
			}
		}
		// The month: four a day, then "+N more" to the day, N exact.
		p.Visit(inLang(lang, "/events/?view=month&month="+busy[:7]))
		cell := `td[data-date="` + busy + `"]`
		count, _ := strconv.Atoi(p.Attr(cell, "data-count"))
		more, _ := strconv.Atoi(p.Attr(cell+` [data-testid="more"]`, "data-more"))
		if shown := p.Count(cell + " li"); shown != 4 || count < 7 || shown+more != count {
			t.Errorf("%s month: %d shown + %d more, count %d", lang, shown, more, count)
		}
		label := p.Attr(cell+` [data-testid="more"]`, "aria-label")
		if !strings.Contains(label, strconv.Itoa(more)) {
			t.Errorf("%s month: +N more labelled %q", lang, label)
		}
		if st := p.ClickAndWait(cell + ` [data-testid="more"]`); st != 200 || p.Count(`[data-testid="event-row"]`) != count {
			t.Errorf("%s day from +N more: %d, %d events, want %d", lang, st, p.Count(`[data-testid="event-row"]`), count)
		}
		p.Visit(inLang(lang, "/events/?view=photo"))
		if p.Count(`.photo`) == 0 || p.Count(`.photo img[srcset]`) == 0 {
			t.Errorf("%s photo: no cards, or no image with its sizes", lang)
		}
		browsertest.WaitUntil(p, `Array.from(document.querySelectorAll('.photo img')).every(i => i.complete && i.naturalWidth > 0)`)
	}
	// The phone: the month is a list of the days with events.
	p.Viewport(390, 844)
	p.Visit("/ja/events/?view=month&month=" + busy[:7])
	if browsertest.Eval[string](p, `getComputedStyle(document.querySelector('table.month thead')).display`) != "none" ||
		browsertest.Eval[string](p, `getComputedStyle(document.querySelector('table.month td.none') || document.body).display`) == "table-cell" {
		t.Errorf("phone month: still a grid")
	}
	p.Viewport(1280, 900)
	// Chinese and Korean: every view renders and its links answer.
	for _, lang := range []string{"zh-hans", "ko"} {
		seen := map[string]bool{}
		// The month of the busy day, which is not this month in the last
		// days of one.
		for _, v := range []string{"", "?view=month&month=" + busy[:7], "?view=day&date=" + busy, "?view=photo", "?past=1"} {
			path := inLang(lang, "/events/"+v)
			if st := p.Visit(path); st != 200 || !strings.EqualFold(p.Lang(), map[string]string{"zh-hans": "zh-Hans", "ko": "ko"}[lang]) {
				t.Errorf("%s: %d, lang %s", path, st, p.Lang())
			}
			for _, h := range browsertest.Eval[[]string](p, `Array.from(document.querySelectorAll('main a[href^="/"]'), a => a.getAttribute('href'))`) {
				seen[h] = true
			}
		}
		for h := range seen {
			if st := p.Visit(h); st != 200 {
				t.Errorf("%s: %d", h, st)
			}
		}
		if len(seen) < 10 {
			t.Errorf("%s: only %d links walked", lang, len(seen))
		}
	}
}
