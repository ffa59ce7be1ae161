package main

import (
	"testing"

	"github.com/kalends/kalends/models"
)

// TestCachesShareOneBudget: the response cache and the parts cache stay
// within --cache-size together; --cache-answers=false gives it all to the
// parts; --cache-size 0 turns both off.
func TestCachesShareOneBudget(t *testing.T) {
	site := models.DefaultSite()
	for _, tt := range []struct {
		size        int64
		answersOff  bool
		answers     bool
		parts       bool
		partsBudget int64
	}{
		{64 << 20, false, true, true, 16 << 20},
		{64 << 20, true, false, true, 64 << 20},
		{0, false, false, false, 0},
		{0, true, false, false, 0},
	} {
		cfg := &Config{CacheSize: tt.size, CacheAnswersOff: tt.answersOff, CacheCheck: 1}
		answers, parts := caches(nil, site, cfg)
		if (answers != nil) != tt.answers || (parts != nil) != tt.parts {
			t.Errorf("size %d, answers off %v: answers %v, parts %v", tt.size, tt.answersOff, answers != nil, parts != nil)
			continue
		}
		if parts != nil && parts.MaxBytes() != tt.partsBudget {
			t.Errorf("size %d, answers off %v: parts get %d bytes, want %d", tt.size, tt.answersOff, parts.MaxBytes(), tt.partsBudget)
		}
	}
}
