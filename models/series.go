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
)

// Series and occurrences in the database. The series row holds the rule
// and the content every occurrence copies (text, links, translations,
// status); an occurrence edited on its own (is_exception) keeps its own.
// syncSeries makes the stored occurrences what the rule says, up to the
// horizon: it adds the missing ones, deletes those the rule no longer
// gives (unless in the trash) and, when asked, copies the series' content
// onto every occurrence that is not an exception. Only the series row
// counts in term counts (eventTermCounts, termCountSQL): a series counts
// once.

// seriesFarFuture marks a series whose every occurrence is materialized.
var seriesFarFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// IsSeries reports whether e is the row of a series (its first occurrence).
func (e *Event) IsSeries() bool { return e.SeriesID != nil && *e.SeriesID == e.ID }

// IsOccurrence reports whether e is an occurrence of a series other than
// its first.
func (e *Event) IsOccurrence() bool { return e.SeriesID != nil && *e.SeriesID != e.ID }

// Recurring reports whether e belongs to a series.
func (e *Event) Recurring() bool { return e.SeriesID != nil }

// zone is the event's time zone (the site's when its own does not load).
func (s *Store) zone(e *Event) *time.Location {
	loc, err := LoadZone(e.Timezone, s.site.Zone())
	if err != nil {
		return s.site.Zone()
	}
	return loc
}

// seriesRule reads the stored rule of series row e.
func (s *Store) seriesRule(e *Event) *Recurrence {
	if e.Recurrence == nil {
		return &Recurrence{}
	}
	loc := s.zone(e)
	return readStoredRecurrence(*e.Recurrence, loc, e.StartAt.In(loc))
}

// occurrenceRow is what syncSeries reads of an occurrence.
type occurrenceRow struct {
	ID           int64     `bun:"id"`
	RecurrenceID time.Time `bun:"recurrence_id"`
	IsException  bool      `bun:"is_exception"`
	Status       string    `bun:"status"`
	StartAt      time.Time `bun:"start_at"`
	EndAt        time.Time `bun:"end_at"`
}

// occurrences lists the occurrences of series id other than the series
// row, in recurrence order.
func (s *Store) occurrences(ctx context.Context, id int64) ([]occurrenceRow, error) {
	var rows []occurrenceRow
	err := s.db.NewSelect().TableExpr("events").Column("id", "recurrence_id", "is_exception", "status", "start_at", "end_at").
		Where("series_id = ? AND id <> ?", id, id).OrderExpr("recurrence_id, id").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("models: occurrences of %d: %w", id, mapErr(err))
	}
	return rows, nil
}

// seriesContent are the columns an occurrence copies from its series.
var seriesContent = []string{"author_id", "status", "lang", "published_at", "updated_at", "modified_by", "title",
	"description", "excerpt", "timezone", "all_day", "cost", "currency_symbol", "currency_code", "currency_position",
	"website", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "image_url"}

// syncSeries makes the occurrences of series id what its rule gives up to
// until (at most MaxFutureOccurrences ahead of now). With propagate, every
// occurrence that is not an exception takes the series' content and links
// again, and its dates from its recurrence id. It runs in the caller's
// transaction, the series row locked.
func (s *Store) syncSeries(ctx context.Context, id int64, propagate bool, until time.Time) error {
	series, err := s.rawEvent(ctx, id, true)
	if err != nil {
		return err
	}
	if series.Recurrence == nil {
		return nil
	}
	loc := s.zone(series)
	start, end := series.StartAt.In(loc), series.EndAt.In(loc)
	rule := s.seriesRule(series)
	rows, err := s.occurrences(ctx, id)
	if err != nil {
		return err
	}
	// Occurrences a list materialized past the horizon stay in step too.
	for _, r := range rows {
		if r.RecurrenceID.After(until) {
			until = r.RecurrenceID
		}
	}
	starts, next, err := rule.Expand(start, until, s.site.Now(), MaxFutureOccurrences)
	if err != nil {
		return err
	}
	mark := seriesFarFuture // every occurrence is materialized
	if !next.IsZero() {
		mark = Sec(next).Add(-time.Second)
	}
	want := map[int64]time.Time{}
	for _, t := range starts[1:] {
		want[t.Unix()] = t
	}
	var gone, refresh, untrash []int64
	dates := map[int64]time.Time{} // id → the start it should have
	for _, r := range rows {
		t, ok := want[r.RecurrenceID.Unix()]
		switch {
		case ok:
			delete(want, r.RecurrenceID.Unix())
			if propagate && !r.IsException {
				refresh = append(refresh, r.ID)
				dates[r.ID] = t
			} else if propagate && r.Status == StatusTrash && series.Status != StatusTrash {
				// An exception in the trash that the rule still gives went
				// there with its series (one trashed alone is an EXDATE).
				untrash = append(untrash, r.ID)
			}
		case r.Status == StatusTrash:
			// an excluded occurrence, kept in the trash
		case r.RecurrenceID.After(mark):
			// materialized by a farther horizon: kept for the next extension
		default:
			gone = append(gone, r.ID)
		}
	}
	if _, err := s.deleteEventRows(ctx, gone); err != nil {
		return err
	}
	if len(untrash) > 0 {
		_, err := s.db.NewUpdate().TableExpr("events").Set("status = ?", series.Status).Set("updated_at = ?", series.UpdatedAt).
			Where("id IN (?)", bun.List(untrash)).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: restore exceptions of %d: %w", id, mapErr(err))
		}
	}
	if len(refresh) > 0 {
		tmpl := *series
		q := s.db.NewUpdate().Model(&tmpl).Column(seriesContent...).
			Where("event.id IN (?)", bun.List(refresh))
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("models: copy series %d onto its occurrences: %w", id, mapErr(err))
		}
		for _, r := range rows {
			t, ok := dates[r.ID]
			if !ok {
				continue
			}
			e := occurrenceEnd(t, start, end, series.AllDay)
			if !r.StartAt.Equal(Sec(t)) || !r.EndAt.Equal(Sec(e)) {
				if _, err := s.db.NewUpdate().TableExpr("events").Set("start_at = ?", Sec(t)).Set("end_at = ?", Sec(e)).
					Where("id = ?", r.ID).Exec(ctx); err != nil {
					return fmt.Errorf("models: move occurrence %d: %w", r.ID, mapErr(err))
				}
			}
		}
	}
	var added []int64
	for _, t := range starts[1:] {
		if _, ok := want[t.Unix()]; !ok {
			continue
		}
		oid, err := s.insertOccurrence(ctx, series, t, occurrenceEnd(t, start, end, series.AllDay))
		if err != nil {
			return err
		}
		added = append(added, oid)
	}
	if err := s.copySeriesLinks(ctx, id, refresh, true); err != nil {
		return err
	}
	if err := s.copySeriesLinks(ctx, id, added, false); err != nil {
		return err
	}
	_, err = s.db.NewUpdate().TableExpr("events").Set("series_id = ?", id).Set("recurrence_id = ?", Sec(series.StartAt)).
		Set("series_until = ?", mark).Set("parent_id = NULL").Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: series %d: %w", id, mapErr(err))
	}
	if len(refresh)+len(added)+len(untrash) > 0 {
		// The occurrences refreshed and added were just filed under their
		// categories from their rows as written (copySeriesLinks); the
		// exceptions taken out of the trash were not.
		return s.copySeriesToTerms(ctx, id, len(untrash) > 0)
	}
	return nil
}

// copySeriesToTerms refreshes the copies the category and tag links, and
// with ancestry the category ancestry, of every event of series id keep of
// their event (events_count.go).
func (s *Store) copySeriesToTerms(ctx context.Context, id int64, ancestry bool) error {
	for _, t := range eventCopyTables {
		if !ancestry && t == "event_category_ancestors" {
			continue
		}
		if err := s.copyEventFields(ctx, t, "e.series_id = ?", id); err != nil {
			return fmt.Errorf("models: copy the events of series %d onto their terms: %w", id, mapErr(err))
		}
	}
	return nil
}

// insertOccurrence adds the occurrence of series starting at t, its slug
// the series' with the date.
func (s *Store) insertOccurrence(ctx context.Context, series *Event, t, end time.Time) (int64, error) {
	o := *series
	oid, err := s.NewPostID(ctx, KindEvent)
	if err != nil {
		return 0, err
	}
	sid, rid := series.ID, Sec(t)
	o.ID, o.StartAt, o.EndAt = oid, Sec(t), Sec(end)
	o.Recurrence, o.SeriesUntil, o.UID, o.IsException = nil, nil, nil, false
	o.SeriesID, o.ParentID, o.RecurrenceID = &sid, &sid, &rid
	o.CreatedAt = s.site.Now()
	base := series.Slug + "-" + t.Format(time.DateOnly)
	_, err = s.InsertWithUniqueSlug(ctx, KindEvent, base, 0, func(slug string) error {
		o.Slug = slug
		_, err := s.db.NewInsert().Model(&o).Exec(ctx)
		return mapErr(err)
	})
	if err != nil {
		return 0, fmt.Errorf("models: add occurrence of %d: %w", series.ID, err)
	}
	return oid, nil
}

// copySeriesLinks gives the events ids the links and translations of
// series id (replacing theirs with replace), a few statements per 500
// events. On SQLite a table whose rows of ids already are the series' is
// left as it is (an edit of a series' title rewrote every link and
// translation of every occurrence, through their tables' triggers: half of
// the time of the edit); the links' copies of their events follow the
// events by trigger (events_link_copies_upd) and copySeriesToTerms, and the
// categories are filed again in any case.
func (s *Store) copySeriesLinks(ctx context.Context, id int64, ids []int64, replace bool) error {
	copies := []struct{ table, cols, from string }{
		{"event_venues", "venue_id, position", "l.venue_id, l.position"},
		{"event_organizers", "organizer_id, position", "l.organizer_id, l.position"},
		{"event_terms", "term_id", "l.term_id"},
		{"event_translations", "lang, title, description, excerpt", "l.lang, l.title, l.description, l.excerpt"},
	}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		// With placeholders, the IN list padded (inList), through s.exec:
		// prepared once, where each statement compiled its table's
		// triggers anew (12% of an edit of a whole series).
		in, args := inList(chunk)
		for _, c := range copies {
			want := "SELECT o.id, " + c.from + " FROM events o JOIN " + c.table + " l ON l.event_id = ? WHERE o.id IN (" + in + ")"
			if replace && s.dialect == SQLite {
				have := "SELECT event_id, " + c.cols + " FROM " + c.table + " WHERE event_id IN (" + in + ")"
				// EXCEPT compares as the columns do (BINARY on SQLite), NULLs
				// as equal.
				var differ []int64
				if err := s.scan(ctx, &differ, "SELECT EXISTS ("+want+" EXCEPT "+have+") OR EXISTS ("+have+" EXCEPT "+want+")",
					append(append(append([]any{id}, args...), args...), append(append(append([]any{}, args...), id), args...)...)...); err != nil {
					return fmt.Errorf("models: compare %s of occurrences: %w", c.table, mapErr(err))
				}
				if len(differ) == 1 && differ[0] == 0 {
					continue
				}
			}
			if replace {
				if err := s.exec(ctx, "DELETE FROM "+c.table+" WHERE event_id IN ("+in+")", args...); err != nil {
					return fmt.Errorf("models: clear %s of occurrences: %w", c.table, mapErr(err))
				}
			}
			q := "INSERT INTO " + c.table + " (event_id, " + c.cols + ") " + want
			if err := s.exec(ctx, q, append([]any{id}, args...)...); err != nil {
				return fmt.Errorf("models: copy %s onto occurrences: %w", c.table, mapErr(err))
			}
		}
		if err := s.fileEvents(ctx, chunk); err != nil {
			return err
		}
	}
	return nil
}

// deleteEventRows deletes events for good with their links and
// translations (term counts are the caller's) and returns how many events
// it deleted.
func (s *Store) deleteEventRows(ctx context.Context, ids []int64) (int64, error) {
	var n int64
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		for _, t := range []string{"event_venues", "event_organizers", "event_terms", "event_category_ancestors", "event_translations"} {
			if _, err := s.db.NewDelete().TableExpr(t).Where("event_id IN (?)", bun.List(chunk)).Exec(ctx); err != nil {
				return n, fmt.Errorf("models: delete events: %w", mapErr(err))
			}
		}
		res, err := s.db.NewDelete().TableExpr("events").Where("id IN (?)", bun.List(chunk)).Exec(ctx)
		if err != nil {
			return n, fmt.Errorf("models: delete events: %w", mapErr(err))
		}
		done, _ := res.RowsAffected()
		n += done
	}
	return n, nil
}

// setRule stores the rule of series row id.
func (s *Store) setRule(ctx context.Context, id int64, r *Recurrence) error {
	var v any
	if !r.Empty() {
		v = r.String()
	}
	if _, err := s.db.NewUpdate().TableExpr("events").Set("recurrence = ?", v).Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("models: rule of %d: %w", id, mapErr(err))
	}
	return nil
}

// endSeries makes series row id a single event again: its other
// occurrences are deleted for good.
func (s *Store) endSeries(ctx context.Context, id int64) error {
	if err := s.deleteSeriesRows(ctx, id); err != nil {
		return err
	}
	_, err := s.db.NewUpdate().TableExpr("events").Set("recurrence = NULL").Set("series_id = NULL").Set("recurrence_id = NULL").
		Set("series_until = NULL").Set("is_exception = ?", false).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: end series %d: %w", id, mapErr(err))
	}
	return nil
}

// excludeOccurrence adds the occurrence o's recurrence id to its series'
// EXDATEs (deleting or trashing an occurrence), or with include removes
// it (restoring one from the trash).
func (s *Store) excludeOccurrence(ctx context.Context, o *Event, include bool) error {
	series, err := s.rawEvent(ctx, *o.SeriesID, true)
	if err != nil {
		return err
	}
	rule := s.seriesRule(series)
	loc := s.zone(series)
	rid := o.RecurrenceID.In(loc)
	if include {
		rule.ExDates = slices.DeleteFunc(rule.ExDates, rid.Equal)
	} else {
		rule.ExDates = sortedDates(append(rule.ExDates, rid))
	}
	if len(rule.ExDates) > MaxRecurrenceDates {
		return recurrenceError("reason.events.recurrence_too_many_dates", fmt.Sprint(len(rule.ExDates)))
	}
	return s.setRule(ctx, series.ID, rule)
}

// ExtendSeries materializes the occurrences of every series whose
// materialized part ends before until (the background job, with until the
// site's horizon; and lists asking for dates past it). It returns how many
// series it extended. Each series is extended in its own transaction.
func (s *Store) ExtendSeries(ctx context.Context, until time.Time) (int, error) {
	var ids []int64
	err := s.db.NewSelect().TableExpr("events").Column("id").Where("series_until < ?", Sec(until)).
		Where("recurrence IS NOT NULL").OrderExpr("series_until, id").Limit(200).Scan(ctx, &ids)
	if err != nil {
		return 0, fmt.Errorf("models: series to extend: %w", mapErr(err))
	}
	for _, id := range ids {
		if err := s.RunInTx(ctx, func(tx *Store) error { return tx.syncSeries(ctx, id, false, until) }); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// ruleOf reads the recurrence in sends for event e (its zone and start
// as they will be stored): nil when none was sent or "" (no series).
func (s *Store) ruleOf(e *Event, in EventInput) (*Recurrence, error) {
	if in.Recurrence == nil || strings.TrimSpace(*in.Recurrence) == "" {
		return nil, nil
	}
	loc := s.zone(e)
	start := e.StartAt.In(loc)
	r, err := ParseRecurrence(*in.Recurrence, loc, start)
	if err != nil {
		return nil, err
	}
	if r.Empty() {
		return nil, recurrenceError("reason.events.recurrence_freq", *in.Recurrence)
	}
	for _, d := range r.ExDates {
		if d.Equal(start) {
			return nil, recurrenceError("reason.events.recurrence_exdate_start", "EXDATE:"+d.Format(recurrenceStamp))
		}
	}
	return r, nil
}

// moveWall moves t by the wall-clock difference from from to to, and
// reads the result in to's zone (a series whose start moved, perhaps to
// another zone, keeps its occurrences' places).
func moveWall(t, from, to time.Time) time.Time {
	w := shiftWall(t, from, to)
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, to.Location())
}

// mayEditSeries checks that u may edit every occurrence of series id that
// an edit of the whole series changes (those that are not exceptions).
func (s *Store) mayEditSeries(ctx context.Context, u *User, id int64) error {
	return s.mayChangeOccurrences(ctx, u, ActEdit, id, "is_exception = ?", false)
}

// mayChangeOccurrences checks that u may do act on every event of series
// id that cond selects: one query for the distinct owners and statuses.
func (s *Store) mayChangeOccurrences(ctx context.Context, u *User, act Action, id int64, cond string, args ...any) error {
	var subjects []struct {
		AuthorID int64  `bun:"author_id"`
		Status   string `bun:"status"`
	}
	err := s.db.NewSelect().TableExpr("events").ColumnExpr("DISTINCT author_id, status").
		Where("series_id = ?", id).Where(cond, args...).Scan(ctx, &subjects)
	if err != nil {
		return fmt.Errorf("models: occurrences of %d: %w", id, mapErr(err))
	}
	for _, sub := range subjects {
		if err := authorize(u, act, Subject{Kind: KindEvent, AuthorID: sub.AuthorID, Status: sub.Status}); err != nil {
			return err
		}
	}
	return nil
}

// afterEventEdit keeps a series in step with an update of one of its
// rows (old as it was, e as written), in the update's transaction: an
// occurrence restored from the trash leaves the EXDATEs; a series row's
// new rule, dates or content reach its occurrences; a recurrence sent on a
// single event makes it a series, and "" a series a single event again.
func (s *Store) afterEventEdit(ctx context.Context, u *User, old, e *Event, in EventInput) error {
	if old.IsOccurrence() {
		if old.Status == StatusTrash && e.Status != StatusTrash {
			if err := s.excludeOccurrence(ctx, old, true); err != nil {
				return err
			}
			return s.detachIfOutside(ctx, old)
		}
		return nil
	}
	if in.Recurrence != nil && strings.TrimSpace(*in.Recurrence) == "" {
		if old.IsSeries() {
			return s.endSeries(ctx, old.ID)
		}
		return nil
	}
	if !old.IsSeries() && in.Recurrence == nil {
		return nil
	}
	oldLoc, loc := s.zone(old), s.zone(e)
	oldStart, start := old.StartAt.In(oldLoc), e.StartAt.In(loc)
	moved := !oldStart.Equal(start) || old.Timezone != e.Timezone
	rule, err := s.ruleOf(e, in)
	if err != nil {
		return err
	}
	if rule == nil { // the stored rule, its dates moved with the start
		rule = s.seriesRule(old)
		if moved {
			for i, d := range rule.RDates {
				rule.RDates[i] = moveWall(d, oldStart, start)
			}
			for i, d := range rule.ExDates {
				rule.ExDates[i] = moveWall(d, oldStart, start)
			}
		}
	}
	if old.IsSeries() {
		if err := s.mayEditSeries(ctx, u, old.ID); err != nil {
			return err
		}
		if moved {
			rows, err := s.occurrences(ctx, old.ID)
			if err != nil {
				return err
			}
			for _, r := range rows {
				rid := Sec(moveWall(r.RecurrenceID.In(oldLoc), oldStart, start))
				if rid.Equal(r.RecurrenceID) {
					continue
				}
				if _, err := s.db.NewUpdate().TableExpr("events").Set("recurrence_id = ?", rid).Where("id = ?", r.ID).Exec(ctx); err != nil {
					return fmt.Errorf("models: move occurrence %d: %w", r.ID, mapErr(err))
				}
			}
		}
	}
	if err := s.setRule(ctx, e.ID, rule); err != nil {
		return err
	}
	return s.syncSeries(ctx, e.ID, true, s.site.Horizon())
}

// updateScoped runs the updates of an occurrence that reach beyond its
// row (scope all or following) and refuses what a scope cannot do; done
// is false when the update is an ordinary one.
func (s *Store) updateScoped(ctx context.Context, u *User, ref Ref, in EventInput) (ev *Event, done bool, err error) {
	if in.Scope == "" && in.Recurrence == nil {
		return nil, false, nil
	}
	// The caller's capability is checked (UpdateEvent): what the
	// reference names, or why it names nothing, is the next answer.
	id, err := s.resolvePost(ctx, KindEvent, ref)
	if err != nil {
		return nil, true, err
	}
	cur, err := s.rawEvent(ctx, id, false)
	if err != nil {
		return nil, true, err
	}
	switch {
	case cur.IsOccurrence() && in.Scope == ScopeAll:
		ev, err = s.updateFromOccurrence(ctx, u, cur, in)
		return ev, true, err
	case cur.IsOccurrence() && in.Scope == ScopeFollowing:
		ev, err = s.splitSeries(ctx, u, cur, in)
		return ev, true, err
	case cur.IsOccurrence() && in.Recurrence != nil:
		return nil, true, Invalid("recurrence", "reason.events.recurrence_on_occurrence", nil)
	case cur.IsSeries() && in.Scope == ScopeThis:
		return nil, true, Invalid("scope", "reason.events.scope_this_series", nil)
	}
	return nil, false, nil
}

// updateFromOccurrence applies an update of occurrence occ to its whole
// series: new dates move the series by as much as they move occ.
func (s *Store) updateFromOccurrence(ctx context.Context, u *User, occ *Event, in EventInput) (*Event, error) {
	var out *Event
	err := s.RunInTx(ctx, func(tx *Store) error {
		series, err := tx.rawEvent(ctx, *occ.SeriesID, false)
		if err != nil {
			return err
		}
		in2 := in
		in2.Scope = ScopeAll
		if in.StartDate != nil || in.EndDate != nil || in.Timezone != nil || in.AllDay != nil {
			probe := *occ
			if err := applyEventFields(&probe, in, occ, tx.site); err != nil {
				return err
			}
			oloc, nloc := tx.zone(occ), tx.zone(&probe)
			ps, pe := probe.StartAt.In(nloc), probe.EndAt.In(nloc)
			ns := moveWall(series.StartAt.In(oloc), occ.StartAt.In(oloc), ps)
			ne := occurrenceEnd(ns, ps, pe, probe.AllDay)
			st, en := ns.Format(time.DateTime), ne.Format(time.DateTime)
			in2.StartDate, in2.EndDate = &st, &en
		}
		if _, err := tx.UpdateEvent(ctx, u, ByID(series.ID), in2); err != nil {
			return err
		}
		out, err = tx.readEvent(ctx, u, occ.ID, in.Lang)
		if errors.Is(err, ErrNotFound) { // the new rule has no such occurrence
			out, err = tx.readEvent(ctx, u, series.ID, in.Lang)
		}
		return err
	})
	return out, err
}

// splitSeries applies an update of occurrence occ to it and the later
// occurrences: the series ends before occ (its rule gets an UNTIL), occ
// becomes the row of a new series with the rest of the rule and the later
// occurrences, and the update applies to that series as a whole.
func (s *Store) splitSeries(ctx context.Context, u *User, occ *Event, in EventInput) (*Event, error) {
	var out *Event
	err := s.RunInTx(ctx, func(tx *Store) error {
		series, err := tx.rawEvent(ctx, *occ.SeriesID, true)
		if err != nil {
			return err
		}
		if err := authorize(u, ActEdit, series.subject(KindEvent)); err != nil {
			return err
		}
		o, err := tx.rawEvent(ctx, occ.ID, true)
		if err != nil {
			return err
		}
		if err := authorize(u, ActEdit, o.subject(KindEvent)); err != nil {
			return err
		}
		snap, err := tx.snapshotFor(ctx, KindEvent, series.ID)
		if err != nil {
			return err
		}
		loc := tx.zone(series)
		start := series.StartAt.In(loc)
		rule := tx.seriesRule(series)
		cut := o.RecurrenceID.In(loc)
		plain := &Recurrence{RRules: rule.RRules} // COUNT counts what the rules give, before EXDATEs
		before, _, err := plain.Expand(start, cut.Add(-time.Second), cut, math.MaxInt)
		if err != nil {
			return err
		}
		end := occurrenceEnd(cut, start, series.EndAt.In(loc), series.AllDay)
		_, err = tx.db.NewUpdate().TableExpr("events").Set("series_id = ?", o.ID).Set("parent_id = NULL").
			Set("is_exception = ?", false).Set("start_at = ?", Sec(cut)).Set("end_at = ?", Sec(end)).
			Set("recurrence = ?", rule.from(cut, len(before)).String()).Where("id = ?", o.ID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: split series %d: %w", series.ID, mapErr(err))
		}
		_, err = tx.db.NewUpdate().TableExpr("events").Set("series_id = ?", o.ID).Set("parent_id = ?", o.ID).
			Where("series_id = ? AND recurrence_id > ?", series.ID, Sec(cut)).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: split series %d: %w", series.ID, mapErr(err))
		}
		if err := tx.syncEventTerms(ctx, o.ID); err != nil {
			return err
		}
		after, err := tx.eventTermCounts(ctx, o.ID, o.Status) // o counts now, as a series
		if err != nil {
			return err
		}
		if err := tx.adjustTermCounts(ctx, termCounts{}, after); err != nil {
			return err
		}
		if err := tx.setRule(ctx, series.ID, rule.withUntil(cut)); err != nil {
			return err
		}
		horizon := tx.site.Horizon()
		if err := tx.syncSeries(ctx, series.ID, false, horizon); err != nil {
			return err
		}
		if err := tx.syncSeries(ctx, o.ID, false, horizon); err != nil {
			return err
		}
		if err := tx.keepRevision(ctx, KindEvent, series.ID, u, snap); err != nil {
			return err
		}
		in2 := in
		in2.Scope = ScopeAll
		if _, err := tx.UpdateEvent(ctx, u, ByID(o.ID), in2); err != nil {
			return err
		}
		out, err = tx.readEvent(ctx, u, o.ID, in.Lang)
		return err
	})
	return out, err
}

// trashSeriesRows moves the other occurrences of series id to the trash
// with it.
func (s *Store) trashSeriesRows(ctx context.Context, u *User, id int64) error {
	return s.trashOccurrences(ctx, u, id, time.Time{})
}

// trashOccurrences moves to the trash the occurrences of series id other
// than its row, those from the recurrence id from on when it is not zero.
func (s *Store) trashOccurrences(ctx context.Context, u *User, id int64, from time.Time) error {
	q := s.db.NewUpdate().TableExpr("events").Set("status = ?", StatusTrash).Set("updated_at = ?", s.site.Now()).
		Set("modified_by = ?", u.ID).Where("series_id = ? AND id <> ? AND status <> ?", id, id, StatusTrash)
	if !from.IsZero() {
		q = q.Where("recurrence_id >= ?", Sec(from))
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("models: trash occurrences of %d: %w", id, mapErr(err))
	}
	return s.copySeriesToTerms(ctx, id, true)
}

// deleteSeriesRows deletes the other occurrences of series id for good.
func (s *Store) deleteSeriesRows(ctx context.Context, id int64) error {
	var ids []int64
	if err := s.db.NewSelect().TableExpr("events").Column("id").Where("series_id = ? AND id <> ?", id, id).Scan(ctx, &ids); err != nil {
		return fmt.Errorf("models: occurrences of %d: %w", id, mapErr(err))
	}
	_, err := s.deleteEventRows(ctx, ids)
	return err
}

// loadSeriesRules sets SeriesRule on every occurrence of events: the
// series rows' own, the others' read in one query.
func (s *Store) loadSeriesRules(ctx context.Context, events []*Event) error {
	rows := map[int64]*Event{}
	var missing []int64
	for _, e := range events {
		if e.IsSeries() {
			rows[e.ID] = e
		}
	}
	for _, e := range events {
		if e.IsOccurrence() && rows[*e.SeriesID] == nil {
			missing = append(missing, *e.SeriesID)
			rows[*e.SeriesID] = nil
		}
	}
	if len(missing) > 0 {
		var series []*Event
		err := s.db.NewSelect().Model(&series).Column("id", "recurrence", "start_at", "timezone", "series_id").
			Where("event.id IN (?)", bun.List(missing)).Scan(ctx)
		if err != nil {
			return fmt.Errorf("models: series rules: %w", mapErr(err))
		}
		for _, e := range series {
			rows[e.ID] = e
		}
	}
	for _, e := range events {
		if e.SeriesID == nil {
			continue
		}
		if se := rows[*e.SeriesID]; se != nil {
			e.SeriesRule = s.seriesRule(se)
			e.SeriesStart = se.StartAt.In(s.zone(se))
		}
	}
	return nil
}

// SeriesView is what a calendar feed writes of a series: its row, its
// exceptions u may read, and the recurrence ids of the occurrences u may
// not (a feed excludes them, so a client expanding the rule does not show
// them).
type SeriesView struct {
	Row        *Event
	Exceptions []*Event
	Hidden     []time.Time
}

// SeriesViews returns the views of the series events belong to, whole and
// read in lang, by series id: one entry for every series whose row u may
// read (the others' occurrences are written as single events). A fixed
// number of queries.
func (s *Store) SeriesViews(ctx context.Context, u *User, events []*Event, lang string) (map[int64]*SeriesView, error) {
	var ids []int64
	seen := map[int64]bool{}
	for _, e := range events {
		if e.SeriesID != nil && !seen[*e.SeriesID] {
			seen[*e.SeriesID] = true
			ids = append(ids, *e.SeriesID)
		}
	}
	views := map[int64]*SeriesView{}
	if len(ids) == 0 {
		return views, nil
	}
	var rows []*Event
	err := s.db.NewSelect().Model(&rows).Where("event.series_id IN (?)", bun.List(ids)).
		Where("(event.id = event.series_id OR event.is_exception = ?)", true).OrderExpr("event.recurrence_id, event.id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: series of a feed: %w", mapErr(err))
	}
	if err := s.completeEvents(ctx, u, rows, lang); err != nil {
		return nil, err
	}
	visible := func(e *Event) bool { return e.Status != StatusTrash && Can(u, ActRead, e.subject(KindEvent)) }
	for _, e := range rows {
		if e.IsSeries() && visible(e) {
			views[e.ID] = &SeriesView{Row: e}
		}
	}
	for _, e := range rows {
		v := views[*e.SeriesID]
		if v == nil || e.IsSeries() {
			continue
		}
		if visible(e) {
			v.Exceptions = append(v.Exceptions, e)
		} else if e.Status != StatusTrash { // a trashed one is an EXDATE already
			v.Hidden = append(v.Hidden, *e.RecurrenceID)
		}
	}
	return views, nil
}

// OccurrenceAt returns the id of the occurrence of series id whose
// recurrence id is at (0 when there is none).
func (s *Store) OccurrenceAt(ctx context.Context, id int64, at time.Time) (int64, error) {
	var ids []int64
	err := s.db.NewSelect().TableExpr("events").Column("id").Where("series_id = ? AND recurrence_id = ?", id, Sec(at)).
		Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return 0, mapErr(err)
	}
	return ids[0], nil
}

// TrashScoped moves to the trash what scope says of the event named by ref:
// ScopeThis (or "") the event itself (TrashEvent: an occurrence becomes an
// EXDATE of its series); for an occurrence, ScopeFollowing it and the
// later occurrences (the series ends before it) and ScopeAll its whole
// series. It returns the event named by ref, read in lang.
func (s *Store) TrashScoped(ctx context.Context, u *User, ref Ref, scope, lang string) (*Event, error) {
	switch scope {
	case "", ScopeThis:
		return s.TrashEvent(ctx, u, ref, lang)
	case ScopeFollowing, ScopeAll:
	default:
		return nil, Invalid("scope", "reason.events.scope", nil)
	}
	if err := attempt(u, ActTrash, KindEvent); err != nil {
		return nil, err
	}
	id, err := s.resolvePost(ctx, KindEvent, ref)
	if err != nil {
		return nil, err
	}
	cur, err := s.rawEvent(ctx, id, false)
	if err != nil {
		return nil, err
	}
	if !cur.IsOccurrence() {
		return s.TrashEvent(ctx, u, ref, lang) // a series row: the whole series either way
	}
	if scope == ScopeAll {
		if _, err := s.TrashEvent(ctx, u, ByID(*cur.SeriesID), lang); err != nil {
			return nil, err
		}
		return s.readEvent(ctx, u, id, lang)
	}
	err = s.RunInTx(ctx, func(tx *Store) error {
		series, err := tx.rawEvent(ctx, *cur.SeriesID, true)
		if err != nil {
			return err
		}
		o, err := tx.rawEvent(ctx, id, true)
		if err != nil {
			return err
		}
		if o.Status == StatusTrash {
			return refuse(u, KindEvent, RefusalInTrash)
		}
		// Each occurrence it trashes must be one u may trash.
		if err := tx.mayChangeOccurrences(ctx, u, ActTrash, series.ID, "recurrence_id >= ? AND status <> ?",
			Sec(*o.RecurrenceID), StatusTrash); err != nil {
			return err
		}
		snap, err := tx.snapshotFor(ctx, KindEvent, series.ID)
		if err != nil {
			return err
		}
		if err := tx.trashOccurrences(ctx, u, series.ID, *o.RecurrenceID); err != nil {
			return err
		}
		loc := tx.zone(series)
		if err := tx.setRule(ctx, series.ID, tx.seriesRule(series).withUntil(o.RecurrenceID.In(loc))); err != nil {
			return err
		}
		if err := tx.syncSeries(ctx, series.ID, false, tx.site.Horizon()); err != nil {
			return err
		}
		return tx.keepRevision(ctx, KindEvent, series.ID, u, snap)
	})
	if err != nil {
		return nil, err
	}
	return s.readEvent(ctx, u, id, lang)
}

// detachIfOutside makes occurrence o, just restored from the trash, a
// single event when its series no longer gives its date (the series was
// cut before it, or its rule changed since): the next edit of the series
// would otherwise delete it.
func (s *Store) detachIfOutside(ctx context.Context, o *Event) error {
	series, err := s.rawEvent(ctx, *o.SeriesID, true)
	if err != nil {
		return err
	}
	loc := s.zone(series)
	rid := o.RecurrenceID.In(loc)
	starts, _, err := s.seriesRule(series).Expand(series.StartAt.In(loc), rid, rid, math.MaxInt)
	if err != nil {
		return err
	}
	for _, t := range starts {
		if t.Equal(rid) {
			return nil
		}
	}
	_, err = s.db.NewUpdate().TableExpr("events").Set("series_id = NULL").Set("parent_id = NULL").Set("recurrence_id = NULL").
		Set("is_exception = ?", false).Where("id = ?", o.ID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: detach occurrence %d: %w", o.ID, mapErr(err))
	}
	status := ""
	if err := s.db.NewSelect().TableExpr("events").Column("status").Where("id = ?", o.ID).Scan(ctx, &status); err != nil {
		return fmt.Errorf("models: detach occurrence %d: %w", o.ID, mapErr(err))
	}
	after, err := s.eventTermCounts(ctx, o.ID, status) // a single event counts now
	if err != nil {
		return err
	}
	return s.adjustTermCounts(ctx, termCounts{}, after)
}
