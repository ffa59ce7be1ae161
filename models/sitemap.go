package models

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"
)

// The sitemap (web/public_site.go) lists every record an anonymous reader
// has a public page for, in children of at most size records each. A child
// is a range of ids, the n-th run of size ids of its kind, so a record stays
// in the same child whatever is added or removed around it, and each child
// is read by one range scan of an index, never the whole table: events,
// venues and organizers by (status, id), categories and tags by
// (taxonomy, id) (migrations 20261129000400 to 20261129000403).

// sitemapKind is how one kind's public records are found.
type sitemapKind struct {
	table string
	index string // the sitemap index of the table
	// where selects the public records of the table, aliased r: the
	// anonymous reader's read rule (readCondition) for posts, the taxonomy
	// for terms, which have no status (every term has its page).
	where string
	args  []any
	// modified is the column of the records' last change the pages show,
	// "" for terms (a term page shows its upcoming events, so the term's
	// own change time would understate it).
	modified string
}

func sitemapKindOf(k Kind) (sitemapKind, error) {
	switch k {
	case KindEvent, KindVenue, KindOrganizer:
		// Whoever reads a post by id sees it when Can(nil, ActRead) holds:
		// published, whatever its other flags (an event hidden from
		// listings keeps its page; a recurring event's occurrences each
		// have theirs). The pages read through the same rule.
		cond, args := readCondition("r", nil)
		table := map[Kind]string{KindEvent: "events", KindVenue: "venues", KindOrganizer: "organizers"}[k]
		return sitemapKind{table: table, index: table + "_sitemap_idx", where: cond, args: args, modified: "r.updated_at"}, nil
	case KindCategory, KindTag:
		return sitemapKind{table: "terms", index: "terms_sitemap_idx", where: "r.taxonomy = ?", args: []any{map[Kind]string{KindCategory: TaxCategory, KindTag: TaxTag}[k]}}, nil
	}
	return sitemapKind{}, fmt.Errorf("models: no sitemap of %q", k)
}

// firstQuery is the first public id from an id on (one argument after
// args). On SQLite it names the sitemap index: with statistics (ANALYZE)
// the planner may prefer the primary key, which would walk every record
// without a page (a run of drafts) up to the next public one. MySQL reads
// the minimum from the index as it plans.
func (sk sitemapKind) firstQuery(d Dialect) string {
	from := sk.table + " r"
	if d == SQLite {
		from += " INDEXED BY " + sk.index
	}
	return "SELECT MIN(r.id) FROM " + from + " WHERE " + sk.where + " AND r.id >= ?"
}

// entriesQuery is the public records of an id range (two arguments after
// args), by id: a range of the sitemap index or of the primary key,
// whichever the planner picks, both bounded by the child's run of ids.
func (sk sitemapKind) entriesQuery() string {
	mod := "NULL"
	if sk.modified != "" {
		mod = sk.modified
	}
	return "SELECT r.id, r.slug, " + mod + " AS modified FROM " + sk.table + " r WHERE " + sk.where +
		" AND r.id >= ? AND r.id <= ? ORDER BY r.id"
}

// SitemapEntry is one public record of a sitemap child.
type SitemapEntry struct {
	ID       int64     `bun:"id"`
	Slug     string    `bun:"slug"`
	Modified time.Time `bun:"modified"` // zero for categories and tags
}

// sitemapRange is the id range of child n of size, false when there is none
// (n < 1, or past the largest id).
func sitemapRange(size, n int) (lo, hi int64, ok bool) {
	if size < 1 || n < 1 || int64(n-1) > math.MaxInt64/int64(size)-1 {
		return 0, 0, false
	}
	lo = int64(n-1)*int64(size) + 1
	return lo, lo + int64(size) - 1, true
}

// SitemapChildren returns the numbers of the children of kind's sitemap
// (children of size ids) that list at least one record, in order: child 1
// holds ids 1 to size, child 2 the next size ids, and so on. Each is found
// by one index seek, the first public id from where the last child ended,
// so the work follows the number of children, not of records. It reads no
// last change: that would be a scan of every record (a per-child maximum
// of updated_at read 100,000 index entries, 30 ms on SQLite, at 100,000
// events); the children's entries carry theirs.
func (s *Store) SitemapChildren(ctx context.Context, kind Kind, size int) ([]int, error) {
	sk, err := sitemapKindOf(kind)
	if err != nil {
		return nil, err
	}
	if size < 1 {
		return nil, fmt.Errorf("models: sitemap children of size %d", size)
	}
	q := sk.firstQuery(s.dialect)
	var out []int
	for from := int64(1); ; {
		var id sql.NullInt64
		if err := s.scan(ctx, &id, q, append(append([]any{}, sk.args...), from)...); err != nil {
			return nil, fmt.Errorf("models: sitemap of %s: %w", sk.table, mapErr(err))
		}
		if !id.Valid {
			return out, nil
		}
		n := int((id.Int64-1)/int64(size)) + 1
		_, hi, ok := sitemapRange(size, n)
		if !ok {
			return out, nil
		}
		out = append(out, n)
		if hi == math.MaxInt64 {
			return out, nil
		}
		from = hi + 1
	}
}

// SitemapEntries returns the public records of child n of kind's sitemap
// (children of size ids), by id: their slug and last change, read from one
// index range. A child that lists nothing, or is past the end, gives none.
func (s *Store) SitemapEntries(ctx context.Context, kind Kind, size, n int) ([]SitemapEntry, error) {
	sk, err := sitemapKindOf(kind)
	if err != nil {
		return nil, err
	}
	lo, hi, ok := sitemapRange(size, n)
	if !ok {
		return nil, nil
	}
	var rows []SitemapEntry
	if err := s.scan(ctx, &rows, sk.entriesQuery(), append(append([]any{}, sk.args...), lo, hi)...); err != nil {
		return nil, fmt.Errorf("models: sitemap of %s: %w", sk.table, mapErr(err))
	}
	for i := range rows {
		if !rows[i].Modified.IsZero() {
			rows[i].Modified = rows[i].Modified.UTC()
		}
	}
	return rows, nil
}
