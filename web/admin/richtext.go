package admin

import (
	"encoding/json"

	"github.com/kalends/kalends/assets"
)

// The rich-text editor of descriptions and excerpts (issue 32). A field is
// a textarea with data-rich (its toolbar's labels, as JSON); with
// JavaScript, assets/js/editor.js puts a ProseMirror editor beside it and
// hides it, and the textarea stays the field the form sends. Without
// JavaScript it is the plain textarea it always was.

// richLabelIDs are the toolbar's messages, by the name editor.js reads.
var richLabelIDs = map[string]string{
	"toolbar": "admin.rich.toolbar", "heading": "admin.rich.heading", "subheading": "admin.rich.subheading",
	"bold": "admin.rich.bold", "italic": "admin.rich.italic", "bulletList": "admin.rich.bullet_list",
	"orderedList": "admin.rich.ordered_list", "quote": "admin.rich.quote", "link": "admin.rich.link",
	"image": "admin.rich.image", "undo": "admin.rich.undo", "redo": "admin.rich.redo", "source": "admin.rich.source",
	"sourceNote": "admin.rich.source_note", "url": "admin.rich.url", "alt": "admin.rich.alt",
	"apply": "admin.rich.apply", "cancel": "admin.rich.cancel",
}

// richLabels is the value of a rich field's data-rich attribute.
func richLabels(l layoutView) string {
	m := make(map[string]string, len(richLabelIDs))
	for k, id := range richLabelIDs {
		m[k] = l.T(id)
	}
	b, _ := json.Marshal(m) // a map of strings always encodes
	return string(b)
}

// withRichText adds the editor's files to a page that has rich fields.
func withRichText(l *layoutView) {
	l.ExtraCSS = append(l.ExtraCSS, assets.URL("vendor/prosemirror/prosemirror.css"), assets.URL("css/editor.css"))
	l.ExtraJS = append(l.ExtraJS, assets.URL("vendor/prosemirror/prosemirror.min.js"), assets.URL("js/editor.js"))
}
