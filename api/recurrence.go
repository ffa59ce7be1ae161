package api

import (
	"errors"
	"strings"
	"time"

	"github.com/kalends/kalends/internal/rrtext"
	"github.com/kalends/kalends/models"
)

// Recurring events on the wire (our extension, documented in /doc): the
// recurrence argument of event writes, scope on updates of occurrences,
// and recurrence on lists; events of a series carry series_id,
// recurrence_id, is_exception and their series' recurrence.

// recurrenceText turns a recurrence argument into the RFC 5545 lines the
// models read: the text itself, or an object {"rrule": …, "rdate": […],
// "exdate": […]} (each a string or a list of strings). null and "" are
// "" (no series). ok is false for any other shape.
func recurrenceText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case map[string]any:
		var lines []string
		for _, k := range []string{"rrule", "rdate", "exdate"} {
			items, ok := stringItems(x[k])
			if !ok {
				return "", false
			}
			for _, it := range items {
				lines = append(lines, strings.ToUpper(k)+":"+strings.TrimPrefix(strings.TrimPrefix(it, strings.ToUpper(k)+":"), k+":"))
			}
		}
		for k := range x {
			if k != "rrule" && k != "rdate" && k != "exdate" && k != "text" && k != "ical" {
				return "", false
			}
		}
		return strings.Join(lines, "\n"), true
	}
	return "", false
}

// stringItems reads a string or a list of strings (nil is none).
func stringItems(v any) ([]string, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, true
		}
		return []string{x}, true
	case []any:
		out := make([]string, 0, len(x))
		for _, it := range x {
			s, ok := it.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	case []string:
		return x, true
	}
	return nil, false
}

// validateRecurrence checks the shape and syntax of a recurrence
// argument; what needs the event's zone the models check.
func validateRecurrence(_ *Request, v any) *Reason {
	text, ok := recurrenceText(v)
	if !ok {
		return invalid("reason.events.recurrence_shape", nil)
	}
	var ve *models.ValidationError
	if err := models.CheckRecurrenceSyntax(text); errors.As(err, &ve) && len(ve.Fields) > 0 {
		return invalid(ve.Fields[0].Reason, ve.Fields[0].Data)
	}
	return nil
}

// presentRecurrence is an event's series fields, for events of a series.
func presentRecurrence(r *Request, e *models.Event, loc *time.Location) Obj {
	obj := Obj{
		{"series_id", *e.SeriesID},
		{"recurrence_id", localTime(*e.RecurrenceID, loc)}, // set with series_id, in the same write
		{"is_exception", e.IsException},
	}
	if e.SeriesRule != nil {
		obj = append(obj, KV{"recurrence", presentRule(r, e.SeriesRule, e.SeriesStart, loc)})
	}
	return obj
}

// presentRule is a series' rule: its parts, the RFC 5545 text and a
// sentence in the request language.
func presentRule(r *Request, rule *models.Recurrence, start time.Time, loc *time.Location) Obj {
	dates := func(ds []time.Time) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = localTime(d, loc)
		}
		return out
	}
	return Obj{
		{"rrule", nonNil(rule.RRules)},
		{"rdate", dates(rule.RDates)},
		{"exdate", dates(rule.ExDates)},
		{"ical", rule.String()},
		{"text", describeRule(r.T, rule, start)},
	}
}

// describeRule is the sentence of a rule in the language of t.
func describeRule(t func(string, map[string]any) string, rule *models.Recurrence, start time.Time) string {
	return rrtext.Rule(t, rule, start, func(d time.Time) string {
		return t("recurrence.until_date", map[string]any{"Year": d.Year(), "Month": int(d.Month()), "Day": d.Day()})
	})
}

// argDeleteScope is our DELETE extension for occurrences of a series:
// this (the default), following or all.
func argDeleteScope() Arg {
	return Arg{Name: "scope", Type: "string", Enum: []string{models.ScopeThis, models.ScopeFollowing, models.ScopeAll},
		Desc: "arg.events.delete.scope", In: "query", Kind: KEnum}
}
