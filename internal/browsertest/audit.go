package browsertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/kalends/kalends/i18n"
)

// Locales holds the locale files (i18n/locales) for Audit: every form of
// every message in every language, the English texts and the prefixes of
// the message ids.
type Locales struct {
	msgs      map[string]map[string][]string // code -> id -> forms (plural forms are several)
	english   map[string][]string            // normalized English form -> ids
	templates []template                     // English forms with {{…}}, as patterns
	rawID     *regexp.Regexp                 // a message id as it would show unrendered
}

type template struct {
	id string
	re *regexp.Regexp
}

// NotTranslated are texts that are the same in every language on purpose:
// the product's name and the names of the languages, each in itself (the
// language switcher shows them so in every language).
var NotTranslated = []string{"Kalends", "简体中文", "English", "日本語", "한국어"}

// LoadLocales reads the locale files of every code in i18n.Codes from the
// module's i18n/locales folder.
func LoadLocales(t testing.TB) *Locales {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	l := &Locales{msgs: map[string]map[string][]string{}, english: map[string][]string{}}
	prefixes := map[string]bool{}
	for _, code := range i18n.Codes {
		file := filepath.Join(root, "i18n", "locales", i18n.Tag(code).String()+".json")
		b, err := os.ReadFile(file) //nolint:gosec // G304: a locale file of this module.
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		m := map[string][]string{}
		for id, v := range raw {
			var s string
			if json.Unmarshal(v, &s) == nil {
				m[id] = []string{s}
				continue
			}
			var plural map[string]string
			if err := json.Unmarshal(v, &plural); err != nil {
				t.Fatalf("%s: %s: neither a string nor plural forms", file, id)
			}
			for _, form := range plural {
				m[id] = append(m[id], form)
			}
			sort.Strings(m[id])
		}
		l.msgs[code] = m
	}
	for id, forms := range l.msgs[i18n.Source] {
		prefixes[regexp.QuoteMeta(strings.SplitN(id, ".", 2)[0])] = true
		for _, f := range forms {
			if strings.Contains(f, "{{") {
				// A template of placeholders and punctuation ("{{.A}}, {{.B}}")
				// renders to text of any language: it tells nothing.
				if !strings.ContainsFunc(placeholders.ReplaceAllString(f, ""), unicode.IsLetter) {
					continue
				}
				l.templates = append(l.templates, template{id: id, re: templatePattern(f)})
				continue
			}
			n := normalize(f)
			l.english[n] = append(l.english[n], id)
		}
	}
	sort.Slice(l.templates, func(i, j int) bool { return l.templates[i].id < l.templates[j].id })
	var ps []string
	for p := range prefixes {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	l.rawID = regexp.MustCompile(`^(?:` + strings.Join(ps, "|") + `)\.[a-z0-9_]+(?:\.[a-z0-9_-]+)*$`)
	return l
}

// placeholders are the {{…}} actions of a message.
var placeholders = regexp.MustCompile(`\{\{[^}]*\}\}`)

// templatePattern matches what a message with {{…}} actions renders to.
func templatePattern(form string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	rest := normalize(form)
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		b.WriteString(".+?")
		rest = rest[i+j+2:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("browsertest: no go.mod above the working directory")
		}
		dir = parent
	}
}

func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// chunk is a piece of text the page shows: a text node, the text of an
// element, an attribute a user reads (placeholder, title, aria-label, alt,
// a button's value) or the document title.
type chunk struct {
	Where string `json:"where"`
	Text  string `json:"text"`
}

// chunksJS lists the chunks of the document (hidden ones too: a closed
// dialog or menu is read once opened).
const chunksJS = `(() => {
  const out = [];
  // [data-third-party]: a vendored widget's own chrome (Swagger UI has no
  // translations); our texts around it are checked.
  const skip = "script,style,template,noscript,[data-third-party]";
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.dataset && el.dataset.testid ? "[data-testid=" + el.dataset.testid + "]" : "");
  const textOf = el => {
    let s = "";
    const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n; (n = w.nextNode()); ) { if (!n.parentElement.closest(skip)) s += n.nodeValue; }
    return s;
  };
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = w.nextNode()); ) {
    if (n.parentElement.closest(skip)) continue;
    out.push({where: name(n.parentElement), text: n.nodeValue});
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest(skip)) continue;
    if (el.children.length > 0) {
      const s = textOf(el);
      if (s.length <= 400) out.push({where: name(el), text: s});
    }
    for (const a of ["placeholder", "title", "aria-label", "alt", "aria-placeholder", "aria-roledescription"]) {
      if (el.hasAttribute(a)) out.push({where: name(el) + "@" + a, text: el.getAttribute(a)});
    }
    if (el.matches("input[type=submit], input[type=button], input[type=reset]")) out.push({where: name(el) + "@value", text: el.value});
    if (el.matches("option")) out.push({where: "option", text: el.label});
  }
  out.push({where: "title", text: document.title});
  for (const part of document.title.split(/ [·|—-] /)) out.push({where: "title", text: part});
  return out;
})()`

// Audit checks the current page as shown in lang (a code of i18n.Codes)
// and returns what is wrong, one line each:
//   - <html lang> is not lang's BCP 47 tag;
//   - a message id shows unrendered (i18n.T renders a missing message as its
//     id), or a message's template was not filled ("<no value>", "{{");
//   - a text is an English message whose translation in lang differs (or is
//     missing): an English text left over.
//
// NotTranslated texts and the texts in ignore (data the test made) are
// never reported.
func (p *Page) Audit(l *Locales, lang string, ignore ...string) []string {
	p.t.Helper()
	var out []string
	if got, want := p.Lang(), i18n.Tag(lang).String(); got != want {
		out = append(out, fmt.Sprintf("<html lang=%q>, want %q", got, want))
	}
	chunks := Eval[[]chunk](p, chunksJS)
	seen := map[string]bool{}
	for _, c := range chunks {
		text := normalize(c.Text)
		if text == "" || slices.Contains(NotTranslated, text) || slices.Contains(ignore, text) {
			continue
		}
		for _, problem := range l.check(lang, text) {
			line := fmt.Sprintf("%s: %s", c.Where, problem)
			if !seen[line] {
				seen[line] = true
				out = append(out, line)
			}
		}
	}
	return out
}

// check returns what is wrong with one text shown in lang.
func (l *Locales) check(lang, text string) []string {
	var out []string
	for _, word := range strings.Fields(text) {
		w := strings.Trim(word, `.,:;!?()[]{}"'“”«»「」『』（）：，。`)
		if l.rawID.MatchString(w) || (w != "" && l.msgs[i18n.Source][w] != nil) {
			out = append(out, fmt.Sprintf("message id %q shown unrendered", w))
		}
	}
	if strings.Contains(text, "<no value>") || strings.Contains(text, "{{") {
		out = append(out, fmt.Sprintf("template not filled in %q", text))
	}
	if lang == i18n.Source {
		return out
	}
	for _, id := range l.english[text] {
		if tr, ok := l.msgs[lang][id]; !ok {
			out = append(out, fmt.Sprintf("%q is the English of %s, which has no %s translation", text, id, lang))
		} else if !slices.Contains(tr, text) {
			out = append(out, fmt.Sprintf("%q is the English of %s; %s has %q", text, id, lang, strings.Join(tr, " / ")))
		}
	}
	for _, tm := range l.templates {
		if !tm.re.MatchString(text) {
			continue
		}
		tr := l.msgs[lang][tm.id]
		same := false
		for _, f := range tr {
			same = same || templatePattern(f).MatchString(text)
		}
		if !same {
			out = append(out, fmt.Sprintf("%q is the English of %s; %s has %q", text, tm.id, lang, strings.Join(tr, " / ")))
		}
	}
	return out
}

// Walk visits start in lang (chosen with the switcher: see VisitIn), then
// every page reachable from it through same-origin links under /admin/,
// one page of each shape (numbers in the path and query values do not make
// a new page; language switches and sign-out are not followed), at most
// limit pages. It audits each (see Audit) and returns the paths visited and
// the findings, which include a page that does not answer 200.
func (p *Page) Walk(l *Locales, lang, start string, limit int, ignore ...string) (visited, findings []string) {
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
		status := 0
		if len(visited) == 0 {
			status = p.VisitIn(lang, path)
		} else {
			status = p.Visit(path)
		}
		visited = append(visited, path)
		if status != 200 {
			findings = append(findings, fmt.Sprintf("%s: status %d", path, status))
		}
		for _, f := range p.Audit(l, lang, ignore...) {
			findings = append(findings, path+": "+f)
		}
		for _, href := range Eval[[]string](p, `Array.from(document.querySelectorAll("a[href]:not([download])"), a => a.href)`) {
			u, err := url.Parse(href)
			if err != nil || u.Host != base.Host || u.Scheme != base.Scheme {
				continue
			}
			if !strings.HasPrefix(u.Path, "/admin/") && u.Path != "/admin" || u.Path == "/admin/logout" || u.Query().Has("lang") {
				continue
			}
			u.Fragment = ""
			if k := shape(u); !shapes[k] {
				shapes[k] = true
				queue = append(queue, u.RequestURI())
			}
		}
	}
	if len(queue) > 0 {
		findings = append(findings, fmt.Sprintf("more than %d pages: not visited %v", limit, queue))
	}
	return visited, findings
}

var number = regexp.MustCompile(`/[0-9]+(/|$)`)

// shape is a URL with its numbers and query values dropped.
func shape(u *url.URL) string {
	keys := slices.Sorted(maps.Keys(u.Query()))
	return number.ReplaceAllString(u.Path, "/{id}$1") + "?" + strings.Join(keys, "&")
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
