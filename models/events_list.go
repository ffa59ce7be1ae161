package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// GeoPoint is a latitude/longitude pair in degrees.
type GeoPoint struct{ Lat, Lng float64 }

// EventFilter selects a page of events (SPEC §5). Zero values filter
// nothing. Who may see what is not part of it: ListEvents applies the
// acting user's visibility itself.
type EventFilter struct {
	Page, PerPage int

	StartMin *time.Time // start_at >= (start_date)
	EndMax   *time.Time // end_at <= (end_date)
	// Strict bounds of the starts_*/ends_* arguments.
	StartsBefore, StartsAfter, EndsBefore, EndsAfter *time.Time

	Search []string // every word must match (title, description, excerpt, in source or Lang)
	Lang   string

	Categories, Tags       []TermRef // ids or slugs, any of (per taxonomy)
	VenueIDs, OrganizerIDs []int64   // any of
	Featured               *bool
	Geoloc                 *bool     // venue has coordinates (true) or not (false)
	Near                   *GeoPoint // order by distance to this point
	Include                []int64
	ParentID               *int64
	// Recurrence says how series are listed: "" or RecurrenceOccurrences
	// (every occurrence is an event), RecurrenceSeries (one row per
	// series: its next occurrence in the window) or RecurrenceFirst (one
	// row per series: its first occurrence, the series row).
	Recurrence string
	// Statuses filters by status; nil shows what the acting user may see
	// by default (SPEC §6).
	Statuses []string
	// IncludeHidden also lists events hidden from listings, for the admin
	// and its calendar; honoured only for users who may filter by status
	// (contributors and up), ignored for others.
	IncludeHidden bool
	// Order is the sort key: "" or OrderStart (start, publication date,
	// id), OrderTitle or OrderModified; Desc reverses it. With Near the
	// distance comes first whatever Order says.
	Order string
	Desc  bool
	// ModifiedAfter and ModifiedBefore bound the last change (updated_at):
	// after is inclusive (>=, modified has one-second resolution, so a
	// client resuming from a time sees that second again and deduplicates
	// by id), before is exclusive (<).
	ModifiedAfter, ModifiedBefore *time.Time
	// PublicLinks shows the events' venues and organizers, and takes the
	// venue and organizer filters, as an anonymous reader may read them,
	// whoever lists: kalends export lists as the console (hidden events
	// too) but writes the public calendar.
	PublicLinks bool
	// Bare gives the events of the page as ids only (no other column, no
	// translation, no linked records): the caller reads and completes
	// those it needs with EventsByIDs and CompleteEvents (the API, for
	// the events it has no ready part of).
	Bare bool
	// SkipTotal leaves the total uncounted: Total is then the number of
	// events up to the page's end (the public month and day views, which
	// count otherwise or need no total).
	SkipTotal bool

	// Resolved by ListEvents: the categories asked (each standing for its
	// subcategories too) and the tags; who the events are shown to.
	categoryIDs, tagIDs []int64
	visibility          Visibility
	reader              *User
	// noImpliedBounds leaves out the bounds that the window implies
	// (windowConds), for the tests that count the truth without them.
	noImpliedBounds bool
	// overnight says that every event the window selects crosses a UTC
	// midnight (it starts before one and ends at or after it: what
	// countDays subtracts). On SQLite windowConds then says so of the
	// events, the condition of the partial index events_overnight_idx.
	overnight bool
	// The events marked for the search index and not yet refolded,
	// searched with LIKE (searchAllDirty: too many, so all are).
	searchDirty    []int64
	searchAllDirty bool
	// searchMatched is the events the index found (nil when it was not
	// read: no search, or LIKE), searchMatchAll that every event holds
	// the words (none folds to anything). searchPage (SQLite) leaves only
	// the events of the page's days in it, and the total in searchTotal
	// (searchCounted).
	searchMatched  []int64
	searchMatchAll bool
	searchTotal    int
	searchCounted  bool
	// listing says ListEvents reads a page: on SQLite the search is read
	// once the page's size is known (resolveSearch), not by
	// resolveEventFilter.
	listing bool
	// likeSearch searches every event with the LIKE condition, not the
	// index (the equality test compares the two).
	likeSearch bool
	// drive is the link filter whose window index a page and its count
	// read first (linkDriver), when ListEvents chose one.
	drive *linkDrive
	// lists is what the list keeps and reads under the cache generation
	// it read once (resolveEventFilter): its terms' ids, which of its
	// venues and organizers its reader may read, the link that drives it,
	// the words' lists of its search. nil keeps nothing.
	lists *listsAt
	// plainLinks reads pages and counts from the events, probing every
	// link filter (the tests' truth for the link-driven forms).
	plainLinks bool
	// builtPage reads a bare page through the query bun builds, not the
	// prepared one of windowPageIDs (the tests' truth for it).
	builtPage bool
}

// Sort keys of EventFilter.Order.
const (
	OrderStart    = "start"
	OrderTitle    = "title"
	OrderModified = "modified"
)

// Page is one page of a list: its records, the number of matches in all,
// and the status filter that applied when it can be told (the statuses
// asked for, or just publish for callers who see only published records;
// nil when every status the caller may see applies).
type Page[T any] struct {
	Items    []*T
	Total    int
	Statuses []string
}

// ListEvents returns the page of events f selects among those u may see,
// whole (venues, organizers, terms) and read in f.Lang, with the total: a
// fixed number of queries whatever PerPage is. Events hidden from listings
// are left out. Order: distance (with Near), start, publication date, id.
// A status filter other than publish needs a contributor or more; the
// venue, organizer, category, tag and parent filters must name records
// (venues and organizers that u may read). The events show the venues and
// organizers u may read, and only those count for the geography filter
// and order.
func (s *Store) ListEvents(ctx context.Context, u *User, f EventFilter) (*Page[Event], error) {
	f.listing = true
	statuses, err := s.prepareEventFilter(ctx, u, &f)
	if err != nil {
		return nil, err
	}
	if f.PerPage <= 0 {
		f.PerPage = 10
	}
	if f.Page <= 0 {
		f.Page = 1
	}
	if err := s.resolveSearch(ctx, &f); err != nil {
		return nil, err
	}
	// The page's ids first, from the indexes, then its rows (a deferred
	// join): an order the indexes cannot give (several statuses, a
	// distance, a title) sorts the ids and sort keys of every candidate
	// instead of their whole rows, and a far page skips ids instead of
	// rows. Drafts and pending events of a million-event calendar: 0.5 s
	// before, under a millisecond after (SQLite).
	offset := (f.Page - 1) * f.PerPage
	if offset/f.PerPage != f.Page-1 || offset < 0 { // overflow: no such page
		return &Page[Event]{Items: []*Event{}, Statuses: statuses}, nil
	}
	var events []*Event
	ids, prepared, err := s.windowPageIDs(ctx, &f, offset)
	if err != nil {
		return nil, err
	}
	if !prepared {
		page, err := s.eventPageQuery(ctx, &f)
		if err != nil {
			return nil, err
		}
		page.Limit(int64(f.PerPage)).Offset(int64(offset))
		if f.Bare {
			// The ids alone: the page query itself.
			if err := page.Scan(ctx, &ids); err != nil {
				return nil, fmt.Errorf("models: list events: %w", mapErr(err))
			}
		} else {
			q := s.db.NewSelect().Model(&events).ModelTableExpr("(?) AS page JOIN events AS event ON event.id = page.id", page)
			orderEvents(q, f)
			if err := q.Scan(ctx); err != nil {
				return nil, fmt.Errorf("models: list events: %w", mapErr(err))
			}
		}
	}
	if f.Bare {
		events = make([]*Event, len(ids))
		for i, id := range ids {
			events[i] = &Event{}
			events[i].ID = id
		}
	}
	// A page that is not full tells the total without counting (the count
	// is the costly part of a big window); otherwise one COUNT query.
	total := int64(offset + len(events))
	if !f.SkipTotal && (len(events) == f.PerPage || (len(events) == 0 && offset > 0)) {
		n, err := s.countEvents(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("models: count events: %w", mapErr(err))
		}
		total = int64(n)
	}
	if !f.Bare {
		if err := s.completeEvents(ctx, f.reader, events, f.Lang); err != nil {
			return nil, err
		}
	}
	if events == nil {
		events = []*Event{}
	}
	return &Page[Event]{Items: events, Total: int(total), Statuses: statuses}, nil
}

// windowPageIDs reads, on SQLite, the ids of the page at offset of a bare
// list (f.Bare: the API's, whose records come from ready parts) that only
// a visibility, hidden events and a window filter, in start order, with
// one row per series or every event: the lists whose totals the buckets
// of all events serve (dayBuckets). Written with placeholders and
// prepared (s.scan), as the page query built by bun was parsed and
// planned on every request; the conditions are applyEventFilter's for
// such an f. ok is false for any other list.
func (s *Store) windowPageIDs(ctx context.Context, f *EventFilter, offset int) (ids []int64, ok bool, err error) {
	g := *f
	if g.Recurrence == RecurrenceSeries {
		g.Recurrence = ""
	}
	if f.searchCounted && f.Bare && !f.builtPage && s.dialect == SQLite && f.drive == nil {
		ids, err = s.searchPageIDs(ctx, f, offset)
		return ids, true, err
	}
	dim, _, statuses, served := dayBuckets(g)
	if !f.Bare || f.builtPage || s.dialect != SQLite || !served || f.Near != nil ||
		(f.Order != "" && f.Order != OrderStart) || f.ModifiedAfter != nil || f.ModifiedBefore != nil ||
		f.searchMatched != nil || f.searchMatchAll || f.searchCounted || f.drive != nil || f.noImpliedBounds {
		return nil, false, nil
	}
	switch {
	case dim == dayDimPair && f.Recurrence != RecurrenceSeries && !f.plainLinks:
		return s.pairPageIDs(ctx, f, offset)
	case dim != dayDimAll:
		return nil, false, nil
	}
	var c conds
	c.addAll(statusScope(statuses, f.IncludeHidden, "event.status", "event.hide_from_listings"))
	c.window("event.", *f)
	if f.Recurrence == RecurrenceSeries {
		// The next occurrence, as applyEventFilter writes it (only
		// StartMin and EndMax of the window's bounds are left here), as
		// visible as the list's events (the buckets' statuses).
		var o conds
		o.addAll(statusScope(statuses, f.IncludeHidden, "+o.status", "+o.hide_from_listings"))
		o.at("o.start_at >= ?", f.StartMin)
		o.at("+o.end_at <= ?", f.EndMax)
		c.add(nextOccurrence(true, " AND "+o.sql()), o.args...) // statusScope gives at least one
	}
	ids, err = s.scanPageIDs(ctx, "events AS event", "event.start_at", c, f, offset)
	return ids, true, err
}

// searchPageIDs is windowPageIDs for a list whose search searchPage
// answered: its events (f.searchMatched) passed every condition of the
// list there, so the page is them in start order, read by id and sorted,
// with no condition again; prepared, as the query bun built was parsed on
// every search (8% of a search's CPU once the words' lists were kept).
func (s *Store) searchPageIDs(ctx context.Context, f *EventFilter, offset int) ([]int64, error) {
	var c conds
	c.add("event.id IN (SELECT value FROM json_each(?))", jsonIDs(f.searchMatched))
	return s.scanPageIDs(ctx, "events AS event NOT INDEXED", "event.start_at", c, f, offset)
}

// scanPageIDs reads the event ids of the page at offset of a prepared page
// query: from (which names the events event), under c, in start order (by
// startCol, then publication date and id).
func (s *Store) scanPageIDs(ctx context.Context, from, startCol string, c conds, f *EventFilter, offset int) ([]int64, error) {
	dir := sortDir(f.Desc)
	q := "SELECT event.id FROM " + from + " WHERE " + c.sql() +
		" ORDER BY " + startCol + " " + dir + ", event.published_at " + dir + ", event.id " + dir + " LIMIT ? OFFSET ?"
	var ids []int64
	if err := s.scan(ctx, &ids, q, append(c.args, f.PerPage, offset)...); err != nil {
		return nil, fmt.Errorf("models: list events: %w", mapErr(err))
	}
	return ids, nil
}

// pairPageIDs is windowPageIDs for a list filtered by one category and one
// venue (the pair of buckets): the link-driven page of eventPageQuery,
// which walks the window index of the link that linkDriver picks (kept in
// f for the count) and probes the other. The event's own status, hidden
// flag and window are those of the link's copies, so they are read from
// the copies alone. ok is false when the links cannot serve f.
func (s *Store) pairPageIDs(ctx context.Context, f *EventFilter, offset int) (ids []int64, ok bool, err error) {
	d, others, ok, err := s.linkDriver(ctx, *f)
	statuses, listed := linkStatusList(*f)
	if !ok || err != nil || !listed || len(d.ids) != 1 {
		return nil, false, err
	}
	f.drive = &linkDrive{d: d, others: others}
	var c conds
	c.add("d."+d.col+" = ?", d.ids[0])
	c.addAll(statusScope(statuses, f.IncludeHidden, "d.status", "d.hidden"))
	c.window("d.", *f)
	c.linkProbes(others, "event.id")
	// The copy's start is the event's: the index's order.
	ids, err = s.scanPageIDs(ctx, d.table+" AS d CROSS JOIN events AS event ON event.id = d.event_id", "d.start_at", c, f, offset)
	return ids, true, err
}

// prepareEventFilter checks f's status filter against u, resolves its
// references and sets its reader and visibility, as every list of events
// needs before applyEventFilter; it returns the status filter that applies
// (statusFilter).
func (s *Store) prepareEventFilter(ctx context.Context, u *User, f *EventFilter) ([]string, error) {
	statuses, err := statusFilter(u, "status", "reason.events.status_not_allowed", f.Statuses)
	if err != nil {
		return nil, err
	}
	f.reader = u
	if f.PublicLinks {
		f.reader = nil
	}
	if err := s.resolveEventFilter(ctx, f); err != nil {
		return nil, err
	}
	f.visibility = ListVisibility(u)
	f.IncludeHidden = f.IncludeHidden && MayFilterStatus(u)
	return statuses, nil
}

// eventPageQuery is the query of the ids of f's events in f's order,
// without its limit. A list filtered by links of two kinds (a category
// and a venue) walks, on SQLite, the window index of the link with the
// fewest events (linkDriver, kept in f for its count) in start order,
// reading each of its events and probing the other links, instead of
// walking every event of the window and probing both: at 100,000 events a
// category and a venue found 120 events of a three-month window by
// reading 3,000 events, 150 in this form.
func (s *Store) eventPageQuery(ctx context.Context, f *EventFilter) (*bun.SelectQuery, error) {
	if s.dialect == SQLite && !f.plainLinks && len(f.linkFilters()) > 1 && f.Near == nil && (f.Order == "" || f.Order == OrderStart) &&
		len(f.Search) == 0 && f.ModifiedAfter == nil && f.ModifiedBefore == nil && f.Geoloc == nil && len(f.Include) == 0 &&
		f.ParentID == nil && f.Recurrence != RecurrenceSeries && f.Recurrence != RecurrenceFirst {
		d, others, ok, err := s.linkDriver(ctx, *f)
		if err != nil {
			return nil, err
		}
		if ok {
			f.drive = &linkDrive{d: d, others: others}
		}
		if ok && len(d.ids) == 1 {
			page := s.db.NewSelect().TableExpr(d.table+" AS d CROSS JOIN events AS event ON event.id = d.event_id").Column("event.id").
				Where("d."+d.col+" = ?", d.ids[0])
			linkStatuses(page, "d", *f)
			if !f.IncludeHidden {
				page.Where("d.hidden = ?", false)
			}
			windowConds(page, "d", true, *f)
			s.applyEventFilter(page, f.without(d.table), false)
			dir := sortDir(f.Desc)
			// The copy's start is the event's: the index's order.
			page.OrderExpr("d.start_at " + dir + ", event.published_at " + dir + ", event.id " + dir)
			return page, nil
		}
	}
	table := "events AS event"
	if f.searchCounted && s.dialect == SQLite {
		// The events of the page's days (searchPage), a few, read by
		// id and sorted: not the window in start order, probing each.
		table += " NOT INDEXED"
	}
	page := s.db.NewSelect().TableExpr(table).Column("event.id")
	s.applyEventFilter(page, *f, false)
	orderEvents(page, *f)
	return page, nil
}

// orderEvents adds f's order to q (table alias "event"): the distance to
// Near first, then start (publication date, id), title or change.
func orderEvents(q *bun.SelectQuery, f EventFilter) {
	if f.Near != nil {
		expr, args := distanceExpr(*f.Near)
		cond, cargs := readCondition("g", f.reader)
		q.OrderExpr("(SELECT MIN("+expr+") FROM event_venues gv JOIN venues g ON g.id = gv.venue_id "+
			"WHERE gv.event_id = event.id AND g.geo_lat IS NOT NULL AND g.geo_lng IS NOT NULL AND "+cond+") ASC", append(args, cargs...)...)
	}
	dir := sortDir(f.Desc)
	switch f.Order {
	case OrderTitle:
		// Case-insensitive and the same on both dialects (MySQL's
		// collation folds case, SQLite's binary one does not).
		q.OrderExpr("LOWER(event.title) " + dir + ", event.id " + dir)
	case OrderModified:
		q.OrderExpr("event.updated_at " + dir + ", event.id " + dir)
	default:
		q.OrderExpr("event.start_at " + dir + ", event.published_at " + dir + ", event.id " + dir)
	}
}

// statusFilter checks a list's status filter against u (SPEC §6: anonymous
// callers and subscribers may ask for publish only; the field is invalid
// with reason otherwise) and returns the filter that applies as far as it
// can be told: the statuses asked, or publish for those who see nothing
// else.
func statusFilter(u *User, field, reason string, asked []string) ([]string, error) {
	for _, st := range asked {
		if st != StatusPublish && !MayFilterStatus(u) {
			return nil, Invalid(field, reason, map[string]any{"Value": st})
		}
	}
	if len(asked) == 0 && !MayFilterStatus(u) {
		return []string{StatusPublish}, nil
	}
	return asked, nil
}

// resolveEventFilter turns the filter's references into ids: categories
// and tags by id or slug, and checks that the parent exists and that the
// venues and organizers exist and f's reader may read them (one they may
// not is answered as an unknown one), each failure naming its argument
// (all of them, not just the first).
func (s *Store) resolveEventFilter(ctx context.Context, f *EventFilter) error {
	if len(f.Categories) > 0 || len(f.Tags) > 0 || len(f.VenueIDs) > 0 || len(f.OrganizerIDs) > 0 || len(f.Search) > 0 {
		// One read of the generation serves the look-ups below, which
		// every request of a filtered list asked again (a term's id,
		// whether a venue may be read, which link drives: at 100,000
		// events, 13% of the CPU of a list by category and venue).
		f.lists = s.searchListsNow(ctx)
	}
	var errs []error
	for _, t := range []struct {
		field, taxonomy string
		refs            []TermRef
		dst             *[]int64
	}{{"categories", TaxCategory, f.Categories, &f.categoryIDs}, {"tags", TaxTag, f.Tags, &f.tagIDs}} {
		if len(t.refs) == 0 {
			continue
		}
		ids, err := keptOr(f.lists, termRefsKey(t.taxonomy, f.Lang, t.refs), 8, func() ([]int64, error) {
			return s.resolveTerms(ctx, t.taxonomy, t.refs, false, f.Lang)
		})
		ids = slices.Clone(ids) // the kept list is shared
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrBadTermName) {
			err = invalidBecause(t.field, "reason.events.unknown_term", nil, err)
		}
		errs = append(errs, err)
		*t.dst = ids
	}
	errs = append(errs, s.postsReadableIn(ctx, f.lists, f.reader, KindVenue, "venue", venues.unknownReason, f.VenueIDs),
		s.postsReadableIn(ctx, f.lists, f.reader, KindOrganizer, "organizer", organizers.unknownReason, f.OrganizerIDs))
	if len(f.Search) > 0 && !f.likeSearch {
		var err error
		f.searchDirty, f.searchAllDirty, err = s.searchDirty(ctx)
		if err == nil && !f.listing {
			err = s.resolveSearch(ctx, f)
		}
		errs = append(errs, err)
	}
	if f.ParentID != nil {
		ok, err := s.isEvent(ctx, *f.ParentID)
		if err == nil && !ok {
			err = Invalid("post_parent", "reason.terms.not_event", nil)
		}
		errs = append(errs, err)
	}
	return joinInvalid(errs...)
}

// resolveSearch reads f's search through the index (after
// resolveEventFilter has read the marks). On SQLite: a list for anonymous
// readers from the keys alone (searchPage), any other the events that
// hold every word (matchSearchSQLite); a reader whose language has no
// slot of its own is searched with LIKE. On MySQL, the events that hold
// every word (matchSearchMySQL), and for a list searchListsFast accepts
// its page's events and total from them (searchHitsPage).
func (s *Store) resolveSearch(ctx context.Context, f *EventFilter) error {
	if len(f.Search) == 0 || f.likeSearch || f.searchAllDirty {
		return nil
	}
	l := f.lists
	if l == nil {
		l = s.searchListsNow(ctx)
	}
	if s.dialect == MySQL {
		ids, all, err := s.matchSearchMySQL(ctx, l, f.Lang, f.Search)
		f.searchMatched, f.searchMatchAll = ids, all
		if err != nil || all || !f.listing || len(f.searchDirty) > 0 || !searchListsFast(f) {
			return err
		}
		return s.searchHitsPage(ctx, l, f)
	}
	if f.listing && len(f.searchDirty) == 0 && searchListsFast(f) {
		ok, err := s.searchPage(ctx, l, f)
		if err != nil || ok {
			return err
		}
	}
	ids, all, like, err := s.matchSearchSQLite(ctx, l, f.Lang, f.Search)
	if err != nil {
		return err
	}
	f.searchMatched, f.searchMatchAll, f.searchAllDirty = ids, all, f.searchAllDirty || like
	return nil
}

// applyEventFilter adds the WHERE conditions of f to q (table alias
// "event"). The link filters take two forms with one meaning: a page reads
// events in start order and stops at the page's end, so it probes each
// candidate's links (EXISTS); a count visits every event of the window,
// so it reads the linked record's events once from the link table's index
// and checks each candidate against that set (IN), which is about twice as
// fast on a window of thousands of events.
func (s *Store) applyEventFilter(q *bun.SelectQuery, f EventFilter, counting bool) {
	windowConds(q, "event", s.db.Dialect().Name() == dialect.SQLite, f)
	modifiedConds(q, "event", f.ModifiedAfter, f.ModifiedBefore)
	for _, c := range visibleConds(f, "event.", counting) {
		q.Where(c.cond, c.args...)
	}

	if cond, args := eventSearchCondition(s.dialect, f.Lang, f.Search, f.searchDirty, f.searchAllDirty || f.likeSearch, f.searchMatched, f.searchMatchAll); cond != "" {
		q.Where(cond, args...)
		if counting && f.searchMatched != nil && !f.likeSearch && s.dialect == SQLite {
			// A count reads the matches by id (their number), not the
			// whole window probing each event against them (the
			// planner's choice, which grows with the calendar).
			q.ModelTableExpr(`"events" AS "event" NOT INDEXED`)
		}
	}
	linked := func(table, col string, ids []int64) {
		if len(ids) == 0 {
			return
		}
		if counting {
			q.Where("event.id IN (SELECT l.event_id FROM "+table+" l WHERE l."+col+" IN (?))", bun.List(ids))
		} else {
			q.Where("EXISTS (SELECT 1 FROM "+table+" l WHERE l.event_id = event.id AND l."+col+" IN (?))", bun.List(ids))
		}
	}
	// A category stands for its subcategories too, as in WordPress: the
	// events filed under it (event_categories.go).
	linked("event_category_ancestors", "term_id", f.categoryIDs)
	linked("event_terms", "term_id", f.tagIDs)
	linked("event_venues", "venue_id", f.VenueIDs)
	linked("event_organizers", "organizer_id", f.OrganizerIDs)
	if f.Featured != nil {
		q.Where("event.featured = ?", *f.Featured)
	}
	if f.Geoloc != nil || f.Near != nil {
		// Only venues the reader may read count: a hidden venue's
		// coordinates must not admit (or keep out) its events.
		cond, args := readCondition("h", f.reader)
		has := "EXISTS (SELECT 1 FROM event_venues hv JOIN venues h ON h.id = hv.venue_id " +
			"WHERE hv.event_id = event.id AND h.geo_lat IS NOT NULL AND h.geo_lng IS NOT NULL AND " + cond + ")"
		if f.Geoloc != nil && !*f.Geoloc && f.Near == nil {
			has = "NOT " + has
		}
		q.Where(has, args...)
	}
	if len(f.Include) > 0 {
		q.Where("event.id IN (?)", bun.List(f.Include))
	}
	if f.ParentID != nil {
		// A series' occurrences, the series row (its first) included.
		q.Where("(event.parent_id = ? OR (event.id = ? AND event.series_id = event.id))", *f.ParentID, *f.ParentID)
	}
	switch f.Recurrence {
	case RecurrenceFirst:
		q.Where("(event.series_id IS NULL OR event.series_id = event.id)")
	case RecurrenceSeries:
		if counting { // counted by distinct series (ListEvents)
			break
		}
		// The next occurrence: no earlier one of the same series, as
		// visible and in the window. An earlier occurrence counts when it
		// is in the window too: the window's bounds apply to it, but for
		// those on the start from above, which hold for any earlier one
		// (its end may not: an occurrence made longer on its own ends
		// after a later one).
		sqlite := s.db.Dialect().Name() == dialect.SQLite
		p := ""
		if sqlite {
			p = "+"
		}
		var bounds string
		var args []any
		// As visible to the reader as the list's events (not merely of
		// the event's own status: a reader who sees drafts and published
		// occurrences gets one row for a series that has both).
		for _, c := range visibleConds(f, p+"o.", false) {
			bounds += " AND " + c.cond
			args = append(args, c.args...)
		}
		for _, b := range []struct {
			cond string
			t    *time.Time
		}{{"o.start_at >= ?", f.StartMin}, {"o.start_at > ?", f.StartsAfter}, {p + "o.end_at > ?", f.EndsAfter},
			{p + "o.end_at <= ?", f.EndMax}, {p + "o.end_at < ?", f.EndsBefore}} {
			if b.t != nil {
				bounds += " AND " + b.cond
				args = append(args, Sec(*b.t))
			}
		}
		q.Where(nextOccurrence(sqlite, bounds), args...)
	}
}

// The ways a list shows series (EventFilter.Recurrence).
const (
	RecurrenceOccurrences = "occurrences"
	RecurrenceSeries      = "series"
	RecurrenceFirst       = "first"
)

// distanceExpr is an SQL expression of the squared equirectangular
// distance (in degrees) from the venue g to p. It uses only arithmetic, so
// it runs the same on SQLite and MySQL; the cosine of the reference
// latitude is computed here, and the longitude difference is folded into
// [0, 180] so the antimeridian does not make neighbours far apart.
func distanceExpr(p GeoPoint) (string, []any) {
	k := math.Cos(p.Lat * math.Pi / 180)
	dlng := "ABS(g.geo_lng - ?)"
	folded := fmt.Sprintf("(CASE WHEN %s > 180 THEN 360 - %s ELSE %s END)", dlng, dlng, dlng)
	expr := strings.Join([]string{
		"(g.geo_lat - ?) * (g.geo_lat - ?)",
		fmt.Sprintf("(%s * ?) * (%s * ?)", folded, folded),
	}, " + ")
	args := []any{p.Lat, p.Lat, p.Lng, p.Lng, p.Lng, k, p.Lng, p.Lng, p.Lng, k}
	return expr, args
}

// visibleConds is what the reader of f may see of its events (their
// statuses, and whether hidden ones count), as conditions on the columns
// of prefix ("event.", or "+o." for an earlier occurrence on SQLite, whose
// unary + keeps them out of the series index's seek); counting chooses the
// form a count reads best. For bun's Where (lists as bun.List).
func visibleConds(f EventFilter, prefix string, counting bool) []sqlCond {
	var out []sqlCond
	add := func(cond string, args ...any) {
		out = append(out, sqlCond{strings.ReplaceAll(cond, "$.", prefix), args})
	}
	if !f.IncludeHidden {
		add("$.hide_from_listings = ?", false)
	}
	switch v := f.visibility; {
	case len(f.Statuses) > 0:
		add("$.status IN (?)", bun.List(f.Statuses))
		if !v.AllButTrash {
			// Contributors and authors see others' records only when published.
			add("($.status = ? OR $.author_id = ?)", StatusPublish, v.OwnerID)
		}
	case v.AllButTrash && counting:
		// A count reads every entry of its range: IN lets it read them
		// from the (status, start, …, end, hidden) index alone, where <>
		// reads each row (the started events that have not ended, at a
		// million events: 23-280 ms before, 4 ms after).
		add("$.status IN (?)", bun.List(notTrashed))
	case v.AllButTrash:
		// A page walks the start index in order and stops at its end.
		add("$.status <> ?", StatusTrash)
	case v.OwnerID != 0:
		add("($.status = ? OR ($.author_id = ? AND $.status <> ?))", StatusPublish, v.OwnerID, StatusTrash)
	default:
		add("$.status = ?", StatusPublish)
	}
	return out
}

// sqlCond is one condition of a WHERE with its arguments.
type sqlCond struct {
	cond string
	args []any
}

// nextOccurrence is the condition that an event (alias event) is the first
// of its series that bounds (conditions on alias o, each " AND …": the
// list's visibility and window) admit: no earlier one exists. On SQLite the probe is
// pinned to the series index, on which it seeks the series' rows from the
// window's start to the event's (without it the planner took a range of
// every event from the window start, 30 times slower at 100,000 events); a
// unary + keeps the other columns out of the seek.
func nextOccurrence(sqlite bool, bounds string) string {
	from, p := "events o", ""
	if sqlite {
		from, p = "events o INDEXED BY events_series_start_idx", "+"
	}
	return "(event.series_id IS NULL OR NOT EXISTS (SELECT 1 FROM " + from + " WHERE o.series_id = event.series_id" + bounds +
		" AND o.start_at <= event.start_at AND (" + p + "o.start_at < event.start_at OR (" + p + "o.start_at = event.start_at AND o.id < event.id))))"
}

// sortDir is the SQL direction of an order, descending when desc.
func sortDir(desc bool) string {
	if desc {
		return "DESC"
	}
	return "ASC"
}
