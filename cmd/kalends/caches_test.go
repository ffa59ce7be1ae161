package main

import (
	"path/filepath"
	"testing"

	"github.com/kalends/kalends/models"
)

// TestCachesShareOneBudget: the response cache, the parts cache and the
// words' lists of searches stay within --cache-size together;
// --cache-answers=false gives the answers' share to the parts;
// --cache-size 0 turns all three off.
func TestCachesShareOneBudget(t *testing.T) {
	site := models.DefaultSite()
	db, err := models.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "caches.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	for _, tt := range []struct {
		size          int64
		answersOff    bool
		answers       bool
		parts         bool
		answersBudget int64
		partsBudget   int64
		listsBudget   int64
	}{
		{64 << 20, false, true, true, 40 << 20, 16 << 20, 8 << 20},
		{64 << 20, true, false, true, 0, 56 << 20, 8 << 20},
		{0, false, false, false, 0, 0, 0},
		{0, true, false, false, 0, 0, 0},
	} {
		cfg := &Config{CacheSize: tt.size, CacheAnswersOff: tt.answersOff, CacheCheck: 1}
		answers, parts := caches(nil, db, site, cfg)
		if (answers != nil) != tt.answers || (parts != nil) != tt.parts {
			t.Errorf("size %d, answers off %v: answers %v, parts %v", tt.size, tt.answersOff, answers != nil, parts != nil)
			continue
		}
		if answers != nil && answers.MaxBytes() != tt.answersBudget {
			t.Errorf("size %d, answers off %v: answers get %d bytes, want %d", tt.size, tt.answersOff, answers.MaxBytes(), tt.answersBudget)
		}
		if parts != nil && parts.MaxBytes() != tt.partsBudget {
			t.Errorf("size %d, answers off %v: parts get %d bytes, want %d", tt.size, tt.answersOff, parts.MaxBytes(), tt.partsBudget)
		}
		if got := db.SearchListStats().MaxBytes; got != tt.listsBudget {
			t.Errorf("size %d, answers off %v: search lists get %d bytes, want %d", tt.size, tt.answersOff, got, tt.listsBudget)
		}
	}
}
