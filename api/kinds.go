package api

import (
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/kalends/kalends/models"
)

// Limits of argument values.
const (
	DefaultMaxLen = models.MaxNameLen // characters of a string argument when Arg.MaxLen is 0
	MaxListItems  = 1000              // items of a list argument
	maxRawDepth   = 32                // nesting of a KRaw value
)

var (
	decimalRe = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
)

func rsn(code, id string, data map[string]any) *Reason {
	return &Reason{Code: code, Reason: id, Data: data}
}

func invalidType(id string) *Reason { return rsn("rest_invalid_type", id, nil) }

// parseKind checks a sent value against its argument's Kind and returns it
// in the kind's Go type (see table.go).
func parseKind(r *Request, a *Arg, v any) (any, *Reason) {
	switch a.Kind {
	case KString, KNonEmpty, KEnum, KURL, KEmail, KStatus, KTimezone:
		s, ok := v.(string)
		if !ok {
			return nil, invalidType("reason.not_string")
		}
		if rs := checkText(s, a.MaxLen); rs != nil {
			return nil, rs
		}
		return s, checkStringKind(a, s)
	case KDate:
		s, ok := v.(string)
		if n, isNum := v.(json.Number); isNum {
			s, ok = string(n), true // a UNIX timestamp
		}
		if !ok {
			return nil, invalidType("reason.not_date")
		}
		if rs := checkText(s, a.MaxLen); rs != nil {
			return nil, rs
		}
		if _, _, err := models.ParseDate(strings.TrimSpace(s), r.Deps.now(), r.Deps.location()); err != nil {
			return nil, rsn("rest_invalid_param", "reason.invalid_date", nil)
		}
		return s, nil
	case KInt, KPositiveInt:
		n, rs := parseInt(v)
		if rs == nil && a.Kind == KPositiveInt && n <= 0 {
			rs = rsn("rest_out_of_bounds", "reason.not_positive_int", nil)
		}
		return n, rs
	case KImage:
		return parseImage(a, v)
	case KBool:
		return parseBool(v)
	case KNumber:
		return parseNumber(v)
	case KIntList, KStringList:
		return parseList(a, v)
	case KRaw:
		if rs := checkRaw(v, 0); rs != nil {
			return nil, rs
		}
		return v, nil
	}
	return v, nil
}

// checkText applies the models' text rule (valid UTF-8, no NUL, at most
// maxLen characters; DefaultMaxLen when 0).
func checkText(s string, maxLen int) *Reason { return models.CheckText(s, maxLen) }

// checkStringKind applies the rules of the string kinds after checkText.
func checkStringKind(a *Arg, s string) *Reason {
	switch a.Kind {
	case KNonEmpty:
		if strings.TrimSpace(s) == "" {
			return rsn("rest_invalid_param", "reason.empty_string", nil)
		}
	case KEnum:
		for _, e := range a.Enum {
			if s == e {
				return nil
			}
		}
		return rsn("rest_not_in_enum", "reason.not_in_enum", map[string]any{"Values": strings.Join(a.Enum, ", ")})
	case KStatus:
		if !models.ValidStatus(s) {
			return rsn("rest_not_in_enum", "reason.not_in_enum", map[string]any{"Values": strings.Join(models.Statuses, ", ")})
		}
	case KURL:
		if s != "" && !models.ValidURL(s) {
			return rsn("rest_invalid_param", "reason.invalid_url", nil)
		}
	case KEmail:
		if s != "" && !models.ValidEmail(s) {
			return rsn("rest_invalid_param", "reason.invalid_email", nil)
		}
	case KTimezone:
		if s != "" && !models.ValidTimezone(s) {
			return rsn("rest_invalid_param", "reason.invalid_timezone", nil)
		}
	}
	return nil
}

// numberText is the text of a JSON number or of a string (trimmed); other
// values are not numbers.
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case string:
		return strings.TrimSpace(x), true
	}
	return "", false
}

// parseInt accepts a JSON integer or an integer-looking string ("5", " 5 ",
// "5.0", "1e3"); larger than int64 is out of bounds.
func parseInt(v any) (int64, *Reason) {
	s, ok := numberText(v)
	if !ok {
		return 0, invalidType("reason.not_integer")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return n, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, rsn("rest_out_of_bounds", "reason.int_out_of_range", nil)
	}
	if !decimalRe.MatchString(s) {
		return 0, invalidType("reason.not_integer")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Abs(f) >= 9.2e18 {
		return 0, rsn("rest_out_of_bounds", "reason.int_out_of_range", nil)
	}
	if f != math.Trunc(f) {
		return 0, invalidType("reason.not_integer")
	}
	return int64(f), nil
}

// parseBool accepts the boolean forms of SPEC §2.
func parseBool(v any) (bool, *Reason) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case json.Number:
		switch string(x) {
		case "1":
			return true, nil
		case "0":
			return false, nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1", "yes", "on":
			return true, nil
		case "false", "0", "no", "off", "":
			return false, nil
		}
	}
	return false, invalidType("reason.not_boolean")
}

// parseNumber accepts a JSON number or a decimal string (no NaN, no
// infinities, no hex).
func parseNumber(v any) (float64, *Reason) {
	s, ok := numberText(v)
	if !ok {
		return 0, invalidType("reason.not_number")
	}
	if !decimalRe.MatchString(s) {
		return 0, invalidType("reason.not_number")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, rsn("rest_out_of_bounds", "reason.number_out_of_range", nil)
	}
	return f, nil
}

// parseList reads a list from a JSON array, x[]=… or a comma list (items
// trimmed, empty items dropped) and checks each item.
func parseList(a *Arg, v any) (any, *Reason) {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case string:
		for _, p := range strings.Split(x, ",") {
			items = append(items, p)
		}
	case json.Number:
		items = []any{x}
	default:
		return nil, invalidType("reason.not_list")
	}
	var strs []string
	for _, it := range items {
		var s string
		switch y := it.(type) {
		case string:
			s = strings.TrimSpace(y)
		case json.Number:
			s = string(y)
		default:
			return nil, invalidType("reason.list_items_type")
		}
		if s == "" {
			continue
		}
		if len(strs) == MaxListItems {
			return nil, rsn("rest_too_many_items", "reason.too_many_items", map[string]any{"Max": MaxListItems})
		}
		strs = append(strs, s)
	}
	if a.Kind == KIntList {
		out := make([]int64, 0, len(strs))
		for _, s := range strs {
			n, rs := parseInt(s)
			if rs != nil || n <= 0 {
				return nil, rsn("rest_invalid_param", "reason.list_not_positive_ints", nil)
			}
			out = append(out, n)
		}
		return out, nil
	}
	for _, s := range strs {
		if rs := checkText(s, a.MaxLen); rs != nil {
			return nil, rs
		}
	}
	if strs == nil {
		strs = []string{}
	}
	return strs, nil
}

// checkRaw rejects invalid text anywhere in a raw value and too deep
// nesting; values are string, bool, json.Number, nil, []any or
// map[string]any.
func checkRaw(v any, depth int) *Reason {
	if depth > maxRawDepth {
		return rsn("rest_invalid_param", "reason.too_deep", nil)
	}
	switch x := v.(type) {
	case string:
		return checkText(x, 64<<10)
	case []any:
		if len(x) > MaxListItems {
			return rsn("rest_too_many_items", "reason.too_many_items", map[string]any{"Max": MaxListItems})
		}
		for _, it := range x {
			if rs := checkRaw(it, depth+1); rs != nil {
				return rs
			}
		}
	case map[string]any:
		for k, it := range x {
			if rs := checkText(k, DefaultMaxLen); rs != nil {
				return rs
			}
			if rs := checkRaw(it, depth+1); rs != nil {
				return rs
			}
		}
	}
	return nil
}
