package models

import (
	"context"
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// OldSlugTarget is the id of the record of kind k (event, venue,
// organizer, category or tag) that had slug before its slug changed, for
// the public pages' redirect from an old address (ErrNotFound when no
// record had it). Triggers keep old_slugs in the writes' own transactions
// (migration 20261129000200), so every write path records it: an edit, an
// import, a restored revision. It says nothing of whether the caller may
// read the record: the page reads it as the caller before redirecting. The
// API's by-slug routes do not use it: they stay exact.
func (s *Store) OldSlugTarget(ctx context.Context, k Kind, slug string) (int64, error) {
	slug = norm.NFC.String(slug)
	if slug == "" || !utf8.ValidString(slug) || len(slug) > maxSlugLen*4 {
		return 0, ErrNotFound
	}
	var ids []int64
	err := s.db.NewSelect().TableExpr("old_slugs").Column("target_id").
		Where("kind = ? AND slug = ?", string(k), slug).Limit(1).Scan(ctx, &ids)
	if err != nil {
		return 0, fmt.Errorf("models: find old %s slug %q: %w", k, slug, mapErr(err))
	}
	if len(ids) == 0 {
		return 0, ErrNotFound
	}
	return ids[0], nil
}
