package ui

import (
	"errors"
	"strconv"
	"strings"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// The event filters of a URL, read once for every surface that lists
// events: the admin list, the calendar, the public lists and the feeds.
// They use the API's argument names: categories and tags (comma lists of
// ids or slugs), venue and organizer (comma lists of ids), featured (1 or
// 0, true or false) and search (at most models.MaxSearchLen characters). A value that cannot be read is a
// *FilterError; each surface turns it (and the store's refusal of a filter
// that names nothing, a *models.ValidationError) into its answer in one
// place: FilterMessage words both.

// FilterError is a filter argument that cannot be read.
type FilterError struct {
	Arg    string         // the argument's name
	Reason string         // message id
	Data   map[string]any // the message's data
}

func (e *FilterError) Error() string { return "web: bad filter " + e.Arg }

// ParseEventFilter reads the event filters of a query (query returns an
// argument's value, "" when absent) into f.
func ParseEventFilter(query func(string) string, f *models.EventFilter) error {
	for _, a := range []struct {
		name string
		dst  *[]models.TermRef
	}{{"categories", &f.Categories}, {"tags", &f.Tags}} {
		for _, s := range splitList(query(a.name)) {
			if id, err := strconv.ParseInt(s, 10, 64); err == nil {
				*a.dst = append(*a.dst, models.TermRef{ID: id})
			} else {
				*a.dst = append(*a.dst, models.TermRef{Name: s})
			}
		}
	}
	for _, a := range []struct {
		name string
		dst  *[]int64
	}{{"venue", &f.VenueIDs}, {"organizer", &f.OrganizerIDs}} {
		for _, s := range splitList(query(a.name)) {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil || id < 1 {
				return &FilterError{Arg: a.name, Reason: "filter.bad_id", Data: map[string]any{"Name": a.name, "Value": s}}
			}
			*a.dst = append(*a.dst, id)
		}
	}
	switch s := strings.ToLower(strings.TrimSpace(query("featured"))); s {
	case "":
	case "1", "true", "0", "false":
		b := s == "1" || s == "true"
		f.Featured = &b
	default:
		return &FilterError{Arg: "featured", Reason: "filter.bad_bool", Data: map[string]any{"Name": "featured", "Value": s}}
	}
	if s := strings.TrimSpace(query("search")); s != "" {
		if len([]rune(s)) > models.MaxSearchLen {
			return &FilterError{Arg: "search", Reason: "filter.search_too_long", Data: map[string]any{"Max": models.MaxSearchLen}}
		}
		f.Search = models.SearchWords(s)
	}
	return nil
}

// FilterMessage is err worded in lang when it is a filter that cannot be
// used (a *FilterError, or the store's *models.ValidationError), with
// the names of the arguments at fault; ok is false for any other error.
func FilterMessage(b *i18n.Bundle, lang string, err error) (message string, args []string, ok bool) {
	var fe *FilterError
	if errors.As(err, &fe) {
		return b.T(lang, fe.Reason, fe.Data), []string{fe.Arg}, true
	}
	var invalid *models.ValidationError
	if errors.As(err, &invalid) {
		parts := make([]string, len(invalid.Fields))
		for i, f := range invalid.Fields {
			parts[i] = b.T(lang, f.Reason, f.Data)
			args = append(args, f.Field)
		}
		return strings.Join(parts, " "), args, true
	}
	return "", nil, false
}

// splitList splits a comma-separated argument, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// SearchMaxLength is models.MaxSearchLen as the maxlength of a search
// field.
var SearchMaxLength = strconv.Itoa(models.MaxSearchLen)
