package cachegen

import (
	"context"
	"errors"
	"testing"
	"time"
)

type source struct {
	gen   int64
	err   error
	reads int
}

func (s *source) CacheGeneration(context.Context) (int64, error) {
	s.reads++
	return s.gen, s.err
}

// The generation is read at most every check, at once after Wrote, and
// again after a failed read, which reports that nothing may be served.
func TestWatchReadsAtMostEveryCheck(t *testing.T) {
	ctx, src := context.Background(), &source{gen: 7}
	w := New(src, time.Second)
	t0 := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC)
	if g, ok := w.Current(ctx, t0); !ok || g != 7 || src.reads != 1 {
		t.Fatalf("first: %d %v, %d reads", g, ok, src.reads)
	}
	src.gen = 8
	if g, _ := w.Current(ctx, t0.Add(500*time.Millisecond)); g != 7 || src.reads != 1 {
		t.Errorf("within the interval: %d, %d reads; want the kept 7 and no read", g, src.reads)
	}
	if g, _ := w.Current(ctx, t0.Add(time.Second)); g != 8 || src.reads != 2 {
		t.Errorf("after the interval: %d, %d reads; want 8 read again", g, src.reads)
	}
	src.gen = 9
	w.Wrote()
	if g, _ := w.Current(ctx, t0.Add(time.Second)); g != 9 || src.reads != 3 {
		t.Errorf("after Wrote: %d, %d reads; want 9 read at once", g, src.reads)
	}
	src.err = errors.New("database gone")
	if _, ok := w.Current(ctx, t0.Add(3*time.Second)); ok {
		t.Error("a failed read reports a generation")
	}
	src.err = nil
	if g, ok := w.Current(ctx, t0.Add(3*time.Second)); !ok || g != 9 || src.reads != 5 {
		t.Errorf("after a failed read: %d %v, %d reads; want a new read", g, ok, src.reads)
	}
}
