package eventcsv

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"
)

// DateOrder says how a date with the year last is read: month first
// (MDY, The Events Calendar's default, 05/03/2026 is May 3) or day first
// (DMY, --date-order dmy, 05-03-2026 is 5 March).
type DateOrder string

// Date orders.
const (
	MDY DateOrder = "mdy"
	DMY DateOrder = "dmy"
)

// Problem codes of a cell that cannot be read (the importer says them in
// the reader's language, with the row and column).
const (
	ProblemDateFormat    = "date_format"    // not a date in any form known here
	ProblemDateInvalid   = "date_invalid"   // no such day (2026-02-30, month 13)
	ProblemDateAmbiguous = "date_ambiguous" // the order does not settle it (a two-digit year)
	ProblemTimeFormat    = "time_format"    // not a time in any form known here
	ProblemTimeInvalid   = "time_invalid"   // no such time (25:00, 7:75, 午前13時)
)

// CellError is why a cell could not be read.
type CellError struct {
	Code  string
	Value string // the cell as written
}

func (p *CellError) Error() string { return fmt.Sprintf("eventcsv: %s: %q", p.Code, p.Value) }

// Date is a calendar day.
type Date struct{ Year, Month, Day int }

func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

var (
	yearFirst = regexp.MustCompile(`^(\d{4})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{1,2})$`)
	// 2026年5月3日 (Chinese and Japanese), 2026년 5월 3일 (Korean).
	yearFirstCJK = regexp.MustCompile(`^(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일号號]?$`)
	yearLast     = regexp.MustCompile(`^(\d{1,2})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{4})$`)
	shortYear    = regexp.MustCompile(`^(\d{1,2})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{2})$`)
)

// ParseDate reads a date cell: YYYY-MM-DD (or with / or .), 2026年5月3日,
// 2026년 5월 3일, and a year-last date in order (MM/DD/YYYY or, with DMY,
// DD-MM-YYYY). Full-width digits and separators count as ASCII. A
// two-digit year is ambiguous whatever the order.
func ParseDate(cell string, order DateOrder) (Date, *CellError) {
	s := strings.TrimSpace(norm.NFKC.String(cell))
	atoi := func(v string) int { n, _ := strconv.Atoi(v); return n }
	var d Date
	switch m := match(s, yearFirst, yearFirstCJK); {
	case m != nil:
		d = Date{atoi(m[1]), atoi(m[2]), atoi(m[3])}
	case yearLast.MatchString(s):
		m := yearLast.FindStringSubmatch(s)
		a, b := atoi(m[1]), atoi(m[2])
		if order == DMY {
			a, b = b, a
		}
		d = Date{atoi(m[3]), a, b}
	case shortYear.MatchString(s):
		return Date{}, &CellError{ProblemDateAmbiguous, cell}
	default:
		return Date{}, &CellError{ProblemDateFormat, cell}
	}
	t := time.Date(d.Year, time.Month(d.Month), d.Day, 0, 0, 0, 0, time.UTC)
	if d.Month < 1 || d.Month > 12 || d.Day < 1 || t.Day() != d.Day {
		return Date{}, &CellError{ProblemDateInvalid, cell}
	}
	return d, nil
}

func match(s string, res ...*regexp.Regexp) []string {
	for _, re := range res {
		if m := re.FindStringSubmatch(s); m != nil {
			return m
		}
	}
	return nil
}

// Clock is a time of day.
type Clock struct{ Hour, Minute int }

func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", c.Hour, c.Minute) }

// The words before or after a time that say morning or afternoon, in the
// four languages (lower case, after NFKC).
var (
	morning   = []string{"a.m.", "am", "午前", "上午", "早上", "凌晨", "오전"}
	afternoon = []string{"p.m.", "pm", "午後", "下午", "晚上", "中午", "오후"}
	// Hour and minute marks: 7時30分, 7点30分, 7시 30분, 7h30; 半 and 반 are
	// half past.
	clockRe = regexp.MustCompile(`^(\d{1,2})(?:\s*(?::|時|时|点|點|시|h)\s*(?:(\d{1,2})(?:\s*:\s*\d{2})?\s*(?:分|분)?|(半|반))?)?$`)
)

// ParseTime reads a time cell: 19:00, 19:00:00, 7:00 PM, 7pm, 午後7時,
// 午後7時30分, 下午7点, 下午7点半, 오후 7시, 오후 7시 30분, 19時. Seconds
// are dropped.
func ParseTime(cell string) (Clock, *CellError) {
	s := strings.ToLower(strings.TrimSpace(norm.NFKC.String(cell)))
	half := 0 // 0: no mark, 1: morning, 2: afternoon
	for mark, words := range [][]string{morning, afternoon} {
		for _, w := range words {
			if rest, ok := strings.CutPrefix(s, w); ok {
				s, half = strings.TrimSpace(rest), mark+1
			} else if rest, ok := strings.CutSuffix(s, w); ok {
				s, half = strings.TrimSpace(rest), mark+1
			}
			if half != 0 {
				break
			}
		}
		if half != 0 {
			break
		}
	}
	m := clockRe.FindStringSubmatch(s)
	if m == nil {
		return Clock{}, &CellError{ProblemTimeFormat, cell}
	}
	h, _ := strconv.Atoi(m[1])
	mins := 0
	switch {
	case m[2] != "":
		mins, _ = strconv.Atoi(m[2])
	case m[3] != "":
		mins = 30
	}
	switch half {
	case 1:
		if h > 12 {
			return Clock{}, &CellError{ProblemTimeInvalid, cell}
		}
		h %= 12
	case 2:
		if h > 12 && h < 24 {
			break // 午後13時: written as a 24-hour time anyway
		}
		if h > 12 {
			return Clock{}, &CellError{ProblemTimeInvalid, cell}
		}
		h = h%12 + 12
	}
	if h > 23 || mins > 59 {
		return Clock{}, &CellError{ProblemTimeInvalid, cell}
	}
	return Clock{h, mins}, nil
}
