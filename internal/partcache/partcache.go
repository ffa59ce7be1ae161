// Package partcache keeps the rendered JSON of single records (an event
// with its venue, organizers and terms; a venue; a term…), so that a list
// is assembled from ready parts instead of shaping every record on every
// request. It forgets everything when the site's data changes on any
// instance, as the response cache does (internal/respcache).
package partcache

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/kalends/kalends/internal/cachegen"
)

// Key names one part: the record, and everything its bytes depend on
// besides the record's own data (which the generation stands for).
type Key struct {
	// Shape is the caller's own name of what is rendered ("event",
	// "event/single", "venue"…): one record has several shapes.
	Shape string
	ID    int64
	// Lang is the language the record is read in, Prefix the language
	// path prefix its links keep ("" or "/ja").
	Lang, Prefix string
	// Reader stands for what the reader may see of linked records (""
	// for what anyone may read).
	Reader string
}

// Cache holds parts in memory, bounded in bytes (least recently used first
// out). A part is served only while the cache generation is the one it was
// made under: every write moves the generation in its transaction, so a
// write on any instance makes every instance's parts stale; each instance
// reads the generation at most every check (and at once after a write of
// its own, see Wrote). Parts do not depend on the clock.
//
// A nil *Cache is a cache that holds nothing.
type Cache struct {
	maxBytes int64
	watch    *cachegen.Watch

	mu    sync.Mutex
	gen   int64      // the generation the parts held were made under
	lru   *list.List // of *entry, most recent first
	byKey map[Key]*list.Element
	bytes int64
}

type entry struct {
	key  Key
	gen  int64
	body []byte
	sum  [sha256.Size]byte // of body: an answer of parts hashes these, not the parts again
}

// entryOverhead is what an entry costs besides its strings and body: the
// entry, its list element, its map slot (key and pointer, with the map's
// own slack) and the allocator's rounding, measured with testing's
// allocation counts (see TestEntryCost).
const entryOverhead = 416

func (e *entry) size() int64 {
	return int64(entryOverhead + len(e.key.Shape) + len(e.key.Lang) + len(e.key.Prefix) + len(e.key.Reader) + cap(e.body))
}

// New returns a cache of at most maxBytes that reads the generation
// through w (the one Watch of the instance, shared with its response
// cache); nil when maxBytes is 0 (no cache).
func New(w *cachegen.Watch, maxBytes int64) *Cache {
	if maxBytes <= 0 {
		return nil
	}
	return &Cache{maxBytes: maxBytes, watch: w, lru: list.New(), byKey: map[Key]*list.Element{}}
}

// Bytes is the size of what the cache holds.
func (c *Cache) Bytes() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is the number of parts the cache holds.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Generation returns the current generation, reading it from the database
// when the last read is older than the check interval, and false when
// parts may not be used (no cache, or the generation could not be read).
// Parts are read and put under the generation it returns.
func (c *Cache) Generation(ctx context.Context) (int64, bool) {
	g, _, ok := c.GenerationHead(ctx)
	return g, ok
}

// GenerationHead is Generation with the change feed's head read with that
// generation (cachegen.Watch.Head): the cursor a list made of parts may
// carry, since every part of the generation holds the changes up to it.
func (c *Cache) GenerationHead(ctx context.Context) (gen, head int64, ok bool) {
	if c == nil {
		return 0, 0, false
	}
	gen, head, ok = c.watch.CurrentHead(ctx, time.Now())
	if !ok {
		return 0, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		c.lru.Init()
		c.byKey = map[Key]*list.Element{}
		c.bytes = 0
		c.gen = gen
	}
	return gen, head, true
}

// Wrote makes the next Generation read the database (a write of this
// instance just moved it).
func (c *Cache) Wrote() {
	if c == nil {
		return
	}
	c.watch.Wrote()
}

// Get returns the part of k made under gen, or nil. The bytes are shared:
// the caller must not change them.
func (c *Cache) Get(k Key, gen int64) []byte {
	b, _ := c.GetSum(k, gen)
	return b
}

// GetSum is Get with the SHA-256 of the part's bytes.
func (c *Cache) GetSum(k Key, gen int64) ([]byte, [sha256.Size]byte) {
	if c == nil {
		return nil, [sha256.Size]byte{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, [sha256.Size]byte{}
	}
	e := el.Value.(*entry)
	if e.gen != gen {
		c.remove(el)
		return nil, [sha256.Size]byte{}
	}
	c.lru.MoveToFront(el)
	return e.body, e.sum
}

// Put keeps a copy of body as the part of k made under gen, unless the
// generation has moved on since, and returns the SHA-256 of body.
func (c *Cache) Put(k Key, gen int64, body []byte) [sha256.Size]byte {
	sum := sha256.Sum256(body)
	if c == nil {
		return sum
	}
	e := &entry{key: k, gen: gen, body: append(make([]byte, 0, len(body)), body...), sum: sum}
	size := e.size()
	if size > c.maxBytes/16 { // one part may not push out most of the others
		return sum
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen { // made under a generation that has moved on
		return sum
	}
	if el, ok := c.byKey[k]; ok {
		c.remove(el)
	}
	c.byKey[k] = c.lru.PushFront(e)
	c.bytes += size
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
	return sum
}

func (c *Cache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*entry)
	delete(c.byKey, e.key)
	c.bytes -= e.size()
}

// MaxBytes is the most the cache holds.
func (c *Cache) MaxBytes() int64 {
	if c == nil {
		return 0
	}
	return c.maxBytes
}
