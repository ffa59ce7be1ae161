package ui

import (
	"fmt"
	"time"
)

// Dates and times in each language's own form (ADMIN-UI.md, after CLDR's
// medium formats): the names of months and weekdays are locale data, not
// messages, so they live here rather than in the locale files.
//
//	en       Mon, Dec 7, 2026, 7:00 PM
//	zh-hans  2026年12月7日 周一 19:00
//	ja       2026年12月7日(月) 19:00
//	ko       2026. 12. 7. (월) 오후 7:00

var (
	enMonths   = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	enWeekdays = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	zhWeekdays = [...]string{"周日", "周一", "周二", "周三", "周四", "周五", "周六"}
	jaWeekdays = [...]string{"日", "月", "火", "水", "木", "金", "土"}
	koWeekdays = [...]string{"일", "월", "화", "수", "목", "금", "토"}
)

// FormatDate writes the date of t (already in the zone to show) in lang.
func FormatDate(lang string, t time.Time) string {
	y, m, d, wd := t.Year(), int(t.Month()), t.Day(), int(t.Weekday())
	switch lang {
	case "zh-hans":
		return fmt.Sprintf("%d年%d月%d日 %s", y, m, d, zhWeekdays[wd])
	case "ja":
		return fmt.Sprintf("%d年%d月%d日(%s)", y, m, d, jaWeekdays[wd])
	case "ko":
		return fmt.Sprintf("%d. %d. %d. (%s)", y, m, d, koWeekdays[wd])
	}
	return fmt.Sprintf("%s, %s %d, %d", enWeekdays[wd], enMonths[m-1], d, y)
}

// FormatTime writes the time of day of t in lang: 24-hour in Chinese and
// Japanese, 12-hour with the language's own day-half marker otherwise.
func FormatTime(lang string, t time.Time) string {
	h, mi := t.Hour(), t.Minute()
	h12 := h % 12
	if h12 == 0 {
		h12 = 12
	}
	switch lang {
	case "zh-hans", "ja":
		return fmt.Sprintf("%d:%02d", h, mi)
	case "ko":
		half := "오전"
		if h >= 12 {
			half = "오후"
		}
		return fmt.Sprintf("%s %d:%02d", half, h12, mi)
	}
	half := "AM"
	if h >= 12 {
		half = "PM"
	}
	return fmt.Sprintf("%d:%02d %s", h12, mi, half)
}

// FormatShortDate writes the date of t in lang without its weekday, for
// narrow columns: "Dec 7, 2026", "2026年12月7日", "2026. 12. 7.".
func FormatShortDate(lang string, t time.Time) string {
	y, m, d := t.Year(), int(t.Month()), t.Day()
	switch lang {
	case "zh-hans", "ja":
		return fmt.Sprintf("%d年%d月%d日", y, m, d)
	case "ko":
		return fmt.Sprintf("%d. %d. %d.", y, m, d)
	}
	return fmt.Sprintf("%s %d, %d", enMonths[m-1], d, y)
}

// FormatDateTime writes date and time of t in lang, joined as the
// language does.
func FormatDateTime(lang string, t time.Time) string {
	if lang == "en" {
		return FormatDate(lang, t) + ", " + FormatTime(lang, t)
	}
	return FormatDate(lang, t) + " " + FormatTime(lang, t)
}

// WeekdayNames are the weekday headers from the week's first day (Monday
// in Chinese, Sunday otherwise, as each locale's calendars start).
func WeekdayNames(lang string) (names []string, first time.Weekday) {
	all := enWeekdays[:]
	switch lang {
	case "zh-hans":
		all, first = zhWeekdays[:], time.Monday
	case "ja":
		all = jaWeekdays[:]
	case "ko":
		all = koWeekdays[:]
	}
	for i := range 7 {
		names = append(names, all[(int(first)+i)%7])
	}
	return names, first
}
