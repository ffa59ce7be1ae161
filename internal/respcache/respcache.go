// Package respcache keeps the answers of anonymous GET requests in memory,
// for the API and the public pages and feeds alike (one byte budget), and
// forgets them when the site's data changes on any instance.
package respcache

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/models"
)

// Cache keeps the answers of anonymous GETs in memory, bounded in
// bytes (least recently used first out). An entry is served only while
//
//   - the database's cache generation is the one it was made under: every
//     write moves the generation in its transaction (models.CacheGeneration),
//     so a write on any instance makes every instance's entries stale; each
//     instance reads the generation at most every Check (and at once after a
//     write of its own);
//   - the site day it was made on lasts: the only clock an answer depends on
//     is the default list window (yesterday midnight to 24 months ahead, in
//     the site zone); requests whose dates are relative ("now", "+1 week")
//     and lists of venues or organizers with upcoming events
//     (only_with_upcoming, which compares with now) are not cached at all.
//
// Requests that carry credentials (Authorization, the session cookie,
// X-WP-Nonce) are never cached nor answered from the cache.
type Cache struct {
	site     *models.Site
	maxBytes int64
	watch    *cachegen.Watch

	mu      sync.Mutex
	gen     int64      // the generation the answers held were made under
	lru     *list.List // of *cacheEntry, most recent first
	byKey   map[string]*list.Element
	bytes   int64 // what the answers cost (entrySize), plus charged
	charged int64 // what caches sharing the budget hold (Charge)
}

type cacheEntry struct {
	key     string
	gen     int64
	expires time.Time
	status  int
	headers [][2]string
	body    []byte
}

// size is what the entry costs in memory, as the allocator counts it: the
// body's capacity (not its length), the key, the header strings and their
// slice, the entry itself, its list element and its slot in the map. An
// answer of 300 kB costs about its length, but a cache of many small
// answers costs far more than their bodies, and a bound that ignores it
// is a bound on a fraction of what the cache holds.
func (e *cacheEntry) size() int64 {
	n := entryFixed + AllocSize(len(e.key)) + AllocSize(cap(e.body)) + AllocSize(cap(e.headers)*int(unsafe.Sizeof([2]string{})))
	for _, h := range e.headers {
		n += AllocSize(len(h[0])) + AllocSize(len(h[1]))
	}
	return n
}

// entryFixed is what every entry costs beside its strings and body: the
// entry, its list element and its slot in byKey (a string key and a
// pointer, at a swiss map's load, counted high).
var entryFixed = AllocSize(int(unsafe.Sizeof(cacheEntry{}))) + AllocSize(int(unsafe.Sizeof(list.Element{}))) + 64

// New returns a cache of at most maxBytes that reads the generation
// through w; nil when maxBytes is 0 (no cache). Give every cache of an
// instance the same Watch: an answer is stored under the generation this
// cache read, and the parts and the site's identity it was built from must
// not have been read under an older one.
func New(w *cachegen.Watch, site *models.Site, maxBytes int64) *Cache {
	if maxBytes <= 0 {
		return nil
	}
	return &Cache{site: site, maxBytes: maxBytes, watch: w, lru: list.New(), byKey: map[string]*list.Element{}}
}

// Bytes is the size of what the cache holds (with what was charged to
// its budget).
func (rc *Cache) Bytes() int64 {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.bytes
}

// MaxBytes is the cache's bound (--cache-size).
func (rc *Cache) MaxBytes() int64 { return rc.maxBytes }

// Charge counts n more bytes (fewer when negative) that another cache
// sharing this one's budget holds, and evicts answers, least recently used
// first, until the sum fits again. It returns by how much the sum is still
// above the bound once no answer is left (0 when it fits): the other cache
// must then free that much of its own. Count n as the allocator does
// (AllocSize of each allocation, and the slots that hold them).
func (rc *Cache) Charge(n int64) (over int64) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.charged += n
	rc.bytes += n
	held.bytes.Add(n)
	rc.evict()
	return max(rc.bytes-rc.maxBytes, 0)
}

// held is what every cache of the process holds, for the debug listener
// (Held).
var held struct{ bytes, entries atomic.Int64 }

// Held reports what the response caches of this process hold: bytes (as
// Bytes counts them) and answers.
func Held() (bytes, entries int64) { return held.bytes.Load(), held.entries.Load() }

// generation returns the current generation, reading it from the database
// when the last read is older than the check interval. A failed read
// empties the cache's view: nothing is served until a read succeeds.
func (rc *Cache) generation(ctx context.Context, now time.Time) (int64, bool) {
	g, ok := rc.watch.Current(ctx, now)
	if !ok {
		return 0, false
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if g != rc.gen {
		held.bytes.Add(-(rc.bytes - rc.charged))
		held.entries.Add(-int64(rc.lru.Len()))
		rc.lru.Init()
		rc.byKey = map[string]*list.Element{}
		rc.bytes = rc.charged
		rc.gen = g
	}
	return g, true
}

// Wrote makes the next request read the generation (a write of this
// instance just moved it).
func (rc *Cache) Wrote() { rc.watch.Wrote() }

func (rc *Cache) get(key string, gen int64, now time.Time) *cacheEntry {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	el, ok := rc.byKey[key]
	if !ok {
		return nil
	}
	e := el.Value.(*cacheEntry)
	if e.gen != gen || !now.Before(e.expires) {
		rc.remove(el)
		return nil
	}
	rc.lru.MoveToFront(el)
	return e
}

func (rc *Cache) put(e *cacheEntry) {
	size := e.size()
	if size > rc.maxBytes/4 { // one answer may not push out most of the others
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if e.gen != rc.gen { // made under a generation that has moved on
		return
	}
	if el, ok := rc.byKey[e.key]; ok {
		rc.remove(el)
	}
	rc.byKey[e.key] = rc.lru.PushFront(e)
	rc.bytes += size
	held.bytes.Add(size)
	held.entries.Add(1)
	rc.evict()
}

// evict removes the least recently used answers until the budget fits or
// none is left.
func (rc *Cache) evict() {
	for rc.bytes > rc.maxBytes && rc.lru.Len() > 0 {
		rc.remove(rc.lru.Back())
	}
}

func (rc *Cache) remove(el *list.Element) {
	e := rc.lru.Remove(el).(*cacheEntry)
	delete(rc.byKey, e.key)
	size := e.size()
	rc.bytes -= size
	held.bytes.Add(-size)
	held.entries.Add(-1)
}

// newEntry is the entry of an answer: the body copied to a slice of its
// own, the headers but those of each answer.
func newEntry(key string, gen int64, expires time.Time, res *fiber.Response) *cacheEntry {
	e := &cacheEntry{key: key, gen: gen, expires: expires, status: res.StatusCode(),
		body: append([]byte(nil), res.Body()...)}
	n := 0
	res.Header.VisitAll(func(k, _ []byte) {
		if !perRequestHeaders[string(k)] {
			n++
		}
	})
	e.headers = make([][2]string, 0, n)
	res.Header.VisitAll(func(k, v []byte) {
		if name := string(k); !perRequestHeaders[name] {
			e.headers = append(e.headers, [2]string{name, string(v)})
		}
	})
	return e
}

// AllocSize is what an allocation of n bytes takes from Go's heap: small
// objects are rounded up to their size class, large ones to whole pages
// (the classes of the runtime's sizeclasses.go, the same since Go 1.12).
func AllocSize(n int) int64 {
	if n <= 0 {
		return 0
	}
	if n > sizeClasses[len(sizeClasses)-1] {
		return int64((n + 8191) &^ 8191)
	}
	i := sort.SearchInts(sizeClasses, n)
	return int64(sizeClasses[i])
}

var sizeClasses = []int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352,
	384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200,
	3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432,
	19072, 20480, 21760, 24576, 27264, 28672, 32768}

// absoluteDate matches the date arguments a cached answer may depend on:
// a date, a date and time (optionally with a zone), or a UNIX timestamp.
var absoluteDate = regexp.MustCompile(`^\s*(\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?|\d{1,12})\s*$`)

var dateArgs = []string{"start_date", "end_date", "starts_before", "starts_after", "ends_before", "ends_after", "date", "date_utc"}

// cacheKey is the key of a request that may be cached, or "" for one that
// may not: credentials, a relative date, a method other than GET.
func cacheKey(c *fiber.Ctx) string {
	if c.Method() != fiber.MethodGet || c.Get(fiber.HeaderAuthorization) != "" || c.Get("X-WP-Nonce") != "" ||
		c.Cookies(models.SessionCookie) != "" {
		return ""
	}
	args := c.Request().URI().QueryArgs()
	var pairs [][2]string
	relative := false
	args.VisitAll(func(k, v []byte) {
		key := string(k)
		for _, d := range dateArgs {
			if strings.EqualFold(key, d) && !absoluteDate.Match(v) {
				relative = true
			}
		}
		// Venues and organizers with events that have not ended yet:
		// the answer moves with the clock.
		if strings.EqualFold(key, "only_with_upcoming") && !strings.EqualFold(string(v), "false") && string(v) != "0" {
			relative = true
		}
		pairs = append(pairs, [2]string{key, string(v)})
	})
	if relative {
		return ""
	}
	// Arguments in name order; the values of one name keep their order
	// (a list's order can matter).
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	var b strings.Builder
	b.WriteString(c.Path())
	for i, p := range pairs {
		b.WriteByte("?&"[min(i, 1)])
		b.WriteString(p[0] + "=" + p[1])
	}
	b.WriteString("\x00" + c.Get(fiber.HeaderAcceptLanguage) + "\x00" + c.Get(fiber.HeaderOrigin))
	return b.String()
}

// perRequestHeaders are not stored with an entry: each answer has its own.
var perRequestHeaders = map[string]bool{"X-Request-Id": true, "Date": true, "Content-Length": true, "Server": true, "Set-Cookie": true}

// Handler wraps next with the cache. ttl, when positive, bounds how long
// an entry lives (for pages that depend on the current time, not only on
// the day); otherwise it lives until the site's next midnight or the next
// write.
func (rc *Cache) Handler(next fiber.Handler, ttl time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		key := cacheKey(c)
		if key == "" {
			err := next(c)
			if m := c.Method(); m != fiber.MethodGet && m != fiber.MethodHead && m != fiber.MethodOptions {
				rc.Wrote()
			}
			return err
		}
		now := rc.site.Now()
		gen, ok := rc.generation(c.UserContext(), time.Now())
		if !ok {
			return next(c)
		}
		if e := rc.get(key, gen, now); e != nil {
			c.Status(e.status)
			for _, h := range e.headers {
				c.Set(h[0], h[1])
			}
			c.Set("X-Kalends-Cache", "hit")
			return c.Send(e.body)
		}
		if err := next(c); err != nil {
			return err
		}
		res := c.Response()
		if res.StatusCode() != http.StatusOK || len(res.Header.PeekCookie(models.SessionCookie)) > 0 {
			return nil
		}
		SetETag(c)
		expires := nextSiteMidnight(rc.site, now)
		if ttl > 0 && now.Add(ttl).Before(expires) {
			expires = now.Add(ttl)
		}
		rc.put(newEntry(key, gen, expires, res))
		c.Set("X-Kalends-Cache", "miss")
		return nil
	}
}

// nextSiteMidnight is the start of the next day in the site zone.
func nextSiteMidnight(site *models.Site, now time.Time) time.Time {
	t := now.In(site.Zone())
	y, m, d := t.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, t.Location())
}

// SetETag sets a strong ETag (a hash of the body) on a 200 answer that has
// none.
func SetETag(c *fiber.Ctx) string {
	res := c.Response()
	if tag := string(res.Header.Peek(fiber.HeaderETag)); tag != "" {
		return tag
	}
	sum := sha256.Sum256(res.Body())
	tag := `"` + hex.EncodeToString(sum[:12]) + `"`
	c.Set(fiber.HeaderETag, tag)
	return tag
}
