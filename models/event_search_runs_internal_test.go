package models

import (
	"slices"
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
