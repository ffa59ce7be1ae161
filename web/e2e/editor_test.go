package e2e

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

// The rich-text editor of issue 32 (assets/js/editor.js).

const (
	descBox = `.rich:has(+ #description) [data-rich-content]`
)

// editorMode is the mode the editor of the textarea #id is in: "visual",
// "source" or "" (no editor).
func editorMode(p *browsertest.Page, id string) string {
	return browsertest.Eval[string](p, `window.KalendsEditor ? KalendsEditor.mode(document.getElementById(`+strconv.Quote(id)+`)) : ""`)
}

// apiText is the description and excerpt of an event as the API gives them.
func apiText(t *testing.T, srv *browsertest.Server, a browsertest.Account, id string) [2]string {
	t.Helper()
	e := apiEvent(t, srv, a, id, "en")
	d, _ := e["description"].(string)
	x, _ := e["excerpt"].(string)
	return [2]string{d, x}
}

// Opening and saving an event whose description the editor cannot show as
// it is (a table, code, plain text with line breaks, HTML it would drop)
// opens that description as HTML source, and the save changes nothing; a
// description it can show opens in the visual editor, and the save changes
// nothing either. The API's output before and after is compared.
func TestEditorOpensAndSavesWithoutLoss(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	fixtures := []struct {
		name, description, excerpt, mode string
	}{
		{"rich", `<h2>プログラム</h2><p>Jazz on the <strong>pier</strong>, <em>café</em> and 북쪽 <a href="https://example.com/tickets" title="Tickets">票务</a>.</p>` +
			"\n<ul><li>第一部 — 19:00</li><li>第二部</li></ul><ol start=\"3\"><li><p>Ça <strong>commence</strong></p></li></ol><blockquote><p>「音楽は港から」</p></blockquote><p>Line<br>break <img src=\"/media/hall.jpg\" alt=\"ホール\"></p>",
			"Un concert à 港 — 한국어 요약", "visual"},
		{"table", `<p>料金表</p><table><thead><tr><th>席</th><th>料金</th></tr></thead><tbody><tr><td>S</td><td>¥5,000</td></tr></tbody></table>`,
			"<p>Short</p>", "source"},
		{"code", `<p>Run <code>kalends serve</code> then:</p><pre><code>curl /cal/events/v1/events</code></pre>`, "", "source"},
		{"plain", "第一行：港口爵士之夜\n第二行，café\n\nA third paragraph, 세 번째 문단.", "one line\nand another", "source"},
		{"unusual", `<div><p dir="rtl">مرحبا</p></div><p><b>bold</b> and <i>italic</i> <a href="https://example.com/" target="_blank">x</a></p><p><span lang="ja">日本語</span> <abbr title="Kalends">K</abbr></p>`,
			`<p>a <sub>2</sub> <sup>3</sup></p>`, "source"},
	}
	ids := make([]string, len(fixtures))
	before := make([][2]string, len(fixtures))
	for i, f := range fixtures {
		ids[i] = strconv.FormatInt(srv.CreateEvent(t, ed, map[string]any{"title": "Fixture " + f.name,
			"description": f.description, "excerpt": f.excerpt}), 10)
		before[i] = apiText(t, srv, ed, ids[i])
	}
	p := srv.Page(t)
	p.SignIn(ed)
	for i, f := range fixtures {
		p.Visit("/admin/events/" + ids[i] + "/edit")
		p.WaitVisible(`.rich`)
		if got := editorMode(p, "description"); got != f.mode {
			t.Errorf("%s: the description opens in %q mode, want %q", f.name, got, f.mode)
		}
		if f.mode == "source" {
			if p.Count(`#description + [data-rich-note]:not([hidden])`) != 1 {
				t.Errorf("%s: no note beside the description shown as HTML source", f.name)
			}
		} else if p.Count(descBox) != 1 {
			t.Errorf("%s: no visual editor for the description", f.name)
		}
		if st := p.Submit(eventForm); st != http.StatusOK {
			t.Fatalf("%s: save: status %d\n%s", f.name, st, p.Text("main"))
		}
		if after := apiText(t, srv, ed, ids[i]); after != before[i] {
			t.Errorf("%s: opening and saving changed the API's output:\nbefore %q\nafter  %q", f.name, before[i], after)
		}
	}

	// The rule itself, on more shapes: true only where the editor's HTML
	// looks the same.
	for html, want := range map[string]bool{
		"":                                       true,
		"Just one line, 一行だけ":                    true,
		"<p>a  b &amp; c&nbsp;d</p>\r\n<p>e</p>": true,
		"<h1>Title</h1><ul><li><p>a</p><p>b</p></li></ul><hr>": true,
		`<p><a href="/x">x</a> <img src="/y.png" alt="y"></p>`: true,
		"two\nlines":                               false,
		"<p>a</p><!-- note -->":                    false,
		`<p><img src="/y.png" width="10"></p>`:     false,
		`<p><a href="/x" rel="nofollow">x</a></p>`: false,
		"<blockquote>bare text</blockquote>":       false,
		"<p>a<span>b</span></p>":                   false,
		"<ul><li>a<ul><li>b</li></ul></li></ul>":   false,
		"<dl><dt>a</dt><dd>b</dd></dl>":            false,
		"<p><code>x</code></p>":                    false,
		`<h2 id="a">x</h2>`:                        false,
		"<p><u>u</u> <s>s</s></p>":                 false,
		"<table><tr><td>x</td></tr></table>":       false,
	} {
		if got := browsertest.Eval[bool](p, `KalendsEditor.representable(`+strconv.Quote(html)+`)`); got != want {
			t.Errorf("representable(%q) = %v, want %v", html, got, want)
		}
	}

	// The rich fixture's picture is not in the library: its 404 is expected.
	for _, pr := range p.TakeProblems() {
		if !strings.Contains(pr, "/media/hall.jpg") {
			t.Errorf("the browser reported: %s", pr)
		}
	}

	// Switching a source description to the visual editor and back, and
	// saving, changes nothing either: only an edit writes the field.
	p.Visit("/admin/events/" + ids[1] + "/edit")
	p.Click(`.rich:has(+ #description) [data-rich-cmd="source"]`)
	if got := editorMode(p, "description"); got != "visual" {
		t.Fatalf("after the switch the description is in %q mode", got)
	}
	p.Click(`.rich:has(+ #description) [data-rich-cmd="source"]`)
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("save after switching: status %d", st)
	}
	if after := apiText(t, srv, ed, ids[1]); after != before[1] {
		t.Errorf("switching modes and saving changed the API's output:\nbefore %q\nafter  %q", before[1], after)
	}
}

// What an editor writes with the toolbar and the keyboard is saved as the
// HTML the editor shows, and the API gives the same output for it as for an
// event created through the API with that HTML.
func TestEditorSavesWhatTheAPIWouldStore(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/events/new")
	p.WaitVisible(`.rich [data-rich-content]`)
	p.Fill(eventForm, "title", "Typed in the editor")
	p.Fill(eventForm, "start_date", "2030-06-01T19:00")
	p.Fill(eventForm, "end_date", "2030-06-01T22:00")

	bar := `.rich:has(+ #description) `
	p.Click(descBox)
	p.Click(bar + `[data-rich-cmd="heading"]`)
	// In a heading the heading button is pressed (the editor may read the
	// click's selection after the command).
	browsertest.WaitUntil(p, `document.querySelector('.rich:has(+ #description) [data-rich-cmd="heading"]').getAttribute("aria-pressed") === "true"`)
	p.Commit("港のジャズ")
	p.Key("Enter", "Enter", 13, "\r")
	p.Commit("Three bands, ")
	p.Click(bar + `[data-rich-cmd="bold"]`)
	p.Commit("café")
	p.Click(bar + `[data-rich-cmd="bold"]`)
	p.Commit(" and 북쪽.")
	p.Key("Enter", "Enter", 13, "\r")
	p.Click(bar + `[data-rich-cmd="bulletList"]`)
	p.Commit("第一部")
	p.Key("Enter", "Enter", 13, "\r")
	p.Commit("第二部")
	p.Key("Enter", "Enter", 13, "\r")
	p.Key("Enter", "Enter", 13, "\r")
	p.Click(bar + `[data-rich-cmd="quote"]`)
	p.Commit("「音楽は港から」")
	p.Click(bar + `[data-rich-cmd="undo"]`)
	p.Click(bar + `[data-rich-cmd="redo"]`)

	// The toolbar is one tab stop, and the arrow keys and End move in it.
	if n := p.Count(bar + `button[tabindex="0"]`); n != 1 {
		t.Errorf("the toolbar has %d tab stops, want 1", n)
	}
	browsertest.Eval[bool](p, `(document.querySelector('`+bar+`button[tabindex="0"]').focus(), true)`)
	p.Key("ArrowRight", "ArrowRight", 39, "")
	p.Key("End", "End", 35, "")
	if got := browsertest.Eval[string](p, `document.activeElement.dataset.richCmd || ""`); got != "source" {
		t.Errorf("End in the toolbar moved to %q, want the source button", got)
	}

	// Pasted from a word processor: the structure stays, the styles,
	// classes and Office's own markup go.
	word := `<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><style>p.MsoNormal{margin:0}</style></head><body>
<!--StartFragment--><p class=MsoNormal style='margin-bottom:0;font-family:"MS Mincho"'><b><span style='font-size:14.0pt;color:#C00000'>公演のご案内</span></b><o:p></o:p></p>
<p class=MsoListParagraph style='mso-list:l0 level1 lfo1'>Entrée <span style="color:red" class="red">libre</span>, <span style="font-weight:700">무료</span></p>
<ul style="margin-top:0"><li class="x" style="color:blue">第一部</li><li><font color="red">第二部</font></li></ul><!--EndFragment--></body></html>`
	pasted := browsertest.Eval[string](p, `(() => {
		const el = document.querySelector(".rich:has(+ #excerpt) [data-rich-content]");
		el.focus();
		const dt = new DataTransfer();
		dt.setData("text/html", `+strconv.Quote(word)+`);
		dt.setData("text/plain", "公演のご案内");
		el.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
		return document.getElementById("excerpt").value;
	})()`)
	if wantPaste := `<p><strong>公演のご案内</strong></p><p>Entrée libre, <strong>무료</strong></p><ul><li>第一部</li><li>第二部</li></ul>`; pasted != wantPaste {
		t.Errorf("pasted from a word processor:\n%s\nwant\n%s", pasted, wantPaste)
	}

	want := `<h2>港のジャズ</h2><p>Three bands, <strong>café</strong> and 북쪽.</p><ul><li>第一部</li><li>第二部</li></ul><blockquote><p>「音楽は港から」</p></blockquote>`
	sent := browsertest.Eval[string](p, `document.getElementById("description").value`)
	if sent != want {
		t.Errorf("the editor wrote\n%s\nwant\n%s", sent, want)
	}
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("save: status %d\n%s", st, p.Text("main"))
	}
	id := eventIDOf(t, p.Path())
	viaAPI := strconv.FormatInt(srv.CreateEvent(t, ed, map[string]any{"title": "Sent through the API", "description": sent, "excerpt": pasted}), 10)
	got, other := apiEvent(t, srv, ed, id, "en"), apiEvent(t, srv, ed, viaAPI, "en")
	if got["description"] != other["description"] || got["excerpt"] != other["excerpt"] {
		t.Errorf("saved through the editor:\n%v\nsent through the API:\n%v", got["description"], other["description"])
	}
	if d, _ := got["description"].(string); !strings.Contains(d, "<strong>café</strong>") || !strings.Contains(d, "<h2>") {
		t.Errorf("the API's description lost the markup: %s", d)
	}
	// Opening it again shows it in the visual editor.
	p.Visit("/admin/events/" + id + "/edit")
	if m := editorMode(p, "description"); m != "visual" {
		b, _ := json.Marshal(got["description"])
		t.Errorf("the editor's own HTML opens in %q mode: %s", m, b)
	}

	// The other rich fields: venues, organizers, categories, tags and
	// translations.
	for _, path := range []string{"/admin/venues/new", "/admin/organizers/new", "/admin/categories/new", "/admin/tags/new",
		"/admin/events/" + id + "/translations/ja"} {
		p.Visit(path)
		p.WaitVisible(`.rich [data-rich-content]`)
		if n := p.Count(`textarea[data-rich][hidden]`); n == 0 {
			t.Errorf("%s: no rich-text field in the visual editor", path)
		}
	}

	// A link through the toolbar's address field, and a picture through
	// the hook a media picker uses (kalends:pick-image, then insertImage).
	p.Visit("/admin/venues/new")
	p.Click(descBox)
	p.Commit("チケット")
	browsertest.Eval[bool](p, `(() => { const r = document.createRange();
		r.selectNodeContents(document.querySelector(".rich:has(+ #description) [data-rich-content] p"));
		getSelection().removeAllRanges(); getSelection().addRange(r); return true; })()`)
	browsertest.WaitUntil(p, `getSelection().toString() === "チケット"`)
	p.Click(bar + `[data-rich-cmd="link"]`)
	p.Type(bar+`[data-rich-prompt] [data-rich-input="url"]`, "https://example.com/tickets")
	p.Key("Enter", "Enter", 13, "\r")
	if p.Path() != "/admin/venues/new" {
		t.Fatalf("Enter in the link's address sent the form (now at %s)", p.Path())
	}
	hook := browsertest.Eval[[]any](p, `(() => {
		const ta = document.getElementById("description");
		let asked = false;
		ta.addEventListener("kalends:pick-image", e => { asked = true; e.preventDefault(); }, {once: true});
		document.querySelector('.rich:has(+ #description) [data-rich-cmd="image"]').click();
		const promptOpen = !document.querySelector(".rich:has(+ #description) [data-rich-prompt]").hidden;
		const ok = KalendsEditor.insertImage(ta, {src: "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", alt: "ホール"});
		return [asked, promptOpen, ok, ta.value];
	})()`)
	wantHook := `<p><a href="https://example.com/tickets">チケット</a><img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" alt="ホール"></p>`
	if len(hook) != 4 || hook[0] != true || hook[1] != false || hook[2] != true || hook[3] != wantHook {
		t.Errorf("link and picker hook: [asked, prompt open, inserted, value] = %v, want [true false true %s]", hook, wantHook)
	}
}
