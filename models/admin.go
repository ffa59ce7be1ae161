package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// Operations the admin needs that the API does not: signing in with a login
// or an e-mail address, and the dashboard's counts and recent edits.

// CheckSignIn verifies an account password for the admin's sign-in form,
// whose one field takes a login or an e-mail address: the user whose login
// is id, else the one whose e-mail address is id (a login may itself look
// like an address; it wins). It does the same work, one query and one
// password hash, whether or not such a user exists, and every failure is
// ErrBadCredentials.
func (s *Store) CheckSignIn(ctx context.Context, id, password string) (*User, error) {
	u, err := s.signInUser(ctx, NormalizeLogin(id))
	if err != nil {
		return nil, err
	}
	return verifySignIn(u, password)
}

// signInUser is the user a sign-in identifier (normalised) names: the one
// whose login it is, else the one whose e-mail address it is; nil when
// none. One query whether or not there is one.
func (s *Store) signInUser(ctx context.Context, login string) (*User, error) {
	if login == "" {
		return nil, nil
	}
	var users []User
	err := s.db.NewSelect().Model(&users).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("login = ?", login).WhereOr("(email <> '' AND LOWER(email) = ?)", login)
		}).
		OrderExpr("CASE WHEN login = ? THEN 0 ELSE 1 END, id", login).Limit(1).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: sign in: %w", mapErr(err))
	}
	if len(users) == 0 {
		return nil, nil
	}
	return &users[0], nil
}

// PostCounts holds, for each kind of post-like record, how many records
// of each status a user sees.
type PostCounts map[Kind]map[string]int

// CountPosts counts the events, venues and organizers u sees in lists by
// default (SPEC §6: editors every status but trash, contributors and
// authors the published ones and their own, everyone else the published
// ones), by status: one grouped query per kind. Events hidden from
// listings count too: the admin shows them. Events are counted from the
// day buckets of list totals (countEventsByStatus), so the admin's tabs and
// dashboard do not count the calendar on every page view.
func (s *Store) CountPosts(ctx context.Context, u *User) (PostCounts, error) {
	vis := ListVisibility(u)
	events, err := s.countEventsByStatus(ctx, vis)
	if err != nil {
		return nil, err
	}
	out := PostCounts{KindEvent: events}
	for _, k := range []struct {
		kind         Kind
		table, alias string
	}{{KindVenue, "venues", "venue"}, {KindOrganizer, "organizers", "organizer"}} {
		cond, args := statusCondition(k.alias, nil, vis)
		var rows []struct {
			Status string `bun:"status"`
			N      int    `bun:"n"`
		}
		err := s.db.NewSelect().TableExpr(k.table+" AS "+k.alias).ColumnExpr(k.alias+".status AS status, COUNT(*) AS n").
			Where(cond, args...).GroupExpr(k.alias+".status").Scan(ctx, &rows)
		if err != nil {
			return nil, fmt.Errorf("models: count %s: %w", k.table, mapErr(err))
		}
		m := map[string]int{}
		for _, r := range rows {
			m[r.Status] = r.N
		}
		out[k.kind] = m
	}
	return out, nil
}

// countEventsByStatus counts the events vis sees by default, by status,
// from the all-events month buckets (event_month_counts, kept by triggers
// in every write's transaction): a sum over the site's months, whatever the
// number of events. Contributors and authors also see their own events in
// any status but trash: those are counted from their rows (the author
// index), the published ones from the buckets.
func (s *Store) countEventsByStatus(ctx context.Context, vis Visibility) (map[string]int, error) {
	var rows []struct {
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	q := s.db.NewSelect().TableExpr("event_month_counts").ColumnExpr("status, SUM(n) AS n").
		Where("dim = ?", dayDimAll).Where("ref = 0")
	switch {
	case vis.AllButTrash:
		q.Where("status IN (?)", bun.List(notTrashed))
	default:
		q.Where("status = ?", StatusPublish)
	}
	if err := q.GroupExpr("status").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: count events: %w", mapErr(err))
	}
	if !vis.AllButTrash && vis.OwnerID != 0 {
		var own []struct {
			Status string `bun:"status"`
			N      int    `bun:"n"`
		}
		err := s.db.NewSelect().TableExpr("events AS event").ColumnExpr("event.status AS status, COUNT(*) AS n").
			Where("event.author_id = ?", vis.OwnerID).Where("event.status NOT IN (?)", bun.List([]string{StatusPublish, StatusTrash})).
			GroupExpr("event.status").Scan(ctx, &own)
		if err != nil {
			return nil, fmt.Errorf("models: count own events: %w", mapErr(err))
		}
		rows = append(rows, own...)
	}
	m := map[string]int{}
	for _, r := range rows {
		if r.N != 0 {
			m[r.Status] += r.N
		}
	}
	return m, nil
}

// RecentEvents returns up to limit events u wrote, the most recently
// changed first, whole and read in lang; trashed ones are left out. (No
// history of who changed what is kept, so "recent edits" are the user's own
// events by their last change.) Anonymous callers get none.
func (s *Store) RecentEvents(ctx context.Context, u *User, lang string, limit int) ([]*Event, error) {
	events := []*Event{}
	if u == nil || u.ID == 0 || limit <= 0 {
		return events, nil
	}
	err := s.db.NewSelect().Model(&events).Where("event.author_id = ?", u.ID).Where("event.status <> ?", StatusTrash).
		OrderExpr("event.updated_at DESC, event.id DESC").Limit(int64(min(limit, 100))).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: recent events of user %d: %w", u.ID, mapErr(err))
	}
	if err := s.completeEvents(ctx, u, events, lang); err != nil {
		return nil, err
	}
	return events, nil
}
