package admin

import (
	"errors"
	"slices"

	"github.com/a-h/templ"

	"github.com/kalends/kalends/models"
)

// fieldMsg is one validation message of a form: the field it is about (the
// input's name and id) and the message, localized.
type fieldMsg struct {
	Field, Text string
	// OnForm is false for a field the page has no input for (the message
	// only shows in the summary).
	OnForm bool
}

// formErrors are the validation messages of a page, in the order the
// models gave them: each shown next to its input and all of them in the
// summary at the top (SPEC §10).
type formErrors struct {
	Items []fieldMsg
}

// Any reports whether there is a message.
func (e formErrors) Any() bool { return len(e.Items) > 0 }

// For is the message shown next to field's input ("" for none).
func (e formErrors) For(field string) string {
	for _, m := range e.Items {
		if m.OnForm && m.Field == field {
			return m.Text
		}
	}
	return ""
}

// errID is the id of the element holding field's message.
func errID(field string) string { return field + "-error" }

// hintID is the id of the element holding field's hint.
func hintID(field string) string { return field + "-hint" }

// Attrs are the attributes of field's input: aria-invalid and
// aria-describedby (to its message and hint) when it has a message.
func (e formErrors) Attrs(field string, hint bool) templ.Attributes {
	a := templ.Attributes{}
	var desc string
	if hint {
		desc = hintID(field)
	}
	if e.For(field) != "" {
		a["aria-invalid"] = "true"
		if desc != "" {
			desc += " "
		}
		desc += errID(field)
	}
	if desc != "" {
		a["aria-describedby"] = desc
	}
	return a
}

// validationErrors turns err into the messages of a form whose inputs are
// fields, in lang: every form's one way from a models.ValidationError to
// its messages. A message for a field the form has no input for shows in
// the summary only. ok is false when err is not a validation error (it is
// then returned as it is, for the error handler).
func (h *handler) validationErrors(lang string, err error, fields ...string) (formErrors, bool) {
	var v *models.ValidationError
	if !errors.As(err, &v) {
		return formErrors{}, false
	}
	var out formErrors
	for _, f := range v.Fields {
		out.Items = append(out.Items, fieldMsg{Field: f.Field, Text: h.d.I18n.T(lang, f.Reason, f.Data),
			OnForm: f.Field != "" && slices.Contains(fields, f.Field)})
	}
	return out, true
}

// fieldError is one message for field, written in lang.
func (h *handler) fieldError(lang, field, id string, data map[string]any) formErrors {
	return formErrors{Items: []fieldMsg{{Field: field, Text: h.d.I18n.T(lang, id, data), OnForm: true}}}
}

// add appends a message about the whole form (summary only).
func (e *formErrors) add(text string) { e.Items = append(e.Items, fieldMsg{Text: text}) }

// hintText is the hint of message id helpID ("" for none).
func hintText(l layoutView, helpID string) string {
	if helpID == "" {
		return ""
	}
	return l.T(helpID)
}
