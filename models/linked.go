package models

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// The operations on venues and organizers, written once: a linkedKind says
// what differs between the two kinds (their fields, their duplicate
// detection), Linked binds one kind to a store. Events use the same rules
// through the same helpers (attempt, authorize, mayAssignAuthor,
// resolvePost).

// PostInput holds the input fields every post-like record takes. A nil
// field was not sent: create uses the default, update keeps the value.
type PostInput struct {
	AuthorID *int64
	// Date is the publication date as sent: wall-clock time of the site
	// zone, the zone every record's date is shown in.
	Date *string
	// DateUTC is the publication date in UTC; it wins over Date.
	DateUTC *string
	// Status as asked; scaled back for users who may not publish.
	Status *string
}

// publishedAt parses the publication date of in (nil when neither date was
// sent): DateUTC in UTC, else Date in loc. A Date that reads exactly as the
// stored one (old, nil on create) keeps it: a wall-clock time the site zone
// shows twice (the hour a DST change repeats) would otherwise move to its
// first occurrence when saved back.
func (in *PostInput) publishedAt(loc *time.Location, now time.Time, old *time.Time) (*time.Time, error) {
	field, s, zone := "date", in.Date, loc
	if in.DateUTC != nil {
		field, s, zone = "date_utc", in.DateUTC, time.UTC
	}
	if s == nil {
		return nil, nil
	}
	if old != nil && field == "date" && strings.TrimSpace(*s) == old.In(loc).Format(time.DateTime) {
		kept := *old
		return &kept, nil
	}
	t, _, err := ParseDate(*s, now, zone)
	if err != nil {
		return nil, invalidBecause(field, "reason.invalid_date", nil, err)
	}
	if !storable(t) {
		return nil, Invalid(field, "reason.events.date_out_of_range", nil)
	}
	t = Sec(t)
	return &t, nil
}

// check applies the rules of the shared fields that need no data.
func (in *PostInput) check(c *fieldChecks) {
	c.status("status", in.Status)
	c.text("date", in.Date, MaxNameLen)
	c.text("date_utc", in.DateUTC, MaxNameLen)
}

// LinkRef names a venue or an organizer to link to an event: an existing
// one by ID, or New to create (TEC's duplicate detection may find an
// existing one instead).
type LinkRef[In any] struct {
	ID  int64
	New *In
}

// linkedKind describes one kind of linked record.
type linkedKind[T any, In any] struct {
	spec linkedSpec
	// unknownReason: the message of an event's link to an id that names no
	// record of the kind.
	unknownReason string
	post          func(*T) *Post
	name          func(*T) string // the record's name, the source of its slug
	base          func(*In) *PostInput
	image         func(*In) *string // the image field (a URL or a library id)
	// check applies the kind's rules that need no data (the name is
	// required on create).
	check func(in *In, create bool) error
	// build makes a new record from a create input (the kind's own fields).
	build func(in *In) *T
	// apply sets the fields in carries on rec; text fields go through text,
	// which stores them as translations when written in another language.
	apply func(rec *T, in *In, text func(field string, v, dst *string))
	// duplicates narrows q (on the kind's table) to records whose
	// identifying fields match in (TEC's duplicate detection).
	duplicates func(q *bun.SelectQuery, in *In) *bun.SelectQuery
}

// Linked is the set of operations on one kind of linked record (venues or
// organizers) on a store: Store.Venues and Store.Organizers.
type Linked[T any, In any] struct {
	s *Store
	k *linkedKind[T, In]
}

// Venues returns the operations on venues.
func (s *Store) Venues() Linked[Venue, VenueInput] { return Linked[Venue, VenueInput]{s, venues} }

// Organizers returns the operations on organizers.
func (s *Store) Organizers() Linked[Organizer, OrganizerInput] {
	return Linked[Organizer, OrganizerInput]{s, organizers}
}

// Check applies the rules of in that need no data (what Create or Update
// checks first), so a form that found errors of its own (a number it could
// not read) reports every invalid field at once.
func (l Linked[T, In]) Check(in In, create bool) error { return l.k.check(&in, create) }

// Kind is the kind of record the operations work on.
func (l Linked[T, In]) Kind() Kind { return l.k.spec.kind }

// Create creates a record written in lang by u, or returns an existing one
// (existing=true) when TEC's duplicate detection finds one: a record u may
// see, not trashed, whose every provided identifying field matches. In
// order: the rules that need no data, u's capability (contributors and up;
// only editors in another user's name), then the author must exist.
func (l Linked[T, In]) Create(ctx context.Context, u *User, in In, lang string) (rec *T, existing bool, err error) {
	return l.k.create(ctx, l.s, u, in, lang)
}

func (k *linkedKind[T, In]) create(ctx context.Context, s *Store, u *User, in In, lang string) (*T, bool, error) {
	kind := k.spec.kind
	if err := k.check(&in, true); err != nil {
		return nil, false, err
	}
	if err := attempt(u, ActCreate, kind); err != nil {
		return nil, false, err
	}
	base := k.base(&in)
	if err := mayAssignAuthor(u, kind, base.AuthorID); err != nil {
		return nil, false, err
	}
	if err := s.resolveImage(ctx, k.image(&in)); err != nil {
		return nil, false, err
	}
	now := s.site.Now()
	published, err := base.publishedAt(s.site.Zone(), now, nil)
	if err != nil {
		return nil, false, err
	}
	if err := s.checkAuthor(ctx, kind, base.AuthorID); err != nil {
		return nil, false, err
	}
	if dup, err := k.findDuplicate(ctx, s, u, &in); err != nil || dup != 0 {
		if err != nil {
			return nil, false, err
		}
		rec, err := k.read(ctx, s, dup, lang)
		return rec, err == nil, err
	}
	rec := k.build(&in)
	p := k.post(rec)
	p.Status = EffectiveStatus(u, kind, strOr(base.Status, ""))
	p.Lang, p.AuthorID = lang, u.ID
	p.PublishedAt, p.CreatedAt, p.UpdatedAt, p.ModifiedBy = now, now, now, u.ID
	if base.AuthorID != nil {
		p.AuthorID = *base.AuthorID
	}
	if published != nil {
		p.PublishedAt = *published
	}
	name := k.name(rec)
	err = s.RunInTx(ctx, func(tx *Store) error {
		id, err := tx.NewPostID(ctx, kind)
		if err != nil {
			return err
		}
		p.ID = id
		_, err = tx.InsertWithUniqueSlug(ctx, kind, slugBase(kind, name), 0, func(slug string) error {
			p.Slug = slug
			_, err := tx.db.NewInsert().Model(rec).Exec(ctx)
			return mapErr(err)
		})
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("models: create %s: %w", kind, err)
	}
	p.Translations = []string{}
	return rec, false, nil
}

// findDuplicate returns the id of the oldest record u may see, not trashed,
// whose provided identifying fields match in, or 0.
func (k *linkedKind[T, In]) findDuplicate(ctx context.Context, s *Store, u *User, in *In) (int64, error) {
	var ids []int64
	cond, args := statusCondition(k.spec.alias, nil, ListVisibility(u))
	q := s.db.NewSelect().Model((*T)(nil)).Column(k.spec.alias+".id").Where(cond, args...)
	q = k.duplicates(q, in)
	if err := q.OrderExpr(k.spec.alias+".id ASC").Limit(1).Scan(ctx, &ids); err != nil {
		return 0, fmt.Errorf("models: find duplicate %s: %w", k.spec.kind, mapErr(err))
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return ids[0], nil
}

// Get returns the record named by ref read in lang (translations overlaid
// field by field), if u may read it.
func (l Linked[T, In]) Get(ctx context.Context, u *User, ref Ref, lang string) (*T, error) {
	id, err := l.s.resolvePost(ctx, l.k.spec.kind, ref)
	if err != nil {
		return nil, err
	}
	rec, err := l.k.read(ctx, l.s, id, lang)
	if err != nil {
		return nil, err
	}
	if err := authorize(u, ActRead, l.k.post(rec).subject(l.k.spec.kind)); err != nil {
		return nil, err
	}
	return rec, nil
}

// read loads record id in lang, checking no permission.
func (k *linkedKind[T, In]) read(ctx context.Context, s *Store, id int64, lang string) (*T, error) {
	m, err := k.byIDs(ctx, s, []int64{id}, lang)
	if err != nil {
		return nil, err
	}
	rec, ok := m[id]
	if !ok {
		return nil, &NotFoundError{Kind: k.spec.kind, Ref: ByID(id)}
	}
	return rec, nil
}

// byIDs reads the records with the given ids in lang, in two queries
// whatever the number of ids. Unknown ids are left out of the map.
func (k *linkedKind[T, In]) byIDs(ctx context.Context, s *Store, ids []int64, lang string) (map[int64]*T, error) {
	out := map[int64]*T{}
	if len(ids) == 0 {
		return out, nil
	}
	var recs []*T
	in, args := inList(ids)
	q := s.modelQuery(k.spec.table+" by ids "+strconv.Itoa(len(args)), func() string {
		return s.db.NewSelect().Model((*T)(nil)).Where(k.spec.alias+".id IN (?)", bun.Safe(in)).String()
	})
	if err := s.scan(ctx, &recs, q, args...); err != nil {
		return nil, fmt.Errorf("models: %s by id: %w", k.spec.table, mapErr(err))
	}
	if err := overlayTranslations(ctx, s, k.spec.kind, translatable(recs), lang); err != nil {
		return nil, err
	}
	for _, r := range recs {
		out[k.post(r).ID] = r
	}
	return out, nil
}

// Update changes the fields in carries (a partial update, SPEC §9) on the
// record named by ref, if u may edit it. Written in a language other than
// the record's source language, its text fields are stored as lang
// translations and the others on the record (SPEC §3). A requested status is
// scaled back for users who may not publish; trashing by update unlinks the
// record from its events. It returns the record read in lang.
func (l Linked[T, In]) Update(ctx context.Context, u *User, ref Ref, in In, lang string) (*T, error) {
	k, s, kind := l.k, l.s, l.k.spec.kind
	if err := k.check(&in, false); err != nil {
		return nil, err
	}
	base := k.base(&in)
	id, err := changePost(ctx, s, u, ActEdit, kind, ref, k.lock, k.post, func(tx *Store, rec *T, p *Post) error {
		if err := mayAssignAuthor(u, kind, base.AuthorID); err != nil {
			return err
		}
		published, err := base.publishedAt(tx.site.Zone(), tx.site.Now(), &p.PublishedAt)
		if err != nil {
			return err
		}
		if err := tx.checkAuthor(ctx, kind, base.AuthorID); err != nil {
			return err
		}
		if err := tx.resolveImage(ctx, k.image(&in)); err != nil {
			return err
		}
		snap, err := tx.snapshotFor(ctx, kind, p.ID)
		if err != nil {
			return err
		}
		translated := map[string]string{}
		k.apply(rec, &in, func(field string, v, dst *string) {
			switch {
			case v == nil:
			case lang != p.Lang:
				translated[field] = *v
			default:
				*dst = *v
			}
		})
		wasTrashed := p.Status == StatusTrash
		if base.Status != nil {
			p.Status = EffectiveStatus(u, kind, *base.Status)
		}
		if base.AuthorID != nil {
			p.AuthorID = *base.AuthorID
		}
		if published != nil {
			p.PublishedAt = *published
		}
		p.UpdatedAt, p.ModifiedBy = tx.site.Now(), u.ID
		if _, err := tx.db.NewUpdate().Model(rec).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("models: update %s %d: %w", kind, p.ID, mapErr(err))
		}
		if p.Status == StatusTrash && !wasTrashed { // trashing by update unlinks too
			if err := tx.unlinkAll(ctx, k.spec, p.ID); err != nil {
				return err
			}
		}
		if len(translated) > 0 {
			if err := tx.saveTranslation(ctx, kind, p.ID, lang, translated); err != nil {
				return err
			}
		}
		return tx.keepRevision(ctx, kind, p.ID, u, snap)
	})
	if err != nil {
		return nil, err
	}
	return k.read(ctx, s, id, lang)
}

// Trash moves the record named by ref to the trash and unlinks it from its
// events, in one transaction, if u may; a record already in the trash is
// refused (RefusalInTrash). It returns the record afterwards, in lang.
func (l Linked[T, In]) Trash(ctx context.Context, u *User, ref Ref, lang string) (*T, error) {
	k, s, kind := l.k, l.s, l.k.spec.kind
	id, err := changePost(ctx, s, u, ActTrash, kind, ref, k.lock, k.post, func(tx *Store, _ *T, p *Post) error {
		return moveToTrash(u, kind, p, func() error { return tx.trashLinked(ctx, k.spec, p.ID, u.ID) })
	})
	if err != nil {
		return nil, err
	}
	return k.read(ctx, s, id, lang)
}

// Delete deletes the record named by ref for good (editors and up), with
// its links and translations, and returns it as it was, read in lang.
func (l Linked[T, In]) Delete(ctx context.Context, u *User, ref Ref, lang string) (*T, error) {
	k, s, kind := l.k, l.s, l.k.spec.kind
	id, err := s.target(ctx, u, ActForceDelete, kind, ref)
	if err != nil {
		return nil, err
	}
	rec, err := k.read(ctx, s, id, lang)
	if err != nil {
		return nil, err
	}
	if err := authorize(u, ActForceDelete, k.post(rec).subject(kind)); err != nil {
		return nil, err
	}
	if err := s.deleteLinked(ctx, k.spec, id); err != nil {
		return nil, err
	}
	return rec, nil
}

// List returns one page of the records f selects among those u may see,
// read in f.Lang, and the total (SPEC §5): four queries whatever the page
// size. A status filter other than publish needs a contributor or more;
// the event filter must name an event.
func (l Linked[T, In]) List(ctx context.Context, u *User, f LinkedFilter) (*Page[T], error) {
	k, s := l.k, l.s
	statuses, err := statusFilter(u, "status", "reason.linked.status_not_allowed", f.Statuses)
	if err != nil {
		return nil, err
	}
	if f.EventID != 0 {
		ok, err := s.isEvent(ctx, f.EventID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, Invalid("event", "reason.linked.not_event", nil)
		}
	}
	var recs []*T
	total, err := s.listLinked(ctx, k.spec, f, ListVisibility(u), &recs)
	if err != nil {
		return nil, err
	}
	if err := overlayTranslations(ctx, s, k.spec.kind, translatable(recs), f.Lang); err != nil {
		return nil, err
	}
	if recs == nil {
		recs = []*T{}
	}
	return &Page[T]{Items: recs, Total: total, Statuses: statuses}, nil
}

// lock reads record id for a change, locking its row until the
// transaction ends (MySQL; SQLite's write lock is taken at BEGIN).
func (k *linkedKind[T, In]) lock(ctx context.Context, tx *Store, id int64) (*T, error) {
	rec := new(T)
	if err := tx.forUpdate(tx.db.NewSelect().Model(rec).Where(k.spec.alias+".id = ?", id)).Scan(ctx); err != nil {
		if errors.Is(mapErr(err), ErrNotFound) {
			return nil, &NotFoundError{Kind: k.spec.kind, Ref: ByID(id)}
		}
		return nil, fmt.Errorf("models: read %s %d: %w", k.spec.kind, id, mapErr(err))
	}
	return rec, nil
}

// checkAuthor checks that an author id sent with a record of kind k names
// a user (after the permission checks: SPEC §9).
func (s *Store) checkAuthor(ctx context.Context, k Kind, id *int64) error {
	if id == nil {
		return nil
	}
	ok, err := s.db.NewSelect().Model((*User)(nil)).Where("id = ?", *id).Exists(ctx)
	if err != nil {
		return fmt.Errorf("models: check author %d: %w", *id, mapErr(err))
	}
	if ok {
		return nil
	}
	if k == KindEvent {
		return Invalid("author", "reason.events.unknown_user", map[string]any{"ID": *id})
	}
	return Invalid("author", "reason.linked.unknown_user", map[string]any{"ID": *id})
}
