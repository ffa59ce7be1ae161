package models

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// testNow is Sunday 2026-11-22 09:55:30.5 UTC, 04:55:30 in New York.
var testNow = time.Date(2026, 11, 22, 9, 55, 30, 500_000_000, time.UTC)

func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

func TestParseDateAcceptsEveryForm(t *testing.T) {
	t.Parallel()
	ny := mustLoc(t, "America/New_York")
	type want struct {
		local    string // wall clock in ny, or UTC for absolute forms
		dateOnly bool
		absolute bool
	}
	cases := []struct {
		in   string
		want want
	}{
		{"2027-03-10 09:00:00", want{"2027-03-10 09:00:00", false, false}},
		{"2027-03-10 09:00", want{"2027-03-10 09:00:00", false, false}},
		{"2027-03-10", want{"2027-03-10 00:00:00", true, false}},
		{"  2027-03-10  ", want{"2027-03-10 00:00:00", true, false}},
		{"2024-02-29", want{"2024-02-29 00:00:00", true, false}},
		{"2027-03-10T09:00:00", want{"2027-03-10 09:00:00", false, false}},
		{"2027-03-10t09:00", want{"2027-03-10 09:00:00", false, false}},
		{"2027-03-10T09:00:00Z", want{"2027-03-10 09:00:00", false, true}},
		{"2027-03-10T09:00:00z", want{"2027-03-10 09:00:00", false, true}},
		{"2027-03-10T09:00:00.123456789Z", want{"2027-03-10 09:00:00", false, true}},
		{"2027-03-10T09:00:00+02:00", want{"2027-03-10 07:00:00", false, true}},
		{"2027-03-10T09:00:00-0530", want{"2027-03-10 14:30:00", false, true}},
		{"2027-03-10T09:00:00+09", want{"2027-03-10 00:00:00", false, true}},
		{"1700000000", want{"2023-11-14 22:13:20", false, true}},
		{"@0", want{"1970-01-01 00:00:00", false, true}},
		{"now", want{"2026-11-22 04:55:30", false, false}},
		{"NOW", want{"2026-11-22 04:55:30", false, false}},
		{"today", want{"2026-11-22 00:00:00", true, false}},
		{"Tomorrow", want{"2026-11-23 00:00:00", true, false}},
		{"yesterday", want{"2026-11-21 00:00:00", true, false}},
		{"tomorrow 9am", want{"2026-11-23 09:00:00", false, false}},
		{"tomorrow 12am", want{"2026-11-23 00:00:00", false, false}},
		{"tomorrow 12pm", want{"2026-11-23 12:00:00", false, false}},
		{"today 5:30pm", want{"2026-11-22 17:30:00", false, false}},
		{"today 11:59:59PM", want{"2026-11-22 23:59:59", false, false}},
		{"yesterday 23:59", want{"2026-11-21 23:59:00", false, false}},
		{"yesterday   23:59:07", want{"2026-11-21 23:59:07", false, false}},
		{"now 9am", want{"2026-11-22 09:00:00", false, false}},
		{"next monday", want{"2026-11-23 00:00:00", true, false}},
		{"next sunday", want{"2026-11-29 00:00:00", true, false}}, // today is Sunday: the next one
		{"last sunday", want{"2026-11-15 00:00:00", true, false}},
		{"last friday", want{"2026-11-20 00:00:00", true, false}},
		{"next wednesday 16:00", want{"2026-11-25 16:00:00", false, false}},
		{"Next Wed 4pm", want{"2026-11-25 16:00:00", false, false}},
		{"+5 days", want{"2026-11-27 04:55:30", false, false}},
		{"+5 days 11am", want{"2026-11-27 11:00:00", false, false}},
		{"+1 day", want{"2026-11-23 04:55:30", false, false}},
		{"-2 weeks", want{"2026-11-08 04:55:30", false, false}},
		{"+90 minutes", want{"2026-11-22 06:25:30", false, false}},
		{"+1 minute", want{"2026-11-22 04:56:30", false, false}},
		{"-3 hours", want{"2026-11-22 01:55:30", false, false}},
		{"+1 month", want{"2026-12-22 04:55:30", false, false}},
		{"+2 years", want{"2028-11-22 04:55:30", false, false}},
		{"+1 year 9:05am", want{"2027-11-22 09:05:00", false, false}},
		{"+0 days", want{"2026-11-22 04:55:30", false, false}},
		{"+7000 years", want{"9026-11-22 04:55:30", false, false}},
		{"+4000000 minutes", want{"2034-07-01 00:35:30", false, false}},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, form, err := ParseDate(c.in, testNow, ny)
			if err != nil {
				t.Fatalf("ParseDate(%q): %v", c.in, err)
			}
			if form.DateOnly != c.want.dateOnly || form.Absolute != c.want.absolute {
				t.Errorf("form = %+v, want DateOnly=%v Absolute=%v", form, c.want.dateOnly, c.want.absolute)
			}
			wantLoc := ny
			if c.want.absolute {
				wantLoc = time.UTC
			}
			if got.Location() != wantLoc {
				t.Errorf("location = %v, want %v", got.Location(), wantLoc)
			}
			if s := got.In(wantLoc).Format("2006-01-02 15:04:05"); s != c.want.local {
				t.Errorf("got %s, want %s", s, c.want.local)
			}
		})
	}
}

func TestParseDateRejectsHostileInput(t *testing.T) {
	t.Parallel()
	ny := mustLoc(t, "America/New_York")
	cases := []string{
		"", "   ", "0000-00-00", "0000-00-00 00:00:00", "2027-13-01", "2027-00-10", "2027-02-30",
		"2026-02-29", "2027-04-31", "0999-12-31", "10000-01-01", "2027-3-10", "2027-03-10 24:00",
		"2027-03-10 23:60", "2027-03-10 23:59:60", "2027-03-10 9:00", "2027-03-10T09", "2027-03-10T09:00:00+19:00",
		"2027-03-10T09:00:00+05:60", "2027-03-10T09:00:00+5", "2027-03-10T09:00:00.Z", "2027-03-10T09:00:00.1234567890Z",
		"2027-03-10 09:00:00Z", "9999-12-31T23:00:00-05:00", "1000-01-01T00:00:00+05:00",
		"999999999999999999999", "253402300800", "1e9", "-1", "@", "@-5", "0x10",
		"tomorrow 9", "tomorrow 13pm", "tomorrow 0am", "tomorrow 25:00", "tomorrow 9am 10am", "tomorrow at 9am",
		"next", "next month", "next funday", "last", "+5", "+5 fortnights", "5 days", "+ 5 days", "+5 days ago",
		"+99999999999 days", "+9999999999 minutes", "+8000 years", "-2000 years", "+1e3 days", "++5 days",
		"+５ days", "２０２７-03-10", "2027-03-10\u00a009:00", "tomorrow\x00", "\xff\xfe", "today\xc3",
		strings.Repeat("9", 65), " " + strings.Repeat("1", 64), "now now", "yesterday tomorrow",
		"2027-03-10 09:00:00 +0200", "9999-12-31 23:00", "2027-03-10T09:00:00 Z", "Mon, 10 Mar 2027 09:00:00 GMT", "midnight", "noon",
	}
	for _, in := range cases {
		t.Run(in, func(t *testing.T) {
			got, _, err := ParseDate(in, testNow, ny)
			if err == nil {
				t.Fatalf("ParseDate(%q) = %v, want an error", in, got)
			}
			if !errors.Is(err, ErrBadDate) {
				t.Errorf("error %v does not wrap ErrBadDate", err)
			}
		})
	}
}

func TestParseDateResolvesDSTGapsForward(t *testing.T) {
	t.Parallel()
	ny := mustLoc(t, "America/New_York")
	cases := []struct {
		name, in string
		now      time.Time
		wantUTC  string
	}{
		// 2027-03-14 02:00 EST jumps to 03:00 EDT: 02:30 does not exist.
		{"gap date-time", "2027-03-14 02:30", testNow, "2027-03-14 07:30:00"},
		{"gap ISO", "2027-03-14T02:30:00", testNow, "2027-03-14 07:30:00"},
		{"before gap", "2027-03-14 01:59:59", testNow, "2027-03-14 06:59:59"},
		{"after gap", "2027-03-14 03:00", testNow, "2027-03-14 07:00:00"},
		// 2027-11-07 02:00 EDT falls back to 01:00 EST: 01:30 happens twice; the first wins.
		{"repeated hour", "2027-11-07 01:30", testNow, "2027-11-07 05:30:00"},
		{"relative into gap", "tomorrow 2:30am", time.Date(2027, 3, 13, 12, 0, 0, 0, time.UTC), "2027-03-14 07:30:00"},
		{"day across spring forward keeps wall clock", "+1 day", time.Date(2027, 3, 13, 17, 0, 0, 0, time.UTC), "2027-03-14 16:00:00"},
		{"hours across spring forward are exact", "+24 hours", time.Date(2027, 3, 13, 17, 0, 0, 0, time.UTC), "2027-03-14 17:00:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := ParseDate(c.in, c.now, ny)
			if err != nil {
				t.Fatal(err)
			}
			if s := got.UTC().Format("2006-01-02 15:04:05"); s != c.wantUTC {
				t.Errorf("ParseDate(%q) = %s UTC (%s), want %s UTC", c.in, s, got, c.wantUTC)
			}
		})
	}
	// A zone whose midnight falls into a gap: Sao Paulo 2018-11-04 00:00 became 01:00.
	sp := mustLoc(t, "America/Sao_Paulo")
	got, form, err := ParseDate("2018-11-04", testNow, sp)
	if err != nil || !form.DateOnly || got.Format("2006-01-02 15:04") != "2018-11-04 01:00" {
		t.Errorf("midnight in a gap: %v %+v %v, want 2018-11-04 01:00 local", got, form, err)
	}
}

func TestParseDateNilLocationIsUTC(t *testing.T) {
	t.Parallel()
	got, _, err := ParseDate("2027-03-10 09:00", testNow, nil)
	if err != nil || !got.Equal(time.Date(2027, 3, 10, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("got %v, %v", got, err)
	}
}

// FuzzParseDate: no input panics, and every accepted value, formatted back
// (RFC 3339 in UTC for absolute forms, wall clock in loc otherwise),
// parses to the same instant.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{
		"2027-03-10 09:00:00", "2027-03-10", "2027-03-10T09:00:00.5+02:00", "1700000000", "@0",
		"tomorrow 9am", "next wednesday 16:00", "+5 days 11am", "-3 hours", "last fri", "2027-03-14 02:30",
		"2027-11-07 01:30", "+7000 years", "0000-00-00", "\xff",
	} {
		f.Add(s)
	}
	locs := []*time.Location{time.UTC, mustLoc(f, "America/New_York"), mustLoc(f, "Asia/Tokyo"), mustLoc(f, "Australia/Lord_Howe")}
	f.Fuzz(func(t *testing.T, s string) {
		for _, loc := range locs {
			got, form, err := ParseDate(s, testNow, loc)
			if err != nil {
				continue
			}
			var again string
			if form.Absolute {
				again = got.UTC().Format(time.RFC3339Nano)
			} else {
				again = got.In(loc).Format("2006-01-02T15:04:05.999999999")
			}
			back, _, err := ParseDate(again, testNow, loc)
			if err != nil {
				t.Fatalf("%q in %v: %v re-formatted as %q does not parse: %v", s, loc, got, again, err)
			}
			if !back.Equal(got) {
				t.Fatalf("%q in %v: %v re-formatted as %q parses to %v", s, loc, got, again, back)
			}
		}
	})
}
