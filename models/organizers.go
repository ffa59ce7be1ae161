package models

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// OrganizerInput holds the fields of an organizer create or partial update.
// A nil field was not sent: create uses the default, update keeps the value.
type OrganizerInput struct {
	Organizer, Description, Phone, Website, Email, ImageURL, Status *string

	AuthorID    *int64
	PublishedAt *time.Time
}

var organizerSpec = linkedSpec{
	kind: KindOrganizer, table: "organizers", alias: "organizer", linkTable: "event_organizers", linkCol: "organizer_id",
	search: []string{"organizer", "description", "phone", "email", "website"},
}

// CreateOrganizer creates an organizer written in lang by u, or returns an
// existing one (existing=true) when TEC's duplicate detection finds one: an
// organizer u may see, not trashed, whose every provided identifying field
// (name, description, phone, e-mail, website) is equal ignoring case.
func (s *Store) CreateOrganizer(ctx context.Context, u *User, in OrganizerInput, lang string) (o *Organizer, existing bool, err error) {
	name := strings.TrimSpace(strOr(in.Organizer, ""))
	if name == "" {
		return nil, false, fmt.Errorf("%w: an organizer needs a name", ErrInvalid)
	}
	if dup, err := s.findDuplicateOrganizer(ctx, u, in); err != nil || dup != nil {
		if dup != nil {
			dup, err = s.GetOrganizer(ctx, dup.ID, lang)
		}
		return dup, dup != nil, err
	}
	now := Now()
	o = &Organizer{
		Status: EffectiveStatus(u, KindOrganizer, strOr(in.Status, "")), Lang: lang, Organizer: name,
		Description: strOr(in.Description, ""), Phone: strOr(in.Phone, ""), Website: strOr(in.Website, ""),
		Email: strOr(in.Email, ""), ImageURL: strOr(in.ImageURL, ""),
		PublishedAt: now, CreatedAt: now, UpdatedAt: now,
	}
	if u != nil {
		o.AuthorID = u.ID
	}
	if in.AuthorID != nil {
		o.AuthorID = *in.AuthorID
	}
	if in.PublishedAt != nil {
		o.PublishedAt = Sec(*in.PublishedAt)
	}
	err = s.RunInTx(ctx, func(tx *Store) error {
		id, err := tx.NewPostID(ctx, KindOrganizer)
		if err != nil {
			return err
		}
		o.ID = id
		_, err = tx.InsertWithUniqueSlug(ctx, KindOrganizer, slugBase(KindOrganizer, name), 0, func(slug string) error {
			o.Slug = slug
			_, err := tx.db.NewInsert().Model(o).Exec(ctx)
			return mapErr(err)
		})
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("models: create organizer: %w", err)
	}
	o.Translations = []string{}
	return o, false, nil
}

func (s *Store) findDuplicateOrganizer(ctx context.Context, u *User, in OrganizerInput) (*Organizer, error) {
	a := organizerSpec.alias
	var found []Organizer
	cond, args := statusCondition(a, nil, ListVisibility(u))
	q := s.db.NewSelect().Model(&found).Column("id").Where(cond, args...)
	q = dupCondition(q, a, "organizer", in.Organizer, false)
	q = dupCondition(q, a, "description", in.Description, false)
	q = dupCondition(q, a, "phone", in.Phone, false)
	q = dupCondition(q, a, "email", in.Email, false)
	q = dupCondition(q, a, "website", in.Website, false)
	if err := q.OrderExpr(a + ".id ASC").Limit(1).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: find duplicate organizer: %w", mapErr(err))
	}
	if len(found) == 0 {
		return nil, nil
	}
	return &found[0], nil
}

// UpdateOrganizer changes the fields of organizer id that in carries (a
// partial update). When lang is not the organizer's source language, the
// name and description are stored as lang translations and the others on
// the organizer (SPEC §3). It returns the organizer read in lang.
func (s *Store) UpdateOrganizer(ctx context.Context, u *User, id int64, in OrganizerInput, lang string) (*Organizer, error) {
	err := s.RunInTx(ctx, func(tx *Store) error {
		o := new(Organizer)
		if err := tx.forUpdate(tx.db.NewSelect().Model(o).Where("organizer.id = ?", id)).Scan(ctx); err != nil {
			return mapErr(err)
		}
		tr := map[string]string{}
		text := func(field string, p *string, dst *string) {
			if p == nil {
				return
			}
			if lang != o.Lang {
				tr[field] = *p
				return
			}
			*dst = *p
		}
		text("organizer", in.Organizer, &o.Organizer)
		text("description", in.Description, &o.Description)
		for _, f := range []struct {
			p   *string
			dst *string
		}{{in.Phone, &o.Phone}, {in.Website, &o.Website}, {in.Email, &o.Email}, {in.ImageURL, &o.ImageURL}} {
			if f.p != nil {
				*f.dst = *f.p
			}
		}
		wasTrashed := o.Status == StatusTrash
		if in.Status != nil {
			o.Status = EffectiveStatus(u, KindOrganizer, *in.Status)
		}
		if in.AuthorID != nil {
			o.AuthorID = *in.AuthorID
		}
		if in.PublishedAt != nil {
			o.PublishedAt = Sec(*in.PublishedAt)
		}
		o.UpdatedAt = Now()
		if _, err := tx.db.NewUpdate().Model(o).WherePK().Exec(ctx); err != nil {
			return mapErr(err)
		}
		if o.Status == StatusTrash && !wasTrashed { // trashing by update unlinks too
			if err := tx.unlinkAll(ctx, organizerSpec, id); err != nil {
				return err
			}
		}
		if len(tr) > 0 {
			return tx.SaveTranslation(ctx, KindOrganizer, id, lang, tr)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: update organizer %d: %w", id, err)
	}
	return s.GetOrganizer(ctx, id, lang)
}

// TrashOrganizer moves organizer id to the trash and unlinks it from its
// events, in one transaction. It returns the organizer afterwards, in lang.
func (s *Store) TrashOrganizer(ctx context.Context, id int64, lang string) (*Organizer, error) {
	if err := s.trashLinked(ctx, organizerSpec, id); err != nil {
		return nil, err
	}
	return s.GetOrganizer(ctx, id, lang)
}

// DeleteOrganizer deletes organizer id for good, with its links and translations.
func (s *Store) DeleteOrganizer(ctx context.Context, id int64) error {
	return s.deleteLinked(ctx, organizerSpec, id)
}

// GetOrganizer reads organizer id in lang (translations overlaid field by field).
func (s *Store) GetOrganizer(ctx context.Context, id int64, lang string) (*Organizer, error) {
	m, err := s.OrganizersByIDs(ctx, []int64{id}, lang)
	if err != nil {
		return nil, err
	}
	o, ok := m[id]
	if !ok {
		return nil, fmt.Errorf("models: organizer %d: %w", id, ErrNotFound)
	}
	return o, nil
}

// GetOrganizerBySlug reads the organizer with that slug in lang.
func (s *Store) GetOrganizerBySlug(ctx context.Context, slug, lang string) (*Organizer, error) {
	var id int64
	err := s.db.NewSelect().TableExpr("organizers").Column("id").Where("slug = ?", slug).Scan(ctx, &id)
	if err != nil {
		return nil, fmt.Errorf("models: organizer %q: %w", slug, mapErr(err))
	}
	return s.GetOrganizer(ctx, id, lang)
}

// OrganizersByIDs reads the organizers with the given ids in lang, in three
// queries whatever the number of ids. Unknown ids are left out of the map.
func (s *Store) OrganizersByIDs(ctx context.Context, ids []int64, lang string) (map[int64]*Organizer, error) {
	out := map[int64]*Organizer{}
	if len(ids) == 0 {
		return out, nil
	}
	var os []*Organizer
	if err := s.db.NewSelect().Model(&os).Where("organizer.id IN (?)", bunIn(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: organizers by id: %w", mapErr(err))
	}
	if err := s.overlayOrganizers(ctx, os, lang); err != nil {
		return nil, err
	}
	for _, o := range os {
		out[o.ID] = o
	}
	return out, nil
}

// ListOrganizers returns one page of organizers and the total (SPEC §5):
// four queries whatever the page size.
func (s *Store) ListOrganizers(ctx context.Context, f LinkedFilter) ([]*Organizer, int, error) {
	var os []*Organizer
	total, err := s.listLinked(ctx, organizerSpec, f, &os)
	if err != nil {
		return nil, 0, err
	}
	if err := s.overlayOrganizers(ctx, os, f.Lang); err != nil {
		return nil, 0, err
	}
	return os, total, nil
}

// overlayOrganizers lays the lang translations over os and sets their
// translation languages (one query).
func (s *Store) overlayOrganizers(ctx context.Context, os []*Organizer, lang string) error {
	return overlayTranslations(ctx, s, KindOrganizer, os, lang)
}
