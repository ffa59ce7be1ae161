package models

import (
	"context"
	"errors"

	"github.com/uptrace/bun"
)

// errPreview rolls a preview's transaction back once its record is read.
var errPreview = errors.New("models: preview (rolled back)")

// preview runs write (a create or an update, with every check it makes)
// in a transaction that is always rolled back, and returns what write
// read back: the record as saving would make it, with its links, terms
// and slug, while nothing is stored (no revision, no count, no cache
// generation). The write's own errors (refusals, invalid fields) come back
// as they would from a save.
func preview[T any](ctx context.Context, s *Store, write func(tx *Store) (*T, error)) (*T, error) {
	if s.inTx() {
		return nil, errors.New("models: preview inside a transaction")
	}
	var rec *T
	err := s.RunInTx(ctx, func(tx *Store) error {
		var err error
		if rec, err = write(tx); err != nil {
			return err
		}
		return errPreview
	})
	if errors.Is(err, errPreview) {
		return rec, nil
	}
	return nil, err
}

// inTx reports whether the store is bound to a transaction.
func (s *Store) inTx() bool {
	_, ok := s.db.(bun.Tx)
	return ok
}

// PreviewEvent is the event u would get by saving in: created when ref is
// nil, else the event ref names updated. Nothing is stored. The same
// checks as CreateEvent and UpdateEvent apply (a user who may not edit the
// event is refused).
func (s *Store) PreviewEvent(ctx context.Context, u *User, ref *Ref, in EventInput) (*Event, error) {
	return preview(ctx, s, func(tx *Store) (*Event, error) {
		if ref == nil {
			return tx.CreateEvent(ctx, u, in)
		}
		return tx.UpdateEvent(ctx, u, *ref, in)
	})
}

// Preview is the record u would get by saving in (in lang, "" for the
// source language): created when ref is nil, else the record ref names
// updated. Nothing is stored; see PreviewEvent.
func (l Linked[T, In]) Preview(ctx context.Context, u *User, ref *Ref, in In, lang string) (*T, error) {
	return preview(ctx, l.s, func(tx *Store) (*T, error) {
		op := Linked[T, In]{tx, l.k}
		if ref == nil {
			rec, _, err := op.Create(ctx, u, in, lang)
			return rec, err
		}
		return op.Update(ctx, u, *ref, in, lang)
	})
}
