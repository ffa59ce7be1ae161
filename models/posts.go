package models

import (
	"context"
	"fmt"
)

// NewPostID allocates an id in the id space shared by events, venues and
// organizers. Call it inside the transaction that inserts the record.
func (s *Store) NewPostID(ctx context.Context, k Kind) (int64, error) {
	p := &PostID{Kind: string(k)}
	res, err := s.db.NewInsert().Model(p).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: allocate %s id: %w", k, mapErr(err))
	}
	if p.ID == 0 { // MySQL has no RETURNING; bun fills it from LastInsertId, but be sure
		id, err := res.LastInsertId()
		if err != nil {
			return 0, fmt.Errorf("models: allocate %s id: %w", k, mapErr(err))
		}
		p.ID = id
	}
	return p.ID, nil
}

// PostKind tells which kind of post-like record id names: KindEvent,
// KindVenue or KindOrganizer, or ErrNotFound. A record deleted for good
// keeps its id allocated (ids are never reused) but is not found here.
func (s *Store) PostKind(ctx context.Context, id int64) (Kind, error) {
	var kind string
	err := s.db.NewSelect().TableExpr("post_ids").Column("kind").Where("id = ?", id).Scan(ctx, &kind)
	if err != nil {
		return "", fmt.Errorf("models: kind of post %d: %w", id, mapErr(err))
	}
	var table string
	switch Kind(kind) {
	case KindEvent:
		table = "events"
	case KindVenue:
		table = "venues"
	case KindOrganizer:
		table = "organizers"
	default:
		return "", ErrNotFound
	}
	ok, err := s.db.NewSelect().TableExpr(table).Where("id = ?", id).Exists(ctx)
	if err != nil {
		return "", fmt.Errorf("models: kind of post %d: %w", id, mapErr(err))
	}
	if !ok {
		return "", fmt.Errorf("models: post %d: %w", id, ErrNotFound)
	}
	return Kind(kind), nil
}
