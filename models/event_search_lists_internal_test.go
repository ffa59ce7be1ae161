package models

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
)

// TestSearchListsCountWhatListsCost: the bytes the kept lists count are
// what they take on the heap (within 0.9–1.25 of its growth), for lists
// of words' events and of MySQL's hits, so the share of --cache-size they
// are given bounds the memory they hold; and past the bound the oldest
// go first.
func TestSearchListsCountWhatListsCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	const bound = 64 << 20
	c := newSearchLists(bound)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 3000 {
		n := 1 + rng.IntN(2000)
		key := "s\x00音楽" + strconv.Itoa(i) + "\x00-1 99999999999 true 0 3"
		if i%3 == 0 {
			hits := make([]searchHit, 0, n)
			for j := range n {
				hits = append(hits, searchHit{start: int64(j), id: int64(j), status: StatusPublish})
			}
			c.put(1, key, hits, listCost(key, searchHitSize*int64(cap(hits))))
			continue
		}
		evs := make([]int64, n)
		c.put(1, key, evs, listCost(key, 8*int64(cap(evs))))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	st := c.bytes
	if st <= 0 || st > bound {
		t.Fatalf("the lists count %d bytes, bound %d", st, bound)
	}
	t.Logf("ratio %.3f", grew/float64(st))
	if r := grew / float64(st); r < 0.9 || r > 1.25 {
		t.Errorf("the heap grew by %.0f bytes for %d counted: ratio %.2f, want 0.9–1.25", grew, st, r)
	}
	runtime.KeepAlive(c)

	// Past the bound: the least recently used lists go, the one just read
	// stays.
	small := newSearchLists(10_000)
	for i := range 20 {
		small.put(1, "k"+strconv.Itoa(i), make([]int64, 100), listCost("k"+strconv.Itoa(i), 800))
		if _, ok := small.get(1, "k0"); !ok {
			t.Fatalf("after %d lists, the list read each time was dropped", i+1)
		}
	}
	if small.bytes > 10_000 {
		t.Errorf("the lists count %d bytes past their bound of 10,000", small.bytes)
	}
	if _, ok := small.get(1, "k1"); ok {
		t.Error("the oldest list unread is still kept past the bound")
	}
	// Another generation: nothing kept is served.
	if _, ok := small.get(2, "k0"); ok {
		t.Error("a list kept under generation 1 was served under 2")
	}
	if _, ok := small.get(1, "k0"); ok {
		t.Error("a list of an older generation was served after a newer one was seen")
	}
}
