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

func ptr[T any](v T) *T { return &v }

func newUser(t *testing.T, db *models.DB, login string, role models.Role) *models.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: login, Password: "correct horse battery", Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func baseInput(title, start, end string) models.EventInput {
	return models.EventInput{Title: ptr(title), StartDate: ptr(start), EndDate: ptr(end), Lang: "en"}
}

func TestEventCreateComputesZonesSlugsAndStatus(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		contrib := newUser(t, db, "contrib", models.RoleContributor)

		in := baseInput("Tech Conference 2027", "2027-03-10 09:00:00", "2027-03-12 17:00:00")
		in.Timezone = ptr("America/New_York")
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		if e.Slug != "tech-conference-2027" || e.Status != models.StatusPublish {
			t.Errorf("slug %q status %q", e.Slug, e.Status)
		}
		if got := e.StartAt.Format(time.DateTime); got != "2027-03-10 14:00:00" {
			t.Errorf("utc start %s", got)
		}
		loc, _ := models.LoadZone(e.Timezone, time.UTC)
		if abbr := models.ZoneAbbr(e.Timezone, loc, e.StartAt); abbr != "EST" {
			t.Errorf("abbr %s", abbr)
		}
		e2, err := db.CreateEvent(ctx, contrib, func() models.EventInput {
			in := baseInput("Tech Conference 2027", "2027-03-10 09:00", "2027-03-10 10:00")
			in.Status = ptr("publish")
			return in
		}())
		if err != nil {
			t.Fatal(err)
		}
		if e2.Slug == e.Slug || !strings.HasPrefix(e2.Slug, "tech-conference-2027") {
			t.Errorf("second slug %q", e2.Slug)
		}
		if e2.Status != models.StatusPending {
			t.Errorf("contributor publish became %q, want pending", e2.Status)
		}
		if e2.Timezone != "UTC" {
			t.Errorf("default zone %q", e2.Timezone)
		}

		allDay := baseInput("Fair", "2027-04-01", "2027-04-01")
		allDay.AllDay = ptr(true)
		allDay.Timezone = ptr("UTC+9")
		e3, err := db.CreateEvent(ctx, admin, allDay)
		if err != nil {
			t.Fatal(err)
		}
		if e3.StartAt.Format(time.DateTime) != "2027-03-31 15:00:00" || e3.EndAt.Format(time.DateTime) != "2027-04-01 14:59:59" {
			t.Errorf("all day utc %s .. %s", e3.StartAt, e3.EndAt)
		}

		bad := baseInput("Backwards", "2027-04-02", "2027-04-01")
		_, err = db.CreateEvent(ctx, admin, bad)
		var ve *models.ValidationError
		if !errors.As(err, &ve) || ve.Field("end_date") == nil {
			t.Errorf("backwards dates: %v", err)
		}
	})
}

func TestEventUpdateIsPartialAndTranslates(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		in := baseInput("Concert", "2027-05-05 20:00", "2027-05-05 23:00")
		in.Timezone = ptr("Asia/Tokyo")
		in.Featured = ptr(true)
		in.Status = ptr("draft")
		in.Cost = ptr(models.EncodeCost("20$"))
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		up := models.EventInput{Title: ptr("コンサート"), Lang: "ja", Timezone: ptr("Europe/Paris")}
		got, err := db.UpdateEvent(ctx, admin, models.ByID(e.ID), up)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != "コンサート" || got.Status != "draft" || !got.Featured || got.Cost != e.Cost || got.CurrencySymbol != "$" {
			t.Errorf("after partial update: %+v", got)
		}
		if l := got.StartAt.In(mustZone(t, "Europe/Paris")).Format("15:04"); l != "20:00" {
			t.Errorf("zone change should keep local 20:00, got %s", l)
		}
		en, err := db.GetEvent(ctx, admin, models.ByID(e.ID), "en")
		if err != nil {
			t.Fatal(err)
		}
		if en.Title != "Concert" || len(en.Translations) != 1 || en.Translations[0] != "ja" {
			t.Errorf("source language read: %q %v", en.Title, en.Translations)
		}
		tr, err := db.TrashEvent(ctx, admin, models.ByID(e.ID), "en")
		if err != nil || tr.Status != models.StatusTrash || tr.Slug != e.Slug {
			t.Fatalf("trash: %v %+v", err, tr)
		}
		if _, err := db.DeleteEvent(ctx, admin, models.ByID(e.ID), "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.GetEvent(ctx, admin, models.ByID(e.ID), "en"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("deleted event: %v", err)
		}
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestWholeEventsCostFixedQueries: ListEvents and GetEvent return whole
// events (venue, organizers, categories, tags, translations) in a number
// of queries that does not grow with the page size or the links.
func TestWholeEventsCostFixedQueries(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		// One link of each kind; the events below have more of each.
		small := baseInput("Small", "2028-12-01 10:00", "2028-12-01 11:00")
		small.Venues = &[]models.VenueRef{{New: &models.VenueInput{Venue: ptr("Annex")}}}
		small.Organizers = &[]models.OrganizerRef{{New: &models.OrganizerInput{Organizer: ptr("Solo")}}}
		small.Categories = &[]models.TermRef{{Name: "Talk"}}
		small.Tags = &[]models.TermRef{{Name: "one"}}
		bare, err := db.CreateEvent(ctx, admin, small)
		if err != nil {
			t.Fatal(err)
		}
		var linked *models.Event
		for i := 0; i < 60; i++ {
			in := baseInput(fmt.Sprintf("Event %d", i), "2027-01-01 10:00", "2027-01-01 11:00")
			in.Venues = &[]models.VenueRef{{New: &models.VenueInput{Venue: ptr(fmt.Sprintf("Hall %d", i%7)), City: ptr("Osaka")}}}
			in.Organizers = &[]models.OrganizerRef{
				{New: &models.OrganizerInput{Organizer: ptr(fmt.Sprintf("Org %d", i%5))}},
				{New: &models.OrganizerInput{Organizer: ptr(fmt.Sprintf("Crew %d", i%3))}},
			}
			in.Categories = &[]models.TermRef{{Name: "Music"}, {Name: fmt.Sprintf("Genre %d", i%4)}}
			in.Tags = &[]models.TermRef{{Name: "live"}, {Name: "free"}, {Name: fmt.Sprintf("t%d", i%6)}}
			e, err := db.CreateEvent(ctx, admin, in)
			if err != nil {
				t.Fatal(err)
			}
			ja := models.EventInput{Title: ptr(fmt.Sprintf("イベント %d", i)), Lang: "ja"}
			if _, err := db.UpdateEvent(ctx, admin, models.ByID(e.ID), ja); err != nil {
				t.Fatal(err)
			}
			linked = e
		}
		log := &queryLog{}
		db.AddQueryHook(log)
		list := func(perPage int) int {
			log.reset()
			p, err := db.ListEvents(ctx, nil, models.EventFilter{Page: 1, PerPage: perPage, Lang: "ja"})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) != perPage || p.Total != 61 {
				t.Fatalf("page of %d: %d events, total %d", perPage, len(p.Items), p.Total)
			}
			last := p.Items[len(p.Items)-1]
			if len(last.Venues) != 1 || len(last.Organizers) != 2 || len(last.Categories) != 2 || len(last.Tags) != 3 ||
				!strings.HasPrefix(last.Title, "イベント") || last.Venues[0].City != "Osaka" {
				t.Fatalf("event not whole: %q venues %d organizers %d categories %d tags %d",
					last.Title, len(last.Venues), len(last.Organizers), len(last.Categories), len(last.Tags))
			}
			return len(log.reset())
		}
		if one, fifty := list(1), list(50); one != fifty {
			t.Errorf("ListEvents: %d queries for per_page 1, %d for 50", one, fifty)
		}
		get := func(id int64) int {
			log.reset()
			if _, err := db.GetEvent(ctx, nil, models.ByID(id), "ja"); err != nil {
				t.Fatal(err)
			}
			return len(log.reset())
		}
		if b, l := get(bare.ID), get(linked.ID); b != l {
			t.Errorf("GetEvent: %d queries for an event with one link of each kind, %d for one with more", b, l)
		}
	})
}

func TestEventListQueryUsesAnIndex(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		from := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
		to := from.AddDate(2, 0, 0)
		log := &queryLog{}
		db.AddQueryHook(log)
		if _, err := db.ListEvents(ctx, nil, models.EventFilter{Page: 1, PerPage: 120, StartMin: &from, EndMax: &to}); err != nil {
			t.Fatal(err)
		}
		queries := log.reset()
		if len(queries) == 0 {
			t.Fatal("no query recorded")
		}
		plan := explain(t, db, queries[0])
		t.Logf("plan:\n%s", plan)
		if !usesIndex(db, plan) {
			t.Errorf("list query does not use an index:\n%s", plan)
		}
	})
}

// usesIndex reads a plan: SQLite must SEARCH with an index (not SCAN the
// table), MySQL must name a key of events.
func usesIndex(db *models.DB, plan string) bool {
	if db.Dialect() == models.SQLite {
		return strings.Contains(plan, "USING INDEX events_") || strings.Contains(plan, "USING COVERING INDEX events_")
	}
	return strings.Contains(plan, "key=events_")
}

// TestEventWritesReportEveryUnknownID: an input naming an unknown author,
// venue and organizer is told about all three at once, on create and on
// update, and before the update looks the event up.
func TestEventWritesReportEveryUnknownID(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		in := baseInput("Unknowns", "2027-01-01 10:00", "2027-01-01 11:00")
		in.AuthorID = ptr(int64(1 << 40))
		in.Venues = &[]models.VenueRef{{ID: 1 << 40}}
		in.Organizers = &[]models.OrganizerRef{{ID: 1 << 40}}
		check := func(name string, err error) {
			t.Helper()
			var ve *models.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 3 ||
				ve.Fields[0].Field != "author" || ve.Fields[1].Field != "venue" || ve.Fields[2].Field != "organizer" {
				t.Errorf("%s: %v, want author, venue and organizer invalid", name, err)
			}
		}
		_, err := db.CreateEvent(ctx, admin, in)
		check("create", err)
		_, err = db.UpdateEvent(ctx, admin, models.ByID(1<<40), in)
		check("update of an unknown event", err)
	})
}

// TestPartialUpdateKeepsAnAmbiguousStart: an event starting in the first of
// the two 02:30s of a fall-back night keeps its instant through an update
// that does not send its dates (a title edit, scheduled publishing).
func TestPartialUpdateKeepsAnAmbiguousStart(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed", models.RoleEditor)
		in := baseInput("Night", "2027-10-31T02:30:00+02:00", "2027-10-31T02:45:00+02:00")
		in.Timezone = ptr("Europe/Oslo")
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		want := time.Date(2027, 10, 31, 0, 30, 0, 0, time.UTC)
		if !e.StartAt.Equal(want) {
			t.Fatalf("created with start %s, want %s", e.StartAt, want)
		}
		got, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Title: ptr("Night, renamed"), Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		if !got.StartAt.Equal(want) || !got.EndAt.Equal(e.EndAt) {
			t.Errorf("after a title edit: %s–%s, want %s–%s", got.StartAt, got.EndAt, want, e.EndAt)
		}
	})
}
