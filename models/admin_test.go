package models_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestCheckSignInTakesALoginOrAnEmailAddress(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ann := addAccount(t, db, "ann", models.RoleAuthor) // ann@example.test
		// A login that is someone else's address: the login wins.
		odd, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "ann@example.test",
			Password: "password-odd", Role: models.RoleSubscriber})
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			id, password string
			want         int64 // 0: refused
		}{
			{"ann", "password-ann", ann.ID},
			{"  ANN ", "password-ann", ann.ID},
			{"ann@example.test", "password-odd", odd.ID},
			{"ann@example.test", "password-ann", 0},
			{"ann", "wrong", 0},
			{"nobody", "password-ann", 0},
			{"", "", 0},
		} {
			u, err := db.CheckSignIn(ctx, tt.id, tt.password)
			switch {
			case tt.want == 0 && !errors.Is(err, models.ErrBadCredentials):
				t.Errorf("%q/%q: %v, %v; want bad credentials", tt.id, tt.password, u, err)
			case tt.want != 0 && (err != nil || u.ID != tt.want):
				t.Errorf("%q/%q: %v, %v; want user %d", tt.id, tt.password, u, err, tt.want)
			}
		}
		// By e-mail address, in any case, when no login is that address.
		bob := addAccount(t, db, "bob", models.RoleEditor)
		if u, err := db.CheckSignIn(ctx, "Bob@Example.TEST", "password-bob"); err != nil || u.ID != bob.ID {
			t.Errorf("by e-mail: %v, %v", u, err)
		}
	})
}

func TestDashboardCountsAndRecentEventsFollowVisibility(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		clock := useTestClock(db)
		editor := addAccount(t, db, "ed", models.RoleEditor)
		carl := addAccount(t, db, "carl", models.RoleContributor)
		dora := addAccount(t, db, "dora", models.RoleContributor)
		create := func(u *models.User, title, status string) *models.Event {
			t.Helper()
			in := baseInput(title, "2027-03-10 09:00", "2027-03-10 10:00")
			in.Status = ptr(status)
			e, err := db.CreateEvent(ctx, u, in)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		create(editor, "Published", models.StatusPublish)
		hidden := baseInput("Hidden", "2027-03-11 09:00", "2027-03-11 10:00")
		hidden.HideFromListings = ptr(true)
		if _, err := db.CreateEvent(ctx, editor, hidden); err != nil {
			t.Fatal(err)
		}
		create(editor, "Editor draft", models.StatusDraft)
		first := create(carl, "Carl draft", models.StatusDraft)
		create(carl, "Carl asks to publish", models.StatusPublish) // pending
		create(dora, "Dora draft", models.StatusDraft)
		if _, _, err := db.Venues().Create(ctx, carl, models.VenueInput{Venue: ptr("Hall")}, "en"); err != nil {
			t.Fatal(err)
		}

		for _, tt := range []struct {
			who  *models.User
			want map[string]int
		}{
			{editor, map[string]int{"publish": 2, "draft": 3, "pending": 1}},
			{carl, map[string]int{"publish": 2, "draft": 1, "pending": 1}},
			{nil, map[string]int{"publish": 2}},
		} {
			got, err := db.CountPosts(ctx, tt.who)
			if err != nil {
				t.Fatal(err)
			}
			if len(got[models.KindEvent]) != len(tt.want) {
				t.Errorf("events as %v: %v, want %v", tt.who, got[models.KindEvent], tt.want)
			}
			for st, n := range tt.want {
				if got[models.KindEvent][st] != n {
					t.Errorf("events as %v: %v, want %v", tt.who, got[models.KindEvent], tt.want)
				}
			}
			if got[models.KindOrganizer] == nil {
				t.Errorf("no organizer counts: %v", got)
			}
		}
		if got, _ := db.CountPosts(ctx, dora); got[models.KindVenue]["draft"] != 0 {
			t.Errorf("dora sees carl's draft venue: %v", got[models.KindVenue])
		}

		// Carl's own events, the one changed last first; never dora's.
		clock.Advance(time.Minute)
		if _, err := db.UpdateEvent(ctx, carl, models.ByID(first.ID), models.EventInput{Title: ptr("Carl draft, again")}); err != nil {
			t.Fatal(err)
		}
		recent, err := db.RecentEvents(ctx, carl, "en", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(recent) != 2 || recent[0].ID != first.ID || recent[0].Title != "Carl draft, again" {
			t.Fatalf("recent: %v", recent)
		}
		for _, e := range recent {
			if e.AuthorID != carl.ID {
				t.Errorf("recent events of carl hold %q", e.Title)
			}
		}
		if none, err := db.RecentEvents(ctx, nil, "en", 10); err != nil || len(none) != 0 {
			t.Errorf("anonymous recent: %v %v", none, err)
		}
	})
}

// The admin's status tabs and dashboard count events from the day buckets
// of list totals, not by counting the calendar, and stay equal to a count
// of the rows through every kind of status change.
func TestPostCountsReadTheBucketsAndStayExact(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := addAccount(t, db, "ed", models.RoleEditor)
		carl := addAccount(t, db, "carl", models.RoleContributor)
		var ids []int64
		for i, who := range []*models.User{editor, editor, carl, editor, carl, editor} {
			day := time.Date(2027, time.Month(1+i), 3, 10, 0, 0, 0, time.UTC)
			in := baseInput("音楽祭 "+strconv.Itoa(i), day.Format(time.DateTime), day.Add(26*time.Hour).Format(time.DateTime))
			in.HideFromListings = ptr(i == 3)
			e, err := db.CreateEvent(ctx, who, in)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, e.ID)
		}
		check := func(step string) {
			t.Helper()
			for _, who := range []*models.User{editor, carl, nil} {
				got, err := db.CountPosts(ctx, who)
				if err != nil {
					t.Fatal(err)
				}
				want := map[string]int{}
				for _, st := range []string{models.StatusPublish, models.StatusFuture, models.StatusDraft, models.StatusPending, models.StatusPrivate} {
					var n int
					q := db.IDB().NewSelect().TableExpr("events").ColumnExpr("COUNT(*)").Where("status = ?", st)
					if who != nil && who.Role == models.RoleContributor && st != models.StatusPublish {
						q.Where("author_id = ?", who.ID)
					} else if who == nil && st != models.StatusPublish {
						q.Where("1 = 0")
					}
					if err := q.Scan(ctx, &n); err != nil {
						t.Fatal(err)
					}
					if n != 0 {
						want[st] = n
					}
				}
				if !reflect.DeepEqual(got[models.KindEvent], want) {
					t.Errorf("%s, as %v: %v, want %v", step, who, got[models.KindEvent], want)
				}
			}
		}
		check("created")
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(ids[0]), models.EventInput{PostInput: models.PostInput{Status: ptr(models.StatusDraft)}, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		check("published to draft")
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(ids[1]), models.EventInput{StartDate: ptr("2027-08-09 10:00"), EndDate: ptr("2027-08-09 11:00"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		check("moved")
		if _, err := db.TrashEvent(ctx, editor, models.ByID(ids[3]), "en"); err != nil {
			t.Fatal(err)
		}
		check("trashed")
		if _, err := db.IDB().NewUpdate().TableExpr("events").Set("status = ?", models.StatusPrivate).Where("id = ?", ids[5]).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		check("changed in SQL")
		if _, err := db.IDB().NewDelete().TableExpr("events").Where("id = ?", ids[2]).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		check("deleted in SQL")

		// Served by the buckets: a bucket changed by hand shows.
		if _, err := db.IDB().NewUpdate().TableExpr("event_day_counts").Set("n = n + 40").
			Where("dim = 'e' AND ref = 0 AND status = ?", models.StatusPublish).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := db.CountPosts(ctx, editor)
		if err != nil {
			t.Fatal(err)
		}
		if got[models.KindEvent][models.StatusPublish] < 40 {
			t.Errorf("the counts do not read the buckets: %v", got[models.KindEvent])
		}
	})
}

// The dashboard's recent edits and upcoming list read indexes in order: an
// author of a million events does not have them all sorted, and the
// upcoming events (ends after now) are not found by reading every past
// entry first.
func TestDashboardListsReadIndexesInOrder(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := addAccount(t, db, "ed", models.RoleEditor)
		for i := range 3 {
			day := time.Date(2027, 4, 1+i, 9, 0, 0, 0, time.UTC)
			if _, err := db.CreateEvent(ctx, editor, baseInput("공연 "+strconv.Itoa(i), day.Format(time.DateTime), day.Add(time.Hour).Format(time.DateTime))); err != nil {
				t.Fatal(err)
			}
		}
		log := &queryLog{}
		db.AddQueryHook(log)
		if _, err := db.RecentEvents(ctx, editor, "ko", 5); err != nil {
			t.Fatal(err)
		}
		recent := log.reset()[0]
		plan := explain(t, db, recent)
		switch {
		case !strings.Contains(plan, "events_author_updated_idx"):
			t.Errorf("the recent edits cannot use the index on author and change:\n%s\n%s", recent, plan)
		case db.Dialect() == models.SQLite && strings.Contains(plan, "TEMP B-TREE"):
			// (MySQL scans a table of three rows whatever its indexes.)
			t.Errorf("the recent edits are sorted, not read in order:\n%s\n%s", recent, plan)
		}
		now := time.Date(2027, 4, 2, 9, 30, 0, 0, time.UTC)
		p, err := db.ListEvents(ctx, editor, models.EventFilter{EndsAfter: &now, PerPage: 2, Lang: "ko"})
		if err != nil || p.Total != 2 {
			t.Fatalf("upcoming: %v, %v", p, err)
		}
		for _, q := range log.reset() {
			if strings.Contains(q, "event.end_at > ") {
				if !strings.Contains(q, "event_span") {
					t.Errorf("a query of the upcoming events has no lower bound on the start:\n%s", q)
				}
			}
		}
	})
}
