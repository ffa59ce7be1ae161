package models

import (
	"container/list"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/uptrace/bun"
)

// The words' lists of events, kept (DB.KeepSearchLists). A search reads,
// for each of its words, the events whose index rows hold it (SQLite: in
// a key range and a reader's slots; MySQL: in a reader's languages); at
// 100,000 events that was most of a search's time, while a site's
// visitors look for the same few words again and again. So the lists read
// are kept, in memory, under the cache generation (cache_generation),
// which every write of an event or a translation moves in its
// transaction, and every refold of the index too (indexBacklog, Reindex):
// a list kept under another generation than the one a search reads is
// never used, and the first search under a new one empties them. Inside a
// transaction nothing is kept or used: it sees its own writes, which
// another transaction may never commit.

// searchListOverhead is what a kept list costs beyond its events and key:
// its list element, map entry and slice header.
const searchListOverhead = 160

// searchLists is the words' lists kept, least recently used first out,
// within a byte bound.
type searchLists struct {
	max int64

	mu    sync.Mutex
	gen   int64 // the generation of every list kept
	bytes int64
	order *list.List // of *keptList, most recently used at the front
	byKey map[string]*list.Element

	hits, misses int64 // for the tests and the debug counters
}

type keptList struct {
	key  string
	val  any // []int64, or []searchHit (searchHitsPage)
	cost int64
}

func newSearchLists(maxBytes int64) *searchLists {
	return &searchLists{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// listCost is the bytes a list of key counts for, with size the bytes of
// its elements.
func listCost(key string, size int64) int64 {
	return int64(len(key)) + size + searchListOverhead
}

// at moves the lists to gen when it is newer (emptying them) and tells
// whether gen is theirs. The caller holds mu.
func (c *searchLists) at(gen int64) bool {
	if gen > c.gen {
		c.gen, c.bytes = gen, 0
		c.order.Init()
		clear(c.byKey)
	}
	return gen == c.gen
}

// get returns the list of key kept under gen. The list is shared: the
// caller must not change it.
func (c *searchLists) get(gen int64, key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(gen) {
		return nil, false
	}
	e, ok := c.byKey[key]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	c.order.MoveToFront(e)
	return e.Value.(*keptList).val, true
}

// put keeps the list of key read under gen (cost: listCost), unless a
// newer generation was seen meanwhile or the list alone is over a quarter
// of the bound.
func (c *searchLists) put(gen int64, key string, val any, cost int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(gen) || 4*cost > c.max {
		return
	}
	if e, ok := c.byKey[key]; ok { // another search read it meanwhile
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&keptList{key: key, val: val, cost: cost})
	c.bytes += cost
	for c.bytes > c.max {
		last := c.order.Back()
		k := c.order.Remove(last).(*keptList)
		delete(c.byKey, k.key)
		c.bytes -= k.cost
	}
}

// SearchListStats is what the kept lists hold and how often they served.
type SearchListStats struct {
	Lists, Bytes, MaxBytes, Hits, Misses int64
}

// SearchListStats reports the kept lists (zero when none are kept).
func (s *Store) SearchListStats() SearchListStats {
	c := s.searchLists
	if c == nil {
		return SearchListStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return SearchListStats{Lists: int64(len(c.byKey)), Bytes: c.bytes, MaxBytes: c.max, Hits: c.hits, Misses: c.misses}
}

// KeepSearchLists keeps the words' lists of events searches read, within
// maxBytes (0: none kept). Call it once, before serving.
func (db *DB) KeepSearchLists(maxBytes int64) {
	if maxBytes <= 0 {
		db.searchLists = nil
		return
	}
	db.searchLists = newSearchLists(maxBytes)
}

// listsAt is the kept lists as one search sees them: those of the
// generation it read. A nil *listsAt keeps nothing.
type listsAt struct {
	c   *searchLists
	gen int64
}

// searchListsNow reads the generation for a search, or returns nil when
// no lists are kept, in a transaction, or when it cannot be read (then
// the search reads the index, as without them).
func (s *Store) searchListsNow(ctx context.Context) *listsAt {
	if s.searchLists == nil {
		return nil
	}
	if _, inTx := s.db.(bun.Tx); inTx {
		return nil
	}
	gen, err := s.CacheGeneration(ctx)
	if err != nil {
		return nil
	}
	return &listsAt{c: s.searchLists, gen: gen}
}

// keptOr returns the list of key kept in l, or reads it and keeps it
// (elem: the bytes of one element). The list is shared: the caller must
// not change it.
func keptOr[T any](l *listsAt, key string, elem int64, read func() ([]T, error)) ([]T, error) {
	if l == nil {
		return read()
	}
	if v, ok := l.c.get(l.gen, key); ok {
		if list, ok := v.([]T); ok {
			return list, nil
		}
	}
	list, err := read()
	if err == nil {
		l.c.put(l.gen, key, list, listCost(key, elem*int64(cap(list))))
	}
	return list, err
}

// scopeKey is the key of a folded word's list in a scope (SQLite).
func scopeKey(fw string, sc keyScope) string {
	var b strings.Builder
	b.WriteString("s\x00")
	b.WriteString(fw)
	b.WriteByte(0)
	b.WriteString(strconv.FormatInt(sc.lo, 10))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(sc.hi, 10))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatBool(sc.listed))
	for _, sl := range sc.slots {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(sl, 10))
	}
	return b.String()
}

// langsKey is the key of a folded word's list in languages (MySQL).
func langsKey(fw string, langs []string) string {
	return "m\x00" + fw + "\x00" + strings.Join(langs, " ")
}

// termRefsKey is the key of the ids of a list filter's terms, named by
// refs in lang (resolveEventFilter).
func termRefsKey(taxonomy, lang string, refs []TermRef) string {
	var b strings.Builder
	b.WriteString("t\x00")
	b.WriteString(taxonomy)
	b.WriteByte(0)
	b.WriteString(lang)
	for _, r := range refs {
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(r.ID, 10))
		b.WriteByte(' ')
		b.WriteString(r.Name)
	}
	return b.String()
}

// readableKey is the key of which of ids of kind k reader u may read
// (postsReadableIn): u's id and role, since a role change moves no
// generation.
func readableKey(u *User, k Kind, ids []int64) string {
	var b strings.Builder
	b.WriteString("r\x00")
	b.WriteString(string(k))
	b.WriteByte(0)
	if u != nil {
		b.WriteString(strconv.FormatInt(u.ID, 10))
		b.WriteByte('/')
		b.WriteString(string(u.Role))
	}
	for _, id := range ids {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// driverKey is the key of the link filter that drives a list, chosen by
// query with args (linkDriver).
func driverKey(query string, args []any) string {
	var b strings.Builder
	b.WriteString("d\x00")
	b.WriteString(query)
	for _, a := range args {
		b.WriteByte(0)
		fmt.Fprint(&b, a)
	}
	return b.String()
}

// ownList is evs, copied when it may be a kept list (a caller may change
// what it gets).
func ownList(evs []int64, l *listsAt) []int64 {
	if l == nil {
		return evs
	}
	return slices.Clone(evs)
}
