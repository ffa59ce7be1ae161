package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// TermInput holds the fields of a term create or update; nil means "not
// sent" (an update keeps the stored value).
type TermInput struct {
	Name        *string
	Description *string
	Slug        *string // sanitized with Slugify; "" after that is ErrBadSlug
	ParentID    *int64  // categories only; 0 is the top level
}

// maxTermDepth bounds the ancestor walk of the cycle check (a corrupt
// parent chain can never hang a request).
const maxTermDepth = 1000

// check applies the rules of a term input that need no data: a name on
// create, never blank; a slug with a letter or digit; text limits; a
// parent that is not negative.
func (in *TermInput) check(taxonomy string, create bool) error {
	nfcFields(&in.Name, &in.Slug)
	var c fieldChecks
	if create && in.Name == nil {
		c.add("name", "reason.required", nil)
	}
	if in.Name != nil {
		if _, err := CleanTermName(*in.Name); err != nil {
			c.fields = append(c.fields, FieldError{Field: "name", Code: CodeInvalidParam, Reason: "reason.empty_string", Err: err})
		}
	}
	in.Description = sanitizeHTML(in.Description)
	c.text("description", in.Description, MaxLongTextLen)
	if in.Slug != nil && Slugify(*in.Slug) == "" {
		c.fields = append(c.fields, FieldError{Field: "slug", Code: CodeInvalidParam, Reason: "reason.terms.bad_slug", Err: ErrBadSlug})
	}
	if in.ParentID != nil && *in.ParentID < 0 && taxonomy == TaxCategory {
		c.fields = append(c.fields, FieldError{Field: "parent", Code: "rest_out_of_bounds", Reason: "reason.categories.unknown_parent", Err: ErrBadParent})
	}
	return c.err()
}

// slugTaken is the refusal of a slug another term of the taxonomy has.
func slugTaken(taxonomy string) error {
	reason := "reason.categories.slug_taken"
	if taxonomy == TaxTag {
		reason = "reason.tags.slug_taken"
	}
	return invalidBecause("slug", reason, nil, ErrSlugTaken)
}

// CreateTerm creates a term of the taxonomy written in lang (its source
// language) by u and returns it as read in lang. In order: the rules that
// need no data, u's capability (authors and up manage categories, editors
// tags), then the checks that read the database. The slug is in.Slug
// sanitized (invalid when another term has it), else Slugify(name) made
// unique with -2, -3, …. A name taken at that level (also when two creates
// race: the unique index decides) is a *TermExistsError.
func (s *Store) CreateTerm(ctx context.Context, u *User, taxonomy string, in TermInput, lang string) (*Term, error) {
	if err := in.check(taxonomy, true); err != nil {
		return nil, err
	}
	kind := TaxonomyKind(taxonomy)
	if err := attempt(u, ActCreate, kind); err != nil {
		return nil, err
	}
	name, _ := CleanTermName(*in.Name)
	now := s.site.Now()
	t := &Term{Taxonomy: taxonomy, Name: name, NameKey: NameKey(name), Lang: lang, CreatedAt: now, UpdatedAt: now}
	if in.Description != nil {
		t.Description = *in.Description
	}
	if in.ParentID != nil && taxonomy == TaxCategory {
		t.ParentID = *in.ParentID
	}
	err := s.RunInTx(ctx, func(tx *Store) error {
		t.ID = 0 // RunInTx may run this again after a MySQL deadlock
		if err := tx.checkParent(ctx, taxonomy, 0, t.ParentID); err != nil {
			return err
		}
		if id, err := tx.termAtLevel(ctx, taxonomy, t.ParentID, t.NameKey, 0, false); err != nil || id != 0 {
			return termExists(kind, id, err)
		}
		if in.Slug != nil {
			t.Slug = Slugify(*in.Slug)
			err := tx.insertTerm(ctx, t)
			if isSlugConflict(err) {
				return slugTaken(taxonomy)
			}
			return tx.nameConflict(ctx, t, err)
		}
		_, err := tx.InsertWithUniqueSlug(ctx, kind, Slugify(name), 0, func(slug string) error {
			t.Slug = slug
			return tx.insertTerm(ctx, t)
		})
		return tx.nameConflict(ctx, t, err)
	})
	if err != nil {
		return nil, err
	}
	return s.readTerm(ctx, taxonomy, t.ID, lang)
}

// UpdateTerm changes the fields of in that are not nil on term id of the
// taxonomy, if u may manage the taxonomy, and returns it as read in lang.
// Written in a language other than the term's source language, name and
// description are stored as lang translations; slug and parent always go
// on the term. A name change keeps the slug. A parent that is the term
// itself or one of its descendants is invalid.
func (s *Store) UpdateTerm(ctx context.Context, u *User, taxonomy string, id int64, in TermInput, lang string) (*Term, error) {
	if err := in.check(taxonomy, false); err != nil {
		return nil, err
	}
	kind := TaxonomyKind(taxonomy)
	if err := attempt(u, ActEdit, kind); err != nil {
		return nil, err
	}
	err := s.RunInTx(ctx, func(tx *Store) error {
		var found []Term
		if err := tx.db.NewSelect().Model(&found).Where("id = ?", id).Where("taxonomy = ?", taxonomy).Scan(ctx); err != nil {
			return fmt.Errorf("models: update %s %d: %w", taxonomy, id, mapErr(err))
		}
		if len(found) == 0 {
			return &NotFoundError{Kind: kind, Ref: ByID(id)}
		}
		t := &found[0]
		cols := []string{"updated_at"}
		translated := map[string]string{}
		if in.Name != nil {
			name, _ := CleanTermName(*in.Name)
			if lang == t.Lang {
				t.Name, t.NameKey = name, NameKey(name)
				cols = append(cols, "name", "name_key")
			} else {
				translated["name"] = name
			}
		}
		if in.Description != nil {
			if lang == t.Lang {
				t.Description = *in.Description
				cols = append(cols, "description")
			} else {
				translated["description"] = *in.Description
			}
		}
		if in.ParentID != nil && taxonomy == TaxCategory && *in.ParentID != t.ParentID {
			if err := tx.checkParent(ctx, taxonomy, t.ID, *in.ParentID); err != nil {
				return err
			}
			t.ParentID = *in.ParentID
			cols = append(cols, "parent_id")
		}
		if in.Slug != nil {
			t.Slug = Slugify(*in.Slug)
			cols = append(cols, "slug")
		}
		if id, err := tx.termAtLevel(ctx, taxonomy, t.ParentID, t.NameKey, t.ID, false); err != nil || id != 0 {
			return termExists(kind, id, err)
		}
		t.UpdatedAt = tx.site.Now()
		_, err := tx.db.NewUpdate().Model(t).Column(cols...).WherePK().Exec(ctx)
		if isSlugConflict(err) {
			return slugTaken(taxonomy)
		}
		if err != nil {
			return tx.nameConflict(ctx, t, fmt.Errorf("models: update %s %d: %w", taxonomy, id, mapErr(err)))
		}
		if slices.Contains(cols, "parent_id") { // moved in the tree: its events gain and lose ancestors
			filed, err := tx.eventsFiledUnder(ctx, t.ID)
			if err != nil {
				return err
			}
			if err := tx.fileEvents(ctx, filed); err != nil {
				return err
			}
		}
		if len(translated) > 0 {
			return tx.saveTranslation(ctx, kind, t.ID, lang, translated)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.readTerm(ctx, taxonomy, id, lang)
}

// DeleteTerm deletes term id of the taxonomy for good, if u may manage the
// taxonomy, and returns it as it was (read in lang, count included). In one
// transaction its event links and translations go, and its child
// categories move up to its parent, as WordPress does; a child whose name
// is taken at that level makes the delete fail with a *TermExistsError
// naming the term it collides with.
func (s *Store) DeleteTerm(ctx context.Context, u *User, taxonomy string, id int64, lang string) (*Term, error) {
	kind := TaxonomyKind(taxonomy)
	if err := attempt(u, ActEdit, kind); err != nil {
		return nil, err
	}
	var t *Term
	err := s.RunInTx(ctx, func(tx *Store) error {
		var err error
		if t, err = tx.readTerm(ctx, taxonomy, id, lang); err != nil {
			return err
		}
		var clash []int64
		err = tx.db.NewRaw(`SELECT o.id FROM terms c JOIN terms o ON o.taxonomy = c.taxonomy AND o.parent_id = ? AND o.name_key = c.name_key
			WHERE c.taxonomy = ? AND c.parent_id = ? ORDER BY o.id LIMIT 1`, t.ParentID, taxonomy, id).Scan(ctx, &clash)
		if err != nil {
			return fmt.Errorf("models: delete %s %d: check children: %w", taxonomy, id, mapErr(err))
		}
		if len(clash) > 0 {
			return &TermExistsError{Kind: kind, ID: clash[0], Deleting: true}
		}
		// The events linked to the category itself lose it and may lose its
		// ancestors; those filed under it through a subcategory only lose
		// it (the cascade), as the subcategories move up.
		var linked []int64
		if taxonomy == TaxCategory {
			if err := tx.db.NewRaw("SELECT event_id FROM event_terms WHERE term_id = ?", id).Scan(ctx, &linked); err != nil {
				return fmt.Errorf("models: delete %s %d: %w", taxonomy, id, mapErr(err))
			}
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"DELETE FROM event_terms WHERE term_id = ?", []any{id}},
			{"DELETE FROM term_translations WHERE term_id = ?", []any{id}},
			{"UPDATE terms SET parent_id = ? WHERE taxonomy = ? AND parent_id = ?", []any{t.ParentID, taxonomy, id}},
			{"DELETE FROM event_category_ancestors WHERE term_id = ?", []any{id}},
			{"DELETE FROM terms WHERE id = ?", []any{id}},
		} {
			if _, err := tx.db.ExecContext(ctx, q.sql, q.args...); err != nil {
				return fmt.Errorf("models: delete %s %d: %w", taxonomy, id, mapErr(err))
			}
		}
		return tx.fileEvents(ctx, linked)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// checkParent verifies that parent (0: top level) is a category and that
// making it the parent of term id (0 on create) creates no cycle.
func (s *Store) checkParent(ctx context.Context, taxonomy string, id, parent int64) error {
	if parent == 0 {
		return nil
	}
	if taxonomy != TaxCategory || parent < 0 || parent == id {
		return badParent("reason.categories.bad_parent")
	}
	cur := parent
	for depth := 0; cur != 0; depth++ {
		var up []int64
		err := s.db.NewRaw("SELECT parent_id FROM terms WHERE id = ? AND taxonomy = ?", cur, taxonomy).Scan(ctx, &up)
		if err != nil {
			return fmt.Errorf("models: check parent %d: %w", parent, mapErr(err))
		}
		if len(up) == 0 && depth == 0 {
			return badParent("reason.categories.unknown_parent")
		}
		if len(up) == 0 || depth > maxTermDepth {
			return badParent("reason.categories.bad_parent") // a broken chain
		}
		if up[0] == id && id != 0 {
			return badParent("reason.categories.bad_parent") // the parent descends from the term itself
		}
		cur = up[0]
	}
	return nil
}

// termAtLevel returns the id of a term of the taxonomy other than exceptID
// with nameKey under parent, or 0.
func (s *Store) termAtLevel(ctx context.Context, taxonomy string, parent int64, nameKey string, exceptID int64, locking bool) (int64, error) {
	lock := ""
	if locking && s.dialect == MySQL {
		lock = " LOCK IN SHARE MODE"
	}
	var ids []int64
	err := s.db.NewRaw("SELECT id FROM terms WHERE taxonomy = ? AND parent_id = ? AND name_key = ? AND id <> ?"+lock,
		taxonomy, parent, nameKey, exceptID).Scan(ctx, &ids)
	if err != nil {
		return 0, fmt.Errorf("models: find %s name at level %d: %w", taxonomy, parent, mapErr(err))
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return ids[0], nil
}

// termExists turns the result of termAtLevel into the error to return.
func termExists(kind Kind, id int64, err error) error {
	if err != nil {
		return err
	}
	return &TermExistsError{Kind: kind, ID: id}
}

// badParent is the refusal of a parent category (unknown, or one that
// would make a cycle).
func badParent(reason string) error {
	return invalidBecause("parent", reason, nil, ErrBadParent)
}

// nameConflict maps a unique violation of the name index (a concurrent
// create of the same name at the same level won the race) to
// *TermExistsError with the winner's id; other errors pass through.
func (s *Store) nameConflict(ctx context.Context, t *Term, err error) error {
	if err == nil || !errors.Is(err, ErrConflict) || isSlugConflict(err) {
		return err
	}
	id, ferr := s.termAtLevel(ctx, t.Taxonomy, t.ParentID, t.NameKey, t.ID, true)
	if ferr != nil || id == 0 {
		return err
	}
	return &TermExistsError{Kind: TaxonomyKind(t.Taxonomy), ID: id}
}
