package i18n

import (
	"strings"
	"testing"
)

// Counts are grouped as each language's readers write them (CLDR: by
// thousands with a comma in all four), plain below a thousand, and T shows
// them so in every message's count fields while choosing the plural form
// from the number.
func TestNumberInEveryLanguage(t *testing.T) {
	for _, code := range Codes {
		for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 112500: "112,500", 1234567: "1,234,567", -4200: "-4,200"} {
			if got := Number(code, n); got != want {
				t.Errorf("Number(%s, %d) = %q, want %q", code, n, got, want)
			}
		}
		if got := Number(code, uint32(65000)); got != "65,000" {
			t.Errorf("Number(%s, uint32 65000) = %q", code, got)
		}
	}
	if got := Number("xx", 112500); got != "112,500" {
		t.Errorf("an unknown language: %q, want English's 112,500", got)
	}
}

func TestMessagesShowCountsGrouped(t *testing.T) {
	b, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for code, want := range map[string]string{"en": "112,500 in all", "ja": "全 112,500 件", "ko": "총 112,500개", "zh-hans": "共 112,500 项"} {
		if got := b.T(code, "admin.list.total", map[string]any{"Count": 112500}); got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
	data := map[string]any{"Count": 1, "ID": 12345}
	if got := b.T("en", "admin.list.total", data); got != "1 in all" {
		t.Errorf("one: %q", got)
	}
	if data["Count"] != 1 {
		t.Errorf("T changed its caller's data: %v", data)
	}
	// Not a count: left as it is.
	if got := formatCounts("en", map[string]any{"ID": 12345, "Year": 2026, "Count": "already text"}); got["ID"] != 12345 || got["Year"] != 2026 || got["Count"] != "already text" {
		t.Errorf("formatCounts changed a field that is not an integer count: %v", got)
	}
	if got := b.T("ja", "media.admin.page_of", map[string]any{"Page": 1200, "Pages": 4500}); got == "" || !strings.Contains(got, "1,200") || !strings.Contains(got, "4,500") {
		t.Errorf("page of: %q", got)
	}
}
