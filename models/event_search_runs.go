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

// The runs of the search index on SQLite (migrations
// 20261221000100_event_search_keys and 20261222000100_event_search_pieces).
// A folded word without a separator (searchSep: what SearchWords splits
// on) is a substring of a folded text exactly when it is a substring of
// one of the text's runs, its longest parts without a separator. Runs of
// Chinese and Japanese, which do not space their words, and runs with a
// piece longer than searchVocabMaxRun are indexed by their trigrams with
// positions (event_search_fts). Every other run, a word of a spaced
// language with what clings to it ("jazz.</p><p>autumn"), is cut into
// pieces (runPieces: before each "<", after each ">"), and each piece is
// kept once in the vocabulary (event_search_vocab); a row's document in
// event_search_runs is its runs' pieces' ids in order, with positions, a
// run apart from the next by the token "x". The vocabulary grows with the
// languages' words, not with the events, so the pieces that hold a word
// are found in it at once, and the rows that hold one of them in
// event_search_runs. Pieces, not whole runs: the seeded calendar's
// descriptions are HTML, and "jazz." was in 82 runs ("<p>jazz.",
// "jazz.</p><p>tea", …), each a posting list its search OR-ed; it is in
// a piece or two.
//
// A word without "<" or ">" inside (a split point) lies inside one piece:
// an occurrence across a split point would hold the "<" after it or the
// ">" before it. So it is the pieces that hold it, OR-ed. A word with a
// split point is its own pieces q1 … qk, and it is in a run exactly when
// the run has k pieces in a row whose first ends with q1, whose last
// starts with qk and whose others are q2 … qk-1. With one split point
// ("<p>coffee", k = 2) that is a pair of neighbouring pieces, which the
// vocabulary keeps too (their concatenation, "<p>coffee.", whose only
// split point is between them) and each document lists after its pieces:
// the pairs that hold the word, OR-ed, as for a piece. With more, it is a
// phrase of pieces, one per pair of a first and a last piece
// (searchPhraseMax at most; past that, the word is looked for in the
// text). A phrase of positions costs far more than a token: "<p>" is in
// every description, so "<p>coffee" as a phrase compared the positions of
// every row with "coffee" (9.6 ms at 100,000 events; as pairs, 3 ms).

// searchDocTables are the contentless indexes whose rowid is a row's key.
var searchDocTables = []string{"event_search_fts", "event_search_runs", "event_search_short"}

// searchVocabMaxRun is the longest piece kept in the vocabulary, in
// characters.
const searchVocabMaxRun = 64

// searchRunBreak is the token between two runs in a document of
// event_search_runs: a phrase of pieces does not span runs. Pieces'
// tokens start with "r" (runToken).
const searchRunBreak = "x"

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

// runPieces cuts a run (or a word) before each "<" and after each ">".
func runPieces(run string) []string {
	var out []string
	start := 0
	for i := 0; i < len(run); i++ {
		switch run[i] {
		case '<':
			if i > start {
				out = append(out, run[start:i])
				start = i
			}
		case '>':
			out = append(out, run[start:i+1])
			start = i + 1
		}
	}
	if start < len(run) {
		out = append(out, run[start:])
	}
	return out
}

// vocabPieces is the pieces of a run that goes to the vocabulary, or nil
// when the run goes to the trigram index (it holds a character of an
// unspaced script, or a piece longer than searchVocabMaxRun).
func vocabPieces(run string) []string {
	if strings.IndexFunc(run, unspacedRune) >= 0 {
		return nil
	}
	pieces := runPieces(run)
	for _, p := range pieces {
		if utf8.RuneCountInString(p) > searchVocabMaxRun {
			return nil
		}
	}
	return pieces
}

// splitRuns splits a body into its distinct runs: the trigram index's
// text (its runs, joined by line breaks) and the pieces of the
// vocabulary's runs, a run's in order.
func splitRuns(body string) (text string, vocab [][]string) {
	seen := map[string]bool{}
	var long []string
	for run := range strings.FieldsFuncSeq(body, searchSep) {
		if seen[run] {
			continue
		}
		seen[run] = true
		if p := vocabPieces(run); p != nil {
			vocab = append(vocab, p)
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
	for chunk := range slices.Chunk(list, 512) {
		// Padded as inList pads (a run twice changes nothing in IN), so
		// that a few prepared statements serve every write.
		padded := chunk
		for size := 1; ; size *= 2 {
			if size >= len(chunk) {
				padded = slices.Grow(slices.Clip(chunk), size-len(chunk))
				for len(padded) < size {
					padded = append(padded, chunk[len(chunk)-1])
				}
				break
			}
		}
		in, args := inStrings(padded)
		var got []vrow
		if err := s.scan(ctx, &got, "SELECT id, run FROM event_search_vocab WHERE run IN ("+in+")", args...); err != nil {
			return fmt.Errorf("models: read search vocabulary: %w", mapErr(err))
		}
		for _, g := range got {
			runs[g.Run] = g.ID
		}
		// New runs one statement each, the same one (prepared): a write
		// adds a few, a bulk refold many, and a statement per count would
		// fill the statements kept (maxPrepared).
		for _, r := range chunk {
			if runs[r] != 0 {
				continue
			}
			var added []vrow
			if err := s.scan(ctx, &added, "INSERT INTO event_search_vocab (run) VALUES (?) RETURNING id, run", r); err != nil {
				return fmt.Errorf("models: add to search vocabulary: %w", mapErr(err))
			}
			for _, g := range added {
				runs[g.Run] = g.ID
			}
		}
	}
	return nil
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
	vocab := make(map[searchKey][][]string, len(keys))
	runs := map[string]int64{}
	for _, k := range keys {
		t, v := splitRuns(want[k])
		texts[k], vocab[k] = t, v
		for _, run := range v {
			for i, p := range run {
				runs[p] = 0
				if i > 0 {
					runs[run[i-1]+p] = 0
				}
			}
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
			for j, run := range vocab[k] {
				if j > 0 {
					b = append(b, " "+searchRunBreak+" "...)
				}
				for i, p := range run {
					if i > 0 {
						b = append(b, ' ')
					}
					b = append(b, 'r')
					b = strconv.AppendInt(b, runs[p], 36)
				}
			}
			// The pairs of neighbouring pieces, after the pieces and a
			// break: no phrase of pieces reaches them.
			sep := " " + searchRunBreak
			for _, run := range vocab[k] {
				for i := 1; i < len(run); i++ {
					b = append(b, sep...)
					b = append(b, " r"...)
					b = strconv.AppendInt(b, runs[run[i-1]+run[i]], 36)
					sep = ""
				}
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
		if err := s.exec(ctx, q, b.String()); err != nil {
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

// searchVocabMaxOR is the most pieces or phrases one query of
// event_search_runs ORs; a word that needs more is read in several.
const searchVocabMaxOR = 1000

// searchPhraseMax is the most phrases of pieces a word with a split point
// is looked for as; one that would need more (a word such as ".<", whose
// first piece ends hundreds of pieces and whose last starts as many) is
// looked for in the text.
const searchPhraseMax = 1024

// vocabPiece is one piece of the vocabulary.
type vocabPiece struct {
	ID  int64  `bun:"id"`
	Run string `bun:"run"`
}

// vocabPiecesWith is the entries of the vocabulary made of n pieces (1: a
// piece, 2: a pair of neighbouring pieces) that hold part and that keep
// accepts: found by part's trigrams, or, for a part of one or two
// characters, by reading the vocabulary (each entry is there once).
func (s *Store) vocabPiecesWith(ctx context.Context, part string, n int, keep func(string) bool) ([]vocabPiece, error) {
	var got []vocabPiece
	if utf8.RuneCountInString(part) >= 3 {
		var toks []string
		for t := range ngramTokens(part, 3, func(g string) string { return g }) {
			toks = append(toks, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		}
		slices.Sort(toks)
		q := "SELECT v.id, v.run FROM event_search_vocab_fts f JOIN event_search_vocab v ON v.id = f.rowid WHERE event_search_vocab_fts MATCH ?"
		if err := s.scan(ctx, &got, q, strings.Join(toks, " AND ")); err != nil {
			return nil, fmt.Errorf("models: search the vocabulary: %w", mapErr(err))
		}
	} else if err := s.scan(ctx, &got, "SELECT id, run FROM event_search_vocab WHERE instr(run, ?) > 0", part); err != nil {
		return nil, fmt.Errorf("models: search the vocabulary: %w", mapErr(err))
	}
	out := got[:0]
	for _, g := range got {
		if strings.Contains(g.Run, part) && len(runPieces(g.Run)) == n && keep(g.Run) {
			out = append(out, g)
		}
	}
	return out, nil
}

// piecesMatch is the FTS5 expressions of event_search_runs, any of which
// a row matches exactly when one of its vocabulary runs holds fw (a
// folded word without a separator or a character of the unspaced
// scripts): the tokens of the pieces that hold fw, or, when fw has a
// split point, the phrases of pieces that make it. ok is false when fw
// would need more than searchPhraseMax phrases.
func (s *Store) piecesMatch(ctx context.Context, fw string) (exprs []string, ok bool, err error) {
	qs := runPieces(fw)
	if len(qs) <= 2 {
		// In a piece, or across the split point of a pair (a pair holds
		// no other).
		got, err := s.vocabPiecesWith(ctx, fw, len(qs), func(string) bool { return true })
		if err != nil {
			return nil, false, err
		}
		for _, g := range got {
			exprs = append(exprs, runToken(g.ID))
		}
		return exprs, true, nil
	}
	first, last := qs[0], qs[len(qs)-1]
	firsts, err := s.vocabPiecesWith(ctx, first, 1, func(r string) bool { return strings.HasSuffix(r, first) })
	if err != nil || len(firsts) == 0 {
		return nil, true, err
	}
	lasts, err := s.vocabPiecesWith(ctx, last, 1, func(r string) bool { return strings.HasPrefix(r, last) })
	if err != nil || len(lasts) == 0 {
		return nil, true, err
	}
	if len(firsts)*len(lasts) > searchPhraseMax {
		return nil, false, nil
	}
	// The pieces between, each one of the vocabulary exactly.
	mid := make([]string, 0, len(qs)-2)
	if len(qs) > 2 {
		ids := map[string]int64{}
		in, args := inStrings(qs[1 : len(qs)-1])
		var got []vocabPiece
		if err := s.db.NewRaw("SELECT id, run FROM event_search_vocab WHERE run IN ("+in+")", args...).Scan(ctx, &got); err != nil {
			return nil, false, fmt.Errorf("models: search the vocabulary: %w", mapErr(err))
		}
		for _, g := range got {
			ids[g.Run] = g.ID
		}
		for _, q := range qs[1 : len(qs)-1] {
			id, found := ids[q]
			if !found {
				return nil, true, nil
			}
			mid = append(mid, runToken(id))
		}
	}
	for _, f := range firsts {
		for _, l := range lasts {
			phrase := append(append([]string{runToken(f.ID)}, mid...), runToken(l.ID))
			exprs = append(exprs, `"`+strings.Join(phrase, " ")+`"`)
		}
	}
	return exprs, true, nil
}

// hasSep tells whether a folded word holds a separator (FoldSearch makes
// some: "¨" is a space and an accent, "﹐" a comma): it may span runs, so
// it is looked for in the text itself.
func hasSep(fw string) bool { return strings.IndexFunc(fw, searchSep) >= 0 }

// hasUnspaced tells whether a word holds a character of the unspaced
// scripts: it is in no vocabulary run.
func hasUnspaced(fw string) bool { return strings.IndexFunc(fw, unspacedRune) >= 0 }
