package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// unknownID names no record: ids are allocated from 1 and these databases
// hold a few dozen.
const unknownID = 987654

// asUnknownLink checks that err is exactly what an unknown id of the
// field gets: one field, rest_invalid_param, the kind's "no such id"
// message with the id as its data.
func asUnknownLink(t *testing.T, what string, err error, fields ...string) {
	t.Helper()
	var ve *models.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%s: %v, want the answer to an unknown id", what, err)
	}
	var got []string
	for _, f := range ve.Fields {
		got = append(got, fmt.Sprintf("%s %s %s %v", f.Field, f.Code, f.Reason, f.Data))
	}
	if !slices.Equal(got, fields) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, fields)
	}
}

func unknownVenue(id int64) string {
	return fmt.Sprintf("venue rest_invalid_param reason.events.unknown_venue map[ID:%d]", id)
}

func unknownOrganizer(id int64) string {
	return fmt.Sprintf("organizer rest_invalid_param reason.events.unknown_organizer map[ID:%d]", id)
}

// linkNames lists the names of an event's venues and organizers.
func linkNames(e *models.Event) string {
	var out []string
	for _, v := range e.Venues {
		out = append(out, v.Venue)
	}
	out = append(out, "|")
	for _, o := range e.Organizers {
		out = append(out, o.Organizer)
	}
	return strings.Join(out, ",")
}

// TestLinkingNeedsReadPermission: an event write links only venues and
// organizers its writer may read (an unreadable id gets the very answer
// of an unknown one, by id and by slug, in lists' filters too), and an
// event shows only the linked records its reader may read, whoever linked
// them and whenever they stopped being readable. The link stays: editors
// still see it, and it shows again once the record is published.
func TestLinkingNeedsReadPermission(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := mkUser(t, db, "editor", models.RoleEditor)
		au := mkUser(t, db, "author", models.RoleAuthor)
		co := mkUser(t, db, "contributor", models.RoleContributor)
		sub := mkUser(t, db, "subscriber", models.RoleSubscriber)
		venue := func(by *models.User, name, address, status string) *models.Venue {
			t.Helper()
			v, _, err := db.Venues().Create(ctx, by, models.VenueInput{Venue: sp(name), Address: sp(address), City: sp("大阪"),
				PostInput: models.PostInput{Status: sp(status)}}, "en")
			if err != nil {
				t.Fatalf("venue %s: %v", name, err)
			}
			return v
		}
		organizer := func(by *models.User, name, email, status string) *models.Organizer {
			t.Helper()
			o, _, err := db.Organizers().Create(ctx, by, models.OrganizerInput{Organizer: sp(name), Email: sp(email),
				PostInput: models.PostInput{Status: sp(status)}}, "en")
			if err != nil {
				t.Fatalf("organizer %s: %v", name, err)
			}
			return o
		}
		draftVenue := venue(ed, "Salle des fêtes 草稿", "秘密の住所 3-1", models.StatusDraft)
		privOrg := organizer(ed, "비공개 주최자", "hidden@example.org", models.StatusPrivate)
		pubVenue := venue(ed, "Große Halle", "Marktplatz 1", models.StatusPublish)
		pubOrg := organizer(ed, "Öffentlicher Verein", "verein@example.org", models.StatusPublish)
		ownDraft := venue(co, "Atelier de Zoé", "12 rue Zoé", models.StatusDraft)
		event := func(title string, venues, organizers []int64) models.EventInput {
			in := models.EventInput{Title: sp(title), StartDate: sp("2031-05-01 10:00"), EndDate: sp("2031-05-01 12:00"), Lang: "en"}
			vs, os := []models.VenueRef{}, []models.OrganizerRef{}
			for _, id := range venues {
				vs = append(vs, models.VenueRef{ID: id})
			}
			for _, id := range organizers {
				os = append(os, models.OrganizerRef{ID: id})
			}
			in.Venues, in.Organizers = &vs, &os
			return in
		}
		leaks := func(what string, e *models.Event) {
			t.Helper()
			for _, v := range e.Venues {
				if strings.Contains(v.Address, "秘密") {
					t.Errorf("%s shows the hidden venue's address", what)
				}
			}
			for _, o := range e.Organizers {
				if o.Email == "hidden@example.org" {
					t.Errorf("%s shows the hidden organizer's e-mail", what)
				}
			}
		}

		// Writes: a contributor names an editor's draft venue and a private
		// organizer; the answers are those of unknown ids, in the same order.
		_, err := db.CreateEvent(ctx, co, event("Fête", []int64{draftVenue.ID}, nil))
		asUnknownLink(t, "create with a draft venue", err, unknownVenue(draftVenue.ID))
		_, err = db.CreateEvent(ctx, co, event("Fête", []int64{unknownID}, nil))
		asUnknownLink(t, "create with an unknown venue", err, unknownVenue(unknownID))
		_, err = db.CreateEvent(ctx, co, event("Fête", []int64{pubVenue.ID, draftVenue.ID}, []int64{privOrg.ID}))
		asUnknownLink(t, "create with both", err, unknownVenue(draftVenue.ID), unknownOrganizer(privOrg.ID))
		_, err = db.CreateEvent(ctx, co, event("Fête", []int64{unknownID}, []int64{unknownID}))
		asUnknownLink(t, "create with both unknown", err, unknownVenue(unknownID), unknownOrganizer(unknownID))
		mine, err := db.CreateEvent(ctx, co, event("Atelier ouvert", []int64{ownDraft.ID, pubVenue.ID}, []int64{pubOrg.ID}))
		if err != nil {
			t.Fatalf("a contributor links their own draft and published records: %v", err)
		}
		if got := linkNames(mine); got != "Atelier de Zoé,Große Halle,|,Öffentlicher Verein" {
			t.Errorf("contributor's event links %q", got)
		}
		for _, ref := range []models.Ref{models.ByID(mine.ID), models.BySlug(mine.Slug)} {
			in := models.EventInput{Organizers: &[]models.OrganizerRef{{ID: privOrg.ID}}}
			_, err = db.UpdateEvent(ctx, co, ref, in)
			asUnknownLink(t, fmt.Sprintf("update %v with a private organizer", ref), err, unknownOrganizer(privOrg.ID))
			// An author may not edit it, but the ids are checked first
			// (SPEC §2): the answer is still that of an unknown id.
			in = models.EventInput{Venues: &[]models.VenueRef{{ID: draftVenue.ID}}}
			_, err = db.UpdateEvent(ctx, au, ref, in)
			asUnknownLink(t, fmt.Sprintf("author's update %v with a draft venue", ref), err, unknownVenue(draftVenue.ID))
		}
		// Subscribers may not write at all: refused before any id is read.
		if _, err := db.CreateEvent(ctx, sub, event("Nope", []int64{draftVenue.ID}, nil)); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("subscriber's create: %v, want forbidden", err)
		}
		// Editors read everything, so they link everything.
		linked, err := db.CreateEvent(ctx, ed, event("Jazz im Park", []int64{draftVenue.ID, pubVenue.ID}, []int64{privOrg.ID, pubOrg.ID}))
		if err != nil {
			t.Fatalf("an editor links a draft venue and a private organizer: %v", err)
		}
		all := "Salle des fêtes 草稿,Große Halle,|,비공개 주최자,Öffentlicher Verein"
		if got := linkNames(linked); got != all {
			t.Errorf("editor's event links %q", got)
		}
		// ... in an author's name, as a draft; the author publishes it.
		in := event("Konzert am See", []int64{draftVenue.ID, pubVenue.ID}, []int64{privOrg.ID, pubOrg.ID})
		in.AuthorID, in.PostInput.Status = &au.ID, sp(models.StatusDraft)
		draft, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		published, err := db.UpdateEvent(ctx, au, models.ByID(draft.ID), models.EventInput{PostInput: models.PostInput{Status: sp(models.StatusPublish)}})
		if err != nil {
			t.Fatalf("the author publishes: %v", err)
		}
		public := "Große Halle,|,Öffentlicher Verein"
		if got := linkNames(published); got != public {
			t.Errorf("the author's answer shows %q, want %q", got, public)
		}
		leaks("the author's answer", published)
		// Duplicating copies what the duplicator sees, so it is no way round.
		dup, err := db.DuplicateEvent(ctx, co, models.ByID(draft.ID))
		if err != nil {
			t.Fatalf("a contributor duplicates a published event: %v", err)
		}
		if got := linkNames(dup); got != public {
			t.Errorf("the contributor's copy links %q", got)
		}
		if got, _ := db.GetEvent(ctx, ed, models.ByID(dup.ID), ""); got != nil && linkNames(got) != public {
			t.Errorf("the copy, read by an editor, links %q", linkNames(got))
		}
		for _, r := range []struct {
			name string
			u    *models.User
			want string
		}{{"anonymous", nil, public}, {"subscriber", sub, public}, {"contributor", co, public}, {"author", au, public}, {"editor", ed, all}} {
			e, err := db.GetEvent(ctx, r.u, models.ByID(draft.ID), "ja")
			if err != nil {
				t.Fatalf("%s reads the event: %v", r.name, err)
			}
			if got := linkNames(e); got != r.want {
				t.Errorf("%s reads %q, want %q", r.name, got, r.want)
			}
			p, err := db.ListEvents(ctx, r.u, models.EventFilter{Include: []int64{draft.ID}, PerPage: 10})
			if err != nil || len(p.Items) != 1 {
				t.Fatalf("%s lists the event: %v", r.name, err)
			}
			if got := linkNames(p.Items[0]); got != r.want {
				t.Errorf("%s lists %q, want %q", r.name, got, r.want)
			}
			if r.want == public {
				leaks(r.name+"'s read", e)
				leaks(r.name+"'s list", p.Items[0])
			}
		}
		// A partial update that does not name the links keeps them.
		if _, err := db.UpdateEvent(ctx, au, models.ByID(draft.ID), models.EventInput{Title: sp("Konzert am See 2031")}); err != nil {
			t.Fatal(err)
		}
		if e, _ := db.GetEvent(ctx, ed, models.ByID(draft.ID), ""); e == nil || linkNames(e) != all {
			t.Errorf("after the author's partial update the editor reads %v", e)
		}

		// List filters: an unreadable id is an unknown one.
		for _, r := range []struct {
			name string
			u    *models.User
		}{{"anonymous", nil}, {"subscriber", sub}, {"contributor", co}, {"author", au}} {
			_, err := db.ListEvents(ctx, r.u, models.EventFilter{VenueIDs: []int64{draftVenue.ID}})
			asUnknownLink(t, r.name+" filters by a draft venue", err, unknownVenue(draftVenue.ID))
			_, err = db.ListEvents(ctx, r.u, models.EventFilter{VenueIDs: []int64{unknownID}})
			asUnknownLink(t, r.name+" filters by an unknown venue", err, unknownVenue(unknownID))
			_, err = db.ListEvents(ctx, r.u, models.EventFilter{OrganizerIDs: []int64{pubOrg.ID, privOrg.ID}})
			asUnknownLink(t, r.name+" filters by a private organizer", err, unknownOrganizer(privOrg.ID))
		}
		if p, err := db.ListEvents(ctx, ed, models.EventFilter{VenueIDs: []int64{draftVenue.ID}, OrganizerIDs: []int64{privOrg.ID}}); err != nil || p.Total != 2 {
			t.Errorf("the editor filters by the draft venue and the private organizer: %v", err)
		}
		if p, err := db.ListEvents(ctx, co, models.EventFilter{VenueIDs: []int64{ownDraft.ID}}); err != nil || p.Total != 1 {
			t.Errorf("the contributor filters by their own draft venue: %v", err)
		}

		// Records that stop being readable after they were linked.
		later := venue(au, "Théâtre Ōsaka", "秘密の住所 9", models.StatusPublish)
		laterOrg := organizer(au, "Ensemble Ünïcode", "hidden@example.org", models.StatusPublish)
		goner := venue(au, "Kiosk am Fluss", "Uferweg 2", models.StatusPublish)
		in = event("Sommerfest", []int64{later.ID, goner.ID}, []int64{laterOrg.ID})
		in.Status = sp(models.StatusPublish)
		fest, err := db.CreateEvent(ctx, au, in)
		if err != nil {
			t.Fatal(err)
		}
		reads := func(what string, u *models.User, want string) {
			t.Helper()
			e, err := db.GetEvent(ctx, u, models.ByID(fest.ID), "")
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got := linkNames(e); got != want {
				t.Errorf("%s: %q, want %q", what, got, want)
			}
			if want == "|" || !strings.Contains(want, "Théâtre") {
				leaks(what, e)
			}
		}
		reads("all published", nil, "Théâtre Ōsaka,Kiosk am Fluss,|,Ensemble Ünïcode")
		if _, err := db.Venues().Trash(ctx, au, models.ByID(goner.ID), ""); err != nil {
			t.Fatal(err)
		}
		for _, st := range []string{models.StatusDraft, models.StatusPrivate, models.StatusPending} {
			if _, err := db.Venues().Update(ctx, au, models.ByID(later.ID), models.VenueInput{PostInput: models.PostInput{Status: sp(st)}}, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Organizers().Update(ctx, au, models.ByID(laterOrg.ID), models.OrganizerInput{PostInput: models.PostInput{Status: sp(st)}}, ""); err != nil {
				t.Fatal(err)
			}
			reads("anonymous, "+st, nil, "|")
			reads("contributor, "+st, co, "|")
			reads("owner, "+st, au, "Théâtre Ōsaka,|,Ensemble Ünïcode")
			reads("editor, "+st, ed, "Théâtre Ōsaka,|,Ensemble Ünïcode")
		}
		if _, err := db.Venues().Update(ctx, au, models.ByID(later.ID), models.VenueInput{PostInput: models.PostInput{Status: sp(models.StatusPublish)}}, ""); err != nil {
			t.Fatal(err)
		}
		reads("anonymous, the venue published again", nil, "Théâtre Ōsaka,|")
		// A trashed venue left its events (as in TEC); an editor may still
		// link it by id (they read it), and then nobody else sees it.
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(fest.ID), models.EventInput{Venues: &[]models.VenueRef{{ID: later.ID}, {ID: goner.ID}}}); err != nil {
			t.Fatalf("an editor links a trashed venue: %v", err)
		}
		reads("anonymous, a trashed venue", nil, "Théâtre Ōsaka,|")
		reads("author, a trashed venue of theirs", au, "Théâtre Ōsaka,Kiosk am Fluss,|,Ensemble Ünïcode")
		reads("editor, a trashed venue", ed, "Théâtre Ōsaka,Kiosk am Fluss,|,Ensemble Ünïcode")
		_, err = db.UpdateEvent(ctx, co, models.ByID(mine.ID), models.EventInput{Venues: &[]models.VenueRef{{ID: goner.ID}}})
		asUnknownLink(t, "a contributor links a trashed venue", err, unknownVenue(goner.ID))
	})
}
