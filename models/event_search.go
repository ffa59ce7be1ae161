package models

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// The search index of events (migration 20261201000100_event_search): per
// event a row of its source text (lang "") and one per translation, each
// the FoldSearch form of the stored title, description and excerpt (the
// non-NULL ones of a translation) joined by "\n". SearchWords never keeps a
// control character in a word, so a word is a substring of a row's body
// exactly when it is a substring of one of its fields: what the LIKE search
// (SearchCondition) asks, field by field. On SQLite the rows are keyed and
// their text indexed by runs (event_search_keys.go, event_search_runs.go,
// migration 20261221000100_event_search_keys); on MySQL by posting lists
// of the same pieces and of the trigrams of Chinese and Japanese
// (event_search_mysql.go, migration 20261223000100_event_search_postings).
//
// Triggers on events and event_translations mark the events whose text
// changed in event_search_dirty, in the writing statement; RunInTx refolds
// the marked events of its transaction before it commits (indexMarked), so
// the index changes with the text in one transaction. Marks left by a
// write outside Kalends' transactions (raw SQL, a write without RunInTx)
// are read at search time: those events are searched with the LIKE
// condition until something refolds them, so results never depend on it.

// Mark owners (event_search_dirty.conn): on SQLite the triggers mark with
// searchMarkTx (one writer at a time: a transaction refolds every such
// mark); on MySQL with CONNECTION_ID(), so that concurrent transactions
// never touch each other's marks. searchMarkBacklog marks what a migration
// or Reindex left to fold in batches.
const (
	searchMarkBacklog = 0
	searchMarkTx      = 1
)

// The modes of Store.searchMode: on; paused while migrations run (the
// index's tables may not exist yet: marks stay, and MigrateAndReport folds
// them all once done); dropped, for tests only (marks cleared, nothing
// written: a forgotten index write).
const (
	searchOn int32 = iota
	searchPaused
	searchDropped
)

// searchIndexBatch is the number of events folded per statement group.
const searchIndexBatch = 500

// searchBacklogBatch is the number of marked events IndexBacklog refolds
// per transaction: on SQLite each transaction adds a segment to the
// trigram index that later merges rewrite, so a bulk refold (a seed, a
// reindex) takes big ones.
const searchBacklogBatch = 5000

// searchMaxDirty is the number of marked events past which a search reads
// every event with the LIKE condition instead of listing them.
const searchMaxDirty = 2000

// searchSourceLang is the lang of the source text's row.
const searchSourceLang = ""

// searchBody is the indexed text of one row: the folded non-NULL fields.
func searchBody(fields ...*string) (string, bool) {
	var b strings.Builder
	any := false
	for _, f := range fields {
		if f == nil {
			continue
		}
		if any {
			b.WriteByte('\n')
		}
		b.WriteString(FoldSearch(*f))
		any = true
	}
	return b.String(), any
}

// shortGrams is the document of a body in event_search_short (SQLite):
// its characters and pairs of characters (shortToken), each once, those
// that hold a character beyond ASCII only. One- and two-character words
// are how Chinese, Japanese and Korean are searched ("祭", "音楽"); an
// ASCII one ("a", "de") is in nearly every event anyway, so it is looked
// for in the text (shortASCII) and the index is not made to hold the
// hundreds of ASCII pairs of every Latin text (they were most of the
// seed's time).
func shortGrams(body string) string {
	seen := make(map[uint64]struct{}, 512)
	prev := rune(-1)
	for _, r := range body {
		if r == '\n' {
			prev = -1
			continue
		}
		// A rune from a range over a string is in [0, 0x10FFFF].
		if r >= utf8.RuneSelf {
			seen[uint64(r)] = struct{}{} //nolint:gosec // G115: never negative
		}
		if prev >= 0 && (r >= utf8.RuneSelf || prev >= utf8.RuneSelf) {
			seen[1<<63|uint64(prev)<<21|uint64(r)] = struct{}{} //nolint:gosec // G115: never negative
		}
		prev = r
	}
	keys := make([]uint64, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := make([]byte, 0, 10*len(keys))
	for i, k := range keys {
		if i > 0 {
			b = append(b, ' ')
		}
		if k&(1<<63) == 0 {
			b = appendShortToken(b, rune(k), -1) //nolint:gosec // G115: k < 0x110000 here
		} else {
			b = appendShortToken(b, rune(k>>21&0x1FFFFF), rune(k&0x1FFFFF))
		}
	}
	return string(b)
}

// ngramTokens is the set of tokens of the n-character substrings of body
// that hold no line break.
func ngramTokens(body string, n int, token func(string) string) map[string]struct{} {
	seen := map[string]struct{}{}
	starts := make([]int, 0, len(body)+1)
	for i := range body {
		starts = append(starts, i)
	}
	starts = append(starts, len(body))
	for k := 0; k+n < len(starts); k++ {
		g := body[starts[k]:starts[k+n]]
		if strings.IndexByte(g, '\n') >= 0 {
			continue
		}
		seen[token(g)] = struct{}{}
	}
	return seen
}

// shortToken is the token of a text of one or two characters: "u" or "b"
// and the code point of each character in four base-36 digits, so that a
// token stands for exactly one text.
func shortToken(g string) string {
	rs := []rune(g)
	if len(rs) == 1 {
		return string(appendShortToken(nil, rs[0], -1))
	}
	return string(appendShortToken(nil, rs[0], rs[1]))
}

func appendShortToken(b []byte, r1, r2 rune) []byte {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	put := func(r rune) {
		v := uint32(r) //nolint:gosec // G115: a code point, never negative
		b = append(b, digits[v/46656%36], digits[v/1296%36], digits[v/36%36], digits[v%36])
	}
	if r2 < 0 {
		b = append(b, 'u')
		put(r1)
		return b
	}
	b = append(b, 'b')
	put(r1)
	put(r2)
	return b
}

// eventSearchCondition is the WHERE fragment of a search of events
// (alias event) through the index: every word in the source row or the
// lang row of the event. Events in dirty (marked, not yet refolded) are
// searched with the LIKE condition instead; allDirty says too many are
// marked to list them, so every event is. matched is the result of the
// index already read (resolveSearch: matchSearchSQLite, searchPage,
// matchSearchMySQL), the events it holds; matchAll says every event holds
// every word (none folds to anything). Every filter with a search is
// resolved before it is applied (prepareEventFilter, ListEvents), so a nil
// matched is no event, on both dialects.
func eventSearchCondition(d Dialect, lang string, words []string, dirty []int64, allDirty bool, matched []int64, matchAll bool) (string, []any) {
	likeCond, likeArgs := SearchCondition(d, KindEvent, "event", "id", []string{"title", "description", "excerpt"}, lang, words)
	if likeCond == "" || allDirty {
		return likeCond, likeArgs
	}
	var idx string
	var args []any
	switch {
	case matchAll:
		idx = "1 = 1"
	case d == SQLite:
		idx, args = "event.id IN (SELECT value FROM json_each(?))", []any{jsonIDs(matched)}
	case len(matched) == 0:
		idx = "1 = 0"
	default:
		idx, args = "event.id IN (?)", []any{bun.List(matched)}
	}
	if len(dirty) == 0 {
		return "(" + idx + ")", args
	}
	in := bun.List(dirty)
	cond := "((event.id NOT IN (?) AND " + idx + ") OR (event.id IN (?) AND " + likeCond + "))"
	all := append([]any{in}, args...)
	all = append(all, in)
	return cond, append(all, likeArgs...)
}

// shortASCII tells whether a folded word of one or two characters is
// ASCII only: its characters and pair are not in the short-word index
// (shortGrams).
func shortASCII(fw string) bool {
	for i := 0; i < len(fw); i++ {
		if fw[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// jsonIDs is ids as a JSON array, for json_each.
func jsonIDs(ids []int64) string {
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// searchDirty returns the events marked and not yet refolded (all
// owners), or tooMany when they are more than searchMaxDirty.
func (s *Store) searchDirty(ctx context.Context) (ids []int64, tooMany bool, err error) {
	// Prepared (s.scan): every search reads it.
	err = s.scan(ctx, &ids, "SELECT DISTINCT event_id FROM event_search_dirty ORDER BY event_id LIMIT "+strconv.Itoa(searchMaxDirty+1))
	if err != nil {
		return nil, false, fmt.Errorf("models: read search marks: %w", mapErr(err))
	}
	if len(ids) > searchMaxDirty {
		return nil, true, nil
	}
	return ids, false, nil
}

// indexMarked refolds the events marked by this transaction's own writes
// and clears their marks. RunInTx calls it before committing.
func (s *Store) indexMarked(ctx context.Context) error {
	mode := searchOn
	if s.searchMode != nil {
		mode = s.searchMode.Load()
	}
	if mode == searchPaused {
		return nil
	}
	owner := "conn = " + strconv.Itoa(searchMarkTx)
	if s.dialect == MySQL {
		owner = "conn = CONNECTION_ID()"
	}
	// Both statements prepared (s.scan, s.exec): every write transaction
	// reads the marks.
	for {
		var ids []int64
		err := s.scan(ctx, &ids, "SELECT event_id FROM event_search_dirty WHERE "+owner+" ORDER BY event_id LIMIT "+strconv.Itoa(searchIndexBatch))
		if err != nil {
			return fmt.Errorf("models: read search marks: %w", mapErr(err))
		}
		if len(ids) == 0 {
			return nil
		}
		if mode == searchOn {
			if err := s.indexEvents(ctx, ids, false); err != nil {
				return err
			}
		}
		in, args := inList(ids)
		if err := s.exec(ctx, "DELETE FROM event_search_dirty WHERE "+owner+" AND event_id IN ("+in+")", args...); err != nil {
			return fmt.Errorf("models: clear search marks: %w", mapErr(err))
		}
		if len(ids) < searchIndexBatch {
			return nil
		}
	}
}

// IndexBacklog refolds every marked event, whoever marked it, a batch per
// transaction (after a migration, and by Reindex), and returns how many
// events it refolded. A mark of a transaction still running elsewhere is
// not visible and stays to its owner.
func (s *Store) IndexBacklog(ctx context.Context) (done int, err error) {
	return s.indexBacklog(ctx, false)
}

// indexBacklog is IndexBacklog; with force, every row of the refolded
// events is written again, changed or not (Reindex on MySQL).
func (s *Store) indexBacklog(ctx context.Context, force bool) (done int, err error) {
	return s.indexBacklogIn(ctx, force, searchBacklogBatch)
}

// indexBacklogIn is indexBacklog, batch events a transaction.
func (s *Store) indexBacklogIn(ctx context.Context, force bool, batch int) (done int, err error) {
	if err := s.backlogTheirs(ctx); err != nil {
		return 0, err
	}
	bulk := false
	defer func() {
		if bulk && err != nil { // merging as usual again
			_ = s.setSearchBulk(context.WithoutCancel(ctx), false)
		}
	}()
	for {
		all, err := s.backlogMarks(ctx, batch)
		if err != nil {
			return done, err
		}
		if len(all) == 0 {
			if !bulk {
				return done, nil
			}
			return done, s.optimizeSearch(ctx)
		}
		if !bulk && len(all) >= batch && s.dialect == SQLite {
			// A bulk refold: FTS5 merges nothing while it runs (it would
			// merge each transaction's segments again and again), and
			// all at once at its end.
			bulk = true
			if err := s.setSearchBulk(ctx, true); err != nil {
				return done, err
			}
		}
		for marks := range slices.Chunk(all, batch) {
			if err := s.refoldBacklog(ctx, marks, force, bulk, &done); err != nil {
				return done, err
			}
		}
	}
}

// backlogMark is a mark of event_search_dirty.
type backlogMark struct {
	Conn    int64 `bun:"conn"`
	EventID int64 `bun:"event_id"`
}

// backlogMarks reads the marks the backlog refolds next: on MySQL the
// first batch by event; on SQLite all of them, in the order of their
// events' keys (the day of the start, then the id: event_search_keys.go),
// so that each transaction writes the rows of event_search and of the
// indexes' tables keyed like them in one narrow range, after the last
// one's. In the order of the ids, each wrote rows all over a table that
// outgrows the page cache (a 1,000,000-event seed's is gigabytes).
func (s *Store) backlogMarks(ctx context.Context, batch int) ([]backlogMark, error) {
	var marks []backlogMark
	q := s.db.NewSelect().TableExpr("event_search_dirty AS d").Column("d.conn", "d.event_id")
	if s.dialect == SQLite {
		// start_at is UTC text: its first ten characters are the day.
		q = q.Join("LEFT JOIN events AS e ON e.id = d.event_id").OrderExpr("substr(e.start_at, 1, 10), d.event_id, d.conn")
	} else {
		q = q.OrderExpr("d.event_id, d.conn").Limit(int64(batch))
	}
	if err := q.Scan(ctx, &marks); err != nil {
		return nil, fmt.Errorf("models: read search marks: %w", mapErr(err))
	}
	return marks, nil
}

// refoldBacklog refolds the events of marks (an event's marks together)
// and clears the marks, in one transaction; bulk gives it a large page
// cache (SQLite).
func (s *Store) refoldBacklog(ctx context.Context, marks []backlogMark, force, bulk bool, done *int) error {
	return s.RunInTx(ctx, func(tx *Store) error {
		if bulk {
			if err := tx.bulkCache(ctx); err != nil {
				return err
			}
			defer tx.defaultCache(ctx)
		}
		var ids []int64
		for _, m := range marks {
			if len(ids) == 0 || ids[len(ids)-1] != m.EventID {
				ids = append(ids, m.EventID)
			}
		}
		if err := tx.indexEvents(ctx, ids, force); err != nil {
			return err
		}
		// No trigger of a record's table moved it: the words'
		// lists kept under it are stale (event_search_lists.go).
		if err := tx.bumpCacheGeneration(ctx); err != nil {
			return err
		}
		// The marks read, one statement per owner.
		byConn := map[int64][]int64{}
		for _, m := range marks {
			byConn[m.Conn] = append(byConn[m.Conn], m.EventID)
		}
		for conn, events := range byConn {
			if _, err := tx.db.NewDelete().TableExpr("event_search_dirty").Where("conn = ?", conn).
				Where("event_id IN (?)", bun.List(events)).Exec(ctx); err != nil {
				return fmt.Errorf("models: clear search marks: %w", mapErr(err))
			}
		}
		*done += len(ids)
		return nil
	})
}

// backlogTheirs hands the marks of searchMarkTx that a transaction left
// (on SQLite; a transaction clears its own before it commits unless the
// index was paused: a seed, a migration) to the backlog. Left to
// searchMarkTx, the first of the backlog's transactions would refold them
// all in indexMarked: a 1,000,000-event seed refolded its whole calendar
// in one transaction, which held the write lock for most of an hour and
// grew the WAL to gigabytes.
func (s *Store) backlogTheirs(ctx context.Context) error {
	if s.dialect != SQLite {
		return nil
	}
	return s.RunInTx(ctx, func(tx *Store) error {
		_, err := tx.db.ExecContext(ctx, "INSERT INTO event_search_dirty (conn, event_id) SELECT ?, event_id FROM event_search_dirty "+
			"WHERE conn = ? ON CONFLICT (conn, event_id) DO NOTHING", searchMarkBacklog, searchMarkTx)
		if err == nil {
			_, err = tx.db.ExecContext(ctx, "DELETE FROM event_search_dirty WHERE conn = ?", searchMarkTx)
		}
		if err != nil {
			return fmt.Errorf("models: hand search marks to the backlog: %w", mapErr(err))
		}
		return nil
	})
}

// optimizeSearch merges the segments of the SQLite indexes into one
// after a bulk refold (a seed, a migration, a reindex): each transaction
// of it left its own, and a word's lookup reads every segment (a search
// of the seeded calendar took twice as long before). Then FTS5 merges
// its segments as it writes again (automerge, its default).
func (s *Store) optimizeSearch(ctx context.Context) error {
	for _, t := range searchFTSTables {
		if _, err := s.db.ExecContext(ctx, "INSERT INTO "+t+" ("+t+") VALUES ('optimize')"); err != nil {
			return fmt.Errorf("models: optimize the search index: %w", mapErr(err))
		}
	}
	return s.setSearchBulk(ctx, false)
}

// searchFTSTables are the FTS5 indexes of the search (SQLite).
var searchFTSTables = append([]string{"event_search_vocab_fts"}, searchDocTables...)

// The FTS5 settings of the search's indexes (kept in their tables) while
// IndexBacklog refolds in bulk, and otherwise: automerge (0: no merging as
// segments are written), crisismerge (the segments of a level that force
// a merge of the whole level in the write that adds the last) and hashsize
// (the bytes of pending postings held in memory before they are written
// as a segment). In bulk, each transaction's postings are written as few
// large segments that nothing merges until the optimize at the end: at
// 100,000 events, FTS5's defaults wrote a segment per megabyte and merged
// them as they piled up.
//
// Otherwise no write merges either (migration
// 20261229000100_event_search_merging): MergeSearch does, a bounded step
// per transaction, from the server's background (runSearchMerger), and
// crisismerge is searchCrisisMerge. With FTS5's defaults (automerge 4,
// crisismerge 16) a write merged as it committed, and a merge may take
// in the segment of a whole calendar: at 1,000,000 events, after a
// seed's optimize, every API write spent 11 s in a crisis merge, passed
// its 4.5 s deadline and rolled the merge back, so no write got through
// again.
var (
	searchBulkSettings = map[string]int{"automerge": 0, "crisismerge": 1000, "hashsize": 32 << 20}
	searchSettings     = map[string]int{"automerge": 0, "crisismerge": searchCrisisMerge, "hashsize": 1 << 20}
)

// searchCrisisMerge is the crisismerge of the search's indexes outside a
// bulk refold: a write merges level 0 (small segments) only when this many
// piled up there unmerged (no server merging them, or a long merge under
// way), and a cascade into a level of large ones would take as many such
// merges. FTS5 refuses to write past 2,000 segments (FTS5_MAX_SEGMENT).
const searchCrisisMerge = 256

// SearchMergePages is the pages of merged index one step of MergeSearch
// writes on each index, at most (about 1 MB). At 1,000,000 events a step
// of 1,000 pages held the write lock up to 0.54 s while it merged the
// calendar's large segment.
const SearchMergePages = 250

// MergeSearch does one step of the merging of the search's FTS5 indexes
// (SQLite; nothing on MySQL, whose postings are rows): on each, in a
// transaction of its own, FTS5's 'merge' of up to pages pages, which
// merges the segments of a level that holds several (usermerge, 4 by
// default), going on with a merge a step left unfinished. It says whether
// any index had something to merge; the server calls it again after a
// short pause when one did (runSearchMerger).
func (s *Store) MergeSearch(ctx context.Context, pages int) (worked bool, err error) {
	if s.dialect != SQLite {
		return false, nil
	}
	for _, t := range searchFTSTables {
		err := s.RunInTx(ctx, func(tx *Store) error {
			// FTS5: the merge did some work when it changed two rows or
			// more (total_changes of the connection).
			var before, after int64
			if err := tx.db.NewRaw("SELECT total_changes()").Scan(ctx, &before); err != nil {
				return mapErr(err)
			}
			if _, err := tx.db.ExecContext(ctx, "INSERT INTO "+t+" ("+t+", rank) VALUES ('merge', ?)", pages); err != nil {
				return mapErr(err)
			}
			if err := tx.db.NewRaw("SELECT total_changes()").Scan(ctx, &after); err != nil {
				return mapErr(err)
			}
			worked = worked || after-before >= 2
			return nil
		})
		if err != nil {
			return worked, fmt.Errorf("models: merge the search index: %w", err)
		}
	}
	return worked, nil
}

// setSearchBulk sets the FTS5 settings of the search's indexes for a bulk
// refold (on) or back to FTS5's defaults.
func (s *Store) setSearchBulk(ctx context.Context, on bool) error {
	set := searchSettings
	if on {
		set = searchBulkSettings
	}
	for _, t := range searchFTSTables {
		for _, k := range []string{"automerge", "crisismerge", "hashsize"} {
			if _, err := s.db.ExecContext(ctx, "INSERT INTO "+t+" ("+t+", rank) VALUES (?, ?)", k, set[k]); err != nil {
				return fmt.Errorf("models: set the search index's %s: %w", k, mapErr(err))
			}
		}
	}
	return nil
}

// searchRow is one row of event_search.
type searchRow struct {
	ID      int64  `bun:"id"`
	EventID int64  `bun:"event_id"`
	Lang    string `bun:"lang"`
	Body    string `bun:"body"`
}

type searchKey struct {
	event int64
	lang  string
}

// wantedSearchRows folds the stored text of the events ids (gone ones have
// none), and gives what their keys are made of (SQLite).
func (s *Store) wantedSearchRows(ctx context.Context, ids []int64) (map[searchKey]string, map[int64]searchEvent, error) {
	want := map[searchKey]string{}
	evs := make(map[int64]searchEvent, len(ids))
	lock := ""
	if s.dialect == MySQL {
		if _, ok := s.db.(bun.Tx); ok {
			// The latest committed text, and no writer of these events
			// commits between this read and the index write.
			lock = " FOR UPDATE"
		}
	}
	in, args := inList(ids)
	rows, err := s.query(ctx, "SELECT id, title, description, excerpt, start_at, status, hide_from_listings FROM events WHERE id IN ("+in+") ORDER BY id"+lock, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("models: read events to index: %w", mapErr(err))
	}
	for rows.Next() {
		var id int64
		var t, d, e *string
		var start time.Time
		var status string
		var hidden bool
		if err := rows.Scan(&id, &t, &d, &e, &start, &status, &hidden); err != nil {
			_ = rows.Close()
			return nil, nil, fmt.Errorf("models: read events to index: %w", mapErr(err))
		}
		evs[id] = searchEvent{day: searchDay(start), listed: searchListed(status, hidden)}
		if body, ok := searchBody(t, d, e); ok {
			want[searchKey{id, searchSourceLang}] = body
		}
	}
	if err := rows.Close(); err != nil {
		return nil, nil, fmt.Errorf("models: read events to index: %w", mapErr(err))
	}
	rows, err = s.query(ctx, "SELECT event_id, lang, title, description, excerpt FROM event_translations WHERE event_id IN ("+in+")", args...)
	if err != nil {
		return nil, nil, fmt.Errorf("models: read translations to index: %w", mapErr(err))
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var id int64
		var lang string
		var t, d, e *string
		if err := rows.Scan(&id, &lang, &t, &d, &e); err != nil {
			return nil, nil, fmt.Errorf("models: read translations to index: %w", mapErr(err))
		}
		if lang == searchSourceLang {
			continue // not a language; never read by a search
		}
		if body, ok := searchBody(t, d, e); ok {
			want[searchKey{id, lang}] = body
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("models: read translations to index: %w", mapErr(err))
	}
	return want, evs, nil
}

// indexEvents brings the index rows of the events ids in step with their
// stored text (and on SQLite their keys), writing only the rows that
// changed.
func (s *Store) indexEvents(ctx context.Context, ids []int64, force bool) error {
	want, evs, err := s.wantedSearchRows(ctx, ids)
	if err != nil {
		return err
	}
	if s.dialect == MySQL {
		return s.indexEventsMySQL(ctx, ids, want, force)
	}
	langs := map[string]bool{}
	for k := range want {
		langs[k.lang] = true
	}
	slots, err := s.ensureLangSlots(ctx, langs)
	if err != nil {
		return err
	}
	have, err := s.searchRowsOf(ctx, ids)
	if err != nil {
		return err
	}
	// A row whose text or key changed is written again (its key is its
	// rowid in the trigram index).
	var gone []int64
	for _, h := range have {
		k := searchKey{h.EventID, h.Lang}
		body, ok := want[k]
		if ok && body == h.Body {
			if key, _ := keyOf(k, evs[k.event], slots); key == h.ID {
				delete(want, k)
				continue
			}
		}
		gone = append(gone, h.ID)
	}
	if len(gone) > 0 {
		if _, err := s.db.NewDelete().TableExpr("event_search").Where("id IN (?)", bun.List(gone)).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete search rows: %w", mapErr(err))
		}
		for _, t := range searchDocTables {
			if _, err := s.db.NewDelete().TableExpr(t).Where("rowid IN (?)", bun.List(gone)).Exec(ctx); err != nil {
				return fmt.Errorf("models: delete search rows: %w", mapErr(err))
			}
		}
	}
	return s.writeSearchRows(ctx, want, evs, slots)
}

// searchRowsOf reads the index rows of events ids.
func (s *Store) searchRowsOf(ctx context.Context, ids []int64) ([]searchRow, error) {
	var have []searchRow
	in, args := inList(ids)
	if err := s.scan(ctx, &have, "SELECT id, event_id, lang, body FROM event_search WHERE event_id IN ("+in+")", args...); err != nil {
		return nil, fmt.Errorf("models: read search index: %w", mapErr(err))
	}
	return have, nil
}

func sortedSearchKeys(want map[searchKey]string) []searchKey {
	keys := make([]searchKey, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].event != keys[j].event {
			return keys[i].event < keys[j].event
		}
		return keys[i].lang < keys[j].lang
	})
	return keys
}

// SearchIndexState says how the search index of events stands against
// the events' stored text: rows missing, rows whose text (or on MySQL
// postings) is stale, rows of no event or language, and events still
// marked to refold. FTSBroken says, on SQLite, that the trigram index
// disagrees with its rows; on MySQL, that the vocabulary's suffixes
// disagree with its entries.
type SearchIndexState struct {
	Missing, Stale, Extra, Marked int
	FTSBroken                     bool
}

// InStep tells whether nothing is missing, stale or extra.
func (st SearchIndexState) InStep() bool {
	return st.Missing == 0 && st.Stale == 0 && st.Extra == 0 && st.Marked == 0 && !st.FTSBroken
}

// CheckSearchIndex folds every event's text again and compares it with
// the index (kalends recount), writing nothing.
func (s *Store) CheckSearchIndex(ctx context.Context) (SearchIndexState, error) {
	var st SearchIndexState
	marked, err := s.db.NewSelect().TableExpr("event_search_dirty").Count(ctx)
	if err != nil {
		return st, fmt.Errorf("models: check search index: %w", mapErr(err))
	}
	st.Marked = int(marked)
	var slots map[string]int64
	if s.dialect == SQLite {
		if slots, err = s.searchLangSlots(ctx); err != nil {
			return st, err
		}
	}
	var after int64
	for {
		var ids []int64
		if err := s.db.NewSelect().TableExpr("events").Column("id").Where("id > ?", after).
			OrderExpr("id").Limit(searchIndexBatch).Scan(ctx, &ids); err != nil {
			return st, fmt.Errorf("models: check search index: %w", mapErr(err))
		}
		if len(ids) == 0 {
			break
		}
		after = ids[len(ids)-1]
		want, evs, err := s.wantedSearchRows(ctx, ids)
		if err != nil {
			return st, err
		}
		have, err := s.searchRowsOf(ctx, ids)
		if err != nil {
			return st, err
		}
		for _, h := range have {
			k := searchKey{h.EventID, h.Lang}
			body, ok := want[k]
			switch {
			case !ok:
				st.Extra++
			case body != h.Body:
				st.Stale++
			case slots != nil:
				// On SQLite a row's id is its key.
				if key, ok := keyOf(k, evs[k.event], slots); !ok || key != h.ID {
					st.Stale++
				}
			}
			delete(want, k)
		}
		st.Missing += len(want)
		if s.dialect == MySQL {
			stale, err := s.checkPostingsMySQL(ctx, ids, rowsOf(have))
			if err != nil {
				return st, err
			}
			st.Stale += stale
		}
	}
	orphans, err := s.db.NewSelect().TableExpr("event_search AS es").
		Where("NOT EXISTS (SELECT 1 FROM events e WHERE e.id = es.event_id)").Count(ctx)
	if err != nil {
		return st, fmt.Errorf("models: check search index: %w", mapErr(err))
	}
	st.Extra += int(orphans)
	if s.dialect == MySQL {
		orphans, err := s.orphanPostings(ctx)
		if err != nil {
			return st, fmt.Errorf("models: check search index: %w", err)
		}
		st.Extra += len(orphans)
		ok, err := s.vocabSuffixesInStep(ctx)
		if err != nil {
			return st, err
		}
		st.FTSBroken = !ok
	}
	if s.dialect == SQLite {
		// FTS5 checks its indexes (the vocabulary's against its rows).
		for _, q := range []string{
			"INSERT INTO event_search_fts (event_search_fts) VALUES ('integrity-check')",
			"INSERT INTO event_search_runs (event_search_runs) VALUES ('integrity-check')",
			"INSERT INTO event_search_vocab_fts (event_search_vocab_fts, rank) VALUES ('integrity-check', 1)",
		} {
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				st.FTSBroken = true
			}
		}
	}
	return st, nil
}

// Reindex rebuilds the search index of events from their stored text
// (kalends reindex): every event is refolded, a batch per transaction, the
// rows of events that no longer exist are dropped, and on SQLite the
// trigram index is rebuilt from its rows. It returns the events refolded.
func (db *DB) Reindex(ctx context.Context) (int, error) {
	// Emptied (on MySQL, the vocabulary) and marked in one transaction:
	// until each batch is folded, searches read the marked events with
	// LIKE. MySQL's rows and postings are written again batch by batch
	// (force): at 100,000 events, deleting 15 million postings in one
	// statement outlasted the connection's read timeout.
	var qs []string
	if db.dialect == SQLite {
		qs = append(qs, "DELETE FROM event_search")
		for _, t := range searchDocTables {
			qs = append(qs, "INSERT INTO "+t+" ("+t+") VALUES ('delete-all')")
		}
		qs = append(qs, "DELETE FROM event_search_vocab", "INSERT INTO event_search_vocab_fts (event_search_vocab_fts) VALUES ('delete-all')")
	} else {
		qs = append(qs, "DELETE FROM event_search_vocab_sfx", "DELETE FROM event_search_vocab")
	}
	qs = append(qs, bumpGenerationSQL,
		"INSERT INTO event_search_dirty (conn, event_id) SELECT 0, e.id FROM events e "+
			"WHERE NOT EXISTS (SELECT 1 FROM event_search_dirty d WHERE d.conn = 0 AND d.event_id = e.id)")
	err := db.Bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range qs {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("models: reindex: %w", mapErr(err))
	}
	n, err := db.indexBacklog(ctx, db.dialect == MySQL)
	if err != nil || db.dialect != MySQL {
		return n, err
	}
	return n, db.dropOrphanSearchRows(ctx)
}
