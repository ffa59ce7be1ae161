package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/uptrace/bun"
)

// writeEventLinks replaces the links of event id whose input was sent
// (nil keeps them; an empty list clears them). Inline venues and
// organizers are created (or found again by duplicate detection) by u.
func (s *Store) writeEventLinks(ctx context.Context, u *User, id int64, in EventInput) error {
	if in.Categories != nil || in.Tags != nil {
		if err := s.writeEventTerms(ctx, u, id, in); err != nil {
			return err
		}
	}
	if in.Venues != nil {
		if err := writeLinks(ctx, s, venues, u, id, *in.Venues, in.Lang); err != nil {
			return err
		}
	}
	if in.Organizers != nil {
		return writeLinks(ctx, s, organizers, u, id, *in.Organizers, in.Lang)
	}
	return nil
}

// lockTerms locks, on MySQL, the terms whose counts a write of event id's
// terms will change (its current terms and ids), in id order, before any
// link is written: a link insert takes a shared lock on its term (the
// foreign key), and two writers upgrading those to the count update's
// exclusive lock deadlocked each other. SQLite has one writer at a time.
func (s *Store) lockTerms(ctx context.Context, id int64, ids []int64) error {
	if s.dialect != MySQL {
		return nil
	}
	var current []int64
	if err := s.db.NewSelect().Model((*EventTerm)(nil)).Column("term_id").Where("event_id = ?", id).Scan(ctx, &current); err != nil {
		return fmt.Errorf("models: terms of event %d: %w", id, mapErr(err))
	}
	all := uniqueIDs(append(current, ids...))
	if len(all) == 0 {
		return nil
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	var locked []int64
	err := s.db.NewSelect().TableExpr("terms").Column("id").Where("id IN (?)", bun.List(all)).OrderExpr("id").For("UPDATE").Scan(ctx, &locked)
	if err != nil {
		return fmt.Errorf("models: lock terms: %w", mapErr(err))
	}
	return nil
}

// checkEventRefs checks, before anything is written, the ids an event
// input by u names that must already exist: its author, and the venues and
// organizers, which u must also be allowed to read (an unreadable one is
// answered as an unknown one). Every unknown one is reported, not just the
// first (as the API's argument validation always did). Inline venues and
// organizers and the categories and tags are checked as they are written.
func (s *Store) checkEventRefs(ctx context.Context, u *User, in *EventInput) error {
	errs := []error{s.checkAuthor(ctx, KindEvent, in.AuthorID)}
	if in.Venues != nil {
		errs = append(errs, s.postsReadable(ctx, u, KindVenue, "venue", venues.unknownReason, refIDs(*in.Venues)))
	}
	if in.Organizers != nil {
		errs = append(errs, s.postsReadable(ctx, u, KindOrganizer, "organizer", organizers.unknownReason, refIDs(*in.Organizers)))
	}
	return joinInvalid(errs...)
}

// refIDs returns the ids of the references to existing records.
func refIDs[In any](refs []LinkRef[In]) []int64 {
	var ids []int64
	for _, r := range refs {
		if r.New == nil {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// writeLinks replaces the venues or organizers of event id with refs, in
// order, creating inline records by u.
func writeLinks[T, In any](ctx context.Context, s *Store, k *linkedKind[T, In], u *User, id int64, refs []LinkRef[In], lang string) error {
	ids, err := linkIDs(ctx, s, k, u, refs, lang)
	if err != nil {
		return err
	}
	sp := k.spec
	// Both statements through s.exec, prepared once: a statement on a link
	// table compiles every trigger of the table, and preparing them was
	// 11% of the CPU of a POST /events with a venue.
	if err := s.exec(ctx, "DELETE FROM "+sp.linkTable+" WHERE event_id = ?", id); err != nil {
		return fmt.Errorf("models: link %s of event %d: %w", sp.table, id, mapErr(err))
	}
	if len(ids) == 0 {
		return nil
	}
	// Each link gets its copy of the event's status, hidden flag, start
	// and end (events_count.go) in the insert itself; the links' insert
	// triggers fill in only what a writer left out.
	rows := make([]string, len(ids))
	args := make([]any, 0, 2*len(ids)+1)
	for i, lid := range ids {
		rows[i] = "SELECT ? AS lid, ? AS pos"
		args = append(args, lid, i)
	}
	q := fmt.Sprintf("INSERT INTO %s (event_id, %s, position, status, hidden, start_at, end_at) "+
		"SELECT e.id, l.lid, l.pos, e.status, e.hide_from_listings, e.start_at, e.end_at FROM events e JOIN (%s) l ON 1 = 1 WHERE e.id = ?",
		sp.linkTable, sp.linkCol, strings.Join(rows, " UNION ALL "))
	if err := s.exec(ctx, q, append(args, id)...); err != nil {
		return fmt.Errorf("models: link %s of event %d: %w", sp.table, id, mapErr(err))
	}
	return nil
}

// writeEventTerms replaces the categories and/or tags of event id.
// Unknown names become new terms when u may manage the taxonomy.
func (s *Store) writeEventTerms(ctx context.Context, u *User, id int64, in EventInput) error {
	type tax struct {
		field, taxonomy string
		refs            *[]TermRef
	}
	resolved := map[string][]int64{}
	var touched []int64
	for _, t := range []tax{{"categories", TaxCategory, in.Categories}, {"tags", TaxTag, in.Tags}} {
		if t.refs == nil {
			continue
		}
		create := MayAttempt(u, ActCreate, TaxonomyKind(t.taxonomy))
		ids, err := s.resolveTerms(ctx, t.taxonomy, *t.refs, create, in.Lang)
		if err != nil {
			if errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid) {
				return invalidBecause(t.field, "reason.events.unknown_term", nil, err)
			}
			return err
		}
		resolved[t.taxonomy] = uniqueIDs(ids)
		touched = append(touched, ids...)
	}
	if err := s.lockTerms(ctx, id, touched); err != nil {
		return err
	}
	for _, t := range []tax{{"categories", TaxCategory, in.Categories}, {"tags", TaxTag, in.Tags}} {
		if t.refs == nil {
			continue
		}
		ids := resolved[t.taxonomy]
		err := s.exec(ctx, "DELETE FROM event_terms WHERE event_id = ? AND term_id IN (SELECT id FROM terms WHERE taxonomy = ?)", id, t.taxonomy)
		if err != nil {
			return fmt.Errorf("models: link %s of event %d: %w", t.field, id, mapErr(err))
		}
		if len(ids) == 0 {
			continue
		}
		// The copies of the event's fields are written after (copyEventToTerms).
		args := make([]any, 0, 2*len(ids))
		for _, tid := range ids {
			args = append(args, id, tid)
		}
		q := "INSERT INTO event_terms (event_id, term_id) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?), ", len(ids)), ", ")
		if err := s.exec(ctx, q, args...); err != nil {
			return fmt.Errorf("models: link %s of event %d: %w", t.field, id, mapErr(err))
		}
	}
	if in.Categories != nil {
		return s.fileEvents(ctx, []int64{id})
	}
	return nil
}

// linkIDs resolves an event's venue or organizer references to ids, in
// order: references to existing records are taken as they are (their
// existence and u's permission to read them are checked first, by
// checkEventRefs), inline ones are created by u through the kind's own
// create operation (so they follow the same rules, duplicate detection
// included: it finds only records u may see).
func linkIDs[T any, In any](ctx context.Context, s *Store, k *linkedKind[T, In], u *User,
	refs []LinkRef[In], lang string) ([]int64, error) {
	var ids []int64
	for _, r := range refs {
		if r.New == nil {
			ids = append(ids, r.ID) // checked by checkEventRefs
			continue
		}
		rec, _, err := k.create(ctx, s, u, *r.New, lang)
		if errors.Is(err, ErrInvalid) {
			return nil, &LinkedCreateError{Kind: k.spec.kind, Err: err}
		}
		if err != nil {
			return nil, err
		}
		ids = append(ids, k.post(rec).ID)
	}
	return uniqueIDs(ids), nil
}

// kindTables maps post-like kinds to their tables.
var kindTables = map[Kind]string{KindEvent: "events", KindVenue: "venues", KindOrganizer: "organizers"}

// readableIDs reports which of ids are stored records of kind k (event,
// venue or organizer) that u may read by id, in one query.
func (s *Store) readableIDs(ctx context.Context, u *User, k Kind, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	table, ok := kindTables[k]
	if !ok || len(ids) == 0 {
		return out, nil
	}
	var found []Post
	in, args := inList(uniqueIDs(ids))
	err := s.scan(ctx, &found, "SELECT id, author_id, status FROM "+table+" WHERE id IN ("+in+")", args...)
	if err != nil {
		return nil, fmt.Errorf("models: check %s ids: %w", k, mapErr(err))
	}
	for i := range found {
		out[found[i].ID] = Can(u, ActRead, found[i].subject(k))
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

// eventLinks holds the linked ids of a set of events, in link order.
type eventLinks struct {
	venues     map[int64][]int64
	organizers map[int64][]int64
	terms      map[int64][]int64 // categories and tags together
}

// loadEventLinks loads the links of events in one query (the three link
// tables in a UNION ALL), whatever the number of events.
func (s *Store) loadEventLinks(ctx context.Context, eventIDs []int64) (*eventLinks, error) {
	l := &eventLinks{venues: map[int64][]int64{}, organizers: map[int64][]int64{}, terms: map[int64][]int64{}}
	if len(eventIDs) == 0 {
		return l, nil
	}
	in, args := inList(eventIDs)
	// No ORDER BY: sorting the union would cost SQLite a temporary b-tree
	// per branch; the few links of each event are put in order below.
	q := "SELECT 0, event_id, venue_id, position FROM event_venues WHERE event_id IN (" + in + ") " +
		"UNION ALL SELECT 1, event_id, organizer_id, position FROM event_organizers WHERE event_id IN (" + in + ") " +
		"UNION ALL SELECT 2, event_id, term_id, 0 FROM event_terms WHERE event_id IN (" + in + ")"
	rows, err := s.query(ctx, q, repeatArgs(args, 3)...)
	if err != nil {
		return nil, fmt.Errorf("models: load event links: %w", mapErr(err))
	}
	defer func() { _ = rows.Close() }()
	type link struct {
		kind     int
		event    int64
		id       int64
		position int
	}
	var links []link
	for rows.Next() {
		var r link
		if err := rows.Scan(&r.kind, &r.event, &r.id, &r.position); err != nil {
			return nil, fmt.Errorf("models: scan event link: %w", mapErr(err))
		}
		links = append(links, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("models: load event links: %w", mapErr(err))
	}
	slices.SortFunc(links, func(a, b link) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.event, b.event),
			cmp.Compare(a.position, b.position), cmp.Compare(a.id, b.id))
	})
	dst := []map[int64][]int64{l.venues, l.organizers, l.terms}
	for _, r := range links {
		dst[r.kind][r.event] = append(dst[r.kind][r.event], r.id)
	}
	return l, nil
}

// completeEvents makes events whole for reader (nil: an anonymous one),
// read in lang: their translations laid over the text fields, their
// translation languages, and their venues, organizers, categories and tags
// (each read in lang). A linked venue or organizer reader may not read
// (Can) is left out: the link stays, and shows to those who may read it.
// It costs the same number of queries for one event as for a page: the
// overlay, the links, then venues, organizers and terms in batch (the
// permission is decided on the loaded records, with no query).
func (s *Store) completeEvents(ctx context.Context, reader *User, events []*Event, lang string) error {
	if len(events) == 0 {
		return nil
	}
	if err := overlayTranslations(ctx, s, KindEvent, events, lang); err != nil {
		return err
	}
	ids := make([]int64, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	links, err := s.loadEventLinks(ctx, ids)
	if err != nil {
		return err
	}
	vs, err := venues.byIDs(ctx, s, allIDs(links.venues), lang)
	if err != nil {
		return err
	}
	os, err := organizers.byIDs(ctx, s, allIDs(links.organizers), lang)
	if err != nil {
		return err
	}
	readable(reader, venues, vs)
	readable(reader, organizers, os)
	terms, err := s.termsByIDs(ctx, allIDs(links.terms), lang)
	if err != nil {
		return err
	}
	for _, e := range events {
		e.Venues = pick(vs, links.venues[e.ID])
		e.Organizers = pick(os, links.organizers[e.ID])
		e.Categories, e.Tags = nil, nil
		for _, t := range pick(terms, links.terms[e.ID]) {
			if t.Taxonomy == TaxTag {
				e.Tags = append(e.Tags, t)
			} else {
				e.Categories = append(e.Categories, t)
			}
		}
		sortTermsByName(e.Categories)
		sortTermsByName(e.Tags)
	}
	return s.loadSeriesRules(ctx, events)
}

// readable drops from m the records of kind k that reader may not read.
func readable[T, In any](reader *User, k *linkedKind[T, In], m map[int64]*T) {
	for id, rec := range m {
		if !Can(reader, ActRead, k.post(rec).subject(k.spec.kind)) {
			delete(m, id)
		}
	}
}

// pick returns the records of m with the given ids, in that order,
// skipping ids m lacks.
func pick[T any](m map[int64]*T, ids []int64) []*T {
	var out []*T
	for _, id := range ids {
		if v := m[id]; v != nil {
			out = append(out, v)
		}
	}
	return out
}

// sortTermsByName orders an event's terms by name, as TEC lists them.
func sortTermsByName(ts []*Term) {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
}

// allIDs returns every id of m's lists, once each.
func allIDs(m map[int64][]int64) []int64 {
	var out []int64
	for _, ids := range m {
		out = append(out, ids...)
	}
	return uniqueIDs(out)
}
