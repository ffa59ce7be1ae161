package rrtext

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"
	"time"
)

// messages maps a message id to its templates by plural form ("one",
// "other"), as in a go-i18n locale file.
type messages map[string]map[string]string

// enMessages and jaMessages are copies of the English and Japanese
// "recurrence.text.*" messages of the locale files.
var enMessages = messages{
	"recurrence.text.and":                     {"other": "{{.A}} and {{.B}}"},
	"recurrence.text.count":                   {"one": "{{.Rule}}, {{.Count}} time", "other": "{{.Rule}}, {{.Count}} times"},
	"recurrence.text.custom":                  {"other": "Repeats on a custom rule"},
	"recurrence.text.daily":                   {"other": "Every day"},
	"recurrence.text.dates_only":              {"one": "On {{.Count}} date", "other": "On {{.Count}} dates"},
	"recurrence.text.day.fr":                  {"other": "Friday"},
	"recurrence.text.day.mo":                  {"other": "Monday"},
	"recurrence.text.day.sa":                  {"other": "Saturday"},
	"recurrence.text.day.su":                  {"other": "Sunday"},
	"recurrence.text.day.th":                  {"other": "Thursday"},
	"recurrence.text.day.tu":                  {"other": "Tuesday"},
	"recurrence.text.day.we":                  {"other": "Wednesday"},
	"recurrence.text.every_n_days":            {"one": "Every {{.Count}} day", "other": "Every {{.Count}} days"},
	"recurrence.text.every_n_months":          {"one": "Every {{.Count}} month on {{.Days}}", "other": "Every {{.Count}} months on {{.Days}}"},
	"recurrence.text.every_n_weeks":           {"one": "Every {{.Count}} week on {{.Days}}", "other": "Every {{.Count}} weeks on {{.Days}}"},
	"recurrence.text.every_n_years":           {"one": "Every {{.Count}} year on {{.Dates}}", "other": "Every {{.Count}} years on {{.Dates}}"},
	"recurrence.text.every_n_years_in_months": {"one": "Every {{.Count}} year on {{.Days}} of {{.Months}}", "other": "Every {{.Count}} years on {{.Days}} of {{.Months}}"},
	"recurrence.text.every_weekday":           {"other": "Every weekday"},
	"recurrence.text.excluded":                {"one": "{{.Rule}}, except {{.Count}} date", "other": "{{.Rule}}, except {{.Count}} dates"},
	"recurrence.text.extra":                   {"one": "{{.Rule}}, plus {{.Count}} more date", "other": "{{.Rule}}, plus {{.Count}} more dates"},
	"recurrence.text.last_day":                {"other": "the last day"},
	"recurrence.text.list_sep":                {"other": "{{.A}}, {{.B}}"},
	"recurrence.text.month.1":                 {"other": "January"},
	"recurrence.text.month.10":                {"other": "October"},
	"recurrence.text.month.11":                {"other": "November"},
	"recurrence.text.month.12":                {"other": "December"},
	"recurrence.text.month.2":                 {"other": "February"},
	"recurrence.text.month.3":                 {"other": "March"},
	"recurrence.text.month.4":                 {"other": "April"},
	"recurrence.text.month.5":                 {"other": "May"},
	"recurrence.text.month.6":                 {"other": "June"},
	"recurrence.text.month.7":                 {"other": "July"},
	"recurrence.text.month.8":                 {"other": "August"},
	"recurrence.text.month.9":                 {"other": "September"},
	"recurrence.text.monthday":                {"other": "day {{.Day}}"},
	"recurrence.text.monthday_from_end":       {"other": "day {{.Day}} from the end of the month"},
	"recurrence.text.monthly":                 {"other": "Every month on {{.Days}}"},
	"recurrence.text.ordinal.1":               {"other": "the first {{.Day}}"},
	"recurrence.text.ordinal.2":               {"other": "the second {{.Day}}"},
	"recurrence.text.ordinal.3":               {"other": "the third {{.Day}}"},
	"recurrence.text.ordinal.4":               {"other": "the fourth {{.Day}}"},
	"recurrence.text.ordinal.5":               {"other": "the fifth {{.Day}}"},
	"recurrence.text.ordinal.last":            {"other": "the last {{.Day}}"},
	"recurrence.text.until":                   {"other": "{{.Rule}}, until {{.Date}}"},
	"recurrence.text.weekday":                 {"other": "weekday"},
	"recurrence.text.weekdays":                {"other": "weekdays"},
	"recurrence.text.weekly":                  {"other": "Every week on {{.Days}}"},
	"recurrence.text.yearly":                  {"other": "Every year on {{.Dates}}"},
	"recurrence.text.yearly_date":             {"other": "{{.Day}} {{.Month}}"},
	"recurrence.text.yearly_in_months":        {"other": "Every year on {{.Days}} of {{.Months}}"},
}

var jaMessages = messages{
	"recurrence.text.and":                     {"other": "{{.A}}と{{.B}}"},
	"recurrence.text.count":                   {"other": "{{.Rule}}、{{.Count}}回"},
	"recurrence.text.custom":                  {"other": "カスタムルールで繰り返し"},
	"recurrence.text.daily":                   {"other": "毎日"},
	"recurrence.text.dates_only":              {"other": "日程{{.Count}}件"},
	"recurrence.text.day.fr":                  {"other": "金曜日"},
	"recurrence.text.day.mo":                  {"other": "月曜日"},
	"recurrence.text.day.sa":                  {"other": "土曜日"},
	"recurrence.text.day.su":                  {"other": "日曜日"},
	"recurrence.text.day.th":                  {"other": "木曜日"},
	"recurrence.text.day.tu":                  {"other": "火曜日"},
	"recurrence.text.day.we":                  {"other": "水曜日"},
	"recurrence.text.every_n_days":            {"other": "{{.Count}}日ごと"},
	"recurrence.text.every_n_months":          {"other": "{{.Count}}か月ごと（{{.Days}}）"},
	"recurrence.text.every_n_weeks":           {"other": "{{.Count}}週間ごと（{{.Days}}）"},
	"recurrence.text.every_n_years":           {"other": "{{.Count}}年ごと（{{.Dates}}）"},
	"recurrence.text.every_n_years_in_months": {"other": "{{.Count}}年ごと（{{.Months}}の{{.Days}}）"},
	"recurrence.text.every_weekday":           {"other": "毎週平日"},
	"recurrence.text.excluded":                {"other": "{{.Rule}}、{{.Count}}日を除く"},
	"recurrence.text.extra":                   {"other": "{{.Rule}}、ほか{{.Count}}日"},
	"recurrence.text.last_day":                {"other": "末日"},
	"recurrence.text.list_sep":                {"other": "{{.A}}、{{.B}}"},
	"recurrence.text.month.1":                 {"other": "1月"},
	"recurrence.text.month.10":                {"other": "10月"},
	"recurrence.text.month.11":                {"other": "11月"},
	"recurrence.text.month.12":                {"other": "12月"},
	"recurrence.text.month.2":                 {"other": "2月"},
	"recurrence.text.month.3":                 {"other": "3月"},
	"recurrence.text.month.4":                 {"other": "4月"},
	"recurrence.text.month.5":                 {"other": "5月"},
	"recurrence.text.month.6":                 {"other": "6月"},
	"recurrence.text.month.7":                 {"other": "7月"},
	"recurrence.text.month.8":                 {"other": "8月"},
	"recurrence.text.month.9":                 {"other": "9月"},
	"recurrence.text.monthday":                {"other": "{{.Day}}日"},
	"recurrence.text.monthday_from_end":       {"other": "月末から数えて{{.Day}}日目"},
	"recurrence.text.monthly":                 {"other": "毎月{{.Days}}"},
	"recurrence.text.ordinal.1":               {"other": "第1{{.Day}}"},
	"recurrence.text.ordinal.2":               {"other": "第2{{.Day}}"},
	"recurrence.text.ordinal.3":               {"other": "第3{{.Day}}"},
	"recurrence.text.ordinal.4":               {"other": "第4{{.Day}}"},
	"recurrence.text.ordinal.5":               {"other": "第5{{.Day}}"},
	"recurrence.text.ordinal.last":            {"other": "最終{{.Day}}"},
	"recurrence.text.until":                   {"other": "{{.Rule}}、{{.Date}}まで"},
	"recurrence.text.weekday":                 {"other": "平日"},
	"recurrence.text.weekdays":                {"other": "平日"},
	"recurrence.text.weekly":                  {"other": "毎週{{.Days}}"},
	"recurrence.text.yearly":                  {"other": "毎年{{.Dates}}"},
	"recurrence.text.yearly_date":             {"other": "{{.Month}}{{.Day}}日"},
	"recurrence.text.yearly_in_months":        {"other": "毎年{{.Months}}の{{.Days}}"},
}

// newT returns a T that renders msgs with text/template, choosing the
// "one" form when Count is 1 and the message has one (English plural
// rules; Japanese messages have only "other"). A missing id, a missing
// placeholder or a broken template fails the test.
func newT(tb testing.TB, msgs messages) T {
	return func(id string, data map[string]any) string {
		forms, ok := msgs[id]
		if !ok {
			tb.Errorf("no message %q", id)
			return "!" + id
		}
		src := forms["other"]
		if n, ok := data["Count"].(int); ok && n == 1 && forms["one"] != "" {
			src = forms["one"]
		}
		tmpl, err := template.New(id).Option("missingkey=error").Parse(src)
		if err != nil {
			tb.Errorf("message %q: %v", id, err)
			return "!" + id
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, data); err != nil {
			tb.Errorf("message %q with %v: %v", id, data, err)
			return "!" + id
		}
		return b.String()
	}
}

func enDate(u time.Time) string { return u.Format("2 Jan 2006") }

func jaDate(u time.Time) string {
	return fmt.Sprintf("%d年%d月%d日", u.Year(), int(u.Month()), u.Day())
}

var (
	est = time.FixedZone("EST", -5*3600)
	jst = time.FixedZone("JST", 9*3600)
	// tuesday is a Tuesday, julyFourth a 4 July (a Saturday), jan31 a
	// 31st: the defaults of rules without BYDAY or BYMONTHDAY.
	tuesday    = time.Date(2026, 3, 10, 10, 0, 0, 0, est)
	julyFourth = time.Date(2026, 7, 4, 18, 30, 0, 0, est)
	jan31      = time.Date(2026, 1, 31, 9, 0, 0, 0, est)
)

type describeCase struct {
	rules           []string
	start           time.Time
	extra, excluded int
	want            string
}

func runCases(t *testing.T, msgs messages, format func(time.Time) string, cases []describeCase) {
	t.Helper()
	for _, c := range cases {
		start := c.start
		if start.IsZero() {
			start = tuesday
		}
		got := Describe(newT(t, msgs), c.rules, start, c.extra, c.excluded, format)
		if got != c.want {
			t.Errorf("Describe(%q, %s, +%d, -%d) = %q, want %q", c.rules, start.Format(time.DateOnly), c.extra, c.excluded, got, c.want)
		}
	}
}

func TestDescribeEnglish(t *testing.T) {
	runCases(t, enMessages, enDate, []describeCase{
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU;COUNT=10"}, want: "Every week on Tuesday, 10 times"},
		{rules: []string{"freq=weekly;byday=tu;count=1"}, want: "Every week on Tuesday, 1 time"},
		{rules: []string{"FREQ=WEEKLY"}, want: "Every week on Tuesday"},
		{rules: []string{"FREQ=WEEKLY;INTERVAL=2;BYDAY=WE,MO;UNTIL=20271231T235959Z"}, want: "Every 2 weeks on Monday and Wednesday, until 31 Dec 2027"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=FR,MO,WE"}, want: "Every week on Monday, Wednesday and Friday"},
		{rules: []string{"FREQ=WEEKLY;WKST=SU;INTERVAL=2;BYDAY=SU,MO"}, want: "Every 2 weeks on Monday and Sunday"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}, want: "Every weekday"},
		{rules: []string{"FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"}, want: "Every weekday"},
		{rules: []string{"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,WE,TH,FR"}, want: "Every 2 weeks on weekdays"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=2TU"}, want: "Every month on the second Tuesday"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2"}, want: "Every month on the second Tuesday"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=-1FR"}, want: "Every month on the last Friday"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=+5MO"}, want: "Every month on the fifth Monday"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=4TU,2TU"}, want: "Every month on the second Tuesday and the fourth Tuesday"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"}, want: "Every month on the last weekday"},
		{rules: []string{"FREQ=MONTHLY;BYMONTHDAY=31"}, want: "Every month on day 31"},
		{rules: []string{"FREQ=MONTHLY"}, start: jan31, want: "Every month on day 31"},
		{rules: []string{"FREQ=MONTHLY;BYMONTHDAY=-1"}, want: "Every month on the last day"},
		{rules: []string{"FREQ=MONTHLY;BYMONTHDAY=-2"}, want: "Every month on day 2 from the end of the month"},
		{rules: []string{"FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15,1"}, want: "Every 3 months on day 1 and day 15"},
		{rules: []string{"FREQ=YEARLY"}, start: julyFourth, want: "Every year on 4 July"},
		{rules: []string{"FREQ=YEARLY;INTERVAL=2"}, start: julyFourth, want: "Every 2 years on 4 July"},
		{rules: []string{"FREQ=YEARLY;BYMONTH=7,1"}, start: julyFourth, want: "Every year on 4 January and 4 July"},
		{rules: []string{"FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25"}, start: julyFourth, want: "Every year on 25 December"},
		{rules: []string{"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH"}, want: "Every year on the fourth Thursday of November"},
		{rules: []string{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1"}, want: "Every year on the last day of February"},
		{rules: []string{"FREQ=DAILY;INTERVAL=3;UNTIL=20271231"}, want: "Every 3 days, until 31 Dec 2027"},
		{rules: []string{"FREQ=DAILY;UNTIL=20271231T235959"}, want: "Every day, until 31 Dec 2027"},
		// UNTIL is an instant: in Tokyo, 23:59:59 UTC is already the next day.
		{rules: []string{"FREQ=DAILY;UNTIL=20271231T235959Z"}, start: tuesday.In(jst), want: "Every day, until 1 Jan 2028"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU"}, extra: 2, excluded: 1, want: "Every week on Tuesday, plus 2 more dates, except 1 date"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU;COUNT=5"}, extra: 1, excluded: 3, want: "Every week on Tuesday, 5 times, plus 1 more date, except 3 dates"},
		{rules: []string{"FREQ=YEARLY;BYWEEKNO=20"}, want: "Repeats on a custom rule"},
		{rules: []string{"FREQ=MONTHLY;BYMONTHDAY=1,2,3;BYSETPOS=2"}, want: "Repeats on a custom rule"},
		{rules: []string{"FREQ=DAILY;BYHOUR=9,17"}, want: "Repeats on a custom rule"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=-2MO"}, want: "Repeats on a custom rule"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=TU"}, want: "Repeats on a custom rule"},
		{rules: []string{"FREQ=YEARLY;BYDAY=-1FR"}, want: "Repeats on a custom rule"},
		{rules: []string{"FREQ=HOURLY"}, extra: 1, want: "Repeats on a custom rule, plus 1 more date"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU", "FREQ=MONTHLY;BYDAY=1FR"}, want: "Every week on Tuesday; Every month on the first Friday"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU", "FREQ=SECONDLY"}, want: "Every week on Tuesday; Repeats on a custom rule"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU", "FREQ=WEEKLY;BYDAY=TU"}, want: "Every week on Tuesday"},
		{extra: 3, want: "On 3 dates"},
		{excluded: 2, want: ""},
	})
}

func TestDescribeJapanese(t *testing.T) {
	runCases(t, jaMessages, jaDate, []describeCase{
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU;COUNT=10"}, want: "毎週火曜日、10回"},
		{rules: []string{"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"}, want: "2週間ごと（月曜日と水曜日）"},
		{rules: []string{"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;UNTIL=20271231T235959Z"}, want: "2週間ごと（月曜日と水曜日）、2027年12月31日まで"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=MO,WE,FR"}, want: "毎週月曜日、水曜日と金曜日"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}, want: "毎週平日"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=2TU"}, want: "毎月第2火曜日"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2"}, want: "毎月第2火曜日"},
		{rules: []string{"FREQ=MONTHLY;BYDAY=-1FR"}, want: "毎月最終金曜日"},
		{rules: []string{"FREQ=MONTHLY;BYMONTHDAY=31"}, want: "毎月31日"},
		{rules: []string{"FREQ=MONTHLY;BYMONTHDAY=-1"}, want: "毎月末日"},
		{rules: []string{"FREQ=YEARLY"}, start: julyFourth, want: "毎年7月4日"},
		{rules: []string{"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH"}, want: "毎年11月の第4木曜日"},
		{rules: []string{"FREQ=DAILY;INTERVAL=3;UNTIL=20271231"}, want: "3日ごと、2027年12月31日まで"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU"}, extra: 2, excluded: 1, want: "毎週火曜日、ほか2日、1日を除く"},
		{rules: []string{"FREQ=YEARLY;BYYEARDAY=100"}, want: "カスタムルールで繰り返し"},
		{rules: []string{"FREQ=WEEKLY;BYDAY=TU", "FREQ=MONTHLY;BYDAY=1FR"}, want: "毎週火曜日; 毎月第1金曜日"},
	})
}

// malformed are rules that must get the generic sentence: broken syntax,
// values out of range, parts this package does not say.
var malformed = []string{
	"", "FREQ=", "BYDAY=ZZ", "FREQ=WEEKLY;INTERVAL=-3", "FREQ=MONTHLY;BYDAY=99TU",
	"FREQ=SOMETIMES", "FREQ=HOURLY", "FREQ=WEEKLY;INTERVAL=0", "FREQ=WEEKLY;INTERVAL=x",
	"FREQ=WEEKLY;COUNT=0", "FREQ=WEEKLY;COUNT=-1", "FREQ=WEEKLY;COUNT=99999999999999999999",
	"FREQ=WEEKLY;BYDAY=", "FREQ=WEEKLY;BYDAY=MO,", "FREQ=WEEKLY;BYDAY=0MO", "FREQ=WEEKLY;BYDAY=+-1MO",
	"FREQ=WEEKLY;BYDAY=1MO", "FREQ=WEEKLY;BYDAY=M", "FREQ=WEEKLY;BYDAY=MOTU", "FREQ=WEEKLY;BYDAY",
	"FREQ=MONTHLY;BYMONTHDAY=0", "FREQ=MONTHLY;BYMONTHDAY=32", "FREQ=YEARLY;BYMONTH=13",
	"FREQ=DAILY;UNTIL=2027-12-31", "FREQ=DAILY;UNTIL=20271340", "FREQ=DAILY;COUNT=3;UNTIL=20271231",
	"FREQ=WEEKLY;FREQ=DAILY", "=WEEKLY", "FREQ=WEEKLY;BYWEEKNO=1", "FREQ=YEARLY;BYYEARDAY=100",
	"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6", "FREQ=MONTHLY;BYDAY=TU;BYMONTHDAY=13", "FREQ=DAILY;BYHOUR=9",
	"FREQ=MONTHLY;BYSETPOS=1", "\x00\xff;;=", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;X-FOO=1",
	"FREQ=DAILY;INTERVAL=3;BYDAY=MO", "FREQ=WEEKLY;BYMONTHDAY=1", "FREQ=MONTHLY;BYMONTH=1",
	"FREQ=YEARLY;BYDAY=MO;BYMONTH=1", "FREQ=MONTHLY;BYDAY=SA,SU;BYSETPOS=1", "FREQ=WEEKLY;WKST=XX",
}

func TestMalformedRulesGetTheCustomSentence(t *testing.T) {
	if len(malformed) < 30 {
		t.Fatalf("only %d malformed rules", len(malformed))
	}
	for _, tc := range []struct {
		msgs   messages
		format func(time.Time) string
	}{{enMessages, enDate}, {jaMessages, jaDate}} {
		want := tc.msgs["recurrence.text.custom"]["other"]
		for _, rule := range malformed {
			if got := Describe(newT(t, tc.msgs), []string{rule}, tuesday, 0, 0, tc.format); got != want {
				t.Errorf("Describe(%q) = %q, want %q", rule, got, want)
			}
		}
	}
}

func TestDescribeWithoutTOrFormat(t *testing.T) {
	if got := Describe(nil, []string{"FREQ=DAILY"}, tuesday, 1, 1, enDate); got != "" {
		t.Errorf("Describe with a nil T = %q, want \"\"", got)
	}
	got := Describe(newT(t, enMessages), []string{"FREQ=DAILY;UNTIL=20271231"}, time.Time{}, 0, 0, nil)
	if want := "Every day, until 2027-12-31"; got != want {
		t.Errorf("Describe with a nil untilFormat = %q, want %q", got, want)
	}
}

// TestMutatedRulesDoNotPanic feeds random mutations of valid rules: every
// one must give a sentence of known messages (newT fails on an unknown
// id), whatever it says.
func TestMutatedRulesDoNotPanic(t *testing.T) {
	seeds := []string{
		"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;UNTIL=20271231T235959Z",
		"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
		"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;COUNT=3",
		"FREQ=MONTHLY;BYMONTHDAY=-1,1,15",
	}
	alphabet := "=;,+-0123456789TZ" + strings.Join(dayCodes[:], "")
	rng := rand.New(rand.NewPCG(1, 2))
	tr := newT(t, enMessages)
	for i := range 5000 {
		b := []byte(seeds[i%len(seeds)])
		for range 1 + rng.IntN(4) {
			p := rng.IntN(len(b))
			switch rng.IntN(3) {
			case 0:
				b[p] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				b = slices.Delete(b, p, p+1)
			default:
				b = slices.Insert(b, p, alphabet[rng.IntN(len(alphabet))])
			}
			if len(b) == 0 {
				break
			}
		}
		if got := Describe(tr, []string{string(b)}, tuesday, 0, 0, enDate); got == "" || strings.Contains(got, "!") {
			t.Fatalf("Describe(%q) = %q", b, got)
		}
	}
}

// FuzzDescribe checks that no rule text panics or renders an empty
// sentence; `go test` runs its seed corpus.
func FuzzDescribe(f *testing.F) {
	for _, r := range malformed {
		f.Add(r)
	}
	f.Add("FREQ=MONTHLY;BYDAY=2TU;UNTIL=20271231")
	f.Fuzz(func(t *testing.T, rule string) {
		if got := Describe(newT(t, enMessages), []string{rule}, tuesday, 1, 1, enDate); got == "" {
			t.Errorf("Describe(%q) is empty", rule)
		}
	})
}

var placeholderRE = regexp.MustCompile(`\{\{\s*\.([A-Za-z_]\w*)\s*\}\}`)

func placeholders(s string) string {
	var names []string
	for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return strings.Join(slices.Compact(names), ",")
}

// TestMessageCopiesAgree keeps the English and Japanese copies in step:
// the same ids, the same placeholders in every form, and "one" and
// "other" in English plurals.
func TestMessageCopiesAgree(t *testing.T) {
	for id, en := range enMessages {
		ja, ok := jaMessages[id]
		if !ok {
			t.Errorf("ja: no message %q", id)
			continue
		}
		if _, plural := en["one"]; plural && en["other"] == "" {
			t.Errorf("en: plural %q needs other", id)
		}
		want := placeholders(en["other"])
		for lang, forms := range map[string]map[string]string{"en": en, "ja": ja} {
			for form, s := range forms {
				if placeholders(s) != want {
					t.Errorf("%s %q (%s) uses placeholders %q, English %q", lang, id, form, placeholders(s), want)
				}
			}
		}
	}
	for id := range jaMessages {
		if _, ok := enMessages[id]; !ok {
			t.Errorf("ja: %q is not an English message", id)
		}
	}
}
