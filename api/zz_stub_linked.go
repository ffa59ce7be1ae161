package api

import (
	"errors"
	"strconv"
	"time"
)

// Temporary: until the apicore date parser lands on main.
func linkedParseDate(s string, loc *time.Location, now time.Time) (time.Time, error) {
	for _, f := range []string{time.DateTime, "2006-01-02 15:04", time.DateOnly, "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(f, s, loc); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	if s == "now" {
		return now, nil
	}
	return time.Time{}, errors.New("bad date")
}
