package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"golang.org/x/text/unicode/norm"
)

// Taxonomies of terms, as stored in terms.taxonomy.
const (
	TaxCategory = "category"
	TaxTag      = "tag"
)

// TaxonomyKind maps a taxonomy to its Kind (KindCategory or KindTag).
func TaxonomyKind(taxonomy string) Kind {
	if taxonomy == TaxTag {
		return KindTag
	}
	return KindCategory
}

// Errors of term writes, checked with errors.Is / errors.As.
var (
	// ErrBadParent: the parent category does not exist, or choosing it
	// would make a category its own ancestor.
	ErrBadParent = errors.New("models: bad parent category")
	// ErrSlugTaken: an explicitly requested slug is used by another term of
	// the taxonomy.
	ErrSlugTaken = errors.New("models: slug taken")
	// ErrBadSlug: a requested slug has no letter or digit left after
	// Slugify.
	ErrBadSlug = errors.New("models: bad slug")
	// ErrBadTermName: a term name is empty (after trimming) or longer than
	// 255 characters.
	ErrBadTermName = errors.New("models: bad term name")
)

// TermExistsError reports that a term of the taxonomy already has this name (compared
// case-insensitively) at the same level. It wraps ErrConflict.
type TermExistsError struct {
	Kind Kind  // KindCategory or KindTag
	ID   int64 // the existing term
	// Deleting: the clash comes from deleting a category, whose children
	// would move up next to a category of the same name.
	Deleting bool
}

func (e *TermExistsError) Error() string {
	return fmt.Sprintf("models: a term with this name exists at this level (term %d)", e.ID)
}

// MessageID is the i18n message that explains the clash.
func (e *TermExistsError) MessageID() string {
	switch {
	case e.Deleting:
		return "error.term_exists.delete_category"
	case e.Kind == KindTag:
		return "error.term_exists.tags"
	}
	return "error.term_exists.categories"
}

// Unwrap makes TermExistsError match ErrConflict.
func (e *TermExistsError) Unwrap() error { return ErrConflict }

// UnknownTermError names an item of ResolveTerms that matches no term. It
// wraps ErrNotFound.
type UnknownTermError struct {
	Taxonomy string
	Ref      TermRef
}

func (e *UnknownTermError) Error() string {
	if e.Ref.ID > 0 {
		return fmt.Sprintf("models: no %s with id %d", e.Taxonomy, e.Ref.ID)
	}
	return fmt.Sprintf("models: no %s named %q", e.Taxonomy, e.Ref.Name)
}

// Unwrap makes UnknownTermError match ErrNotFound.
func (e *UnknownTermError) Unwrap() error { return ErrNotFound }

// TermRef is an event's category or tag item as sent: an id (ID > 0) or a
// name (matched as a slug first, then as a name, case-insensitively, within
// the taxonomy).
type TermRef struct {
	ID   int64
	Name string
}

// NameKey is the case-folded form of a term name that the unique index
// (taxonomy, parent_id, name_key) and name ordering use, identically on
// both dialects, in NFC (a name typed decomposed is the same name).
func NameKey(name string) string { return norm.NFC.String(strings.ToLower(norm.NFC.String(name))) }

// CleanTermName trims a term name, composes it (NFC) and checks it:
// ErrBadTermName when empty, longer than 255 characters or holding a
// control character.
func CleanTermName(name string) (string, error) {
	name = NFC(strings.TrimSpace(name))
	if name == "" || utf8.RuneCountInString(name) > 255 || !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		return "", fmt.Errorf("%w: %q", ErrBadTermName, name)
	}
	return name, nil
}

// termRow is a terms row plus its published-event count.
type termRow struct {
	ID          int64  `bun:"id"`
	Taxonomy    string `bun:"taxonomy"`
	Name        string `bun:"name"`
	NameKey     string `bun:"name_key"`
	Slug        string `bun:"slug"`
	Description string `bun:"description"`
	ParentID    int64  `bun:"parent_id"`
	TermGroup   int64  `bun:"term_group"`
	Lang        string `bun:"lang"`
	Cnt         int64  `bun:"cnt"`
}

// termRowColumns selects a terms row (alias tm) with its stored count.
const termRowColumns = "tm.id, tm.taxonomy, tm.name, tm.name_key, tm.slug, tm.description, tm.parent_id, tm.term_group, tm.lang, tm.event_count AS cnt"

func (r *termRow) term() *Term {
	return &Term{ID: r.ID, Taxonomy: r.Taxonomy, Name: r.Name, NameKey: r.NameKey, Slug: r.Slug,
		Description: r.Description, ParentID: r.ParentID, TermGroup: r.TermGroup, Lang: r.Lang, Count: r.Cnt}
}

// TermsByIDs loads the terms with the given ids (of any taxonomy) in three
// queries whatever len(ids): the rows with their Count (published events),
// their lang translations laid over name and description field by field,
// and the languages that have a translation. Unknown ids are absent.
func (s *Store) termsByIDs(ctx context.Context, ids []int64, lang string) (map[int64]*Term, error) {
	out := map[int64]*Term{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []termRow
	in, args := inList(ids)
	err := s.scan(ctx, &rows, "SELECT "+termRowColumns+" FROM terms tm WHERE tm.id IN ("+in+")", args...)
	if err != nil {
		return nil, fmt.Errorf("models: terms by ids: %w", mapErr(err))
	}
	terms := make([]*Term, len(rows))
	for i := range rows {
		terms[i] = rows[i].term()
		out[terms[i].ID] = terms[i]
	}
	if err := s.decorateTerms(ctx, terms, lang); err != nil {
		return nil, err
	}
	return out, nil
}

// decorateTerms lays the lang translations over terms and sets their
// translation languages (one query: categories and tags share
// term_translations).
func (s *Store) decorateTerms(ctx context.Context, terms []*Term, lang string) error {
	return overlayTranslations(ctx, s, KindCategory, terms, lang)
}

// GetTerm returns term id of the taxonomy with its count and its text in
// lang (a *NotFoundError when id names no term of that taxonomy). Terms
// are public: every caller may read them, so u is not consulted.
func (s *Store) GetTerm(ctx context.Context, _ *User, taxonomy string, id int64, lang string) (*Term, error) {
	return s.readTerm(ctx, taxonomy, id, lang)
}

// readTerm loads one term of the taxonomy in lang.
func (s *Store) readTerm(ctx context.Context, taxonomy string, id int64, lang string) (*Term, error) {
	m, err := s.termsByIDs(ctx, []int64{id}, lang)
	if err != nil {
		return nil, err
	}
	t, ok := m[id]
	if !ok || t.Taxonomy != taxonomy {
		return nil, &NotFoundError{Kind: TaxonomyKind(taxonomy), Ref: ByID(id)}
	}
	return t, nil
}

// MissingTerms returns, in one query, the ids among ids that name no term of
// the taxonomy (in the order given).
func (s *Store) missingTerms(ctx context.Context, taxonomy string, ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var found []int64
	err := s.db.NewSelect().TableExpr("terms").Column("id").
		Where("taxonomy = ?", taxonomy).Where("id IN (?)", bun.List(ids)).Scan(ctx, &found)
	if err != nil {
		return nil, fmt.Errorf("models: check %s ids: %w", taxonomy, mapErr(err))
	}
	have := make(map[int64]bool, len(found))
	for _, id := range found {
		have[id] = true
	}
	var missing []int64
	for _, id := range ids {
		if !have[id] {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

// resolveTerms turns an event's category or tag items into term ids (in one
// transaction when create is true): an id must name a term of the
// taxonomy; a name matches a slug first (the name lower-cased, then
// Slugify of the name), then a name
// (case-insensitive, any level, the lowest id first). Unknown names are
// created at the top level when create is true (the caller checks the
// permission), with source language lang; two callers creating the same new
// name at once end up with one term (the unique name index decides, the
// loser reads the winner's row). Duplicates are removed, order kept.
// Unknown items give an *UnknownTermError (wrapping ErrNotFound); empty or
// overlong names give ErrBadTermName.
func (s *Store) resolveTerms(ctx context.Context, taxonomy string, refs []TermRef, create bool, lang string) ([]int64, error) {
	if len(refs) == 0 {
		return []int64{}, nil
	}
	var out []int64
	resolve := func(tx *Store) error {
		out = out[:0]
		seen := map[int64]bool{}
		var ids []int64
		for _, r := range refs {
			if r.ID > 0 {
				ids = append(ids, r.ID)
			}
		}
		missing, err := tx.missingTerms(ctx, taxonomy, ids)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			return &UnknownTermError{Taxonomy: taxonomy, Ref: TermRef{ID: missing[0]}}
		}
		for _, r := range refs {
			id := r.ID
			if id <= 0 {
				name, err := CleanTermName(r.Name)
				if err != nil {
					return err
				}
				id, err = tx.findTermByName(ctx, taxonomy, name, false)
				if errors.Is(err, ErrNotFound) && create {
					id, err = tx.createNamedTerm(ctx, taxonomy, name, lang)
				}
				if errors.Is(err, ErrNotFound) {
					return &UnknownTermError{Taxonomy: taxonomy, Ref: TermRef{Name: name}}
				}
				if err != nil {
					return err
				}
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		return nil
	}
	// A list's filter only reads: no transaction. On SQLite a transaction
	// takes the write lock at BEGIN (_txlock=immediate), so every list
	// filtered by a category or tag name queued behind the writes and
	// behind each other (and committed, checking the search marks).
	var err error
	if create {
		err = s.RunInTx(ctx, resolve)
	} else {
		err = resolve(s)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// findTermByName finds a term by slug, then by name (see ResolveTerms).
// locking reads the latest committed rows on MySQL (a plain read inside a
// REPEATABLE READ transaction would keep seeing its old snapshot).
func (s *Store) findTermByName(ctx context.Context, taxonomy, name string, locking bool) (int64, error) {
	lock := ""
	if locking && s.dialect == MySQL {
		lock = " LOCK IN SHARE MODE"
	}
	key := NameKey(name)
	slugs := []string{key}
	if sl := Slugify(name); sl != "" && sl != key {
		slugs = append(slugs, sl)
	}
	in, slugArgs := inStrings(slugs)
	var ids []int64
	for _, q := range []struct {
		cond string
		args []any
	}{{"slug IN (" + in + ")", slugArgs}, {"name_key = ?", []any{key}}} {
		// Prepared (s.scan): every list filtered by a term's name reads it.
		err := s.scan(ctx, &ids, "SELECT id FROM terms WHERE taxonomy = ? AND "+q.cond+" ORDER BY id LIMIT 1"+lock, append([]any{taxonomy}, q.args...)...)
		if err != nil {
			return 0, fmt.Errorf("models: find %s %q: %w", taxonomy, name, mapErr(err))
		}
		if len(ids) > 0 {
			return ids[0], nil
		}
	}
	return 0, ErrNotFound
}

// createNamedTerm creates a top-level term named name (slug from Slugify,
// made unique), or returns the id of the term that a concurrent writer
// created with the same name.
func (s *Store) createNamedTerm(ctx context.Context, taxonomy, name, lang string) (int64, error) {
	now := Now()
	t := &Term{Taxonomy: taxonomy, Name: name, NameKey: NameKey(name), Lang: lang, CreatedAt: now, UpdatedAt: now}
	_, err := s.InsertWithUniqueSlug(ctx, TaxonomyKind(taxonomy), Slugify(name), 0, func(slug string) error {
		t.Slug = slug
		return s.insertTerm(ctx, t)
	})
	if errors.Is(err, ErrConflict) {
		return s.findTermByName(ctx, taxonomy, name, true)
	}
	if err != nil {
		return 0, err
	}
	return t.ID, nil
}

// insertTerm inserts t and sets its id (MySQL has no RETURNING).
func (s *Store) insertTerm(ctx context.Context, t *Term) error {
	res, err := s.db.NewInsert().Model(t).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: insert %s %q: %w", t.Taxonomy, t.Name, mapErr(err))
	}
	if t.ID == 0 {
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("models: insert %s %q: %w", t.Taxonomy, t.Name, mapErr(err))
		}
		t.ID = id
	}
	return nil
}
