package models

// Temporary stubs of functions other branches deliver (terms, linked).
// Deleted when they land on main.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// TermRef names a term by id or by name/slug.
type TermRef struct {
	ID   int64
	Name string
}

// ResolveTerms is a stub of the terms branch's resolver.
func (s *Store) ResolveTerms(ctx context.Context, taxonomy string, refs []TermRef, create bool, lang string) ([]int64, error) {
	var ids []int64
	for _, r := range refs {
		var t Term
		q := s.db.NewSelect().Model(&t).Where("taxonomy = ?", taxonomy)
		if r.ID != 0 {
			q = q.Where("id = ?", r.ID)
		} else {
			q = q.Where("(slug = ? OR name_key = ?)", r.Name, strings.ToLower(r.Name))
		}
		err := q.Limit(1).Scan(ctx)
		if err == nil {
			ids = append(ids, t.ID)
			continue
		}
		if err = mapErr(err); !errors.Is(err, ErrNotFound) || r.ID != 0 || !create {
			return nil, fmt.Errorf("models: resolve term: %w", err)
		}
		now := Now()
		t = Term{Taxonomy: taxonomy, Name: r.Name, NameKey: strings.ToLower(r.Name), Slug: Slugify(r.Name), Lang: lang, CreatedAt: now, UpdatedAt: now}
		if _, err := s.db.NewInsert().Model(&t).Exec(ctx); err != nil {
			return nil, mapErr(err)
		}
		ids = append(ids, t.ID)
	}
	return ids, nil
}

// TermsByIDs is a stub of the terms branch's batch loader.
func (s *Store) TermsByIDs(ctx context.Context, ids []int64, lang string) (map[int64]*Term, error) {
	out := map[int64]*Term{}
	if len(ids) == 0 {
		return out, nil
	}
	var ts []*Term
	if err := s.db.NewSelect().Model(&ts).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, mapErr(err)
	}
	for _, t := range ts {
		out[t.ID] = t
	}
	return out, nil
}
