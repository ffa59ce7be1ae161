package models

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
	"golang.org/x/text/unicode/norm"
	"modernc.org/sqlite"
)

// MaxSlugBytes caps a generated slug, leaving room under the 255-character
// column for a "-N" suffix.
const MaxSlugBytes = 200

// maxSlugLen is the column size; a suffixed slug never exceeds it.
const maxSlugLen = 255

// maxSlugAttempts bounds the conflict retries of InsertWithUniqueSlug, so a
// conflict that is not about the slug can never loop for ever.
const maxSlugAttempts = 50

// Slugify turns a title into a slug: lower-case; Unicode letters, marks and
// digits are kept (夏祭り stays 夏祭り, 서울 stays 서울, café keeps its é);
// every run of anything else (whitespace, punctuation, symbols, control
// characters, invalid UTF-8) becomes one "-"; leading and trailing "-" are
// trimmed; the result is capped at MaxSlugBytes on a rune boundary. A title
// with no letter or digit gives "". The title is composed first (NFC), so a
// title typed decomposed (é as e + U+0301) gives the slug of the composed
// one, and the slug is NFC too.
func Slugify(s string) string {
	s = norm.NFC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	dash := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) {
			if dash && b.Len() > 0 {
				if b.Len()+1+utf8.RuneLen(r) > MaxSlugBytes {
					break
				}
				b.WriteByte('-')
			}
			dash = false
			r = unicode.ToLower(r)
			if b.Len()+utf8.RuneLen(r) > MaxSlugBytes {
				break
			}
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if !norm.NFC.IsNormalString(out) {
		// Lower-casing a composed character gives a composed one but for
		// a handful of letters: compose again, within the limit.
		out = norm.NFC.String(out)
		for len(out) > MaxSlugBytes {
			_, size := utf8.DecodeLastRuneInString(out)
			out = out[:len(out)-size]
		}
	}
	return out
}

// slugTable names the table holding the slugs of a kind, and the extra
// condition that scopes them (terms are unique per taxonomy).
func slugTable(kind Kind) (table, scope string, err error) {
	switch kind {
	case KindEvent:
		return "events", "", nil
	case KindVenue:
		return "venues", "", nil
	case KindOrganizer:
		return "organizers", "", nil
	case KindCategory:
		return "terms", "category", nil
	case KindTag:
		return "terms", "tag", nil
	}
	return "", "", fmt.Errorf("models: kind %q has no slugs", kind)
}

// slugsOf is the query of the records of kind whose slugs compete (terms
// within their taxonomy), leaving out record excludeID (0 leaves out none).
// The three look-ups are written with placeholders and run through s.scan,
// which prepares them once (every create asks them; bun would write the
// slugs into a new statement each time); slugCond is the condition on the
// slug, with its arguments.
func (s *Store) slugsOf(ctx context.Context, kind Kind, excludeID int64, slugCond string, slugArgs ...any) ([]string, error) {
	table, scope, err := slugTable(kind)
	if err != nil {
		return nil, err
	}
	var where []string
	var args []any
	if scope != "" {
		where, args = append(where, "taxonomy = ?"), append(args, scope)
	}
	if excludeID > 0 {
		where, args = append(where, "id <> ?"), append(args, excludeID)
	}
	where, args = append(where, "("+slugCond+")"), append(args, slugArgs...)
	var slugs []string
	err = s.scan(ctx, &slugs, "SELECT slug FROM "+table+" WHERE "+strings.Join(where, " AND "), args...)
	return slugs, err
}

// SlugTaken reports whether slug is used by a record of kind other than
// excludeID (0 excludes nothing). Slugs compare byte for byte on both
// dialects (the MySQL columns are utf8mb4_bin).
func (s *Store) SlugTaken(ctx context.Context, kind Kind, slug string, excludeID int64) (bool, error) {
	got, err := s.slugsOf(ctx, kind, excludeID, "slug = ?", slug)
	if err != nil {
		return false, fmt.Errorf("models: slug %q taken among %ss: %w", slug, kind, mapErr(err))
	}
	return len(got) > 0, nil
}

// takenSlugs loads the slugs of kind that are base or base-<something>, in
// one query, excluding record excludeID.
func (s *Store) takenSlugs(ctx context.Context, kind Kind, base string, excludeID int64) (map[string]bool, error) {
	// base-… as a range of the slug index ('.' follows '-'): LIKE cannot
	// use the index on SQLite (it folds case), so it read every row of the
	// table on each create.
	slugs, err := s.slugsOf(ctx, kind, excludeID, "slug = ? OR (slug >= ? AND slug < ?)", base, base+"-", base+".")
	if err != nil {
		return nil, fmt.Errorf("models: slugs like %q among %ss: %w", base, kind, mapErr(err))
	}
	taken := make(map[string]bool, len(slugs))
	for _, v := range slugs {
		taken[v] = true
	}
	return taken, nil
}

// InsertWithUniqueSlug finds the first free slug among base, base-2,
// base-3, … for kind (events, venues and organizers share nothing; terms are
// unique within their taxonomy), ignoring record excludeID (for updates; 0
// on create), and calls insert with it; insert writes the record (an INSERT
// or an UPDATE). When insert fails with a unique violation on the slug (a
// concurrent writer took the same slug in between), the next free slug is
// tried, so concurrent creates of the same title all succeed with distinct
// slugs. Any other error of insert is returned as is. An empty base falls
// back to the kind's name ("event", "event-2", …).
//
// Call it on the Store of the transaction that insert writes in: both
// dialects keep a transaction usable after a unique violation (only the
// statement fails), which is what makes the retry possible, and each
// look-up sees what other writers committed (SQLite has one writer; MySQL
// transactions read committed, see RunInTx).
func (s *Store) InsertWithUniqueSlug(ctx context.Context, kind Kind, base string, excludeID int64, insert func(slug string) error) (string, error) {
	if base == "" {
		base = string(kind)
	}
	failed := map[string]bool{}
	for attempt := 0; attempt < maxSlugAttempts; attempt++ {
		slug, err := s.nextSlug(ctx, kind, base, excludeID, failed)
		if err != nil {
			return "", err
		}
		err = insert(slug)
		if err == nil {
			return slug, nil
		}
		if !isSlugConflict(err) {
			return "", err
		}
		// Another writer committed this slug after our look-up: never try it
		// again, and look again.
		failed[slug] = true
	}
	return "", fmt.Errorf("models: no free slug for %s %q after %d attempts: %w", kind, base, maxSlugAttempts, ErrConflict)
}

// nextSlug is the slug InsertWithUniqueSlug tries: base when it is free,
// else base-n with the lowest free n from 2 (as WordPress numbers them);
// after losses (failed), past the highest number taken by a random stride
// that grows with each loss, so that concurrent losers do not all pick the
// same one. That reads every slug base-…, which is fine for a few hundred
// but made each create of an often repeated title read thousands (a
// weekly class imported as single events, the bench's POSTs). So when
// base-256 is taken, it probes instead: base-2, -4, -8 … find the first
// power of two that is free, and rounds of 16 probes narrow down to a
// number taken whose next one is free. That is the lowest
// free number when the numbers taken have no gap, as creates leave them;
// past a gap (a record deleted) it may be a higher one, which is free all
// the same.
func (s *Store) nextSlug(ctx context.Context, kind Kind, base string, excludeID int64, failed map[string]bool) (string, error) {
	powers := make([]int, 0, 31)
	for p := 2; p <= 1<<30; p *= 2 {
		powers = append(powers, p)
	}
	taken, err := s.slugsTaken(ctx, kind, base, excludeID, powers, true)
	if err != nil {
		return "", err
	}
	if !taken[suffixed(base, 256)] {
		return s.nextSlugAmong(ctx, kind, base, excludeID, failed)
	}
	if len(failed) == 0 && !taken[base] {
		return base, nil
	}
	lo, hi := 256, 0 // base-lo is taken, base-hi free
	for _, p := range powers[8:] {
		if !taken[suffixed(base, p)] {
			hi = p
			break
		}
		lo = p
	}
	if hi == 0 {
		return s.nextSlugAmong(ctx, kind, base, excludeID, failed) // 2^30 taken: read them
	}
	for hi-lo > 1 {
		step := max((hi-lo)/17, 1)
		var pts []int
		for n := lo + step; n < hi && len(pts) < 16; n += step {
			pts = append(pts, n)
		}
		got, err := s.slugsTaken(ctx, kind, base, excludeID, pts, false)
		if err != nil {
			return "", err
		}
		next := hi
		for _, n := range pts {
			if !got[suffixed(base, n)] {
				next = n
				break
			}
			lo = n
		}
		hi = next
	}
	n := lo + 1
	if len(failed) > 0 {
		n = lo + 1 + rand.IntN(4*len(failed)) //nolint:gosec // G404: a spread of slug numbers, not a secret.
	}
	for failed[suffixed(base, n)] {
		n++
	}
	return suffixed(base, n), nil
}

// slugsTaken tells which of base-n for the numbers given (and base itself,
// with withBase) are taken by a record of kind other than excludeID: one
// look-up of the slug index each.
func (s *Store) slugsTaken(ctx context.Context, kind Kind, base string, excludeID int64, numbers []int, withBase bool) (map[string]bool, error) {
	slugs := make([]string, 0, len(numbers)+1)
	if withBase {
		slugs = append(slugs, base)
	}
	for _, n := range numbers {
		slugs = append(slugs, suffixed(base, n))
	}
	in, args := inStrings(slugs)
	got, err := s.slugsOf(ctx, kind, excludeID, "slug IN ("+in+")", args...)
	if err != nil {
		return nil, fmt.Errorf("models: slugs like %q among %ss: %w", base, kind, mapErr(err))
	}
	taken := make(map[string]bool, len(got))
	for _, v := range got {
		taken[v] = true
	}
	return taken, nil
}

// nextSlugAmong is nextSlug from every slug base-… read.
func (s *Store) nextSlugAmong(ctx context.Context, kind Kind, base string, excludeID int64, failed map[string]bool) (string, error) {
	taken, err := s.takenSlugs(ctx, kind, base, excludeID)
	if err != nil {
		return "", err
	}
	for k := range failed {
		taken[k] = true
	}
	slug := base
	n := 2
	if len(failed) > 0 {
		n = max(2, highestSuffix(taken, base)+1+rand.IntN(4*len(failed))) //nolint:gosec // G404: a spread of slug numbers, not a secret.
		slug = suffixed(base, n)
	}
	for ; taken[slug]; n++ {
		slug = suffixed(base, n)
	}
	return slug, nil
}

// highestSuffix is the largest n of the slugs base-n in taken (1 when
// there is none).
func highestSuffix(taken map[string]bool, base string) int {
	high := 1
	for slug := range taken {
		if rest, ok := strings.CutPrefix(slug, base+"-"); ok {
			if n, err := strconv.Atoi(rest); err == nil && n > high {
				high = n
			}
		}
	}
	return high
}

// suffixed appends "-n" to base, shortening base on a rune boundary when the
// result would not fit the column.
func suffixed(base string, n int) string {
	suf := "-" + strconv.Itoa(n)
	for len(base)+len(suf) > maxSlugLen {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	return base + suf
}

// isSlugConflict reports whether err is a unique violation of a slug index
// (events_slug_uq, terms_slug_uq, … on MySQL; "UNIQUE constraint failed:
// terms.taxonomy, terms.slug" on SQLite), as opposed to another unique
// index such as a term's name.
func isSlugConflict(err error) bool {
	if !errors.Is(mapErr(err), ErrConflict) {
		return false
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return strings.Contains(me.Message, "slug_uq")
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return strings.Contains(se.Error(), ".slug")
	}
	return false
}

// DecodeSlug is a percent-encoded slug (a path segment, or WordPress's
// stored form of a non-ASCII slug, %e6%9d%b1…) as slugs are stored:
// decoded, checked to be UTF-8 without control characters, and composed
// (NFC). ok is false for what cannot name a slug: a bad escape, bytes that
// are not UTF-8, a control character, or nothing.
func DecodeSlug(seg string) (slug string, ok bool) {
	s, err := url.PathUnescape(seg)
	if err != nil || s == "" || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return "", false
	}
	return norm.NFC.String(s), true
}
