package models

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/width"
)

// costNumber matches the numeric parts of a cost item, with "," or "." as
// separators ("1,000.50", "10,5"), as TEC's cost regex does.
var costNumber = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// costRangeMarks are what joins two prices of a range in the four
// languages' usage ("10-20", "10–20", "1000〜3000円", "100元至500元",
// "₩10,000~₩20,000"): they are neither numbers nor currency symbols.
var costRangeMarks = regexp.MustCompile(`[-–—~〜至]|\bto\b`)

// normalizeCost folds the full-width forms East Asian keyboards type
// ("１，０００", "～", "￥") to their ASCII and common forms, so a cost
// reads the same whichever width it was typed in.
func normalizeCost(s string) string {
	return strings.ReplaceAll(width.Fold.String(s), "〜", "~")
}

// CostItems decodes a stored cost (the JSON of what was sent: a string or
// a list) into its items. "" and values that are neither yield nil.
func CostItems(stored string) []string {
	if stored == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(stored), &v); err != nil {
		return []string{stored}
	}
	return costItemsOf(v)
}

func costItemsOf(v any) []string {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return nil
		}
		return []string{x}
	case float64:
		return []string{strconv.FormatFloat(x, 'f', -1, 64)}
	case bool:
		if x {
			return []string{"1"}
		}
	case []any:
		var out []string
		for _, it := range x {
			out = append(out, costItemsOf(it)...)
		}
		return out
	}
	return nil
}

// EncodeCost turns what a client sent as cost (a string, a number or a
// list of them) into the stored JSON text; nil or "" store "".
func EncodeCost(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok && s == "" {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// costValue is one parsed cost: numeric (with its value and the text as
// written) or not.
type costValue struct {
	key     string // TEC's index: the normalized number, or the lower-cased text
	text    string // as written in the item ("20" of "20$")
	num     float64
	numeric bool
}

// parseCosts splits items into values as TEC's parse_cost_range does: each
// number found in an item is a value; an item without a number is one
// non-numeric value. Values are unique by key and sorted: numbers
// ascending first, then texts.
func parseCosts(items []string) []costValue {
	seen := map[string]bool{}
	var out []costValue
	for _, it := range items {
		it = normalizeCost(it)
		nums := costNumber.FindAllString(it, -1)
		if len(nums) == 0 {
			t := strings.TrimSpace(it)
			k := strings.ToLower(t)
			if t == "" || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, costValue{key: k, text: t})
			continue
		}
		for _, n := range nums {
			f, ok := costFloat(n)
			if !ok {
				continue
			}
			k := strconv.FormatFloat(f, 'f', -1, 64)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, costValue{key: k, text: n, num: f, numeric: true})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.numeric != b.numeric {
			return a.numeric
		}
		if a.numeric {
			return a.num < b.num
		}
		return a.key < b.key
	})
	return out
}

// dropSeparators removes the separators of a number (a Replacer builds its
// tables on first use, so it is made once).
var dropSeparators = strings.NewReplacer(".", "", ",", "")

// costFloat reads a number written with "," or "." separators: the last
// separator followed by one or two digits is the decimal point ("10,5",
// "1.000,50"), any other separator groups thousands ("1,000").
func costFloat(s string) (float64, bool) {
	last := strings.LastIndexAny(s, ".,")
	if last >= 0 && len(s)-last-1 <= 2 {
		s = dropSeparators.Replace(s[:last]) + "." + s[last+1:]
	} else {
		s = dropSeparators.Replace(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// CostValues returns cost_details.values: the keys of the parsed values as
// strings, numbers ascending first ([] when there is no cost).
func CostValues(items []string) []string {
	out := []string{}
	for _, v := range parseCosts(items) {
		out = append(out, v.key)
	}
	return out
}

// DetectCurrency finds the currency symbol written next to the numbers of
// the cost items ("20$" -> "$", postfix; "€ 10" -> "€", prefix), as TEC
// stores it on create. Items without a number are ignored; items that
// disagree yield "", "".
func DetectCurrency(items []string) (symbol, position string) {
	for _, it := range items {
		it = normalizeCost(it)
		loc := costNumber.FindStringIndex(it)
		if loc == nil {
			continue
		}
		// What is left once the numbers and the range marks are gone is
		// the symbol, written once or next to each number ("¥1,000~¥3,000",
		// "100元至500元"): one symbol if every piece is the same.
		rest := ""
		for _, piece := range strings.Fields(costRangeMarks.ReplaceAllString(costNumber.ReplaceAllString(it, " "), " ")) {
			piece = strings.Trim(piece, ",.")
			switch {
			case piece == "":
			case rest == "":
				rest = piece
			case piece != rest:
				return "", ""
			}
		}
		pos := "postfix"
		if strings.Trim(strings.TrimSpace(it[:loc[0]]), ",.") != "" {
			pos = "prefix"
		}
		if rest == "" {
			if symbol != "" {
				return "", ""
			}
			continue
		}
		if symbol != "" && (symbol != rest || position != pos) {
			return "", ""
		}
		symbol, position = rest, pos
	}
	return symbol, position
}

// CostFormat holds what formatting a cost needs besides the items: the
// currency (the event's own, else the site's) and the localized texts.
type CostFormat struct {
	Symbol   string // currency symbol to add to numeric values ("" for none)
	Position string // "prefix" or "postfix"
	Free     string // localized "Free" for a numeric 0
	// Range joins the lowest and highest values ("10 – 20").
	Range func(min, max string) string
}

// CostText formats the cost as TEC's get_formatted_event_cost does: a
// single non-numeric value as is; otherwise the lowest and highest numeric
// values (0 as Free, others with the currency symbol), one value when they
// are equal, else a range. "" when there is no cost.
func CostText(items []string, f CostFormat) string {
	vals := parseCosts(items)
	if len(vals) == 0 {
		return ""
	}
	if len(vals) == 1 && !vals[0].numeric {
		return vals[0].text
	}
	var nums []costValue
	for _, v := range vals {
		if v.numeric {
			nums = append(nums, v)
		}
	}
	if len(nums) == 0 {
		return f.Free
	}
	show := func(v costValue) string {
		if v.num == 0 {
			return f.Free
		}
		if f.Symbol == "" {
			return v.text
		}
		if f.Position == "postfix" {
			return v.text + f.Symbol
		}
		return f.Symbol + v.text
	}
	lo, hi := show(nums[0]), show(nums[len(nums)-1])
	if lo == hi || f.Range == nil {
		return lo
	}
	return f.Range(lo, hi)
}
