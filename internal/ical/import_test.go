package ical_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/ical"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

const file = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
	"BEGIN:VEVENT\r\nUID:a@elsewhere\r\nSUMMARY:Talk\\, with questions\r\nDTSTART;TZID=Europe/Paris:20270310T190000\r\n" +
	"DTEND;TZID=Europe/Paris:20270310T203000\r\nLOCATION:Salle Pleyel\r\nGEO:48.8771;2.2996\r\nCATEGORIES:Talks,Science\r\n" +
	"ORGANIZER;CN=\"Club, Paris\":mailto:club@example.test\r\nDESCRIPTION:One\\n\\nTwo\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:b@elsewhere\r\nSUMMARY:Moved\r\nRECURRENCE-ID:20270318T080000Z\r\nDTSTART:20270318T100000Z\r\nDTEND:20270318T110000Z\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:b@elsewhere\r\nSUMMARY:Weekly\r\nDTSTART:20270311T080000Z\r\nDTEND:20270311T090000Z\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\n" +
	"EXDATE:20270325T080000Z\r\nLOCATION:Salle Pleyel\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:c@elsewhere\r\nSUMMARY:Fair\r\nDTSTART;VALUE=DATE:20270401\r\nDTEND;VALUE=DATE:20270403\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nSUMMARY:No uid\r\nDTSTART:20270311T080000Z\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:d@elsewhere\r\nSUMMARY:Off\r\nSTATUS:CANCELLED\r\nDTSTART:20270311T080000Z\r\nEND:VEVENT\r\n" +
	"END:VCALENDAR\r\n"

// TestImportCreatesThenUpdatesAndRollsBack on both dialects: a file's
// events, venues, organizers and categories are created once; a second
// import updates them; a caller who may not write changes nothing.
func TestImportCreatesThenUpdatesAndRollsBack(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "correct horse battery", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		sub, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "sub", Password: "correct horse battery", Role: models.RoleSubscriber})
		if err != nil {
			t.Fatal(err)
		}
		items, err := ical.Read(strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ical.Import(ctx, db, sub, items, "en"); !errors.Is(err, models.ErrForbidden) {
			t.Fatalf("subscriber's import: %v, want forbidden", err)
		}
		if p, _ := db.ListEvents(ctx, admin, models.EventFilter{PerPage: 10, Lang: "en"}); p.Total != 0 {
			t.Fatalf("a refused import wrote %d events", p.Total)
		}
		rep, err := ical.Import(ctx, db, admin, items, "en")
		// Three events, one a series (created first, whatever the order
		// in the file) with an exception (an update of its occurrence).
		if err != nil || rep.Created != 3 || rep.Updated != 1 || len(rep.Skipped) != 2 {
			t.Fatalf("import: %+v, %v", rep, err)
		}
		rep, err = ical.Import(ctx, db, admin, items, "en")
		if err != nil || rep.Created != 0 || rep.Updated != 4 {
			t.Fatalf("second import: %+v, %v", rep, err)
		}
		p, err := db.ListEvents(ctx, admin, models.EventFilter{PerPage: 10, Lang: "en", Recurrence: models.RecurrenceFirst})
		if err != nil || p.Total != 3 {
			t.Fatalf("events: %v, %v", p, err)
		}
		weekly := p.Items[1]
		occ, err := db.ListEvents(ctx, admin, models.EventFilter{PerPage: 10, Lang: "en", ParentID: &weekly.ID})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range occ.Items {
			got = append(got, o.StartAt.UTC().Format("01-02 15:04 ")+o.Title)
		}
		// COUNT=4 from 03-11, 03-25 excluded, 03-18 moved to 10:00.
		if strings.Join(got, "|") != "03-11 08:00 Weekly|03-18 10:00 Moved|04-01 08:00 Weekly" {
			t.Errorf("series: %v", got)
		}
		talk := p.Items[0]
		if talk.Title != "Talk, with questions" || talk.Timezone != "Europe/Paris" || talk.StartAt.UTC().Format("15:04") != "18:00" ||
			talk.Description != "<p>One</p><p>Two</p>" || len(talk.Venues) != 1 || talk.Venues[0].Venue != "Salle Pleyel" ||
			talk.Venues[0].GeoLat == nil || len(talk.Organizers) != 1 || talk.Organizers[0].Organizer != "Club, Paris" ||
			talk.Organizers[0].Email != "club@example.test" || len(talk.Categories) != 2 {
			t.Errorf("talk: %+v", talk)
		}
		if p.Items[1].Venues[0].ID != talk.Venues[0].ID {
			t.Error("the second event at the same LOCATION made a second venue")
		}
		fair := p.Items[2]
		if !fair.AllDay || fair.StartAt.Format("2006-01-02") != "2027-04-01" {
			t.Errorf("all-day fair: %v %s", fair.AllDay, fair.StartAt)
		}
		if _, err := ical.Read(strings.NewReader("BEGIN:VCARD\r\nEND:VCARD\r\n")); !errors.Is(err, ical.ErrNotCalendar) {
			t.Errorf("a vCard: %v", err)
		}
	})
}
