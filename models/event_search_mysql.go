package models

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// The search index on MySQL and MariaDB (migration
// 20261223000100_event_search_postings): posting lists in plain InnoDB
// tables, read by ranges of their primary keys. InnoDB's FULLTEXT index
// cost about 60 µs for every row a token matched, so a search of a word
// in 5% of 100,000 events took a third of a second.
//
// A row's runs (its longest parts without a separator, event_search_runs.go)
// are split as on SQLite (splitRuns):
//
//   - A run of a spaced language is cut into pieces, each kept once in the
//     vocabulary (event_search_vocab) with the pairs of neighbouring
//     pieces; event_search_post lists, per vocabulary entry (tok = its id),
//     the rows that hold it. The vocabulary's entries are found by their
//     suffixes (event_search_vocab_sfx): an entry holds a word exactly when
//     one of its suffixes starts with it, a prefix range of that table. So
//     a word without "<" or ">" is in the rows of the pieces that hold it,
//     and a word with one split point in the rows of the pairs that hold
//     it, with nothing read to confirm it (the argument is on SQLite's
//     runs, event_search_runs.go).
//   - A run of Chinese or Japanese, or one with a piece too long for the
//     vocabulary, is indexed by its trigrams, its last two characters and
//     its last character, each an exact token (code points in one number:
//     trigramTok, endPairTok, endTok). A word of three characters is its
//     trigram, exactly; of two, the trigrams that start with it (a range of
//     tokens) and the runs that end with it; of one, likewise; of four or
//     more, the rows with its trigrams, which LOCATE checks in the row's
//     text.
//
// A word with more split points is looked for in the rows of the pairs
// that hold its first two pieces, which LOCATE checks; a word of one or two
// ASCII characters (in nearly every event) and a word that holds a
// separator (which FoldSearch can make) in every row's text.

// Tokens of the character runs, exact: a trigram is its three code points
// (each below 2^21, so under 2^63 together), negated (tok < 0); the last
// two characters of a run and its last character are positive, above every
// id of the vocabulary. The trigrams that start with one or two given
// characters are one range of tokens.
const (
	postEndPairBit = int64(1) << 61
	postEndBit     = int64(1) << 60
	runeMask       = int64(1)<<21 - 1
)

func trigram(a, b, c rune) int64    { return int64(a)<<42 | int64(b)<<21 | int64(c) }
func trigramTok(a, b, c rune) int64 { return -trigram(a, b, c) - 1 }
func endPairTok(a, b rune) int64    { return postEndPairBit | int64(a)<<21 | int64(b) }
func endTok(r rune) int64           { return postEndBit | int64(r) }

// trigramRange is the tokens of the trigrams whose code points lie in
// [lo, hi] (trigram), low end first.
func trigramRange(lo, hi int64) (int64, int64) { return -hi - 1, -lo - 1 }

// postRow is the tokens of one row of event_search: its vocabulary
// entries (pieces and pairs of pieces) and its character runs' tokens.
type postRow struct {
	entries []string
	toks    []int64
}

// postTokens splits a row's body into what event_search_post lists.
func postTokens(body string) postRow {
	text, vocab := splitRuns(body)
	var r postRow
	seen := map[string]bool{}
	add := func(e string) {
		if !seen[e] {
			seen[e] = true
			r.entries = append(r.entries, e)
		}
	}
	for _, run := range vocab {
		for i, p := range run {
			add(p)
			if i > 0 {
				add(run[i-1] + p)
			}
		}
	}
	toks := map[int64]bool{}
	for run := range strings.SplitSeq(text, "\n") {
		rs := []rune(run)
		for i := 2; i < len(rs); i++ {
			toks[trigramTok(rs[i-2], rs[i-1], rs[i])] = true
		}
		if n := len(rs); n >= 2 {
			toks[endPairTok(rs[n-2], rs[n-1])] = true
		}
		if n := len(rs); n >= 1 {
			toks[endTok(rs[n-1])] = true
		}
	}
	for t := range toks {
		r.toks = append(r.toks, t)
	}
	return r
}

// postLang tells whether a row's language is written into the posting
// lists literally: the languages of translations are short codes; a row
// of any other (never one a reader searches in) has no postings.
func postLang(lang string) bool {
	if len(lang) > 10 {
		return false
	}
	return strings.IndexFunc(lang, func(c rune) bool {
		return (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' && c != '_'
	}) < 0
}

// indexEventsMySQL writes the rows of indexEvents on MySQL: each changed
// row's text, and its postings, written again whole; with force, every
// row's. Postings left under a key that has no row (a reindex's) go first.
func (s *Store) indexEventsMySQL(ctx context.Context, ids []int64, want map[searchKey]string, force bool) error {
	have, err := s.searchRowsOf(ctx, ids)
	if err != nil {
		return err
	}
	posted, err := s.postedKeys(ctx, ids)
	if err != nil {
		return err
	}
	var gone []int64
	drop := map[string][]int64{} // lang → events whose postings of it go
	write := map[searchKey]string{}
	for _, h := range have {
		k := searchKey{h.EventID, h.Lang}
		body, ok := want[k]
		if ok && body == h.Body && !force && (posted[k] || !postLang(k.lang)) {
			delete(want, k)
			continue
		}
		drop[h.Lang] = append(drop[h.Lang], h.EventID)
		if !ok {
			gone = append(gone, h.ID)
			continue
		}
		if body != h.Body {
			if _, err := s.db.ExecContext(ctx, "UPDATE event_search SET body = ? WHERE id = ?", body, h.ID); err != nil {
				return fmt.Errorf("models: write search row of event %d %q: %w", k.event, k.lang, mapErr(err))
			}
		}
		write[k] = body
		delete(want, k)
	}
	for k := range want {
		drop[k.lang] = append(drop[k.lang], k.event)
	}
	for lang, evs := range drop {
		if _, err := s.db.NewDelete().TableExpr("event_search_post").Where("event_id IN (?)", bun.List(evs)).
			Where("lang = ?", lang).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete search postings: %w", mapErr(err))
		}
	}
	if len(gone) > 0 {
		if _, err := s.db.NewDelete().TableExpr("event_search").Where("id IN (?)", bun.List(gone)).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete search rows: %w", mapErr(err))
		}
	}
	keys := sortedSearchKeys(want)
	for chunk := range slices.Chunk(keys, 200) {
		var b strings.Builder
		args := make([]any, 0, 3*len(chunk))
		// grams: no longer read (migration 20261223000100); kept for the
		// older release's instances during a rolling upgrade.
		b.WriteString("INSERT INTO event_search (event_id, lang, body, grams) VALUES ")
		for i, k := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, '')")
			args = append(args, k.event, k.lang, want[k])
			write[k] = want[k]
		}
		if _, err := s.db.ExecContext(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("models: write search rows: %w", mapErr(err))
		}
	}
	return s.writePostings(ctx, write)
}

// postedKeys is the rows of events ids that have postings (a row whose
// text gives none, as "a b", is not among them and is written again each
// time, with nothing to write): rows written before the postings existed
// (the migration marks every event) or by an older release's instance
// during a rolling upgrade get theirs when their event is folded.
func (s *Store) postedKeys(ctx context.Context, ids []int64) (map[searchKey]bool, error) {
	var got []struct {
		EventID int64  `bun:"event_id"`
		Lang    string `bun:"lang"`
	}
	if err := s.db.NewRaw("SELECT event_id, lang FROM event_search_post WHERE event_id IN (?) GROUP BY event_id, lang",
		bun.List(ids)).Scan(ctx, &got); err != nil {
		return nil, fmt.Errorf("models: read search postings: %w", mapErr(err))
	}
	m := make(map[searchKey]bool, len(got))
	for _, g := range got {
		m[searchKey{g.EventID, g.Lang}] = true
	}
	return m, nil
}

// posting is one entry of event_search_post.
type posting struct {
	tok   int64
	event int64
	lang  string
}

// wantedPostings is the postings of rows (their bodies by key), with the
// vocabulary's ids of their entries: added to the vocabulary when add is
// true; when it is false, an entry the vocabulary lacks is reported in
// missing and has no posting.
func (s *Store) wantedPostings(ctx context.Context, rows map[searchKey]string, add bool) (out []posting, missing int, err error) {
	split := make(map[searchKey]postRow, len(rows))
	entries := map[string]int64{}
	for k, body := range rows {
		if !postLang(k.lang) {
			continue
		}
		r := postTokens(body)
		split[k] = r
		for _, e := range r.entries {
			entries[e] = 0
		}
	}
	if err := s.vocabIDsMySQL(ctx, entries, add); err != nil {
		return nil, 0, err
	}
	for k, r := range split {
		for _, e := range r.entries {
			id := entries[e]
			if id == 0 {
				missing++
				continue
			}
			out = append(out, posting{id, k.event, k.lang})
		}
		for _, t := range r.toks {
			out = append(out, posting{t, k.event, k.lang})
		}
	}
	slices.SortFunc(out, comparePostings)
	return out, missing, nil
}

func comparePostings(a, b posting) int {
	switch {
	case a.tok != b.tok:
		return cmp.Compare(a.tok, b.tok)
	case a.event != b.event:
		return cmp.Compare(a.event, b.event)
	}
	return strings.Compare(a.lang, b.lang)
}

// searchPostBatch is the postings written per statement.
const searchPostBatch = 2000

// writePostings writes the postings of rows (none of which has any), in
// the order of the primary key, the statement's text built here: the
// tokens and events are numbers and the languages pass postLang.
func (s *Store) writePostings(ctx context.Context, rows map[searchKey]string) error {
	if len(rows) == 0 {
		return nil
	}
	posts, _, err := s.wantedPostings(ctx, rows, true)
	if err != nil {
		return err
	}
	b := make([]byte, 0, 32*searchPostBatch)
	for chunk := range slices.Chunk(posts, searchPostBatch) {
		b = append(b[:0], "INSERT INTO event_search_post (tok, event_id, lang) VALUES "...)
		for i, p := range chunk {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '(')
			b = strconv.AppendInt(b, p.tok, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, p.event, 10)
			b = append(b, ",'"...)
			b = append(b, p.lang...)
			b = append(b, "')"...)
		}
		if _, err := s.db.ExecContext(ctx, string(b)); err != nil {
			return fmt.Errorf("models: write search postings: %w", mapErr(err))
		}
	}
	return nil
}

// vocabIDsMySQL gives every entry its id in the vocabulary. With add, the
// entries it lacks are added with their suffixes; INSERT IGNORE, so that
// two transactions adding the same entry wait for each other, and the
// second reads the first's (READ COMMITTED: each statement reads what was
// committed before it).
func (s *Store) vocabIDsMySQL(ctx context.Context, entries map[string]int64, add bool) error {
	list := make([]string, 0, len(entries))
	for e := range entries {
		list = append(list, e)
	}
	slices.Sort(list)
	read := func(chunk []string) error {
		var got []vocabPiece
		if err := s.db.NewRaw("SELECT id, run FROM event_search_vocab WHERE run IN (?)", bun.List(chunk)).Scan(ctx, &got); err != nil {
			return fmt.Errorf("models: read search vocabulary: %w", mapErr(err))
		}
		for _, g := range got {
			entries[g.Run] = g.ID
		}
		return nil
	}
	for chunk := range slices.Chunk(list, 500) {
		if err := read(chunk); err != nil {
			return err
		}
		if !add {
			continue
		}
		var lack []string
		for _, e := range chunk {
			if entries[e] == 0 {
				lack = append(lack, e)
			}
		}
		if len(lack) == 0 {
			continue
		}
		q := "INSERT IGNORE INTO event_search_vocab (run) VALUES " + strings.TrimSuffix(strings.Repeat("(?), ", len(lack)), ", ")
		_, args := inStrings(lack)
		if _, err := s.db.NewRaw(q, args...).Exec(ctx); err != nil {
			return fmt.Errorf("models: add to search vocabulary: %w", mapErr(err))
		}
		if err := read(lack); err != nil {
			return err
		}
		var sfx []any
		for _, e := range lack {
			if entries[e] <= 0 || entries[e] >= postEndBit {
				return fmt.Errorf("models: add to search vocabulary: %q has id %d", e, entries[e])
			}
			for i := range e {
				sfx = append(sfx, e[i:], entries[e])
			}
		}
		for part := range slices.Chunk(sfx, 2*searchPostBatch) {
			q := "INSERT IGNORE INTO event_search_vocab_sfx (sfx, vocab_id) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?), ", len(part)/2), ", ")
			if _, err := s.db.NewRaw(q, part...).Exec(ctx); err != nil {
				return fmt.Errorf("models: add to search vocabulary: %w", mapErr(err))
			}
		}
	}
	return nil
}

// matchSearchMySQL reads the events that hold every word, in a reader's
// languages, through the index (any status, any time): one word after the
// other, intersected. all says no word folds to anything. Read apart from
// the list, so that MariaDB's planner never runs the index's search once
// per event of the window.
func (s *Store) matchSearchMySQL(ctx context.Context, l *listsAt, lang string, words []string) (ids []int64, all bool, err error) {
	langs := []string{searchSourceLang}
	if lang != searchSourceLang {
		langs = append(langs, lang)
	}
	ids, all, err = intersectWords(l, words, func(fw string) ([]int64, error) {
		return keptOr(l, langsKey(fw, langs), 8, func() ([]int64, error) { return s.wordEventsMySQL(ctx, fw, langs) })
	})
	if err != nil {
		return nil, false, fmt.Errorf("models: search events: %w", mapErr(err))
	}
	return ids, all, nil
}

// wordEventsMySQL is the events (sorted, once each) whose row in one of
// langs holds fw, a folded word.
func (s *Store) wordEventsMySQL(ctx context.Context, fw string, langs []string) ([]int64, error) {
	var evs []int64
	read := func(q string, args ...any) error {
		var got []int64
		if err := s.db.NewRaw(q, args...).Scan(ctx, &got); err != nil {
			return err
		}
		evs = append(evs, got...)
		return nil
	}
	inList := bun.List(langs)
	n := utf8.RuneCountInString(fw)
	if hasSep(fw) || (n < 3 && shortASCII(fw)) {
		// Across runs, or in nearly every event: read in the text.
		err := read("SELECT event_id FROM event_search WHERE lang IN (?) AND LOCATE(?, body) > 0", inList, fw)
		return sortedOnce(evs), err
	}
	// In the vocabulary's runs.
	if !hasUnspaced(fw) {
		qs := runPieces(fw)
		look, pieces := fw, len(qs)
		keep := func(string) bool { return true }
		if len(qs) > 2 {
			// The pairs that hold its first two pieces, checked in the text.
			look, pieces = qs[0]+qs[1], 2
			keep = func(e string) bool {
				p := runPieces(e)
				return strings.HasSuffix(p[0], qs[0]) && p[1] == qs[1]
			}
		}
		ids, err := s.vocabEntriesWith(ctx, look, pieces, keep)
		if err != nil {
			return nil, err
		}
		for chunk := range slices.Chunk(ids, searchVocabMaxOR) {
			var err error
			if len(qs) > 2 {
				err = read("SELECT DISTINCT p.event_id FROM event_search_post p JOIN event_search es ON es.event_id = p.event_id AND es.lang = p.lang "+
					"WHERE p.tok IN (?) AND p.lang IN (?) AND LOCATE(?, es.body) > 0", bun.List(chunk), inList, fw)
			} else {
				err = read("SELECT DISTINCT event_id FROM event_search_post WHERE tok IN (?) AND lang IN (?)", bun.List(chunk), inList)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	// In the character runs.
	rs := []rune(fw)
	var err error
	switch n {
	case 1:
		lo, hi := trigramRange(trigram(rs[0], 0, 0), trigram(rs[0], 0, 0)|runeMask<<21|runeMask)
		pair := postEndPairBit | int64(rs[0])<<21
		err = read("SELECT DISTINCT event_id FROM event_search_post WHERE (tok BETWEEN ? AND ? OR tok BETWEEN ? AND ? OR tok = ?) AND lang IN (?)",
			lo, hi, pair, pair|runeMask, endTok(rs[0]), inList)
	case 2:
		lo, hi := trigramRange(trigram(rs[0], rs[1], 0), trigram(rs[0], rs[1], 0)|runeMask)
		err = read("SELECT DISTINCT event_id FROM event_search_post WHERE (tok BETWEEN ? AND ? OR tok = ?) AND lang IN (?)",
			lo, hi, endPairTok(rs[0], rs[1]), inList)
	case 3:
		err = read("SELECT DISTINCT event_id FROM event_search_post WHERE tok = ? AND lang IN (?)", trigramTok(rs[0], rs[1], rs[2]), inList)
	default:
		q, args := trigramsJoin(rs, inList, fw)
		err = read(q, args...)
	}
	return sortedOnce(evs), err
}

// searchJoinTrigrams is the most trigrams a word of four characters or
// more is looked for by: its rows are checked with LOCATE, so fewer only
// let more candidates through.
const searchJoinTrigrams = 6

// trigramsJoin is the query of the events whose row in one of langs holds
// the trigrams of a word of four characters or more (rs), in a character
// run, and the word itself (LOCATE). The lists are joined on their keys,
// not grouped: MariaDB starts from the shortest (it estimates each from
// its range) and probes the others' keys, so a word with a trigram in most
// rows ("<p>" opens every paragraph of Chinese or Japanese) costs what its
// rarest trigram costs. Trigrams with a character beyond ASCII come first,
// markup's after them.
func trigramsJoin(rs []rune, langs any, fw string) (string, []any) {
	type gram struct {
		tok   int64
		ascii bool
	}
	var grams []gram
	seen := map[int64]bool{}
	for i := 2; i < len(rs); i++ {
		t := trigramTok(rs[i-2], rs[i-1], rs[i])
		if !seen[t] {
			seen[t] = true
			grams = append(grams, gram{t, rs[i-2] < utf8.RuneSelf && rs[i-1] < utf8.RuneSelf && rs[i] < utf8.RuneSelf})
		}
	}
	slices.SortStableFunc(grams, func(a, b gram) int {
		switch {
		case a.ascii == b.ascii:
			return 0
		case b.ascii:
			return -1
		}
		return 1
	})
	grams = grams[:min(len(grams), searchJoinTrigrams)]
	var b strings.Builder
	var args []any
	b.WriteString("SELECT DISTINCT p0.event_id FROM event_search_post p0")
	for i, g := range grams[1:] {
		a := "p" + strconv.Itoa(i+1)
		b.WriteString(" JOIN event_search_post " + a + " ON " + a + ".tok = ? AND " + a + ".event_id = p0.event_id AND " + a + ".lang = p0.lang")
		args = append(args, g.tok)
	}
	b.WriteString(" JOIN event_search es ON es.event_id = p0.event_id AND es.lang = p0.lang WHERE p0.tok = ? AND p0.lang IN (?) AND LOCATE(?, es.body) > 0")
	return b.String(), append(args, grams[0].tok, langs, fw)
}

func sortedOnce(ids []int64) []int64 {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if ids == nil {
		ids = []int64{}
	}
	return ids
}

// vocabEntriesWith is the ids of the vocabulary's entries of n pieces that
// hold part and that keep accepts, found by their suffixes that start with
// part.
func (s *Store) vocabEntriesWith(ctx context.Context, part string, n int, keep func(string) bool) ([]int64, error) {
	esc := strings.NewReplacer("|", "||", "%", "|%", "_", "|_").Replace(part)
	var got []vocabPiece
	if err := s.db.NewRaw("SELECT DISTINCT v.id, v.run FROM event_search_vocab_sfx s JOIN event_search_vocab v ON v.id = s.vocab_id "+
		"WHERE s.sfx LIKE ? ESCAPE '|'", esc+"%").Scan(ctx, &got); err != nil {
		return nil, fmt.Errorf("models: search the vocabulary: %w", mapErr(err))
	}
	var ids []int64
	for _, g := range got {
		if strings.Contains(g.Run, part) && len(runPieces(g.Run)) == n && keep(g.Run) {
			ids = append(ids, g.ID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// checkPostingsMySQL compares the postings of the rows of events ids
// (their bodies in rows) with what they should be, and returns the rows
// whose postings differ (stale) and the entries of the vocabulary they
// lack (missing).
func (s *Store) checkPostingsMySQL(ctx context.Context, ids []int64, rows map[searchKey]string) (stale int, err error) {
	want, missing, err := s.wantedPostings(ctx, rows, false)
	if err != nil {
		return 0, err
	}
	var have []struct {
		Tok     int64  `bun:"tok"`
		EventID int64  `bun:"event_id"`
		Lang    string `bun:"lang"`
	}
	if err := s.db.NewSelect().TableExpr("event_search_post").Column("tok", "event_id", "lang").
		Where("event_id IN (?)", bun.List(ids)).Scan(ctx, &have); err != nil {
		return 0, fmt.Errorf("models: check search postings: %w", mapErr(err))
	}
	got := make([]posting, len(have))
	for i, h := range have {
		got[i] = posting{h.Tok, h.EventID, h.Lang}
	}
	slices.SortFunc(got, comparePostings)
	if missing == 0 && slices.Equal(got, want) {
		return 0, nil
	}
	// Which rows differ.
	byRow := func(ps []posting) map[searchKey][]posting {
		m := map[searchKey][]posting{}
		for _, p := range ps {
			k := searchKey{p.event, p.lang}
			m[k] = append(m[k], p)
		}
		return m
	}
	w, g := byRow(want), byRow(got)
	for k := range rows {
		if !slices.Equal(w[k], g[k]) {
			stale++
		}
		delete(g, k)
	}
	return stale + len(g), nil
}

// vocabSuffixesInStep tells whether every entry of the vocabulary has its
// suffixes, and no other suffix is kept (MySQL).
func (s *Store) vocabSuffixesInStep(ctx context.Context) (bool, error) {
	var want int64
	var after int64
	for {
		var got []vocabPiece
		if err := s.db.NewSelect().TableExpr("event_search_vocab").Column("id", "run").Where("id > ?", after).
			OrderExpr("id").Limit(5000).Scan(ctx, &got); err != nil {
			return false, fmt.Errorf("models: check search vocabulary: %w", mapErr(err))
		}
		if len(got) == 0 {
			break
		}
		for _, g := range got {
			want += int64(utf8.RuneCountInString(g.Run))
		}
		after = got[len(got)-1].ID
	}
	var have int64
	err := s.db.NewRaw("SELECT COUNT(*) FROM event_search_vocab_sfx s JOIN event_search_vocab v ON v.id = s.vocab_id "+
		"WHERE RIGHT(v.run, CHAR_LENGTH(s.sfx)) = s.sfx").Scan(ctx, &have)
	if err != nil {
		return false, fmt.Errorf("models: check search vocabulary: %w", mapErr(err))
	}
	total, err := s.db.NewSelect().TableExpr("event_search_vocab_sfx").Count(ctx)
	if err != nil {
		return false, fmt.Errorf("models: check search vocabulary: %w", mapErr(err))
	}
	return have == want && int64(total) == want, nil
}

// rowsOf is the bodies of index rows by their key.
func rowsOf(have []searchRow) map[searchKey]string {
	m := make(map[searchKey]string, len(have))
	for _, h := range have {
		m[searchKey{h.EventID, h.Lang}] = h.Body
	}
	return m
}

// dropOrphanSearchRows deletes the rows of events that no longer exist
// and the postings of no row (MySQL, after a reindex refolded every
// event), an event's at a time.
func (s *Store) dropOrphanSearchRows(ctx context.Context) error {
	if _, err := s.db.NewDelete().TableExpr("event_search").
		Where("NOT EXISTS (SELECT 1 FROM events e WHERE e.id = event_search.event_id)").Exec(ctx); err != nil {
		return fmt.Errorf("models: reindex: drop rows of no event: %w", mapErr(err))
	}
	orphans, err := s.orphanPostings(ctx)
	if err != nil {
		return fmt.Errorf("models: reindex: %w", err)
	}
	for _, o := range orphans {
		if _, err := s.db.NewDelete().TableExpr("event_search_post").Where("event_id = ? AND lang = ?", o.event, o.lang).Exec(ctx); err != nil {
			return fmt.Errorf("models: reindex: drop postings of no row: %w", mapErr(err))
		}
	}
	return nil
}

// searchOrphanSpan is the range of event ids orphanPostings reads per
// statement: at 100,000 events, one statement over every posting took 41 s,
// past the connection's read timeout.
const searchOrphanSpan = 20000

// orphanPostings is the keys (event and language) that have postings but
// no row in event_search (MySQL), read from the postings' index by event,
// one entry per key (a loose index scan), a range of events at a time.
func (s *Store) orphanPostings(ctx context.Context) ([]searchKey, error) {
	var top int64
	if err := s.db.NewRaw("SELECT COALESCE(MAX(event_id), 0) FROM event_search_post").Scan(ctx, &top); err != nil {
		return nil, fmt.Errorf("read postings: %w", mapErr(err))
	}
	var out []searchKey
	// Event ids are positive; the first range takes anything below too.
	for lo, hi := int64(math.MinInt64), int64(searchOrphanSpan); ; lo, hi = hi, hi+searchOrphanSpan {
		var got []struct {
			EventID int64  `bun:"event_id"`
			Lang    string `bun:"lang"`
		}
		if err := s.db.NewRaw("SELECT g.event_id, g.lang FROM (SELECT event_id, lang FROM event_search_post WHERE event_id > ? AND event_id <= ? "+
			"GROUP BY event_id, lang) g WHERE NOT EXISTS (SELECT 1 FROM event_search es WHERE es.event_id = g.event_id AND es.lang = g.lang)",
			lo, hi).Scan(ctx, &got); err != nil {
			return nil, fmt.Errorf("read postings of no row: %w", mapErr(err))
		}
		for _, g := range got {
			out = append(out, searchKey{g.EventID, g.Lang})
		}
		if hi >= top {
			return out, nil
		}
	}
}

// searchHit is what a list needs of a matched event to tell whether it is
// in the list and where (searchHitsPage): its order keys (start,
// publication date, id), its end, status and hidden flag.
type searchHit struct {
	start, end int64 // Unix seconds
	published  int64 // Unix seconds; math.MinInt64 when NULL (first, as SQL sorts it)
	id         int64
	status     string
	hidden     bool
}

// searchHitSize is the bytes one searchHit counts for in the kept lists:
// the struct and its status string's bytes (never more than 16).
const searchHitSize = 64

// searchHitsPage answers, on MySQL, a list's search that searchListsFast
// accepts from its matched events (f.searchMatched) alone: their order
// keys, window fields, status and hidden flag are read once per words and
// generation and kept with the words' lists (searchLists), so the window,
// the visibility, the total and which events come before the page's end
// are told in memory. The page query then orders just those (at most a
// page's worth past the offset) instead of every matched event, and the
// total is not counted again: with 3,000 matches, MariaDB took 12–18 ms
// for each of the two.
func (s *Store) searchHitsPage(ctx context.Context, l *listsAt, f *EventFilter) error {
	var key strings.Builder
	key.WriteString("h\x00" + f.Lang)
	for _, w := range f.Search {
		key.WriteString("\x00" + FoldSearch(w))
	}
	matched := f.searchMatched
	hits, err := keptOr(l, key.String(), searchHitSize, func() ([]searchHit, error) { return s.readSearchHits(ctx, matched) })
	if err != nil {
		return err
	}
	anonymous := !f.visibility.AllButTrash
	// The window's bounds in Unix seconds, as windowConds compares them
	// (an absent bound admits every event).
	bound := func(t *time.Time, none int64) int64 {
		if t == nil {
			return none
		}
		return Sec(*t).Unix()
	}
	startMin, startsAfter := bound(f.StartMin, math.MinInt64), bound(f.StartsAfter, math.MinInt64)
	startsBefore := bound(f.StartsBefore, math.MaxInt64)
	endMax, endsBefore := bound(f.EndMax, math.MaxInt64), bound(f.EndsBefore, math.MaxInt64)
	endsAfter := bound(f.EndsAfter, math.MinInt64)
	var in []int64 // the list's events, in order
	for i := range hits {
		h := &hits[i]
		switch {
		case anonymous && (h.status != StatusPublish || h.hidden),
			!anonymous && (h.status == StatusTrash || (h.hidden && !f.IncludeHidden)),
			h.start < startMin, h.start >= startsBefore, f.StartsAfter != nil && h.start <= startsAfter,
			h.end > endMax, h.end >= endsBefore, f.EndsAfter != nil && h.end <= endsAfter:
			continue
		}
		in = append(in, h.id)
	}
	if f.Desc {
		slices.Reverse(in)
	}
	need := min(len(in), max(f.Page-1, 0)*f.PerPage+f.PerPage)
	f.searchTotal, f.searchCounted = len(in), true
	f.searchMatched = sortedOnce(slices.Clone(in[:need]))
	return nil
}

// readSearchHits reads the searchHit of each of ids, in the list's order
// (start, publication date, id).
func (s *Store) readSearchHits(ctx context.Context, ids []int64) ([]searchHit, error) {
	type row struct {
		ID          int64      `bun:"id"`
		StartAt     time.Time  `bun:"start_at"`
		EndAt       time.Time  `bun:"end_at"`
		PublishedAt *time.Time `bun:"published_at"`
		Status      string     `bun:"status"`
		Hidden      bool       `bun:"hide_from_listings"`
	}
	hits := make([]searchHit, 0, len(ids))
	for chunk := range slices.Chunk(ids, searchHitsChunk) {
		var rows []row
		err := s.db.NewSelect().TableExpr("events").Column("id", "start_at", "end_at", "published_at", "status", "hide_from_listings").
			Where("id IN (?)", bun.List(chunk)).Scan(ctx, &rows)
		if err != nil {
			return nil, fmt.Errorf("models: search events: %w", mapErr(err))
		}
		for _, r := range rows {
			h := searchHit{start: r.StartAt.Unix(), end: r.EndAt.Unix(), published: math.MinInt64, id: r.ID, status: r.Status, hidden: r.Hidden}
			if r.PublishedAt != nil {
				h.published = r.PublishedAt.Unix()
			}
			hits = append(hits, h)
		}
	}
	slices.SortFunc(hits, func(a, b searchHit) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.published, b.published), cmp.Compare(a.id, b.id))
	})
	return hits, nil
}

// searchHitsChunk is the most ids one statement of readSearchHits reads.
const searchHitsChunk = 5000
