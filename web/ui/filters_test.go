package ui

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

func TestParseEventFilter(t *testing.T) {
	t.Parallel()
	args := map[string]string{"categories": "12, 音楽,,", "tags": "café", "venue": "3,4", "organizer": "7",
		"search": "  東京 コンサート  "}
	var f models.EventFilter
	if err := ParseEventFilter(func(k string) string { return args[k] }, &f); err != nil {
		t.Fatal(err)
	}
	want := models.EventFilter{Categories: []models.TermRef{{ID: 12}, {Name: "音楽"}}, Tags: []models.TermRef{{Name: "café"}},
		VenueIDs: []int64{3, 4}, OrganizerIDs: []int64{7}, Search: []string{"東京", "コンサート"}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
	for _, bad := range [][2]string{{"venue", "abc"}, {"organizer", "0"}, {"venue", "1,-2"}, {"search", strings.Repeat("é", models.MaxSearchLen+1)}} {
		arg, v := bad[0], bad[1]
		var fe *FilterError
		err := ParseEventFilter(func(n string) string {
			if n == arg {
				return v
			}
			return ""
		}, &models.EventFilter{})
		if !errors.As(err, &fe) || fe.Arg != arg {
			t.Errorf("%s=%.20q: %v, want a FilterError of %s", arg, v, err, arg)
		}
	}
	if err := ParseEventFilter(func(n string) string {
		if n == "search" {
			return strings.Repeat("é", models.MaxSearchLen)
		}
		return ""
	}, &models.EventFilter{}); err != nil {
		t.Errorf("a search of the longest length: %v", err)
	}
}
