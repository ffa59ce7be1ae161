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
		// East Asian ranges and widths (issue 15 item 7).
		{"yen range with a full-width tilde", "¥1,000～¥3,000", "¥", "prefix", "¥1,000 – ¥3,000", []string{"1000", "3000"}},
		{"full-width yen and digits", "￥１，０００～￥３，０００", "¥", "prefix", "¥1,000 – ¥3,000", []string{"1000", "3000"}},
		{"yen postfix with a wave dash", "1000〜3000円", "円", "postfix", "1000円 – 3000円", []string{"1000", "3000"}},
		{"yuan with 至", "100元至500元", "元", "postfix", "100元 – 500元", []string{"100", "500"}},
		{"won range with a tilde", "₩10,000~₩20,000", "₩", "prefix", "₩10,000 – ₩20,000", []string{"10000", "20000"}},
		{"won postfix", "10,000원~20,000원", "원", "postfix", "10,000원 – 20,000원", []string{"10000", "20000"}},
		{"dollar range with a hyphen", "$10-$20", "$", "prefix", "$10 – $20", []string{"10", "20"}},
		{"euro range with to", "€10 to €20", "€", "prefix", "€10 – €20", []string{"10", "20"}},
		{"pound with an en dash", "£5–£8", "£", "prefix", "£5 – £8", []string{"5", "8"}},
		{"free in Japanese stays text", "無料", "", "", "無料", []string{"無料"}},
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
