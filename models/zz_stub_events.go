package models

// Temporary stubs of functions other branches deliver (terms, linked).
// Deleted when they land on main.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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

// VenueInput is a stub of the linked branch's venue input.
type VenueInput struct {
	Venue string
}

// CreateVenue is a stub of the linked branch's venue creation.
func (s *Store) CreateVenue(ctx context.Context, u *User, in VenueInput, lang string) (*Venue, bool, error) {
	id, err := s.NewPostID(ctx, KindVenue)
	if err != nil {
		return nil, false, err
	}
	now := Now()
	v := &Venue{ID: id, AuthorID: u.ID, Status: StatusPublish, Slug: Slugify(in.Venue) + "-" + strconv.FormatInt(id, 10), Lang: lang, Venue: in.Venue, PublishedAt: now, CreatedAt: now, UpdatedAt: now}
	if _, err := s.db.NewInsert().Model(v).Exec(ctx); err != nil {
		return nil, false, mapErr(err)
	}
	return v, false, nil
}

// VenuesByIDs is a stub of the linked branch's batch loader.
func (s *Store) VenuesByIDs(ctx context.Context, ids []int64, lang string) (map[int64]*Venue, error) {
	out := map[int64]*Venue{}
	if len(ids) == 0 {
		return out, nil
	}
	var vs []*Venue
	if err := s.db.NewSelect().Model(&vs).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, mapErr(err)
	}
	for _, v := range vs {
		out[v.ID] = v
	}
	return out, nil
}

// OrganizerInput is a stub of the linked branch's organizer input.
type OrganizerInput struct {
	Organizer string
}

// CreateOrganizer is a stub of the linked branch's organizer creation.
func (s *Store) CreateOrganizer(ctx context.Context, u *User, in OrganizerInput, lang string) (*Organizer, bool, error) {
	id, err := s.NewPostID(ctx, KindOrganizer)
	if err != nil {
		return nil, false, err
	}
	now := Now()
	o := &Organizer{ID: id, AuthorID: u.ID, Status: StatusPublish, Slug: Slugify(in.Organizer) + "-" + strconv.FormatInt(id, 10), Lang: lang, Organizer: in.Organizer, PublishedAt: now, CreatedAt: now, UpdatedAt: now}
	if _, err := s.db.NewInsert().Model(o).Exec(ctx); err != nil {
		return nil, false, mapErr(err)
	}
	return o, false, nil
}

// OrganizersByIDs is a stub of the linked branch's batch loader.
func (s *Store) OrganizersByIDs(ctx context.Context, ids []int64, lang string) (map[int64]*Organizer, error) {
	out := map[int64]*Organizer{}
	if len(ids) == 0 {
		return out, nil
	}
	var os []*Organizer
	if err := s.db.NewSelect().Model(&os).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, mapErr(err)
	}
	for _, o := range os {
		out[o.ID] = o
	}
	return out, nil
}
