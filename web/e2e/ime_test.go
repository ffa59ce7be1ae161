package e2e

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
)

// Chinese, Japanese and Korean input in the rich-text editor (issue 32 item
// 2), driven as Chromium's input-method bridge drives a page: every key the
// input method takes arrives as a keydown with key code 229, the text being
// composed through Input.imeSetComposition and the chosen text through
// Input.insertText.

// imeStep is one key of an input method: the key pressed (sent with key code
// 229; "" for none), then the composition it leaves ("" for none), then the
// text it commits ("" for none).
type imeStep struct{ key, compose, commit string }

type imeCase struct {
	name  string
	steps []imeStep
	want  string // the description the API gives back
	enter bool   // an Enter confirms a composition (it must not split or submit)
}

// keys is the steps of typing the keys typed (one letter each) into an
// input method that shows shown after each of them.
func keys(typed string, shown ...string) []imeStep {
	out := make([]imeStep, 0, len(shown))
	for i, s := range shown {
		k := "Process"
		if i < len(typed) {
			k = typed[i : i+1]
		}
		out = append(out, imeStep{key: k, compose: s})
	}
	return out
}

func concat(parts ...[]imeStep) []imeStep {
	var out []imeStep
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var imeCases = []imeCase{
	{
		// Romaji to kana, Space to convert to kanji, Enter to confirm.
		name: "Japanese",
		steps: concat(
			keys("nihongo", "ｎ", "に", "にｈ", "にほ", "にほｎ", "にほん", "にほんｇ", "にほんご"),
			[]imeStep{{key: " ", compose: "日本語"}, {key: "Enter", commit: "日本語"}},
			keys("wo", "ｗ", "を"),
			[]imeStep{{key: "Enter", commit: "を"}},
			keys("nyuuryoku", "ｎ", "に", "にゅ", "にゅう", "にゅうｒ", "にゅうりょ", "にゅうりょｋ", "にゅうりょく"),
			[]imeStep{{key: " ", compose: "入力"}, {key: "Enter", commit: "入力"}},
		),
		want:  "<p>日本語を入力</p>",
		enter: true,
	},
	{
		// Pinyin, Space to take the first candidate, a digit for another.
		name: "Chinese",
		steps: concat(
			keys("beijing", "b", "be", "bei", "bei'j", "bei'ji", "bei'jin", "bei'jing"),
			[]imeStep{{key: " ", commit: "北京"}},
			keys("huanying", "h", "hu", "hua", "huan", "huan'y", "huan'yi", "huan'yin", "huan'ying"),
			[]imeStep{{key: " ", commit: "欢迎"}},
			keys("ni", "n", "ni"),
			[]imeStep{{key: "1", commit: "你"}},
		),
		want: "<p>北京欢迎你</p>",
	},
	{
		// Hangul built jamo by jamo (two-set layout): a syllable is
		// committed when the next jamo cannot join it, and a final
		// consonant moves to the next syllable when a vowel follows.
		name: "Korean",
		steps: concat(
			keys("dks", "ㅇ", "아", "안"),
			[]imeStep{{key: "s", commit: "안", compose: "ㄴ"}},
			keys("ud", "녀", "녕"),
			[]imeStep{{key: "g", commit: "녕", compose: "ㅎ"}},
			keys("kt", "하", "핫"),
			[]imeStep{{key: "p", commit: "하", compose: "세"}},
			keys("d", "셍"),
			[]imeStep{{key: "y", commit: "세", compose: "요"}, {key: " ", commit: "요"}},
		),
		want: "<p>안녕하세요</p>",
	},
}

// typeIME drives the steps into the focused element.
func typeIME(p *browsertest.Page, steps []imeStep) {
	for _, s := range steps {
		if s.key != "" {
			code := "Key" + strings.ToUpper(s.key)
			switch s.key {
			case " ":
				code = "Space"
			case "Enter":
				code = "Enter"
			case "Process":
				code = ""
			case "1":
				code = "Digit1"
			}
			p.IMEKey(s.key, code)
		}
		if s.commit != "" {
			p.Commit(s.commit)
		}
		if s.compose != "" {
			p.Compose(s.compose)
		}
	}
}

// imeRun types c into the description of a new event's form, saves it and
// returns what went wrong: events without isComposing, an Enter that split
// the paragraph or sent the form, a description read back through the API
// other than c.want. composition false turns the editor's input-method
// handling off first (see assets/js/editor.js).
func imeRun(t *testing.T, srv *browsertest.Server, ed browsertest.Account, p *browsertest.Page, c imeCase, composition bool) []string {
	t.Helper()
	id := strconv.FormatInt(srv.CreateEvent(t, ed, map[string]any{"title": "IME " + c.name}), 10)
	p.Visit("/admin/events/" + id + "/edit")
	p.WaitVisible(`.rich [data-rich-content]`)
	if !composition {
		browsertest.Eval[bool](p, `(() => { const ta = document.getElementById("description");
			KalendsEditor.detach(ta); KalendsEditor.attach(ta, {composition: false}); return true; })()`)
	}
	p.Click(descBox)
	p.RecordInputEvents()
	typeIME(p, c.steps)

	var problems []string
	var compStart, compEnd, composingInput, composingKeys, enterComposing int
	submitted := false
	for _, e := range p.InputEvents() {
		switch {
		case e.Type == "compositionstart":
			compStart++
		case e.Type == "compositionend":
			compEnd++
		case e.Type == "input" && e.InputType == "insertCompositionText" && e.IsComposing:
			composingInput++
		case e.Type == "keydown" && e.IsComposing && e.KeyCode == 229:
			composingKeys++
			if e.Key == "Enter" {
				enterComposing++
			}
		case e.Type == "submit":
			submitted = true
		}
	}
	if compStart == 0 || compEnd == 0 || composingInput == 0 || composingKeys == 0 {
		problems = append(problems, fmt.Sprintf("the page saw %d compositionstart, %d compositionend, %d composing input and %d composing keydown events",
			compStart, compEnd, composingInput, composingKeys))
	}
	if c.enter && enterComposing == 0 {
		problems = append(problems, "no Enter keydown with isComposing=true")
	}
	if submitted || p.Path() != "/admin/events/"+id+"/edit" {
		problems = append(problems, "the form was sent while composing")
		return problems
	}
	if n := p.Count(descBox + ` > *`); n != 1 {
		problems = append(problems, fmt.Sprintf("the editor holds %d blocks, want 1: %s", n, browsertest.Eval[string](p, `document.querySelector(".rich [data-rich-content]").innerHTML`)))
	}
	if st := p.Submit(eventForm); st != http.StatusOK {
		return append(problems, fmt.Sprintf("save: status %d", st))
	}
	if got := apiText(t, srv, ed, id)[0]; got != c.want {
		problems = append(problems, fmt.Sprintf("the API gives the description %q, want %q", got, c.want))
	}
	return problems
}

// Each language typed through its input method is saved exactly as
// committed, with no character lost or doubled, and the page really saw
// composition (isComposing=true).
func TestIMEInTheEditor(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	for _, c := range imeCases {
		t.Run(c.name, func(t *testing.T) {
			for _, pr := range imeRun(t, srv, ed, p, c, true) {
				t.Error(pr)
			}
		})
	}
}

// The IME tests can fail: with ProseMirror's composition handling turned off
// each of them finds a fault.
func TestIMETestsCatchAnEditorWithoutCompositionHandling(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	p := srv.Page(t)
	p.SignIn(ed)
	for _, c := range imeCases {
		t.Run(c.name, func(t *testing.T) {
			problems := imeRun(t, srv, ed, p, c, false)
			if len(problems) == 0 {
				t.Errorf("without composition handling the %s test finds nothing wrong", c.name)
			}
			t.Logf("without composition handling: %s", strings.Join(problems, "; "))
		})
	}
	p.TakeProblems()
}

// The tags field's rule (assets/js/admin.js): Enter that confirms a
// composition chooses the characters and adds no tag; the next Enter adds
// the tag, and neither sends the form.
func TestIMEInTheTagsField(t *testing.T) {
	srv := browsertest.StartServer(t)
	ed := srv.User(t, models.RoleEditor)
	id := strconv.FormatInt(srv.CreateEvent(t, ed, map[string]any{"title": "IME tags"}), 10)
	p := srv.Page(t)
	p.SignIn(ed)
	p.Visit("/admin/events/" + id + "/edit")
	input := `[data-tag-input]`
	list := browsertest.Eval[string](p, `document.querySelector("[data-tag-input]").dataset.tagInput`)
	ticked := func() []string {
		return browsertest.Eval[[]string](p, `Array.from(document.querySelectorAll("#`+list+` input[type=checkbox]:checked")).map(b => b.value)`)
	}
	p.Click(input)
	p.RecordInputEvents()
	typeIME(p, concat(keys("jazu", "ｊ", "じゃ", "じゃｚ", "じゃず"), []imeStep{{key: " ", compose: "ジャズ"}, {key: "Enter"}}))
	if got := ticked(); len(got) != 0 {
		t.Errorf("Enter while composing ticked %v", got)
	}
	p.Commit("ジャズ")
	if got := browsertest.Eval[string](p, `document.querySelector("[data-tag-input]").value`); got != "ジャズ" {
		t.Errorf("the tags field holds %q after the composition, want ジャズ", got)
	}
	enterComposing := 0
	for _, e := range p.InputEvents() {
		if e.Type == "keydown" && e.Key == "Enter" && e.IsComposing {
			enterComposing++
		}
	}
	if enterComposing != 1 {
		t.Errorf("%d Enter keydowns with isComposing=true, want 1", enterComposing)
	}
	p.Key("Enter", "Enter", 13, "\r")
	if got := ticked(); len(got) != 1 || got[0] != "ジャズ" {
		t.Errorf("Enter after the composition ticked %v, want [ジャズ]", got)
	}
	if p.Path() != "/admin/events/"+id+"/edit" {
		t.Fatalf("Enter in the tags field sent the form (now at %s)", p.Path())
	}
	if st := p.Submit(eventForm); st != http.StatusOK {
		t.Fatalf("save: status %d", st)
	}
	var names []string
	tags, _ := apiEvent(t, srv, ed, id, "en")["tags"].([]any)
	for _, tg := range tags {
		if m, ok := tg.(map[string]any); ok {
			names = append(names, fmt.Sprint(m["name"]))
		}
	}
	if len(names) != 1 || names[0] != "ジャズ" {
		t.Errorf("the API gives the tags %v, want [ジャズ]", names)
	}
}
