package models

import (
	"errors"
	"time"
)

// DateForm tells how a date input was written.
// TEMPORARY stub (apicore): the real one comes from the terms branch in models/dates.go.
type DateForm struct{ DateOnly, Absolute bool }

// ParseDate is a TEMPORARY stub (apicore) accepting YYYY-MM-DD[ HH:MM[:SS]] only.
func ParseDate(s string, now time.Time, loc *time.Location) (time.Time, DateForm, error) {
	_ = now
	if loc == nil {
		loc = time.UTC
	}
	for _, l := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, DateForm{Absolute: true}, nil
		}
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, DateForm{DateOnly: true, Absolute: true}, nil
	}
	return time.Time{}, DateForm{}, errors.New("models: parse date: unsupported form")
}
