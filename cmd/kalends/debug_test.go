package main

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"
)

// TestMemoryLimitFollowsTheCache: serve sets Go's soft memory limit to the
// cache's bound plus the headroom (the bench's cache fill step measured
// RssAnon 175 MB without it, 129 MB with it, at the default 64 MB), leaves
// it alone when GOMEMLIMIT is set or the cache is off, and puts the old
// limit back when it ends.
func TestMemoryLimitFollowsTheCache(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	before := debug.SetMemoryLimit(-1)
	t.Setenv("GOMEMLIMIT", "")
	restore := limitMemory(&Config{CacheSize: 64 << 20}, quiet)
	if got := debug.SetMemoryLimit(-1); got != 64<<20+memoryHeadroom {
		t.Errorf("with a 64 MB cache the limit is %d, want %d", got, 64<<20+memoryHeadroom)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after serve the limit is %d, want the old %d", got, before)
	}
	limitMemory(&Config{CacheSize: 0}, quiet)()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("with the cache off the limit became %d", got)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = limitMemory(&Config{CacheSize: 64 << 20}, quiet)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("GOMEMLIMIT is set, but the limit became %d", got)
	}
	restore()
}
