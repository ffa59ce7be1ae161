package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
)

// TermFilter selects and orders terms for ListTerms (SPEC §5, TEC §8.2).
type TermFilter struct {
	Taxonomy string
	Lang     string // read language: translations overlay, and search covers them
	Page     int    // 1-based
	PerPage  int
	Search   string  // name (or its lang translation) or slug contains, case-insensitive
	Include  []int64 // only these ids
	Exclude  []int64 // not these ids
	Order    string  // "asc" (default) or "desc"
	// OrderBy: id, include, name (default), slug, term_group, description,
	// count. Name order is by NameKey, so it is case-insensitive and the
	// same on both dialects.
	OrderBy   string
	HideEmpty bool   // only terms with at least one published event
	ParentID  *int64 // only children of this category
	EventID   int64  // only terms linked to this event
	// PostID is TEC's post argument, an alias of EventID: EventID wins
	// when both are given.
	PostID int64
	Slug   string // exact slug
}

// TermOrderBys lists the accepted TermFilter.OrderBy values.
var TermOrderBys = []string{"id", "include", "name", "slug", "term_group", "description", "count"}

// ListTerms returns one page of the terms f selects and the total number
// of matches, in five queries whatever the page size: the page (with
// counts), the total, the translations and the translation languages.
// Terms are public, so u is not consulted. The include, exclude, parent
// and post/event filters must name records (else the field is invalid).
func (s *Store) ListTerms(ctx context.Context, _ *User, f TermFilter) (*Page[Term], error) {
	if err := s.checkTermFilter(ctx, &f); err != nil {
		return nil, err
	}
	where, args := s.termConditions(f)
	var total int
	err := s.db.NewRaw("SELECT COUNT(*) FROM terms tm WHERE "+where, args...).Scan(ctx, &total)
	if err != nil {
		return nil, fmt.Errorf("models: count %ss: %w", f.Taxonomy, mapErr(err))
	}
	if f.PerPage < 1 {
		f.PerPage = 1
	}
	if f.Page < 1 {
		f.Page = 1
	}
	offset := int64(f.Page-1) * int64(f.PerPage)
	if total == 0 || offset >= int64(total) {
		return &Page[Term]{Items: []*Term{}, Total: total}, nil
	}
	q, qargs := s.termPageQuery(f, offset)
	var rows []termRow
	if err := s.db.NewRaw(q, qargs...).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: list %ss: %w", f.Taxonomy, mapErr(err))
	}
	terms := make([]*Term, len(rows))
	for i := range rows {
		terms[i] = rows[i].term()
	}
	if err := s.decorateTerms(ctx, terms, f.Lang); err != nil {
		return nil, err
	}
	return &Page[Term]{Items: terms, Total: total}, nil
}

// checkTermFilter checks the filters of a term list that name records, in
// the order of the route's arguments, and settles the event filter (event
// wins over its alias post).
func (s *Store) checkTermFilter(ctx context.Context, f *TermFilter) error {
	var c fieldChecks
	unknown := "reason.categories.unknown_ids"
	if f.Taxonomy == TaxTag {
		unknown = "reason.tags.unknown_ids"
	}
	for _, l := range []struct {
		field string
		ids   []int64
	}{{"exclude", f.Exclude}, {"include", f.Include}} {
		missing, err := s.missingTerms(ctx, f.Taxonomy, l.ids)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			c.add(l.field, unknown, map[string]any{"IDs": joinIDs(missing)})
		}
	}
	if f.ParentID != nil {
		missing, err := s.missingTerms(ctx, TaxCategory, []int64{*f.ParentID})
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			c.add("parent", "reason.categories.unknown_parent", nil)
		}
	}
	for _, e := range []struct {
		field string
		id    int64
	}{{"post", f.PostID}, {"event", f.EventID}} {
		if e.id == 0 {
			continue
		}
		ok, err := s.isEvent(ctx, e.id)
		if err != nil {
			return err
		}
		if !ok {
			c.add(e.field, "reason.terms.not_event", nil)
		}
	}
	if f.EventID == 0 {
		f.EventID = f.PostID
	}
	return c.err()
}

// joinIDs writes ids as a comma list.
func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}

// termPageQuery is the SQL of one page of a term list (also EXPLAINed by
// the index tests).
func (s *Store) termPageQuery(f TermFilter, offset int64) (string, []any) {
	where, args := s.termConditions(f)
	order := s.termOrder(f)
	return "SELECT " + termRowColumns + " FROM terms tm WHERE " + where +
		" ORDER BY " + order + fmt.Sprintf(" LIMIT %d OFFSET %d", f.PerPage, offset), args
}

// termConditions builds the WHERE clause of a term list. The terms table
// is aliased tm: SearchCondition names its translation table t.
func (s *Store) termConditions(f TermFilter) (string, []any) {
	conds := []string{"tm.taxonomy = ?"}
	args := []any{f.Taxonomy}
	if f.Search != "" {
		// name_key is lower-cased in Go, so a search ignores case beyond
		// ASCII on SQLite too (its LOWER only folds A-Z).
		c, a := SearchCondition(s.dialect, TaxonomyKind(f.Taxonomy), "tm", "id", []string{"name", "name_key", "slug"}, f.Lang, []string{f.Search})
		conds = append(conds, c)
		args = append(args, a...)
	}
	if len(f.Include) > 0 {
		conds = append(conds, "tm.id IN (?)")
		args = append(args, bun.List(f.Include))
	}
	if len(f.Exclude) > 0 {
		conds = append(conds, "tm.id NOT IN (?)")
		args = append(args, bun.List(f.Exclude))
	}
	if f.HideEmpty {
		// The stored count is the number of published events (kept by
		// every write, term_counts.go): no probe of the links, which cost
		// MariaDB some 15 ms a query on a calendar of 10,000 events.
		conds = append(conds, "tm.event_count > 0")
	}
	if f.ParentID != nil {
		conds = append(conds, "tm.parent_id = ?")
		args = append(args, *f.ParentID)
	}
	if f.EventID > 0 {
		conds = append(conds, "EXISTS (SELECT 1 FROM event_terms ef WHERE ef.term_id = tm.id AND ef.event_id = ?)")
		args = append(args, f.EventID)
	}
	if f.Slug != "" {
		conds = append(conds, "tm.slug = ?")
		args = append(args, NFC(f.Slug)) // slugs are stored composed
	}
	return strings.Join(conds, " AND "), args
}

// termOrder builds the ORDER BY clause; ties break on id in the same
// direction so pages never overlap.
func (s *Store) termOrder(f TermFilter) string {
	dir := " ASC"
	if strings.EqualFold(f.Order, "desc") {
		dir = " DESC"
	}
	var key string
	switch f.OrderBy {
	case "id":
		return "tm.id" + dir
	case "include":
		if len(f.Include) == 0 {
			key = "tm.name_key"
			break
		}
		var b strings.Builder
		b.WriteString("CASE tm.id")
		for i, id := range f.Include {
			fmt.Fprintf(&b, " WHEN %d THEN %d", id, i)
		}
		b.WriteString(" END")
		key = b.String()
	case "slug":
		key = "tm.slug" // utf8mb4_bin on MySQL, BINARY on SQLite: the same order
	case "term_group":
		key = "tm.term_group"
	case "description":
		key = "tm.description"
		if s.dialect == MySQL {
			key += " COLLATE utf8mb4_bin" // byte order, as SQLite
		}
	case "count":
		key = "tm.event_count"
	default:
		key = "tm.name_key"
	}
	return key + dir + ", tm.id" + dir
}
