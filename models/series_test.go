package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// seriesSite is a site whose clock stands still on 2027-01-01, so
// horizons and "next occurrence" do not depend on the day the tests run.
func seriesSite(db *models.DB, horizon ...time.Duration) {
	site := models.DefaultSite()
	if len(horizon) > 0 {
		site.SeriesHorizon = horizon[0]
	}
	site.Clock = func() time.Time { return time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC) }
	db.UseSite(site)
}

// seriesEvents lists the events of series id (every occurrence, the
// series row first) as read by an administrator.
func seriesEvents(t *testing.T, db *models.DB, u *models.User, id int64, statuses ...string) []*models.Event {
	t.Helper()
	p, err := db.ListEvents(context.Background(), u, models.EventFilter{ParentID: &id, PerPage: 500, Statuses: statuses})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// localStarts formats the starts of events as wall clock in zone.
func localStarts(events []*models.Event, zone string) []string {
	loc, _ := time.LoadLocation(zone)
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.StartAt.In(loc).Format("2006-01-02 15:04 MST")
	}
	return out
}

func TestSeriesKeepsWallClockAcrossDaylightSaving(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		in := baseInput("Morning run", "2027-02-23 09:00:00", "2027-02-23 10:00:00")
		in.Timezone = ptr("America/New_York")
		in.Recurrence = ptr("FREQ=WEEKLY;BYDAY=TU;COUNT=4")
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		if !e.IsSeries() || e.SeriesRule == nil || e.SeriesRule.String() != "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4" {
			t.Fatalf("series row: series %v rule %+v", e.SeriesID, e.SeriesRule)
		}
		got := localStarts(seriesEvents(t, db, admin, e.ID), "America/New_York")
		want := []string{"2027-02-23 09:00 EST", "2027-03-02 09:00 EST", "2027-03-09 09:00 EST", "2027-03-16 09:00 EDT"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("spring:\n got %v\nwant %v", got, want)
		}
		in = baseInput("Evening run", "2027-10-26 09:00:00", "2027-10-26 10:00:00")
		in.Timezone = ptr("America/New_York")
		// Text copied from another calendar: its DTSTART is the start.
		in.Recurrence = ptr("DTSTART;TZID=America/New_York:20271026T090000\r\nRRULE:FREQ=WEEKLY;UNTIL=20271116T140000Z")
		e, err = db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		got = localStarts(seriesEvents(t, db, admin, e.ID), "America/New_York")
		want = []string{"2027-10-26 09:00 EDT", "2027-11-02 09:00 EDT", "2027-11-09 09:00 EST", "2027-11-16 09:00 EST"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("fall:\n got %v\nwant %v", got, want)
		}
	})
}

func TestSeriesRulesExpandAsRFC5545Says(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db, 8*365*24*time.Hour)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		for _, c := range []struct {
			name, start, rule string
			want              []string
		}{
			// Months without a 31st are skipped (RFC 5545 §3.3.10).
			{"31st", "2027-01-31 18:00:00", "FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4",
				[]string{"2027-01-31", "2027-03-31", "2027-05-31", "2027-07-31"}},
			// The second Tuesday, by BYSETPOS.
			{"setpos", "2027-01-12 18:00:00", "FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2;COUNT=3",
				[]string{"2027-01-12", "2027-02-09", "2027-03-09"}},
			// The last weekday of the month.
			{"last weekday", "2027-01-29 18:00:00", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3",
				[]string{"2027-01-29", "2027-02-26", "2027-03-31"}},
			// 29 February comes every four years.
			{"leap", "2028-02-29 18:00:00", "FREQ=YEARLY;COUNT=2",
				[]string{"2028-02-29", "2032-02-29"}},
			// EXDATE removes, RDATE adds (in date order).
			{"ex and rdate", "2027-01-04 18:00:00", "RRULE:FREQ=DAILY;COUNT=4\nEXDATE:20270105T180000\nRDATE:20270110T180000",
				[]string{"2027-01-04", "2027-01-06", "2027-01-07", "2027-01-10"}},
		} {
			in := baseInput(c.name, c.start, c.start)
			in.Recurrence = ptr(c.rule)
			e, err := db.CreateEvent(ctx, admin, in)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var got []string
			for _, o := range seriesEvents(t, db, admin, e.ID) {
				got = append(got, o.StartAt.Format(time.DateOnly))
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
			}
		}
	})
}

func TestSeriesRefusesBadRulesNamingThePart(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		for rule, part := range map[string]string{
			"FREQ=WEEKLY;BYDAY=XX":                      "BYDAY=XX",
			"FREQ=FORTNIGHTLY":                          "FREQ=FORTNIGHTLY",
			"FREQ=HOURLY":                               "FREQ=HOURLY",
			"FREQ=DAILY;BYHOUR=9":                       "BYHOUR=9",
			"FREQ=DAILY;COUNT=0":                        "COUNT=0",
			"FREQ=DAILY;FOO=1":                          "FOO=1",
			"BYDAY=TU":                                  "BYDAY=TU",
			"FREQ=DAILY;COUNT=2;UNTIL=2028":             "UNTIL=2028",
			"RRULE:FREQ=DAILY\nEXDATE:soon":             "EXDATE:soon",
			"DTSTART:20270101T000000\nRRULE:FREQ=DAILY": "DTSTART:20270101T000000",
			"RRULE:FREQ=DAILY\nDURATION:PT1H":           "DURATION:PT1H",
			"FREQ=DAILY;INTERVAL=1;INTERVAL=2":          "INTERVAL",
		} {
			in := baseInput("Bad", "2027-01-04 18:00:00", "2027-01-04 19:00:00")
			in.Recurrence = ptr(rule)
			_, err := db.CreateEvent(ctx, admin, in)
			var inv *models.ValidationError
			if !errors.As(err, &inv) || len(inv.Fields) == 0 || inv.Fields[0].Field != "recurrence" {
				t.Errorf("%q: %v", rule, err)
				continue
			}
			if p, _ := inv.Fields[0].Data["Part"].(string); !strings.Contains(p, part) {
				t.Errorf("%q: part %q, want %q", rule, p, part)
			}
		}
		p, err := db.ListEvents(ctx, admin, models.EventFilter{PerPage: 10})
		if err != nil || p.Total != 0 {
			t.Errorf("refused rules left %d events (%v)", p.Total, err)
		}
	})
}

func TestSeriesHorizonBoundsUnendingRules(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		in := baseInput("Standup", "2027-01-04 09:00:00", "2027-01-04 09:15:00")
		in.Recurrence = ptr("FREQ=WEEKLY")
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		// The default horizon, 761 days ahead of 2027-01-01, is
		// 2029-02-01: 109 Mondays from 2027-01-04.
		all := seriesEvents(t, db, admin, e.ID)
		if len(all) != 109 {
			t.Fatalf("%d occurrences, want 109", len(all))
		}
		last := all[len(all)-1].StartAt
		// The background job extends to a new horizon; run twice, it adds nothing.
		if n, err := db.ExtendSeries(ctx, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil || n != 1 {
			t.Fatalf("extend: %d, %v", n, err)
		}
		before := len(seriesEvents(t, db, admin, e.ID))
		if n, err := db.ExtendSeries(ctx, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil || n != 0 {
			t.Fatalf("extend again: %d, %v", n, err)
		}
		if after := len(seriesEvents(t, db, admin, e.ID)); after != before || before != 157 {
			t.Errorf("occurrences %d then %d, want 157 (the last one before was %s)", before, after, last)
		}
	})
}

// TestListPastTheHorizonWritesNothing (issue 28, smaller finding 6: admin
// list GETs past the series horizon wrote occurrences): a list asking for
// dates past --series-horizon-days shows what is materialized and nothing
// more, and writes nothing; the background job extends the series, and the
// same list then shows the occurrences.
func TestListPastTheHorizonWritesNothing(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		in := baseInput("朝会", "2027-01-04 09:00:00", "2027-01-04 09:15:00")
		in.Recurrence = ptr("FREQ=WEEKLY")
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		stored := func() int64 {
			n, err := db.IDB().NewSelect().TableExpr("events").Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := stored()
		from, to := time.Date(2029, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2029, 7, 1, 0, 0, 0, 0, time.UTC)
		for _, u := range []*models.User{admin, nil} {
			for _, f := range []models.EventFilter{
				{StartMin: &from, EndMax: &to, PerPage: 50},
				{StartsBefore: &to, EndsAfter: &from, PerPage: 50},
				{StartMin: &from, EndMax: &to, PerPage: 50, Recurrence: models.RecurrenceSeries},
			} {
				p, err := db.ListEvents(ctx, u, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Items) != 0 {
					t.Errorf("June 2029, past the horizon: %d occurrences listed, want what is materialized (none)", len(p.Items))
				}
			}
		}
		if after := stored(); after != before {
			t.Fatalf("lists wrote %d events", after-before)
		}
		if _, err := db.ExtendSeries(ctx, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		p, err := db.ListEvents(ctx, admin, models.EventFilter{StartMin: &from, EndMax: &to, PerPage: 50})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != 4 || p.Items[0].SeriesID == nil || *p.Items[0].SeriesID != e.ID { // Mondays of June 2029: 4, 11, 18, 25
			t.Errorf("June 2029 after the job: %d occurrences, want 4 of series %d", len(p.Items), e.ID)
		}
	})
}

// seriesTitles maps the local dates of a series' occurrences to titles.
func seriesTitles(t *testing.T, db *models.DB, u *models.User, id int64) string {
	t.Helper()
	var b strings.Builder
	for _, o := range seriesEvents(t, db, u, id) {
		ex := ""
		if o.IsException {
			ex = "*"
		}
		fmt.Fprintf(&b, "%s %s%s|", o.StartAt.Format("01-02 15:04"), o.Title, ex)
	}
	return b.String()
}

func TestSeriesScopedEdits(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		cat, err := db.CreateTerm(ctx, admin, models.TaxCategory, models.TermInput{Name: ptr("Sport")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		in := baseInput("Yoga", "2027-01-05 18:00:00", "2027-01-05 19:00:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=5")
		in.Categories = &[]models.TermRef{{ID: cat.ID}}
		s, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		count := func() int64 {
			t.Helper()
			c, err := db.GetTerm(ctx, admin, models.TaxCategory, cat.ID, "en")
			if err != nil {
				t.Fatal(err)
			}
			return c.Count
		}
		if n := count(); n != 1 {
			t.Errorf("a series counts once: count %d", n)
		}
		occ := seriesEvents(t, db, admin, s.ID)
		// this: one occurrence becomes an exception.
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(occ[1].ID), models.EventInput{Title: ptr("Yoga outdoors"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		// all, from an occurrence: the series and every non-exception
		// occurrence, moved by as much as that occurrence moved.
		_, err = db.UpdateEvent(ctx, admin, models.ByID(occ[2].ID), models.EventInput{Title: ptr("Yin yoga"),
			StartDate: ptr("2027-01-19 18:30:00"), EndDate: ptr("2027-01-19 19:30:00"), Scope: models.ScopeAll, Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		want := "01-05 18:30 Yin yoga|01-12 18:00 Yoga outdoors*|01-19 18:30 Yin yoga|01-26 18:30 Yin yoga|02-02 18:30 Yin yoga|"
		if got := seriesTitles(t, db, admin, s.ID); got != want {
			t.Errorf("after all:\n got %s\nwant %s", got, want)
		}
		// following: the series is split before the fourth.
		occ = seriesEvents(t, db, admin, s.ID)
		split, err := db.UpdateEvent(ctx, admin, models.ByID(occ[3].ID), models.EventInput{Title: ptr("Hot yoga"), Scope: models.ScopeFollowing, Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		if !split.IsSeries() {
			t.Fatalf("the split occurrence is not a series row: %+v", split.SeriesID)
		}
		if got := seriesTitles(t, db, admin, s.ID); got != "01-05 18:30 Yin yoga|01-12 18:00 Yoga outdoors*|01-19 18:30 Yin yoga|" {
			t.Errorf("old part: %s", got)
		}
		if got := seriesTitles(t, db, admin, split.ID); got != "01-26 18:30 Hot yoga|02-02 18:30 Hot yoga|" {
			t.Errorf("new part: %s", got)
		}
		old, _ := db.GetEvent(ctx, admin, models.ByID(s.ID), "en")
		if !strings.Contains(old.SeriesRule.String(), "UNTIL=20270126T182959Z") || strings.Contains(old.SeriesRule.String(), "COUNT") {
			t.Errorf("old rule %s", old.SeriesRule)
		}
		if !strings.Contains(split.SeriesRule.String(), "COUNT=2") {
			t.Errorf("new rule %s", split.SeriesRule)
		}
		if n := count(); n != 2 {
			t.Errorf("two series: count %d", n)
		}
		// Trashing an occurrence adds an EXDATE; the series stays.
		if _, err := db.TrashEvent(ctx, admin, models.ByID(seriesEvents(t, db, admin, split.ID)[1].ID), "en"); err != nil {
			t.Fatal(err)
		}
		split, _ = db.GetEvent(ctx, admin, models.ByID(split.ID), "en")
		if !strings.Contains(split.SeriesRule.String(), "EXDATE:20270202T183000") {
			t.Errorf("rule after trash: %s", split.SeriesRule)
		}
		if got := seriesTitles(t, db, admin, split.ID); got != "01-26 18:30 Hot yoga|" {
			t.Errorf("after trash: %s", got)
		}
		// Trashing the series row trashes the series.
		if _, err := db.TrashEvent(ctx, admin, models.ByID(s.ID), "en"); err != nil {
			t.Fatal(err)
		}
		if got := seriesTitles(t, db, admin, s.ID); got != "" {
			t.Errorf("after trashing the series, listed: %s", got)
		}
		if n := count(); n != 1 {
			t.Errorf("one series left: count %d", n)
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 0 {
			t.Errorf("recount found %d wrong counts (%v)", n, err)
		}
	})
}

// Scope edits are edits: who may not edit the events they change is
// refused, as for any edit, and every scope leaves revisions that restore.
func TestSeriesScopeEditsFollowPermissionsAndLeaveRevisions(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		contrib := newUser(t, db, "contrib", models.RoleContributor)
		author := newUser(t, db, "author", models.RoleAuthor)
		other := newUser(t, db, "other", models.RoleAuthor)
		in := baseInput("Drafted", "2027-01-04 10:00:00", "2027-01-04 11:00:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=4")
		draft, err := db.CreateEvent(ctx, contrib, in)
		if err != nil || draft.Status != models.StatusDraft {
			t.Fatalf("contributor's series: %v %v", draft, err)
		}
		occ := seriesEvents(t, db, editor, draft.ID)
		all := models.EventInput{Title: ptr("Drafted again"), Scope: models.ScopeAll, Lang: "en"}
		if _, err := db.UpdateEvent(ctx, contrib, models.ByID(occ[2].ID), all); err != nil {
			t.Fatalf("a contributor's scope all on an own draft series: %v", err)
		}
		// Published by an editor: the contributor may edit none of it.
		pub := models.EventInput{Lang: "en"}
		pub.Status = ptr(models.StatusPublish)
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(draft.ID), pub); err != nil {
			t.Fatal(err)
		}
		for _, scope := range []string{models.ScopeThis, models.ScopeFollowing, models.ScopeAll} {
			_, err := db.UpdateEvent(ctx, contrib, models.ByID(occ[2].ID), models.EventInput{Title: ptr("x"), Scope: scope, Lang: "en"})
			if !errors.Is(err, models.ErrForbidden) {
				t.Errorf("contributor, published series, scope %s: %v, want forbidden", scope, err)
			}
		}
		// An author edits an own published series, not another's.
		in = baseInput("Author's", "2027-02-01 10:00:00", "2027-02-01 11:00:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=3")
		in.Status = ptr(models.StatusPublish)
		mine, err := db.CreateEvent(ctx, author, in)
		if err != nil {
			t.Fatal(err)
		}
		mineOcc := seriesEvents(t, db, editor, mine.ID)
		if _, err := db.UpdateEvent(ctx, other, models.ByID(mineOcc[1].ID), models.EventInput{Title: ptr("x"), Scope: models.ScopeAll, Lang: "en"}); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("another author's scope all: %v, want forbidden", err)
		}
		if _, err := db.UpdateEvent(ctx, author, models.ByID(mineOcc[1].ID), models.EventInput{Title: ptr("Renamed"), Scope: models.ScopeAll, Lang: "en"}); err != nil {
			t.Errorf("the author's scope all: %v", err)
		}
		// The scope all left a revision on the series row; restoring it
		// gives every occurrence the old title back.
		_, revs, err := db.Revisions(ctx, author, models.KindEvent, models.ByID(mine.ID))
		if err != nil || len(revs) == 0 {
			t.Fatalf("revisions of the series: %d (%v)", len(revs), err)
		}
		if _, err := db.RestoreEventRevision(ctx, author, models.ByID(mine.ID), revs[0].ID, "en"); err != nil {
			t.Fatal(err)
		}
		if got := seriesTitles(t, db, author, mine.ID); got != "02-01 10:00 Author's|02-08 10:00 Author's|02-15 10:00 Author's|" {
			t.Errorf("after restoring the series' revision: %s", got)
		}
		// this: a revision of the occurrence; following: of the old series.
		if _, err := db.UpdateEvent(ctx, author, models.ByID(mineOcc[1].ID), models.EventInput{Title: ptr("Once"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, r, _ := db.Revisions(ctx, author, models.KindEvent, models.ByID(mineOcc[1].ID)); len(r) != 1 {
			t.Errorf("the occurrence edited on its own has %d revisions, want 1", len(r))
		}
		_, before, _ := db.Revisions(ctx, author, models.KindEvent, models.ByID(mine.ID))
		if _, err := db.UpdateEvent(ctx, author, models.ByID(mineOcc[2].ID), models.EventInput{Title: ptr("Later"), Scope: models.ScopeFollowing, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, after, _ := db.Revisions(ctx, author, models.KindEvent, models.ByID(mine.ID)); len(after) != len(before)+1 {
			t.Errorf("the split left %d revisions on the old series, had %d", len(after), len(before))
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 0 {
			t.Errorf("recount found %d wrong counts (%v)", n, err)
		}
	})
}

// A series trashed and restored comes back whole: its occurrences and
// its exceptions, but not the occurrence trashed on its own before.
func TestSeriesTrashedAndRestoredComesBackWhole(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		in := baseInput("Tango", "2027-03-01 20:00:00", "2027-03-01 22:00:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=4")
		in.Status = ptr(models.StatusPublish)
		s, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		occ := seriesEvents(t, db, admin, s.ID)
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(occ[1].ID), models.EventInput{Title: ptr("Tango: milonga"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TrashEvent(ctx, admin, models.ByID(occ[2].ID), "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TrashEvent(ctx, admin, models.ByID(s.ID), "en"); err != nil {
			t.Fatal(err)
		}
		if got := seriesTitles(t, db, admin, s.ID); got != "" {
			t.Fatalf("trashed series still lists %s", got)
		}
		restore := models.EventInput{Lang: "en"}
		restore.Status = ptr(models.StatusPublish)
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(s.ID), restore); err != nil {
			t.Fatal(err)
		}
		if got := seriesTitles(t, db, nil, s.ID); got != "03-01 20:00 Tango|03-08 20:00 Tango: milonga*|03-22 20:00 Tango|" {
			t.Errorf("restored series: %s", got)
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 0 {
			t.Errorf("recount found %d wrong counts (%v)", n, err)
		}
	})
}

// Search finds occurrences by their series' words, in every language the
// series is written in, and one row per series in the series view.
func TestSeriesSearchAndTermFilters(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		cat, err := db.CreateTerm(ctx, admin, models.TaxCategory, models.TermInput{Name: ptr("Dance")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		in := baseInput("Salsa social", "2027-04-02 20:00:00", "2027-04-02 23:00:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=3")
		in.Categories = &[]models.TermRef{{ID: cat.ID}}
		s, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(s.ID), models.EventInput{Title: ptr("サルサの夕べ"), Lang: "ja"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateEvent(ctx, admin, baseInput("Salsa lesson", "2027-04-03 10:00:00", "2027-04-03 11:00:00")); err != nil {
			t.Fatal(err)
		}
		count := func(f models.EventFilter) int {
			t.Helper()
			f.PerPage = 1 // a full page: the total is counted
			p, err := db.ListEvents(ctx, nil, f)
			if err != nil {
				t.Fatal(err)
			}
			return p.Total
		}
		for _, c := range []struct {
			name string
			f    models.EventFilter
			want int
		}{
			{"search, occurrences", models.EventFilter{Search: []string{"salsa"}}, 4},
			{"search, one per series", models.EventFilter{Search: []string{"salsa"}, Recurrence: models.RecurrenceSeries}, 2},
			{"search in Japanese", models.EventFilter{Search: []string{"サルサ"}, Lang: "ja"}, 3},
			{"category, occurrences", models.EventFilter{Categories: []models.TermRef{{ID: cat.ID}}}, 3},
			{"category, first", models.EventFilter{Categories: []models.TermRef{{ID: cat.ID}}, Recurrence: models.RecurrenceFirst}, 1},
		} {
			if got := count(c.f); got != c.want {
				t.Errorf("%s: %d, want %d", c.name, got, c.want)
			}
		}
		c, err := db.GetTerm(ctx, admin, models.TaxCategory, cat.ID, "en")
		if err != nil || c.Count != 1 {
			t.Errorf("the category counts %d events, want the series once (%v)", c.Count, err)
		}
	})
}

// Duplicating a series makes a new series with the same rule; duplicating
// one of its occurrences, a single event on that date.
func TestSeriesDuplicates(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		in := baseInput("Choir practice", "2027-05-03 19:00:00", "2027-05-03 21:00:00")
		in.Recurrence = ptr("RRULE:FREQ=WEEKLY;COUNT=3\nEXDATE:20270510T190000")
		s, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		copyOf, err := db.DuplicateEvent(ctx, admin, models.ByID(s.ID))
		if err != nil {
			t.Fatal(err)
		}
		if !copyOf.IsSeries() || copyOf.SeriesRule.String() != s.SeriesRule.String() || copyOf.Status != models.StatusDraft {
			t.Fatalf("copy of the series: series %v, rule %v, status %s", copyOf.IsSeries(), copyOf.SeriesRule, copyOf.Status)
		}
		if got := seriesTitles(t, db, admin, copyOf.ID); got != "05-03 19:00 Choir practice|05-17 19:00 Choir practice|" {
			t.Errorf("the copy's occurrences: %s", got)
		}
		occ := seriesEvents(t, db, admin, s.ID)
		one, err := db.DuplicateEvent(ctx, admin, models.ByID(occ[1].ID))
		if err != nil {
			t.Fatal(err)
		}
		if one.Recurring() || one.StartAt.Format("01-02 15:04") != "05-17 19:00" {
			t.Errorf("copy of an occurrence: recurring %v, start %s", one.Recurring(), one.StartAt)
		}
	})
}

// DELETE with a scope: following ends the series before the occurrence
// (trashing the rest), all trashes the series; an occurrence restored
// from the trash after its series was cut becomes a single event.
func TestSeriesTrashWithScope(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		contrib := newUser(t, db, "contrib", models.RoleContributor)
		in := baseInput("Swim", "2027-06-01 07:00:00", "2027-06-01 08:00:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=5")
		in.Status = ptr(models.StatusPublish)
		s, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		occ := seriesEvents(t, db, admin, s.ID)
		if _, err := db.TrashScoped(ctx, contrib, models.ByID(occ[3].ID), models.ScopeFollowing, "en"); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("a contributor trashing published occurrences: %v", err)
		}
		if _, err := db.TrashScoped(ctx, admin, models.ByID(occ[3].ID), models.ScopeFollowing, "en"); err != nil {
			t.Fatal(err)
		}
		if got := seriesTitles(t, db, admin, s.ID); got != "06-01 07:00 Swim|06-08 07:00 Swim|06-15 07:00 Swim|" {
			t.Errorf("after trashing the following: %s", got)
		}
		s, _ = db.GetEvent(ctx, admin, models.ByID(s.ID), "en")
		if !strings.Contains(s.SeriesRule.String(), "UNTIL=20270622T065959Z") {
			t.Errorf("rule after trashing the following: %s", s.SeriesRule)
		}
		// One of them back from the trash: a single event, counted.
		back := models.EventInput{Lang: "en"}
		back.Status = ptr(models.StatusPublish)
		e, err := db.UpdateEvent(ctx, admin, models.ByID(occ[4].ID), back)
		if err != nil {
			t.Fatal(err)
		}
		if e.Recurring() || e.StartAt.Format("01-02") != "06-29" {
			t.Errorf("the restored occurrence: recurring %v, start %s", e.Recurring(), e.StartAt)
		}
		// all: the series goes to the trash.
		if _, err := db.TrashScoped(ctx, admin, models.ByID(occ[1].ID), models.ScopeAll, "en"); err != nil {
			t.Fatal(err)
		}
		if got := seriesTitles(t, db, admin, s.ID); got != "" {
			t.Errorf("after trashing all: %s", got)
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 0 {
			t.Errorf("recount found %d wrong counts (%v)", n, err)
		}
	})
}

// TestSeriesRowIsTheFirstOccurrenceInTheWindow: with one row per series,
// the row of a series is its first occurrence that the window holds, even
// when an earlier one starts in the window and ends after it (one made
// longer on its own), and the page agrees with its total, for the
// anonymous reader and an editor, built by bun and from ready parts (Bare).
func TestSeriesRowIsTheFirstOccurrenceInTheWindow(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		in := baseInput("Atelier d'écriture 書道", "2027-03-01 10:00:00", "2027-03-01 12:00:00")
		in.Recurrence = ptr("FREQ=WEEKLY;COUNT=4")
		e, err := db.CreateEvent(ctx, editor, in)
		if err != nil {
			t.Fatal(err)
		}
		occ, err := db.ListEvents(ctx, editor, models.EventFilter{ParentID: &e.ID, PerPage: 50, Lang: "en"})
		if err != nil || len(occ.Items) != 4 {
			t.Fatalf("%v occurrences, %v", occ, err)
		}
		// The second occurrence (8 March) now runs to the 20th.
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(occ.Items[1].ID), models.EventInput{
			EndDate: ptr("2027-03-20 18:00:00"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		from, to := time.Date(2027, 3, 5, 0, 0, 0, 0, time.UTC), time.Date(2027, 3, 18, 23, 59, 59, 0, time.UTC)
		for _, u := range []*models.User{nil, editor} {
			for _, bare := range []bool{false, true} {
				p, err := db.ListEvents(ctx, u, models.EventFilter{StartMin: &from, EndMax: &to, PerPage: 50,
					Recurrence: models.RecurrenceSeries, Lang: "en", Bare: bare})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Items) != 1 || p.Items[0].ID != occ.Items[2].ID || p.Total != 1 {
					t.Errorf("editor %v, bare %v: rows %v, total %d; want the occurrence of 15 March (%d) alone, total 1",
						u != nil, bare, eventIDs(p.Items), p.Total, occ.Items[2].ID)
				}
			}
		}
		// A draft among the occurrences: a reader who sees drafts still
		// gets one row for the series in a window that holds both.
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(occ.Items[2].ID), models.EventInput{
			PostInput: models.PostInput{Status: ptr(models.StatusDraft)}, Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		month := time.Date(2027, 3, 31, 23, 59, 59, 0, time.UTC)
		start := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
		for _, bare := range []bool{false, true} {
			for _, f := range []models.EventFilter{
				{StartMin: &start, EndMax: &month},
				{StartMin: &start, EndMax: &month, Statuses: []string{models.StatusDraft, models.StatusPublish}},
			} {
				f.PerPage, f.Recurrence, f.Lang, f.Bare = 50, models.RecurrenceSeries, "en", bare
				p, err := db.ListEvents(ctx, editor, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Items) != 1 || p.Items[0].ID != e.ID || p.Total != 1 {
					t.Errorf("March, statuses %v, bare %v: rows %v, total %d; want the series' first event (%d) alone, total 1",
						f.Statuses, bare, eventIDs(p.Items), p.Total, e.ID)
				}
			}
		}
	})
}
