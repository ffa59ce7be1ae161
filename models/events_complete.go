package models

import "context"

// CompleteEvents fills events listed with EventFilter.Bare as ListEvents
// would have: text in lang, translation languages, the venues and
// organizers u may read, terms and series rules; a fixed number of queries
// whatever their number.
func (s *Store) CompleteEvents(ctx context.Context, u *User, events []*Event, lang string) error {
	return s.completeEvents(ctx, u, events, lang)
}
