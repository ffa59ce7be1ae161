package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// CompleteEvents fills events listed with EventFilter.Bare as ListEvents
// would have: text in lang, translation languages, the venues and
// organizers u may read, terms and series rules; a fixed number of queries
// whatever their number.
func (s *Store) CompleteEvents(ctx context.Context, u *User, events []*Event, lang string) error {
	return s.completeEvents(ctx, u, events, lang)
}

// EventsByIDs reads the stored rows of events ids (as ListEvents with
// EventFilter.Bare left them out), in the order of ids, skipping ids that
// name no event; one query whatever their number. It checks no permission:
// the ids come from a list that did.
func (s *Store) EventsByIDs(ctx context.Context, ids []int64) ([]*Event, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var found []*Event
	if err := s.db.NewSelect().Model(&found).Where("event.id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: events by ids: %w", mapErr(err))
	}
	byID := make(map[int64]*Event, len(found))
	for _, e := range found {
		byID[e.ID] = e
	}
	out := make([]*Event, 0, len(ids))
	for _, id := range ids {
		if e := byID[id]; e != nil {
			out = append(out, e)
		}
	}
	return out, nil
}
