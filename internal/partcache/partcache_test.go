package partcache

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/cachegen"
)

// gens is a database whose generation the test moves.
type gens struct {
	gen   atomic.Int64
	fail  atomic.Bool
	reads atomic.Int64
}

func (g *gens) CacheGeneration(context.Context) (int64, error) {
	g.reads.Add(1)
	if g.fail.Load() {
		return 0, errors.New("no database")
	}
	return g.gen.Load(), nil
}

func TestPartsLiveUntilTheGenerationMoves(t *testing.T) {
	db := &gens{}
	db.gen.Store(7)
	c := New(cachegen.New(db, time.Hour), 1<<20)
	ctx := context.Background()
	gen, ok := c.Generation(ctx)
	if !ok || gen != 7 {
		t.Fatalf("generation %d %v", gen, ok)
	}
	k := Key{Shape: "event", ID: 1, Lang: "ja", Prefix: "/ja"}
	c.Put(k, gen, []byte(`{"title":"夏祭り"}`))
	if got := c.Get(k, gen); string(got) != `{"title":"夏祭り"}` {
		t.Fatalf("get: %q", got)
	}
	for _, other := range []Key{{Shape: "event", ID: 1, Lang: "ja"}, {Shape: "event", ID: 1, Lang: "ja", Prefix: "/ja", Reader: "3/editor"},
		{Shape: "event/single", ID: 1, Lang: "ja", Prefix: "/ja"}, {Shape: "event", ID: 2, Lang: "ja", Prefix: "/ja"}} {
		if got := c.Get(other, gen); got != nil {
			t.Errorf("%+v answers with the part of %+v", other, k)
		}
	}

	// Another instance writes: within the check interval the old
	// generation holds; once this instance wrote (or the interval passed)
	// it reads the new one, and every part made before is gone.
	db.gen.Store(8)
	if gen, _ := c.Generation(ctx); gen != 7 {
		t.Fatalf("read the generation again within the interval: %d", gen)
	}
	c.Wrote()
	gen, _ = c.Generation(ctx)
	if gen != 8 || c.Get(k, gen) != nil || c.Len() != 0 || c.Bytes() != 0 {
		t.Fatalf("after a write: gen %d, part %q, %d parts, %d bytes", gen, c.Get(k, gen), c.Len(), c.Bytes())
	}
	// A part made under the old generation (a request that read before
	// the write) is not kept.
	c.Put(k, 7, []byte(`{"title":"old"}`))
	if c.Len() != 0 {
		t.Fatal("a part of the old generation was kept")
	}

	// A failed read: no parts until a read succeeds.
	db.fail.Store(true)
	c.Wrote()
	if _, ok := c.Generation(ctx); ok {
		t.Fatal("parts in use without a generation")
	}
}

func TestPartsStayWithinTheirBytes(t *testing.T) {
	db := &gens{}
	const max = 64 << 10
	c := New(cachegen.New(db, time.Hour), max)
	gen, _ := c.Generation(context.Background())
	body := make([]byte, 1000)
	for i := range 500 {
		c.Put(Key{Shape: "event", ID: int64(i), Lang: "ko"}, gen, body)
		if b := c.Bytes(); b > max {
			t.Fatalf("after %d parts: %d bytes > %d", i+1, b, max)
		}
	}
	if c.Get(Key{Shape: "event", ID: 0, Lang: "ko"}, gen) != nil || c.Get(Key{Shape: "event", ID: 499, Lang: "ko"}, gen) == nil {
		t.Error("the least recently used parts should go first")
	}
	// One part larger than a sixteenth of the budget is not kept.
	c.Put(Key{Shape: "event", ID: 1000}, gen, make([]byte, max/8))
	if c.Get(Key{Shape: "event", ID: 1000}, gen) != nil {
		t.Error("a huge part was kept")
	}
}

func TestNilCacheHoldsNothing(t *testing.T) {
	var c *Cache
	if New(cachegen.New(&gens{}, time.Second), 0) != nil {
		t.Fatal("a cache of 0 bytes")
	}
	if _, ok := c.Generation(context.Background()); ok {
		t.Fatal("a nil cache gives a generation")
	}
	c.Put(Key{ID: 1}, 0, []byte("x"))
	c.Wrote()
	if c.Get(Key{ID: 1}, 0) != nil || c.Len() != 0 || c.Bytes() != 0 {
		t.Fatal("a nil cache holds something")
	}
}

// TestEntryCost: what an entry is counted for covers what it costs on the
// heap (entry, list element, map slot, key strings, body).
func TestEntryCost(t *testing.T) {
	const n = 20000
	db := &gens{}
	c := New(cachegen.New(db, time.Hour), 1<<40)
	gen, _ := c.Generation(context.Background())
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, `{"id":%d,"title":"Concert d'été"}`, i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		c.Put(Key{Shape: "event", ID: int64(i), Lang: "zh-hans", Prefix: "/zh-hans", Reader: fmt.Sprintf("%d/editor", i)}, gen, bodies[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	used := after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
	counted := c.Bytes()
	t.Logf("%d parts: %d bytes of heap, counted %d", n, used, counted)
	if used > uint64(counted) { //nolint:gosec // G115: a byte count, never negative.
		t.Errorf("%d parts use %d bytes of heap, counted %d (%d vs %d each)", n, used, counted, used/n, counted/n)
	}
	runtime.KeepAlive(bodies)
}
