package respcache

import (
	"container/list"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestBytesCountWhatEntriesCost fills a cache with answers built as the
// handler builds them and compares what Bytes counts with what the heap
// grew by: the byte bound must bound the memory the cache really holds
// (bodies rounded up by the allocator, keys, headers, the list and the
// map), not only the bodies' lengths.
func TestBytesCountWhatEntriesCost(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, minBody int
		spread     int
	}{
		// Many small answers (single events, term lists, 404-free
		// lookups): here the fixed costs of an entry weigh most.
		{"small answers", 4000, 200, 3000},
		// Large lists and pages, whose bodies the allocator rounds up to
		// whole pages.
		{"large answers", 150, 33 << 10, 300 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res fasthttp.Response
			res.SetBody(make([]byte, tc.minBody+tc.spread)) // the response's own buffer, before the count
			headers := [][2]string{
				{"Content-Type", "application/json; charset=utf-8"}, {"Cache-Control", "public, max-age=0, must-revalidate"},
				{"Vary", "Accept-Language, Origin"}, {"X-WP-Total", "12345"}, {"X-WP-TotalPages", "247"},
				{"Link", `<https://example.org/cal/events/v1/events?page=2>; rel="next"`},
				{"ETag", `"0123456789abcdef01234567"`},
			}
			body := []byte(strings.Repeat("東京の夜のジャズ、Café ", (tc.minBody+tc.spread)/20+1))
			keys := make([]string, tc.n) // made before the count: the handler's key is made per request anyway
			for i := range keys {
				keys[i] = fmt.Sprintf("/cal/events/v1/events?end_date=2027-%02d-01&page=%d&per_page=50&search=音楽会%d&start_date=2026-11-%02d\x00ja\x00",
					1+i%12, 1+i%7, i, 1+i%28)
			}
			rc := &Cache{maxBytes: 1 << 40, lru: list.New(), byKey: map[string]*list.Element{}}
			expires := time.Now().Add(time.Hour)
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for i := range tc.n {
				res.ResetBody()
				res.Header.Reset()
				res.SetStatusCode(200)
				for _, h := range headers {
					res.Header.Set(h[0], h[1])
				}
				res.Header.Set("X-WP-Total", strconv.Itoa(i))
				res.SetBody(body[:tc.minBody+(i*7919)%tc.spread])
				rc.put(newEntry(keys[i], 0, expires, &res))
			}
			runtime.GC()
			runtime.ReadMemStats(&m1)
			grew := float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
			counted := rc.Bytes()
			runtime.KeepAlive(rc)
			runtime.KeepAlive(keys)
			if rc.lru.Len() != tc.n {
				t.Fatalf("%d entries held, want %d", rc.lru.Len(), tc.n)
			}
			ratio := float64(counted) / grew
			t.Logf("%d entries: counted %d bytes, the heap grew by %.0f (%.3f)", tc.n, counted, grew, ratio)
			// Counting less than the heap holds lets the cache exceed its
			// bound; counting much more wastes it.
			if ratio < 0.95 || ratio > 1.15 {
				t.Errorf("Bytes counts %d, but the entries take %.0f bytes of heap (ratio %.3f, want 0.95–1.15)", counted, grew, ratio)
			}
		})
	}
}

// TestAllocSize checks the rounding against the allocator: a slice of n
// bytes made by append gets the capacity of its size class or pages.
func TestAllocSize(t *testing.T) {
	for _, n := range []int{1, 7, 9, 100, 1000, 1025, 4097, 32768, 32769, 100000, 1 << 20} {
		b := append([]byte(nil), make([]byte, n)...)
		if got := AllocSize(n); got != int64(cap(b)) {
			t.Errorf("AllocSize(%d) = %d, the allocator gives %d", n, got, cap(b))
		}
	}
	if AllocSize(0) != 0 {
		t.Error("AllocSize(0) is not 0")
	}
}

// TestChargeSharesTheBudget: bytes charged by a cache sharing the budget
// push answers out, and what cannot be made room for is reported.
func TestChargeSharesTheBudget(t *testing.T) {
	var res fasthttp.Response
	rc := &Cache{maxBytes: 100 << 10, lru: list.New(), byKey: map[string]*list.Element{}}
	expires := time.Now().Add(time.Hour)
	for i := range 8 {
		res.SetBody(make([]byte, 10<<10))
		rc.put(newEntry("/k"+strconv.Itoa(i), 0, expires, &res))
	}
	if rc.lru.Len() != 8 {
		t.Fatalf("%d answers held, want 8", rc.lru.Len())
	}
	if over := rc.Charge(50 << 10); over != 0 || rc.Bytes() > rc.maxBytes || rc.lru.Len() >= 8 {
		t.Errorf("after charging 50 kB: over %d, %d bytes, %d answers", over, rc.Bytes(), rc.lru.Len())
	}
	if over := rc.Charge(80 << 10); over != 30<<10 || rc.lru.Len() != 0 {
		t.Errorf("after charging 130 kB of 100: over %d, %d answers", over, rc.lru.Len())
	}
	if over := rc.Charge(-130 << 10); over != 0 || rc.Bytes() != 0 {
		t.Errorf("after freeing all: over %d, %d bytes", over, rc.Bytes())
	}
}
