package ui

import (
	"testing"
	"time"
)

func TestDatesInEachLanguagesOwnForm(t *testing.T) {
	evening := time.Date(2026, 12, 7, 19, 0, 0, 0, time.UTC)
	morning := time.Date(2027, 1, 1, 0, 5, 0, 0, time.UTC)
	for _, tt := range []struct {
		lang      string
		at        time.Time
		dateTime  string
		dateOnly  string
		timeOfDay string
	}{
		{"en", evening, "Mon, Dec 7, 2026, 7:00 PM", "Mon, Dec 7, 2026", "7:00 PM"},
		{"zh-hans", evening, "2026年12月7日 周一 19:00", "2026年12月7日 周一", "19:00"},
		{"ja", evening, "2026年12月7日(月) 19:00", "2026年12月7日(月)", "19:00"},
		{"ko", evening, "2026. 12. 7. (월) 오후 7:00", "2026. 12. 7. (월)", "오후 7:00"},
		{"en", morning, "Fri, Jan 1, 2027, 12:05 AM", "Fri, Jan 1, 2027", "12:05 AM"},
		{"ko", morning, "2027. 1. 1. (금) 오전 12:05", "2027. 1. 1. (금)", "오전 12:05"},
	} {
		if got := FormatDateTime(tt.lang, tt.at); got != tt.dateTime {
			t.Errorf("%s date-time %q, want %q", tt.lang, got, tt.dateTime)
		}
		if got := FormatDate(tt.lang, tt.at); got != tt.dateOnly {
			t.Errorf("%s date %q, want %q", tt.lang, got, tt.dateOnly)
		}
		if got := FormatTime(tt.lang, tt.at); got != tt.timeOfDay {
			t.Errorf("%s time %q, want %q", tt.lang, got, tt.timeOfDay)
		}
	}
}

func TestShortDatesLeaveTheWeekdayOut(t *testing.T) {
	at := time.Date(2026, 12, 7, 19, 0, 0, 0, time.UTC)
	for lang, want := range map[string]string{"en": "Dec 7, 2026", "zh-hans": "2026年12月7日", "ja": "2026年12月7日", "ko": "2026. 12. 7."} {
		if got := FormatShortDate(lang, at); got != want {
			t.Errorf("%s short date %q, want %q", lang, got, want)
		}
	}
}
