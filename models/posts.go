package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// NewPostID allocates an id in the id space shared by events, venues and
// organizers. Call it inside the transaction that inserts the record.
func (s *Store) NewPostID(ctx context.Context, k Kind) (int64, error) {
	// Through s.exec (prepared once per connection on SQLite): the insert
	// compiles the table's triggers, each time when bun writes the kind
	// into the text.
	res, err := s.execResult(ctx, "INSERT INTO post_ids (kind) VALUES (?)", string(k))
	if err != nil {
		return 0, fmt.Errorf("models: allocate %s id: %w", k, mapErr(err))
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("models: allocate %s id: %w", k, mapErr(err))
	}
	return id, nil
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

// resolvePost turns a reference to a record of kind k (event, venue or
// organizer) into its id: a *NotFoundError when nothing has that id or slug,
// a *WrongKindError when the id names a record of another kind.
func (s *Store) resolvePost(ctx context.Context, k Kind, ref Ref) (int64, error) {
	if ref.ID == 0 {
		if ref.Slug == "" || !utf8.ValidString(ref.Slug) || len(ref.Slug) > maxSlugLen*4 {
			return 0, &NotFoundError{Kind: k, Ref: ref}
		}
		var ids []int64
		err := s.scan(ctx, &ids, "SELECT id FROM "+kindTables[k]+" WHERE slug = ? LIMIT 1", NFC(ref.Slug))
		if err != nil {
			return 0, fmt.Errorf("models: find %s %q: %w", k, ref.Slug, mapErr(err))
		}
		if len(ids) == 0 {
			return 0, &NotFoundError{Kind: k, Ref: ref}
		}
		return ids[0], nil
	}
	// The common case in one query (prepared): the id names a record of
	// kind k.
	var found []int64
	if err := s.scan(ctx, &found, "SELECT id FROM "+kindTables[k]+" WHERE id = ?", ref.ID); err != nil {
		return 0, fmt.Errorf("models: find %s %d: %w", k, ref.ID, mapErr(err))
	}
	if len(found) > 0 {
		return ref.ID, nil
	}
	got, err := s.PostKind(ctx, ref.ID)
	switch {
	case errors.Is(err, ErrNotFound):
		return 0, &NotFoundError{Kind: k, Ref: ref}
	case err != nil:
		return 0, err
	case got != k:
		return 0, &WrongKindError{Want: k, Got: got, ID: ref.ID}
	}
	return ref.ID, nil
}

// postsReadable checks ids in field of an input: each must name a record
// of kind k that u may read by id (Can), else the field is invalid with
// reason (data {ID}), the first such id in the input's order. A record u
// may not read gets the very answer of an id that names nothing, so the
// check is no oracle for hidden records (SPEC §9).
func (s *Store) postsReadable(ctx context.Context, u *User, k Kind, field, reason string, ids []int64) error {
	return s.postsReadableIn(ctx, nil, u, k, field, reason, ids)
}

// postsReadableIn is postsReadable, with the ids u may read kept in l
// (under the reader's id and role: a role change moves no generation).
func (s *Store) postsReadableIn(ctx context.Context, l *listsAt, u *User, k Kind, field, reason string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	readable, err := keptOr(l, readableKey(u, k, ids), 8, func() ([]int64, error) {
		ok, err := s.readableIDs(ctx, u, k, ids)
		var list []int64
		for _, id := range ids {
			if ok[id] {
				list = append(list, id)
			}
		}
		return list, err
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !slices.Contains(readable, id) {
			return Invalid(field, reason, map[string]any{"ID": id})
		}
	}
	return nil
}

// isEvent reports whether id names an event (any status).
func (s *Store) isEvent(ctx context.Context, id int64) (bool, error) {
	k, err := s.PostKind(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return k == KindEvent, err
}

// target is what every change of one existing post starts with: u's
// general capability for act on kind k, checked before anything is read
// (SPEC §9), then the id that ref names.
func (s *Store) target(ctx context.Context, u *User, act Action, k Kind, ref Ref) (int64, error) {
	if err := attempt(u, act, k); err != nil {
		return 0, err
	}
	return s.resolvePost(ctx, k, ref)
}

// changePost is what every change of one existing post does: u's general
// capability for act (target), then, in one transaction, the record read
// and locked (lock), u's permission on that record, and change. It returns
// the record's id.
func changePost[T any](ctx context.Context, s *Store, u *User, act Action, k Kind, ref Ref,
	lock func(ctx context.Context, tx *Store, id int64) (*T, error), post func(*T) *Post,
	change func(tx *Store, rec *T, p *Post) error) (int64, error) {
	id, err := s.target(ctx, u, act, k, ref)
	if err != nil {
		return 0, err
	}
	return id, s.RunInTx(ctx, func(tx *Store) error {
		rec, err := lock(ctx, tx, id)
		if err != nil {
			return err
		}
		p := post(rec)
		if err := authorize(u, act, p.subject(k)); err != nil {
			return err
		}
		return change(tx, rec, p)
	})
}

// moveToTrash is the check every trash operation makes on the locked
// record before trashing it: one already in the trash is refused (delete
// it for good instead).
func moveToTrash(u *User, k Kind, p *Post, trash func() error) error {
	if p.Status == StatusTrash {
		return refuse(u, k, RefusalInTrash)
	}
	return trash()
}
