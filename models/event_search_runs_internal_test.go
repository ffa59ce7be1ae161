package models

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRunPiecesCutAtMarkup: a run is cut before each "<" and after each
// ">", nothing is lost, and a concatenation of two neighbouring pieces
// cuts back into those two (a pair of the vocabulary is never a piece).
func TestRunPiecesCutAtMarkup(t *testing.T) {
	for run, want := range map[string][]string{
		"jazz.":                 {"jazz."},
		"<p>jazz.</p><p>autumn": {"<p>", "jazz.", "</p>", "<p>", "autumn"},
		"a<b":                   {"a", "<b"},
		"x>y":                   {"x>", "y"},
		"<<p>>":                 {"<", "<p>", ">"},
		"><":                    {">", "<"},
		"<":                     {"<"},
		"재즈。<br>피아노":            {"재즈。", "<br>", "피아노"},
		"café<i>crème</i>":      {"café", "<i>", "crème", "</i>"},
	} {
		got := runPieces(run)
		if !slices.Equal(got, want) {
			t.Errorf("runPieces(%q) = %q, want %q", run, got, want)
		}
		if strings.Join(got, "") != run {
			t.Errorf("runPieces(%q) loses text: %q", run, got)
		}
		for i := 1; i < len(got); i++ {
			if pair := runPieces(got[i-1] + got[i]); !slices.Equal(pair, got[i-1:i+1]) {
				t.Errorf("pair %q of %q cuts into %q", got[i-1]+got[i], run, pair)
			}
		}
	}
	long := strings.Repeat("x", searchVocabMaxRun+1)
	for run, inVocab := range map[string]bool{
		"<b>" + long + "</b>":                   false, // a piece too long: trigrams
		"<p>" + strings.Repeat("ab</p><p>", 20): true,  // long run of short pieces
		"<p>音楽":                                 false, // unspaced script: trigrams
		"<p>" + strings.Repeat("y", searchVocabMaxRun) + "</p>": true,
	} {
		if got := vocabPieces(run) != nil; got != inVocab {
			t.Errorf("vocabPieces(%.20q…) in the vocabulary: %v, want %v", run, got, inVocab)
		}
	}
}

// TestEventsOfListReadsWhatSQLiteWrites: the prefixes group_concat writes
// come back sorted, once each, in key order or not, the largest a key
// holds included; anything else is an error, not a wrong list.
func TestEventsOfListReadsWhatSQLiteWrites(t *testing.T) {
	largest := int64(searchDayMax)<<searchEventBits | searchEventMask
	for list, want := range map[string][]int64{
		"":                   {},
		"7":                  {7},
		"3,3,5,9,9,9":        {3, 5, 9},
		"9,3,5,3":            {3, 5, 9},
		"0,1,1":              {0, 1},
		itoa(largest) + ",2": {2, largest},
	} {
		got, err := eventsOfList(list)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("eventsOfList(%q) = %v, %v; want %v", list, got, err, want)
		}
	}
	for _, bad := range []string{",", "1,", ",1", "1,,2", "-1", "1.5", "a", "1234567890123456789", "1 ,2"} {
		if got, err := eventsOfList(bad); err == nil {
			t.Errorf("eventsOfList(%q) = %v, want an error", bad, got)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
