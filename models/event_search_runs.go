package models

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// The runs of the search index on SQLite (migration
// 20261221000100_event_search_keys). A folded word without a separator
// (searchSep: what SearchWords splits on) is a substring of a folded text
// exactly when it is a substring of one of the text's runs, its longest
// parts without a separator. Runs of Chinese and Japanese, which do not
// space their words, and runs longer than searchVocabMaxRun are indexed by
// their trigrams with positions (event_search_fts); every other run, a
// word of a spaced language with what clings to it ("jazz.", "<p>coffee"),
// is kept once in the vocabulary (event_search_vocab), and a row's
// document in event_search_runs is its runs' ids. The vocabulary grows
// with the languages' words, not with the events, so the runs that hold a
// word are found in it at once, and the rows that hold one of them in
// event_search_runs: where a word of the seeded calendar's small
// vocabulary ("jazz.") made the trigram index read the positions of most
// rows, it reads the rows that hold it.

// searchDocTables are the contentless indexes whose rowid is a row's key.
var searchDocTables = []string{"event_search_fts", "event_search_runs", "event_search_short"}

// searchVocabMaxRun is the longest run kept in the vocabulary, in
// characters.
const searchVocabMaxRun = 64

// searchSep tells whether r separates words, as SearchWords splits them.
func searchSep(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == ',' || r == 0x7f
	}
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == '，' || r == '、'
}

// unspacedRune tells whether r belongs to a script written without spaces
// between words (Chinese, Japanese): its runs go to the trigram index.
func unspacedRune(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// vocabRun tells whether a run goes to the vocabulary.
func vocabRun(run string) bool {
	n := 0
	for _, r := range run {
		if unspacedRune(r) {
			return false
		}
		n++
	}
	return n <= searchVocabMaxRun
}

// splitRuns splits a body into its distinct runs: the trigram index's
// text (the other runs, joined by line breaks) and the vocabulary's runs.
func splitRuns(body string) (text string, vocab []string) {
	seen := map[string]bool{}
	var long []string
	for run := range strings.FieldsFuncSeq(body, searchSep) {
		if seen[run] {
			continue
		}
		seen[run] = true
		if vocabRun(run) {
			vocab = append(vocab, run)
		} else {
			long = append(long, run)
		}
	}
	return strings.Join(long, "\n"), vocab
}

// vocabIDs gives every run its id in the vocabulary, adding those it lacks.
func (s *Store) vocabIDs(ctx context.Context, runs map[string]int64) error {
	list := make([]string, 0, len(runs))
	for r := range runs {
		list = append(list, r)
	}
	slices.Sort(list)
	type vrow struct {
		ID  int64  `bun:"id"`
		Run string `bun:"run"`
	}
	for chunk := range slices.Chunk(list, 500) {
		in, args := inStrings(chunk)
		var got []vrow
		if err := s.db.NewRaw("SELECT id, run FROM event_search_vocab WHERE run IN ("+in+")", args...).Scan(ctx, &got); err != nil {
			return fmt.Errorf("models: read search vocabulary: %w", mapErr(err))
		}
		for _, g := range got {
			runs[g.Run] = g.ID
		}
		var add []any
		for _, r := range chunk {
			if runs[r] == 0 {
				add = append(add, r)
			}
		}
		if len(add) == 0 {
			continue
		}
		q := "INSERT INTO event_search_vocab (run) VALUES " + strings.TrimSuffix(strings.Repeat("(?), ", len(add)), ", ") + " RETURNING id, run"
		var added []vrow
		if err := s.db.NewRaw(q, add...).Scan(ctx, &added); err != nil {
			return fmt.Errorf("models: add to search vocabulary: %w", mapErr(err))
		}
		for _, g := range added {
			runs[g.Run] = g.ID
		}
	}
	return nil
}

func inStrings(list []string) (string, []any) {
	args := make([]any, len(list))
	for i, v := range list {
		args[i] = v
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(list)), ", "), args
}

// runToken is the token of a vocabulary run in event_search_runs.
func runToken(id int64) string { return "r" + strconv.FormatInt(id, 36) }

// writeSearchRows inserts the rows want (SQLite), with their documents
// in the contentless indexes, 200 rows a statement.
func (s *Store) writeSearchRows(ctx context.Context, want map[searchKey]string, evs map[int64]searchEvent, slots map[string]int64) error {
	// In the order of their keys: FTS5 writes the rows of a transaction
	// from memory in one segment only while their rowids grow (otherwise
	// it flushes at each row that does not, and merges the segments:
	// most of a seed's time).
	keys := sortedSearchKeys(want)
	rowKey := make(map[searchKey]int64, len(keys))
	for _, k := range keys {
		rowKey[k], _ = keyOf(k, evs[k.event], slots)
	}
	slices.SortFunc(keys, func(a, b searchKey) int { return cmp.Compare(rowKey[a], rowKey[b]) })
	texts := make(map[searchKey]string, len(keys))
	vocab := make(map[searchKey][]string, len(keys))
	runs := map[string]int64{}
	for _, k := range keys {
		t, v := splitRuns(want[k])
		texts[k], vocab[k] = t, v
		for _, r := range v {
			runs[r] = 0
		}
	}
	if err := s.vocabIDs(ctx, runs); err != nil {
		return err
	}
	// One statement per table: FTS5 also writes its pending rows at the
	// end of each statement of a transaction.
	var rows, fts, doc, short [][]any
	var b []byte
	for _, k := range keys {
		if k.event < 0 || k.event > searchEventMask {
			return fmt.Errorf("models: event %d: id too large for the search index", k.event)
		}
		key := rowKey[k]
		rows = append(rows, []any{key, k.event, k.lang, want[k]})
		if texts[k] != "" {
			fts = append(fts, []any{key, texts[k]})
		}
		if len(vocab[k]) > 0 {
			b = b[:0]
			for j, r := range vocab[k] {
				if j > 0 {
					b = append(b, ' ')
				}
				b = append(b, 'r')
				b = strconv.AppendInt(b, runs[r], 36)
			}
			doc = append(doc, []any{key, string(b)})
		}
		if g := shortGrams(want[k]); g != "" {
			short = append(short, []any{key, g})
		}
	}
	for _, w := range []struct {
		q, one string
		rows   [][]any
	}{
		{"INSERT INTO event_search (id, event_id, lang, body) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)",
			"INSERT INTO event_search (id, event_id, lang, body) VALUES (?, ?, ?, ?)", rows},
		{"INSERT INTO event_search_fts (rowid, body) SELECT value ->> 0, value ->> 1 FROM json_each(?)",
			"INSERT INTO event_search_fts (rowid, body) VALUES (?, ?)", fts},
		{"INSERT INTO event_search_runs (rowid, runs) SELECT value ->> 0, value ->> 1 FROM json_each(?)",
			"INSERT INTO event_search_runs (rowid, runs) VALUES (?, ?)", doc},
		{"INSERT INTO event_search_short (rowid, grams) SELECT value ->> 0, value ->> 1 FROM json_each(?)",
			"INSERT INTO event_search_short (rowid, grams) VALUES (?, ?)", short},
	} {
		if err := s.insertSearchRows(ctx, w.q, w.one, w.rows); err != nil {
			return err
		}
	}
	return nil
}

// insertSearchRows runs q, an INSERT … SELECT … FROM json_each(?), on
// rows (numbers and strings) in one statement. JSON would change a string
// of invalid UTF-8 or holding NUL: rows with one are inserted by one, the
// same INSERT of one row with bound values, a statement each.
func (s *Store) insertSearchRows(ctx context.Context, q, one string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	safe := rows[:0:0]
	var unsafe [][]any
	for _, r := range rows {
		ok := true
		for _, v := range r {
			if t, isStr := v.(string); isStr && (!utf8.ValidString(t) || strings.IndexByte(t, 0) >= 0) {
				ok = false
			}
		}
		if ok {
			safe = append(safe, r)
		} else {
			unsafe = append(unsafe, r)
		}
	}
	if len(safe) > 0 {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(safe); err != nil {
			return fmt.Errorf("models: write search rows: %w", err)
		}
		if _, err := s.db.ExecContext(ctx, q, b.String()); err != nil {
			return fmt.Errorf("models: write search rows: %w", mapErr(err))
		}
	}
	for _, r := range unsafe {
		// Bound by the driver: bun would write the text into the query.
		var err error
		switch db := s.db.(type) {
		case bun.Tx:
			_, err = db.Tx.ExecContext(ctx, one, r...)
		case *bun.DB:
			_, err = db.DB.ExecContext(ctx, one, r...)
		default:
			_, err = s.db.ExecContext(ctx, one, r...)
		}
		if err != nil {
			return fmt.Errorf("models: write search rows: %w", mapErr(err))
		}
	}
	return nil
}

// searchVocabMaxOR is the most vocabulary runs one query of
// event_search_runs ORs; a word held by more is read in several.
const searchVocabMaxOR = 1000

// vocabRunsOf is the ids of the vocabulary's runs that hold fw (three
// characters or more), found by their trigrams and checked.
func (s *Store) vocabRunsOf(ctx context.Context, fw string) ([]int64, error) {
	var toks []string
	for t := range ngramTokens(fw, 3, func(g string) string { return g }) {
		toks = append(toks, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	slices.Sort(toks)
	var got []struct {
		ID  int64  `bun:"id"`
		Run string `bun:"run"`
	}
	if err := s.db.NewRaw("SELECT v.id, v.run FROM event_search_vocab_fts f JOIN event_search_vocab v ON v.id = f.rowid "+
		"WHERE event_search_vocab_fts MATCH ?", strings.Join(toks, " AND ")).Scan(ctx, &got); err != nil {
		return nil, fmt.Errorf("models: search the vocabulary: %w", mapErr(err))
	}
	ids := make([]int64, 0, len(got))
	for _, g := range got {
		if strings.Contains(g.Run, fw) {
			ids = append(ids, g.ID)
		}
	}
	return ids, nil
}

// hasSep tells whether a folded word holds a separator (FoldSearch makes
// some: "¨" is a space and an accent, "﹐" a comma): it may span runs, so
// it is looked for in the text itself.
func hasSep(fw string) bool { return strings.IndexFunc(fw, searchSep) >= 0 }

// hasUnspaced tells whether a word holds a character of the unspaced
// scripts: it is in no vocabulary run.
func hasUnspaced(fw string) bool { return strings.IndexFunc(fw, unspacedRune) >= 0 }
