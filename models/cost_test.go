package models

import (
	"reflect"
	"testing"
)

func TestCostTextAndValuesFollowTEC(t *testing.T) {
	t.Parallel()
	rng := func(a, b string) string { return a + " – " + b }
	site := CostFormat{Symbol: "$", Position: "prefix", Free: "Free", Range: rng}
	tests := []struct {
		name     string
		sent     any
		wantSym  string
		wantPos  string
		wantText string
		wantVals []string
	}{
		{"plain number takes the site symbol", "25", "", "", "$25", []string{"25"}},
		{"stored 23 with $ prefix", "23", "", "", "$23", []string{"23"}},
		{"postfix symbol detected", "20$", "$", "postfix", "20$", []string{"20"}},
		{"list with zero is a range from Free", []any{"0$", "20$", "30$"}, "$", "postfix", "Free – 30$", []string{"0", "20", "30"}},
		{"prefix symbol with comma list", "€ 10, 20", "€", "prefix", "€10 – €20", []string{"10", "20"}},
		{"non-numeric as is", "Free", "", "", "Free", []string{"free"}},
		{"donation", "Donation", "", "", "Donation", []string{"donation"}},
		{"zero is Free", "0", "", "", "Free", []string{"0"}},
		{"decimal comma", "10,5", "", "", "$10,5", []string{"10.5"}},
		{"unsorted list sorts", []any{"30", "10", "20"}, "", "", "$10 – $30", []string{"10", "20", "30"}},
		{"number in list", []any{float64(15)}, "", "", "$15", []string{"15"}},
		{"nothing", "", "", "", "", []string{}},
		{"mixed symbols give none", []any{"10$", "€20"}, "", "", "$10 – $20", []string{"10", "20"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items := CostItems(EncodeCost(tc.sent))
			sym, pos := DetectCurrency(items)
			if sym != tc.wantSym || pos != tc.wantPos {
				t.Errorf("DetectCurrency = %q %q, want %q %q", sym, pos, tc.wantSym, tc.wantPos)
			}
			f := site
			if sym != "" {
				f.Symbol, f.Position = sym, pos
			}
			if got := CostText(items, f); got != tc.wantText {
				t.Errorf("CostText = %q, want %q", got, tc.wantText)
			}
			if got := CostValues(items); !reflect.DeepEqual(got, tc.wantVals) {
				t.Errorf("CostValues = %q, want %q", got, tc.wantVals)
			}
		})
	}
}
