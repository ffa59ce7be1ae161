package models

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"golang.org/x/text/unicode/norm"
)

// One normal form for text (issue 29): whatever form a writer sends (a
// browser on macOS, a file name, an import, the API), Kalends stores text
// in Unicode NFC, so the same words are the same bytes. A title typed
// decomposed (é as e + U+0301, 한 as ᄒ + ᅡ + ᆫ) gives the slug of the
// composed title, a by-slug request sent decomposed finds the record, and
// a search finds it. Where it is done:
//
//   - every input is put in NFC where it is checked (EventInput.check,
//     the venue and organizer checks, TermInput.check, the media
//     operations), before anything compares or derives from it (slugs,
//     duplicates, name keys);
//   - Slugify, NameKey, CleanTermName, BySlug, the term filter's slug and
//     resolvePost compose what they are given, whoever calls them;
//   - sanitizeHTML composes safely (nfcHTML);
//   - the record types compose their text fields whenever bun writes them
//     (BeforeAppendModel below), and the raw writers (translations, the
//     restore of a revision) go through textTables: no write escapes;
//   - rows written before are composed once by the migration
//     20261129000100_text_nfc (NormalizeText), which a site load also runs.

// NFC returns s in Unicode Normalization Form C: s itself, without
// copying, when it already is (almost always). Bytes that are not UTF-8
// are left as they are.
func NFC(s string) string { return norm.NFC.String(s) }

// nfcPtr is NFC for an optional input field (nil stays nil; the caller's
// string is never changed in place).
func nfcPtr(p *string) *string {
	if p == nil || norm.NFC.IsNormalString(*p) {
		return p
	}
	s := norm.NFC.String(*p)
	return &s
}

// nfcFields puts each of the optional input fields in NFC.
func nfcFields(fields ...**string) {
	for _, f := range fields {
		*f = nfcPtr(*f)
	}
}

// nfcHTML is NFC for HTML that sanitizeHTML has made safe, keeping it so.
// Composition may join a character with the one before it, and three
// characters of markup can be joined: '<', '=' and '>' with U+0338 (> +
// U+0338 is ≯), and with any combining marks around it. A '>' that closes
// a tag and is followed by U+0338 (which a sanitizer keeps as text) would
// become ≯, the tag would no longer end there, and the text after it
// would be read as the tag's attributes: <b≯ onmouseover=… would turn
// into an element with an event handler. So the combining characters
// right after one of those three are written as character references
// (&#x338;, which shows the same) before composing; nothing else of
// markup can change (no canonical decomposition holds an ASCII character
// other than first, and NFC turns no character into a character of
// markup: angle brackets, quotes, the ampersand).
func nfcHTML(s string) string {
	if norm.NFC.IsNormalString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		b.WriteByte(c)
		i++
		if c != '<' && c != '=' && c != '>' {
			continue
		}
		// Every character after it that could join it: the run of
		// characters that do not begin a new segment.
		for i < len(s) {
			p := norm.NFC.PropertiesString(s[i:])
			if p.Size() == 0 || p.BoundaryBefore() {
				break
			}
			r, _ := utf8.DecodeRuneInString(s[i:])
			fmt.Fprintf(&b, "&#x%X;", r)
			i += p.Size()
		}
	}
	return norm.NFC.String(b.String())
}

// textColumn is a text column that is stored in NFC; html marks the
// sanitized HTML ones (descriptions, excerpts), composed with nfcHTML.
type textColumn struct {
	name string
	html bool
}

// textTable names a table's text columns. key is its primary key (one id
// column, or an id and lang for translations); slug is set on the tables
// whose slugs are unique (per kind; terms per taxonomy).
type textTable struct {
	table string
	key   string // the id column
	lang  bool   // the key is (key, lang)
	slug  bool
	cols  []textColumn
}

func texts(names ...string) []textColumn {
	out := make([]textColumn, len(names))
	for i, n := range names {
		html := strings.HasSuffix(n, ":html")
		out[i] = textColumn{name: strings.TrimSuffix(n, ":html"), html: html}
	}
	return out
}

// textTables lists every column of human-written text: names, titles,
// slugs, descriptions and excerpts, addresses, costs, image texts, and
// their translations. URLs, e-mail addresses, zones, statuses and codes
// are not prose and are left as they were sent.
var textTables = []textTable{
	{table: "events", key: "id", slug: true, cols: texts("title", "slug", "description:html", "excerpt:html", "cost", "currency_symbol")},
	{table: "venues", key: "id", slug: true, cols: texts("venue", "slug", "description:html", "address", "city", "country", "province", "state", "zip", "phone", "stateprovince")},
	{table: "organizers", key: "id", slug: true, cols: texts("organizer", "slug", "description:html", "phone")},
	{table: "terms", key: "id", slug: true, cols: texts("name", "name_key", "slug", "description:html")},
	{table: "media", key: "id", cols: texts("name", "title", "alt_text")},
	{table: "event_translations", key: "event_id", lang: true, cols: texts("title", "description:html", "excerpt:html")},
	{table: "venue_translations", key: "venue_id", lang: true, cols: texts("venue", "description:html", "address", "city")},
	{table: "organizer_translations", key: "organizer_id", lang: true, cols: texts("organizer", "description:html")},
	{table: "term_translations", key: "term_id", lang: true, cols: texts("name", "description:html")},
	{table: "media_translations", key: "media_id", lang: true, cols: texts("title", "alt_text")},
}

// textColumnOf returns the text column col of table, if it is one.
func textColumnOf(table, col string) (textColumn, bool) {
	for _, t := range textTables {
		if t.table != table {
			continue
		}
		for _, c := range t.cols {
			if c.name == col {
				return c, true
			}
		}
	}
	return textColumn{}, false
}

// nfcValue is v in NFC as column c stores it.
func (c textColumn) nfcValue(v string) string {
	if c.html {
		return nfcHTML(v)
	}
	return norm.NFC.String(v)
}

// nfcRow composes the string values of the text columns of a row of table
// (the raw writers: a revision's restore).
func nfcRow(table string, cols []string, vals []any) {
	for i, col := range cols {
		s, ok := vals[i].(string)
		if !ok {
			continue
		}
		if c, ok := textColumnOf(table, col); ok {
			vals[i] = c.nfcValue(s)
		}
	}
}

// writing reports whether q writes the model (the hooks below compose on
// INSERT and UPDATE only: a SELECT into a record need not).
func writing(q bun.Query) bool {
	switch q.(type) {
	case *bun.InsertQuery, *bun.UpdateQuery:
		return true
	}
	return false
}

func nfcText(fields ...*string) {
	for _, f := range fields {
		if !norm.NFC.IsNormalString(*f) {
			*f = norm.NFC.String(*f)
		}
	}
}

func nfcHTMLText(fields ...*string) {
	for _, f := range fields {
		*f = nfcHTML(*f)
	}
}

// BeforeAppendModel composes an event's text whenever it is written.
func (e *Event) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if writing(q) {
		nfcText(&e.Title, &e.Slug, &e.Cost, &e.CurrencySymbol)
		nfcHTMLText(&e.Description, &e.Excerpt)
	}
	return nil
}

// BeforeAppendModel composes a venue's text whenever it is written.
func (v *Venue) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if writing(q) {
		nfcText(&v.Venue, &v.Slug, &v.Address, &v.City, &v.Country, &v.Province, &v.State, &v.Zip, &v.Phone, &v.StateProvince)
		nfcHTMLText(&v.Description)
	}
	return nil
}

// BeforeAppendModel composes an organizer's text whenever it is written.
func (o *Organizer) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if writing(q) {
		nfcText(&o.Organizer, &o.Slug, &o.Phone)
		nfcHTMLText(&o.Description)
	}
	return nil
}

// BeforeAppendModel composes a term's text whenever it is written.
func (t *Term) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if writing(q) {
		nfcText(&t.Name, &t.NameKey, &t.Slug)
		nfcHTMLText(&t.Description)
	}
	return nil
}

// BeforeAppendModel composes an image's texts whenever they are written.
func (m *Media) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if writing(q) {
		nfcText(&m.Name, &m.Title, &m.AltText)
	}
	return nil
}
