package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// writeEventLinks replaces the links of event id whose input was sent
// (nil keeps them; an empty list clears them). Inline venues and
// organizers are created (or found again by duplicate detection) by u.
func (s *Store) writeEventLinks(ctx context.Context, u *User, id int64, in EventInput) error {
	if in.Categories != nil || in.Tags != nil {
		if err := s.writeEventTerms(ctx, id, in); err != nil {
			return err
		}
	}
	if in.Venues != nil {
		ids, err := s.venueIDs(ctx, u, *in.Venues, in.Lang)
		if err != nil {
			return err
		}
		if _, err := s.db.NewDelete().Model((*EventVenue)(nil)).Where("event_id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("models: link venues of event %d: %w", id, mapErr(err))
		}
		if len(ids) > 0 {
			rows := make([]EventVenue, len(ids))
			for i, v := range ids {
				rows[i] = EventVenue{EventID: id, VenueID: v, Position: i}
			}
			if _, err := s.db.NewInsert().Model(&rows).Exec(ctx); err != nil {
				return fmt.Errorf("models: link venues of event %d: %w", id, mapErr(err))
			}
		}
	}
	if in.Organizers != nil {
		ids, err := s.organizerIDs(ctx, u, *in.Organizers, in.Lang)
		if err != nil {
			return err
		}
		if _, err := s.db.NewDelete().Model((*EventOrganizer)(nil)).Where("event_id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("models: link organizers of event %d: %w", id, mapErr(err))
		}
		if len(ids) > 0 {
			rows := make([]EventOrganizer, len(ids))
			for i, o := range ids {
				rows[i] = EventOrganizer{EventID: id, OrganizerID: o, Position: i}
			}
			if _, err := s.db.NewInsert().Model(&rows).Exec(ctx); err != nil {
				return fmt.Errorf("models: link organizers of event %d: %w", id, mapErr(err))
			}
		}
	}
	return nil
}

// writeEventTerms replaces the categories and/or tags of event id.
func (s *Store) writeEventTerms(ctx context.Context, id int64, in EventInput) error {
	type tax struct {
		field, taxonomy string
		refs            *[]TermRef
		create          bool
	}
	for _, t := range []tax{{"categories", "category", in.Categories, in.CreateCategories}, {"tags", "tag", in.Tags, in.CreateTags}} {
		if t.refs == nil {
			continue
		}
		ids, err := s.ResolveTerms(ctx, t.taxonomy, *t.refs, t.create, in.Lang)
		if err != nil {
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid) {
				return &FieldError{Field: t.field, Reason: "reason.unknown_term", Err: err}
			}
			return err
		}
		_, err = s.db.NewDelete().Model((*EventTerm)(nil)).Where("event_id = ?", id).
			Where("term_id IN (SELECT id FROM terms WHERE taxonomy = ?)", t.taxonomy).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: link %s of event %d: %w", t.field, id, mapErr(err))
		}
		ids = uniqueIDs(ids)
		if len(ids) == 0 {
			continue
		}
		rows := make([]EventTerm, len(ids))
		for i, tid := range ids {
			rows[i] = EventTerm{EventID: id, TermID: tid}
		}
		if _, err := s.db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			return fmt.Errorf("models: link %s of event %d: %w", t.field, id, mapErr(err))
		}
	}
	return nil
}

// venueIDs resolves venue references to ids, creating inline venues.
func (s *Store) venueIDs(ctx context.Context, u *User, refs []VenueRef, lang string) ([]int64, error) {
	var ids []int64
	var check []int64
	for _, r := range refs {
		if r.New != nil {
			v, _, err := s.CreateVenue(ctx, u, *r.New, lang)
			if err != nil {
				var fe *FieldError
				if errors.As(err, &fe) || errors.Is(err, ErrInvalid) {
					return nil, &FieldError{Field: "venue", Reason: "reason.could_not_create_venue", Err: err}
				}
				return nil, err
			}
			ids = append(ids, v.ID)
			continue
		}
		ids = append(ids, r.ID)
		check = append(check, r.ID)
	}
	if err := s.mustExist(ctx, KindVenue, "venue", check); err != nil {
		return nil, err
	}
	return uniqueIDs(ids), nil
}

// organizerIDs resolves organizer references to ids, in order, creating
// inline organizers.
func (s *Store) organizerIDs(ctx context.Context, u *User, refs []OrganizerRef, lang string) ([]int64, error) {
	var ids []int64
	var check []int64
	for _, r := range refs {
		if r.New != nil {
			o, _, err := s.CreateOrganizer(ctx, u, *r.New, lang)
			if err != nil {
				var fe *FieldError
				if errors.As(err, &fe) || errors.Is(err, ErrInvalid) {
					return nil, &FieldError{Field: "organizer", Reason: "reason.could_not_create_organizer", Err: err}
				}
				return nil, err
			}
			ids = append(ids, o.ID)
			continue
		}
		ids = append(ids, r.ID)
		check = append(check, r.ID)
	}
	if err := s.mustExist(ctx, KindOrganizer, "organizer", check); err != nil {
		return nil, err
	}
	return uniqueIDs(ids), nil
}

// mustExist fails with a FieldError naming field unless every id is a
// stored record of kind k.
func (s *Store) mustExist(ctx context.Context, k Kind, field string, ids []int64) error {
	have, err := s.ExistingIDs(ctx, k, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !have[id] {
			return &FieldError{Field: field, Reason: "reason.unknown_" + string(k), Data: map[string]any{"ID": id}}
		}
	}
	return nil
}

// kindTables maps post-like kinds to their tables.
var kindTables = map[Kind]string{KindEvent: "events", KindVenue: "venues", KindOrganizer: "organizers"}

// ExistingIDs reports which of ids are stored records of kind k (event,
// venue or organizer), in one query.
func (s *Store) ExistingIDs(ctx context.Context, k Kind, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	table, ok := kindTables[k]
	if !ok || len(ids) == 0 {
		return out, nil
	}
	var found []int64
	if err := s.db.NewSelect().TableExpr(table).Column("id").Where("id IN (?)", bun.In(uniqueIDs(ids))).Scan(ctx, &found); err != nil {
		return nil, fmt.Errorf("models: check %s ids: %w", k, mapErr(err))
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// uniqueIDs drops repeated ids, keeping the first position.
func uniqueIDs(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// EventLinks holds the linked ids of a set of events, in link order.
type EventLinks struct {
	Venues     map[int64][]int64
	Organizers map[int64][]int64
	Terms      map[int64][]int64 // categories and tags together
}

// LoadEventLinks loads the links of events in three queries (one per link
// kind), whatever the number of events.
func (s *Store) LoadEventLinks(ctx context.Context, eventIDs []int64) (*EventLinks, error) {
	l := &EventLinks{Venues: map[int64][]int64{}, Organizers: map[int64][]int64{}, Terms: map[int64][]int64{}}
	if len(eventIDs) == 0 {
		return l, nil
	}
	in := bun.In(eventIDs)
	var vs []EventVenue
	if err := s.db.NewSelect().Model(&vs).Where("event_id IN (?)", in).Order("event_id", "position", "venue_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: load event venues: %w", mapErr(err))
	}
	for _, v := range vs {
		l.Venues[v.EventID] = append(l.Venues[v.EventID], v.VenueID)
	}
	var os []EventOrganizer
	if err := s.db.NewSelect().Model(&os).Where("event_id IN (?)", in).Order("event_id", "position", "organizer_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: load event organizers: %w", mapErr(err))
	}
	for _, o := range os {
		l.Organizers[o.EventID] = append(l.Organizers[o.EventID], o.OrganizerID)
	}
	var ts []EventTerm
	if err := s.db.NewSelect().Model(&ts).Where("event_id IN (?)", in).Order("event_id", "term_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: load event terms: %w", mapErr(err))
	}
	for _, t := range ts {
		l.Terms[t.EventID] = append(l.Terms[t.EventID], t.TermID)
	}
	return l, nil
}

// AllIDs returns every id of m's lists, once each.
func AllIDs(m map[int64][]int64) []int64 {
	var out []int64
	for _, ids := range m {
		out = append(out, ids...)
	}
	return uniqueIDs(out)
}
