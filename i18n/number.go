package i18n

import (
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printers holds a number printer per code (message.Printer is safe for
// concurrent use once made).
var printers sync.Map // code -> *message.Printer

func printer(code string) *message.Printer {
	if p, ok := printers.Load(code); ok {
		return p.(*message.Printer)
	}
	tag := language.English
	if Valid(code) {
		tag = Tag(code)
	}
	p, _ := printers.LoadOrStore(code, message.NewPrinter(tag))
	return p.(*message.Printer)
}

// Number writes a count as a reader of code reads it, with the language's
// digit grouping: 112500 is "112,500" (CLDR groups by thousands with a comma
// in all four of our languages). An unknown code writes it as English does.
func Number[N ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64](code string, n N) string {
	return printer(code).Sprintf("%d", n)
}

// countKeys are the template fields of messages that hold counts (of
// records, pages, dates): T writes their integer values with Number. Other
// numbers (ids, years, lengths, sizes) are left as they are.
var countKeys = []string{"Count", "Page", "Pages", "Done", "Failed", "Skipped", "Created", "Updated", "Dates"}

// formatCounts returns data with its integer counts written for code (a
// copy when anything changes; data itself is never modified).
func formatCounts(code string, data map[string]any) map[string]any {
	var out map[string]any
	for _, k := range countKeys {
		v, ok := data[k]
		if !ok {
			continue
		}
		var s string
		switch n := v.(type) {
		case int:
			s = Number(code, n)
		case int32:
			s = Number(code, n)
		case int64:
			s = Number(code, n)
		case uint:
			s = Number(code, n)
		case uint32:
			s = Number(code, n)
		case uint64:
			s = Number(code, n)
		default:
			continue
		}
		if out == nil {
			out = make(map[string]any, len(data))
			for k2, v2 := range data {
				out[k2] = v2
			}
		}
		out[k] = s
	}
	if out == nil {
		return data
	}
	return out
}
