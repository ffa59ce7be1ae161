package models

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// The keys of the search index on SQLite (migration
// 20261221000100_event_search_keys). Each row of event_search has as its
// id, which is also its rowid in the trigram index (event_search_fts) and
// in event_search_short, the key
//
//	day of the event's start (20 bits) | event id (38 bits) | listed (1 bit) | slot (4 bits)
//
// day is the UTC day of the start since the Unix epoch, offset by 2^19
// and clamped to 20 bits (years 535 to 3405 exactly; beyond, the first or
// last day, which a search always checks against the event itself; a day,
// not an hour, so that the rows of a word's list, a day's together, differ
// by little: FTS5 stores the differences, and hours made the index 513 MB
// at 100,000 events, days 418 MB);
// listed says the event is published and not hidden, what an anonymous
// reader lists; slot is the row's language (event_search_langs; 0 is the
// source text). So a word's rows of a reader's languages, in a list's
// window and listed, are one range of rowids of the trigram index with two
// bits tested: found without reading a row, in start order, and an
// event's rows (source and translation) are neighbours. The trigram index
// keeps positions, so a word is matched exactly as a phrase of its
// trigrams: no row is read to confirm it.
const (
	searchSlotBits   = 4
	searchListedBit  = 1 << searchSlotBits
	searchEventShift = searchSlotBits + 1
	searchEventBits  = 38
	searchDayShift   = searchEventShift + searchEventBits
	searchDayBits    = 63 - searchDayShift
	searchDayOffset  = 1 << (searchDayBits - 1)
	searchDayMax     = 1<<searchDayBits - 1
	searchEventMask  = 1<<searchEventBits - 1
	// searchSlotOverflow is the slot of every language past the first
	// 14: a reader in one of them is searched with LIKE.
	searchSlotOverflow = 1<<searchSlotBits - 1
)

// searchDay is the day field of a key for a start time.
func searchDay(t time.Time) int64 {
	h := t.Unix()
	if h < 0 {
		h = -((-h + 86399) / 86400)
	} else {
		h /= 86400
	}
	return min(max(h+searchDayOffset, 0), searchDayMax)
}

// dayStart is the Unix time at which day h (a key's field) starts.
func dayStart(h int64) int64 { return (h - searchDayOffset) * 86400 }

// searchRowKey is the key (event_search.id) of an event's row.
func searchRowKey(day, event int64, listed bool, slot int64) int64 {
	k := day<<searchDayShift | event<<searchEventShift | slot
	if listed {
		k |= searchListedBit
	}
	return k
}

// searchListed tells whether an event is in anonymous readers' lists.
func searchListed(status string, hidden bool) bool { return status == StatusPublish && !hidden }

// searchLangSlots reads the languages' slots (event_search_langs).
func (s *Store) searchLangSlots(ctx context.Context) (map[string]int64, error) {
	var rows []struct {
		Lang string `bun:"lang"`
		Slot int64  `bun:"slot"`
	}
	if err := s.scan(ctx, &rows, "SELECT lang, slot FROM event_search_langs"); err != nil { // prepared: every search reads it
		return nil, fmt.Errorf("models: read search languages: %w", mapErr(err))
	}
	m := make(map[string]int64, len(rows))
	for _, r := range rows {
		m[r.Lang] = r.Slot
	}
	return m, nil
}

// ensureLangSlots gives each of langs a slot (in the write's transaction)
// and returns every language's.
func (s *Store) ensureLangSlots(ctx context.Context, langs map[string]bool) (map[string]int64, error) {
	slots, err := s.searchLangSlots(ctx)
	if err != nil {
		return nil, err
	}
	var add []string
	for l := range langs {
		if _, ok := slots[l]; !ok && l != searchSourceLang {
			add = append(add, l)
		}
	}
	slices.Sort(add)
	for _, l := range add {
		slot := min(int64(len(slots))+1, searchSlotOverflow)
		if _, err := s.db.ExecContext(ctx, "INSERT INTO event_search_langs (lang, slot) VALUES (?, ?)", l, slot); err != nil {
			return nil, fmt.Errorf("models: add search language %q: %w", l, mapErr(err))
		}
		slots[l] = slot
	}
	return slots, nil
}

// searchEvent is what an event's keys are made of.
type searchEvent struct {
	day    int64
	listed bool
}

// keyOf is the key of row k, or false when its language has no slot.
func keyOf(k searchKey, ev searchEvent, slots map[string]int64) (int64, bool) {
	slot := int64(0)
	if k.lang != searchSourceLang {
		var ok bool
		if slot, ok = slots[k.lang]; !ok {
			return 0, false
		}
	}
	return searchRowKey(ev.day, k.event, ev.listed, slot), true
}

// keyScope is the rows a search reads: keys in [lo, hi], of the slots
// given, listed ones only when listed.
type keyScope struct {
	lo, hi int64
	slots  []int64
	listed bool
}

// readerSlots is the slots of a reader in lang: the source's and the
// language's own. ok is false for a language past the first 14, whose
// rows share a slot: those readers are searched with LIKE.
func (s *Store) readerSlots(ctx context.Context, lang string) (slots []int64, ok bool, err error) {
	slots = []int64{0}
	if lang == searchSourceLang {
		return slots, true, nil
	}
	all, err := s.searchLangSlots(ctx)
	if err != nil {
		return nil, false, err
	}
	slot, found := all[lang]
	switch {
	case !found: // no row of that language: the source alone
		return slots, true, nil
	case slot == searchSlotOverflow:
		return nil, false, nil
	}
	return append(slots, slot), true, nil
}

// wordEvents reads, for each word, the events (key >> searchEventShift:
// day and event, sorted, once each) that hold it in a row of scope, and
// intersects them. all says no word folds to anything (every event
// matches).
func (s *Store) wordEvents(ctx context.Context, l *listsAt, words []string, sc keyScope) (evs []int64, all bool, err error) {
	return intersectWords(l, words, func(fw string) ([]int64, error) {
		return keptOr(l, scopeKey(fw, sc), 8, func() ([]int64, error) { return s.oneWordEvents(ctx, fw, sc) })
	})
}

// intersectWords folds each word, reads what holds it (one: sorted, once
// each) and intersects the lists, stopping at the first empty one. all
// says no word folds to anything (every event matches). The lists one
// returns may be kept ones (l): the result is the caller's own.
func intersectWords(l *listsAt, words []string, one func(fw string) ([]int64, error)) (evs []int64, all bool, err error) {
	own := false // evs is a list of intersectSorted's
	all = true
	for _, w := range words {
		fw := FoldSearch(w)
		if fw == "" {
			continue
		}
		got, err := one(fw)
		if err != nil {
			return nil, false, err
		}
		if all {
			evs, all = got, false
		} else {
			evs, own = intersectSorted(evs, got), true
		}
		if len(evs) == 0 {
			return []int64{}, false, nil
		}
	}
	if !own {
		evs = ownList(evs, l)
	}
	return evs, all, nil
}

func (s *Store) oneWordEvents(ctx context.Context, fw string, sc keyScope) ([]int64, error) {
	// The slot and, for a listed scope, the listed bit, in one test of
	// the key's low bits: the VDBE tests every posting the index reads,
	// and two tests took a fifth more of a word's time than one.
	mask, set := int64(searchListedBit-1), int64(0)
	if sc.listed {
		mask, set = 2*searchListedBit-1, searchListedBit
	}
	lowBits := make([]string, len(sc.slots))
	for i, sl := range sc.slots {
		lowBits[i] = strconv.FormatInt(sl|set, 10)
	}
	scope := func(col string) string {
		return col + " BETWEEN ? AND ? AND (" + col + " & " + strconv.FormatInt(mask, 10) + ") IN (" + strings.Join(lowBits, ", ") + ")"
	}
	// read reads the rows of scope that the condition of table q selects
	// (col is their key), as a list of their keys' prefixes (day and
	// event): shifted in SQL, they are shorter to write and to read back.
	read := func(q, col string, args ...any) ([]int64, error) {
		// Prepared (s.scan): the words are bound, so each shape of
		// query is parsed once, not once per word.
		var list sql.NullString
		sel := "SELECT group_concat(" + col + " >> " + strconv.Itoa(searchEventShift) + ") FROM " + q + " AND " + scope(col)
		if err := s.scan(ctx, &list, sel, args...); err != nil {
			return nil, fmt.Errorf("models: search events: %w", mapErr(err))
		}
		return eventsOfList(list.String)
	}
	inText := func() ([]int64, error) {
		return read("event_search WHERE instr(body, ?) > 0", "id", fw, sc.lo, sc.hi)
	}
	n := utf8.RuneCountInString(fw)
	switch {
	case hasSep(fw) || (n < 3 && shortASCII(fw)):
		// Across runs, or in nearly every event: read in the text.
		return inText()
	case n < 3:
		return read("event_search_short WHERE event_search_short MATCH ?", "rowid", shortToken(fw), sc.lo, sc.hi)
	}
	evs, err := read("event_search_fts WHERE event_search_fts MATCH ?", "rowid", `"`+strings.ReplaceAll(fw, `"`, `""`)+`"`, sc.lo, sc.hi)
	if err != nil || hasUnspaced(fw) {
		return evs, err
	}
	exprs, ok, err := s.piecesMatch(ctx, fw)
	if err != nil {
		return nil, err
	}
	if !ok {
		// Too many phrases of pieces: read in the text.
		return inText()
	}
	lists := 0 // the non-empty lists appended in evs
	if len(evs) > 0 {
		lists++
	}
	for chunk := range slices.Chunk(exprs, searchVocabMaxOR) {
		more, err := read("event_search_runs WHERE event_search_runs MATCH ?", "rowid", strings.Join(chunk, " OR "), sc.lo, sc.hi)
		if err != nil {
			return nil, err
		}
		if len(more) > 0 {
			evs = append(evs, more...)
			lists++
		}
	}
	if lists > 1 {
		slices.Sort(evs)
		evs = slices.Compact(evs)
	}
	return evs, nil
}

// eventsOfList parses a comma-separated list of key prefixes (key >>
// searchEventShift: day and event, at most 58 bits, so 18 digits) into
// a sorted list, once each. An index returns its rows in key order, so
// the list is usually sorted already, an event's rows (source and
// translation) next to each other: a repeat is dropped as it is read,
// and only a list out of order is sorted.
func eventsOfList(list string) ([]int64, error) {
	if list == "" {
		return []int64{}, nil
	}
	out := make([]int64, 0, strings.Count(list, ",")+1)
	sorted := true
	v, digits := int64(0), 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) && list[i] != ',' {
			c := list[i] - '0'
			if c > 9 || digits == 18 {
				return nil, fmt.Errorf("models: search events: bad key in %.40q", list)
			}
			v, digits = v*10+int64(c), digits+1
			continue
		}
		if digits == 0 {
			return nil, fmt.Errorf("models: search events: bad key in %.40q", list)
		}
		if n := len(out); n == 0 || v != out[n-1] {
			sorted = sorted && (n == 0 || v > out[n-1])
			out = append(out, v)
		}
		v, digits = 0, 0
	}
	if !sorted {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out, nil
}

// intersectSorted is the values in both sorted lists.
func intersectSorted(a, b []int64) []int64 {
	out := a[:0:0]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// eventIDsOf is the event ids of key prefixes (day and event), sorted.
func eventIDsOf(evs []int64) []int64 {
	ids := make([]int64, len(evs))
	for i, v := range evs {
		ids[i] = v & searchEventMask
	}
	slices.Sort(ids)
	return ids
}

// matchSearchSQLite reads the events that hold every word, in a reader's
// languages, through the index (any status, any time). all says no word
// folds to anything; like says the reader's language has no slot of its
// own, so the search must read the text (LIKE).
func (s *Store) matchSearchSQLite(ctx context.Context, l *listsAt, lang string, words []string) (ids []int64, all, like bool, err error) {
	slots, ok, err := s.readerSlots(ctx, lang)
	if err != nil || !ok {
		return nil, false, !ok, err
	}
	evs, all, err := s.wordEvents(ctx, l, words, keyScope{lo: 0, hi: math.MaxInt64, slots: slots})
	if err != nil || all {
		return nil, all, false, err
	}
	return eventIDsOf(evs), false, false, nil
}

// searchListsFast tells whether a list's search is answered from the keys
// (searchPage): a list in start order, filtered by nothing but the search
// and its window (start_date, end_date, starts and ends before and
// after), for anonymous readers (published, not hidden: the keys' listed
// bit) or for those who see every status but trash (the admin's editors
// and administrators: the keys do not tell trash, nor hidden events of
// other statuses, so searchPage reads those of the window apart).
func searchListsFast(f *EventFilter) bool {
	v := f.visibility
	anonymous := !f.IncludeHidden && !v.AllButTrash && v.OwnerID == 0
	return (anonymous || v.AllButTrash) && len(f.Statuses) == 0 &&
		(f.Order == "" || f.Order == OrderStart) && f.Near == nil && f.Geoloc == nil && f.Featured == nil &&
		len(f.categoryIDs) == 0 && len(f.tagIDs) == 0 && len(f.VenueIDs) == 0 && len(f.OrganizerIDs) == 0 &&
		len(f.Include) == 0 && f.ParentID == nil && (f.Recurrence == "" || f.Recurrence == RecurrenceOccurrences) &&
		f.ModifiedAfter == nil && f.ModifiedBefore == nil
}

// searchWindow is what the keys tell of a list's window: the key range
// that holds every event it may select, and which events of a day
// certainly are in it.
type searchWindow struct {
	f      *EventFilter
	lo, hi int64 // key range
	span   int64 // the longest event kept, in seconds (-1: unknown)
}

// newSearchWindow reads the longest event kept when a bound on the end
// needs it, and the key range of f's window: an event that ends after t
// starts after t minus that span; one that ends before t, or by it,
// starts before it.
func (s *Store) newSearchWindow(ctx context.Context, f *EventFilter) (searchWindow, error) {
	w := searchWindow{f: f, lo: 0, hi: math.MaxInt64, span: -1}
	if f.EndMax != nil || f.EndsBefore != nil || f.EndsAfter != nil {
		secs, known, err := s.longestEventKept(ctx)
		if err != nil {
			return w, err
		}
		if known {
			w.span = secs
		}
	}
	lo, hi := int64(0), int64(searchDayMax)
	from := func(t *time.Time) {
		if t != nil {
			lo = max(lo, searchDay(*t))
		}
	}
	until := func(t *time.Time) {
		if t != nil {
			hi = min(hi, searchDay(*t))
		}
	}
	from(f.StartMin)
	from(f.StartsAfter)
	until(f.EndMax)
	until(f.StartsBefore)
	until(f.EndsBefore)
	if f.EndsAfter != nil && w.span >= 0 {
		lo = max(lo, searchDay(f.EndsAfter.Add(-time.Duration(w.span)*time.Second)))
	}
	w.lo = lo << searchDayShift
	if hi < searchDayMax {
		w.hi = (hi+1)<<searchDayShift - 1
	}
	return w, nil
}

// sure tells whether the event of key prefix v (day and event) is in the
// window whatever its start within its day: it starts in [day, next day)
// and lasts at most span. The others are checked against the events.
func (w searchWindow) sure(v int64) bool {
	h := v >> searchEventBits
	if h == 0 || h == searchDayMax {
		return false // clamped: the start is not told
	}
	f, from, next := w.f, dayStart(h), dayStart(h+1)
	if (f.StartMin != nil && from < f.StartMin.Unix()) || (f.StartsAfter != nil && from <= f.StartsAfter.Unix()) ||
		(f.StartsBefore != nil && next > f.StartsBefore.Unix()) || (f.EndsAfter != nil && from <= f.EndsAfter.Unix()) {
		return false
	}
	endBound := func(t *time.Time) bool { return t == nil || (w.span >= 0 && next+w.span <= t.Unix()) }
	return endBound(f.EndMax) && endBound(f.EndsBefore)
}

// searchPage answers a list's search from the keys (searchListsFast): it
// reads the events of the window's keys that hold every word (listed ones
// for an anonymous reader), checks against the events themselves only
// those the keys cannot tell about (searchWindow.sure), leaves out, for a
// reader who sees every status but trash, the window's trashed events
// (and hidden ones, unless the list includes them), counts them all
// (f.searchTotal), and leaves in f.searchMatched the events of the whole
// days that hold the page, so that the page query orders just those
// exactly (start, publication date, id). ok is false when the reader's
// language has no slot of its own.
func (s *Store) searchPage(ctx context.Context, l *listsAt, f *EventFilter) (ok bool, err error) {
	slots, ok, err := s.readerSlots(ctx, f.Lang)
	if err != nil || !ok {
		return false, err
	}
	w, err := s.newSearchWindow(ctx, f)
	if err != nil {
		return false, err
	}
	anonymous := !f.visibility.AllButTrash
	evs, all, err := s.wordEvents(ctx, l, f.Search, keyScope{lo: w.lo, hi: w.hi, slots: slots, listed: anonymous})
	if err != nil {
		return false, err
	}
	if all {
		return false, nil // every event: the list's own way
	}
	var unsure []int64 // keys' prefixes
	for _, v := range evs {
		if !w.sure(v) {
			unsure = append(unsure, v)
		}
	}
	var left map[int64]bool // events of sure keys the list leaves out
	if !anonymous {
		if left, err = s.leftOutOfSearch(ctx, f, w); err != nil {
			return false, err
		}
	}
	checked := len(unsure) > 0 || len(left) > 0 // evs holds events the list leaves out
	keep, unsure, err := s.ongoingAtEdge(ctx, f, w, unsure)
	if err != nil {
		return false, err
	}
	valid := evs
	if checked {
		if len(unsure) > 0 {
			g := *f
			g.Search = nil
			q := s.db.NewSelect().TableExpr("events AS event").Column("event.id").
				Where("event.id IN (SELECT value FROM json_each(?))", jsonIDs(eventIDsOf(unsure)))
			s.applyEventFilter(q, g, false)
			var in []int64
			if err := q.Scan(ctx, &in); err != nil {
				return false, fmt.Errorf("models: search events: %w", mapErr(err))
			}
			for _, id := range in {
				keep[id] = true
			}
		}
		valid = make([]int64, 0, len(evs))
		for _, v := range evs {
			id := v & searchEventMask
			if keep[id] || (w.sure(v) && !left[id]) {
				valid = append(valid, v)
			}
		}
	}
	f.searchTotal, f.searchCounted = len(valid), true
	// The page's events and the rest of their days, from the start (or
	// the end, in descending order).
	need := max(f.Page-1, 0)*f.PerPage + f.PerPage
	if f.Desc {
		slices.Reverse(valid)
	}
	n := 0
	for n < len(valid) && (n < need || valid[n]>>searchEventBits == valid[n-1]>>searchEventBits) {
		n++
	}
	f.searchMatched = eventIDsOf(valid[:n])
	return true, nil
}

// ongoingAtEdge decides, for a list bounded by "ends after t" (the admin's
// upcoming events), the unsure events whose key's day is at most t's:
// those the keys cannot tell about since they started within the longest
// event's span before t. Instead of reading each of them by id (about
// 6 µs each: a word in 40% of a million events left 3,300 of them, 72% of
// its search's CPU with its list kept), it reads the list's events that
// start by the end of t's day (the ongoing ones, and that day's) from the
// start index, when the buckets say that range holds fewer than 16 events
// per unsure one. It returns those of the list (in) and the unsure events
// it did not decide.
func (s *Store) ongoingAtEdge(ctx context.Context, f *EventFilter, w searchWindow, unsure []int64) (in map[int64]bool, rest []int64, err error) {
	in = map[int64]bool{}
	forced := ongoingAtEdgeForced.Load()
	if f.EndsAfter == nil || w.span < 0 {
		return in, unsure, nil
	}
	edgeDay := searchDay(*f.EndsAfter)
	if edgeDay <= 0 || edgeDay >= searchDayMax-1 {
		return in, unsure, nil
	}
	// A key of day 0 is clamped: its event started before day 1, so by
	// the edge too. One of searchDayMax is clamped the other way.
	var early []int64
	for _, v := range unsure {
		if v>>searchEventBits <= edgeDay {
			early = append(early, v)
		} else {
			rest = append(rest, v)
		}
	}
	if len(early) == 0 || (len(early) < ongoingAtEdgeMin && !forced) {
		return in, unsure, nil
	}
	edge := time.Unix(dayStart(edgeDay+1), 0).UTC()
	g := *f
	g.Search = nil
	if g.StartsBefore == nil || g.StartsBefore.After(edge) {
		g.StartsBefore = &edge
	}
	// At most what the range holds, from the buckets (any word): the
	// events starting in it end by the edge plus the longest event.
	from := time.Unix(dayStart(searchDay(f.EndsAfter.Add(-time.Duration(w.span)*time.Second))), 0).UTC()
	until := edge.Add(time.Duration(w.span) * time.Second)
	r := EventFilter{visibility: f.visibility, IncludeHidden: f.IncludeHidden, StartMin: &from, EndMax: &until}
	n, ok, err := s.countByDays(ctx, r)
	if err != nil || !ok || (n > ongoingAtEdgeRatio*len(early) && !forced) {
		return in, unsure, err
	}
	q := s.db.NewSelect().TableExpr("events AS event").Column("event.id")
	s.applyEventFilter(q, g, false)
	var ids []int64
	if err := q.Scan(ctx, &ids); err != nil {
		return nil, nil, fmt.Errorf("models: search events: %w", mapErr(err))
	}
	for _, id := range ids {
		in[id] = true
	}
	return in, rest, nil
}

// ongoingAtEdgeForced makes ongoingAtEdge read its range whatever the
// numbers (tests: their calendars are small).
var ongoingAtEdgeForced atomic.Bool

// ongoingAtEdgeRatio is the most events the range ongoingAtEdge reads may
// hold per unsure event it decides: an entry of the start index costs a
// fraction of a read by id.
const ongoingAtEdgeRatio = 16

// ongoingAtEdgeMin is the fewest unsure events ongoingAtEdge reads a
// range for.
const ongoingAtEdgeMin = 256

// leftOutOfSearch is, for a reader who sees every status but trash, the
// events starting in the key range of w that the list leaves out: the
// trashed ones, and the hidden ones unless f includes them. Both are read
// from the status and start indexes, so their cost is that of the few
// trashed (or hidden) events of the window, not of the window.
func (s *Store) leftOutOfSearch(ctx context.Context, f *EventFilter, w searchWindow) (map[int64]bool, error) {
	bound := func(q *bun.SelectQuery) *bun.SelectQuery {
		if h := w.lo >> searchDayShift; h > 0 {
			q.Where("start_at >= ?", Sec(time.Unix(dayStart(h), 0).UTC()))
		}
		if w.hi != math.MaxInt64 {
			q.Where("start_at < ?", Sec(time.Unix(dayStart(w.hi>>searchDayShift+1), 0).UTC()))
		}
		return q
	}
	var ids []int64
	if err := bound(s.db.NewSelect().TableExpr("events").Column("id").Where("status = ?", StatusTrash)).Scan(ctx, &ids); err != nil {
		return nil, fmt.Errorf("models: search events: %w", mapErr(err))
	}
	if !f.IncludeHidden {
		var hidden []int64
		q := s.db.NewSelect().TableExpr("events").Column("id").Where("status IN (?)", bun.List(notTrashed)).
			Where("hide_from_listings = ?", true)
		if err := bound(q).Scan(ctx, &hidden); err != nil {
			return nil, fmt.Errorf("models: search events: %w", mapErr(err))
		}
		ids = append(ids, hidden...)
	}
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m, nil
}
