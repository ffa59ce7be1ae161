package models

import "testing"

// SitemapQueries returns the two queries of kind's sitemap, filled in: the
// seek of the first public id from from, and the records of ids lo to hi.
func SitemapQueries(t testing.TB, s *Store, kind Kind, from, lo, hi int64) (first, entries string) {
	t.Helper()
	sk, err := sitemapKindOf(kind)
	if err != nil {
		t.Fatal(err)
	}
	first, _ = formatQuery(s, sk.firstQuery(s.dialect), append(append([]any{}, sk.args...), from))
	entries, _ = formatQuery(s, sk.entriesQuery(), append(append([]any{}, sk.args...), lo, hi))
	return first, entries
}
