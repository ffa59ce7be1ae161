package models

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// VenueInput holds the fields of a venue create or partial update. A nil
// field was not sent: create uses the default, update keeps the value.
type VenueInput struct {
	Venue, Description, Address, City, Country, Province, State, Zip, Phone, StateProvince, Website, ImageURL, Status *string

	GeoLat, GeoLng       *float64
	ShowMap, ShowMapLink *bool
	AuthorID             *int64
	PublishedAt          *time.Time
}

var venueSpec = linkedSpec{
	kind: KindVenue, table: "venues", alias: "venue", linkTable: "event_venues", linkCol: "venue_id",
	search: []string{"venue", "description", "address", "city", "province", "state", "stateprovince", "zip", "phone"},
}

// DeriveStateProvince is TEC's stateprovince when none is given: the state
// for the United States (or no country), the province elsewhere.
func DeriveStateProvince(country, state, province string) string {
	switch strings.ToLower(strings.TrimSpace(country)) {
	case "", "us", "usa", "united states":
		return state
	}
	return province
}

// CreateVenue creates a venue written in lang by u, or returns an existing
// one (existing=true) when TEC's duplicate detection finds one: a venue u
// may see, not trashed, whose every provided identifying field matches
// (name, description, city, province, state, stateprovince, zip, phone equal
// ignoring case; address contained).
func (s *Store) CreateVenue(ctx context.Context, u *User, in VenueInput, lang string) (v *Venue, existing bool, err error) {
	name := strings.TrimSpace(strOr(in.Venue, ""))
	if name == "" {
		return nil, false, fmt.Errorf("%w: a venue needs a name", ErrInvalid)
	}
	if dup, err := s.findDuplicateVenue(ctx, u, in); err != nil || dup != nil {
		if dup != nil {
			dup, err = s.GetVenue(ctx, dup.ID, lang)
		}
		return dup, dup != nil, err
	}
	now := Now()
	v = &Venue{
		Status: EffectiveStatus(u, KindVenue, strOr(in.Status, "")), Lang: lang, Venue: name,
		Description: strOr(in.Description, ""), Address: strOr(in.Address, ""), City: strOr(in.City, ""),
		Country: strOr(in.Country, ""), Province: strOr(in.Province, ""), State: strOr(in.State, ""),
		Zip: strOr(in.Zip, ""), Phone: strOr(in.Phone, ""), Website: strOr(in.Website, ""),
		ImageURL: strOr(in.ImageURL, ""), GeoLat: in.GeoLat, GeoLng: in.GeoLng,
		ShowMap: true, ShowMapLink: true, PublishedAt: now, CreatedAt: now, UpdatedAt: now,
	}
	v.StateProvince = strOr(in.StateProvince, "")
	if v.StateProvince == "" {
		v.StateProvince = DeriveStateProvince(v.Country, v.State, v.Province)
	}
	if in.ShowMap != nil {
		v.ShowMap = *in.ShowMap
	}
	if in.ShowMapLink != nil {
		v.ShowMapLink = *in.ShowMapLink
	}
	if u != nil {
		v.AuthorID = u.ID
	}
	if in.AuthorID != nil {
		v.AuthorID = *in.AuthorID
	}
	if in.PublishedAt != nil {
		v.PublishedAt = Sec(*in.PublishedAt)
	}
	err = s.RunInTx(ctx, func(tx *Store) error {
		id, err := tx.NewPostID(ctx, KindVenue)
		if err != nil {
			return err
		}
		v.ID = id
		_, err = tx.InsertWithUniqueSlug(ctx, KindVenue, slugBase(KindVenue, name), 0, func(slug string) error {
			v.Slug = slug
			_, err := tx.db.NewInsert().Model(v).Exec(ctx)
			return mapErr(err)
		})
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("models: create venue: %w", err)
	}
	v.Translations = []string{}
	return v, false, nil
}

func (s *Store) findDuplicateVenue(ctx context.Context, u *User, in VenueInput) (*Venue, error) {
	a := venueSpec.alias
	var found []Venue
	cond, args := statusCondition(a, nil, ListVisibility(u))
	q := s.db.NewSelect().Model(&found).Column("id").Where(cond, args...)
	q = dupCondition(q, a, "venue", in.Venue, false)
	q = dupCondition(q, a, "description", in.Description, false)
	q = dupCondition(q, a, "address", in.Address, true)
	for col, v := range map[string]*string{"city": in.City, "province": in.Province, "state": in.State,
		"stateprovince": in.StateProvince, "zip": in.Zip, "phone": in.Phone} {
		q = dupCondition(q, a, col, v, false)
	}
	if err := q.OrderExpr(a + ".id ASC").Limit(1).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: find duplicate venue: %w", mapErr(err))
	}
	if len(found) == 0 {
		return nil, nil
	}
	return &found[0], nil
}

// UpdateVenue changes the fields of venue id that in carries (a partial
// update, SPEC §9). When lang is not the venue's source language, the text
// fields (venue, description, address, city) are stored as lang
// translations and the others on the venue (SPEC §3). A requested status is
// scaled back for users who may not publish. It returns the venue read in lang.
func (s *Store) UpdateVenue(ctx context.Context, u *User, id int64, in VenueInput, lang string) (*Venue, error) {
	err := s.RunInTx(ctx, func(tx *Store) error {
		v := new(Venue)
		if err := tx.forUpdate(tx.db.NewSelect().Model(v).Where("venue.id = ?", id)).Scan(ctx); err != nil {
			return mapErr(err)
		}
		oldDerived := DeriveStateProvince(v.Country, v.State, v.Province)
		tr := map[string]string{}
		text := func(field string, p *string, dst *string) {
			if p == nil {
				return
			}
			if lang != v.Lang {
				tr[field] = *p
				return
			}
			*dst = *p
		}
		text("venue", in.Venue, &v.Venue)
		text("description", in.Description, &v.Description)
		text("address", in.Address, &v.Address)
		text("city", in.City, &v.City)
		for _, f := range []struct {
			p   *string
			dst *string
		}{{in.Country, &v.Country}, {in.Province, &v.Province}, {in.State, &v.State}, {in.Zip, &v.Zip},
			{in.Phone, &v.Phone}, {in.Website, &v.Website}, {in.ImageURL, &v.ImageURL}} {
			if f.p != nil {
				*f.dst = *f.p
			}
		}
		switch {
		case in.StateProvince != nil && *in.StateProvince != "":
			v.StateProvince = *in.StateProvince
		case in.StateProvince != nil || v.StateProvince == oldDerived:
			// Cleared, or still the derived value: follow the new country,
			// state and province.
			v.StateProvince = DeriveStateProvince(v.Country, v.State, v.Province)
		}
		if in.GeoLat != nil {
			v.GeoLat = in.GeoLat
		}
		if in.GeoLng != nil {
			v.GeoLng = in.GeoLng
		}
		if in.ShowMap != nil {
			v.ShowMap = *in.ShowMap
		}
		if in.ShowMapLink != nil {
			v.ShowMapLink = *in.ShowMapLink
		}
		wasTrashed := v.Status == StatusTrash
		if in.Status != nil {
			v.Status = EffectiveStatus(u, KindVenue, *in.Status)
		}
		if in.AuthorID != nil {
			v.AuthorID = *in.AuthorID
		}
		if in.PublishedAt != nil {
			v.PublishedAt = Sec(*in.PublishedAt)
		}
		v.UpdatedAt = Now()
		if _, err := tx.db.NewUpdate().Model(v).WherePK().Exec(ctx); err != nil {
			return mapErr(err)
		}
		if v.Status == StatusTrash && !wasTrashed { // trashing by update unlinks too
			if err := tx.unlinkAll(ctx, venueSpec, id); err != nil {
				return err
			}
		}
		if len(tr) > 0 {
			return tx.SaveTranslation(ctx, KindVenue, id, lang, tr)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: update venue %d: %w", id, err)
	}
	return s.GetVenue(ctx, id, lang)
}

// TrashVenue moves venue id to the trash and unlinks it from its events, in
// one transaction. It returns the venue as it is afterwards, read in lang.
func (s *Store) TrashVenue(ctx context.Context, id int64, lang string) (*Venue, error) {
	if err := s.trashLinked(ctx, venueSpec, id); err != nil {
		return nil, err
	}
	return s.GetVenue(ctx, id, lang)
}

// DeleteVenue deletes venue id for good, with its links and translations.
func (s *Store) DeleteVenue(ctx context.Context, id int64) error {
	return s.deleteLinked(ctx, venueSpec, id)
}

// GetVenue reads venue id in lang (translations overlaid field by field).
func (s *Store) GetVenue(ctx context.Context, id int64, lang string) (*Venue, error) {
	m, err := s.VenuesByIDs(ctx, []int64{id}, lang)
	if err != nil {
		return nil, err
	}
	v, ok := m[id]
	if !ok {
		return nil, fmt.Errorf("models: venue %d: %w", id, ErrNotFound)
	}
	return v, nil
}

// GetVenueBySlug reads the venue with that slug in lang.
func (s *Store) GetVenueBySlug(ctx context.Context, slug, lang string) (*Venue, error) {
	var id int64
	err := s.db.NewSelect().TableExpr("venues").Column("id").Where("slug = ?", slug).Scan(ctx, &id)
	if err != nil {
		return nil, fmt.Errorf("models: venue %q: %w", slug, mapErr(err))
	}
	return s.GetVenue(ctx, id, lang)
}

// VenuesByIDs reads the venues with the given ids in lang, in three queries
// whatever the number of ids. Unknown ids are left out of the map.
func (s *Store) VenuesByIDs(ctx context.Context, ids []int64, lang string) (map[int64]*Venue, error) {
	out := map[int64]*Venue{}
	if len(ids) == 0 {
		return out, nil
	}
	var vs []*Venue
	if err := s.db.NewSelect().Model(&vs).Where("venue.id IN (?)", bunIn(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: venues by id: %w", mapErr(err))
	}
	if err := s.overlayVenues(ctx, vs, lang); err != nil {
		return nil, err
	}
	for _, v := range vs {
		out[v.ID] = v
	}
	return out, nil
}

// ListVenues returns one page of venues and the total (SPEC §5): four
// queries whatever the page size (count, page, translations, languages).
func (s *Store) ListVenues(ctx context.Context, f LinkedFilter) ([]*Venue, int, error) {
	var vs []*Venue
	total, err := s.listLinked(ctx, venueSpec, f, &vs)
	if err != nil {
		return nil, 0, err
	}
	if err := s.overlayVenues(ctx, vs, f.Lang); err != nil {
		return nil, 0, err
	}
	return vs, total, nil
}

// overlayVenues lays the lang translations over vs and sets their
// translation languages (one query).
func (s *Store) overlayVenues(ctx context.Context, vs []*Venue, lang string) error {
	return overlayTranslations(ctx, s, KindVenue, vs, lang)
}
