package models

import (
	"context"
	"time"
)

// EventInputOf is the input that writes e as it is (in its source language
// and zone): every field, the links by id. The admin's form and
// DuplicateEvent start from it.
func EventInputOf(e *Event, site *time.Location) EventInput {
	loc, err := LoadZone(e.Timezone, site)
	if err != nil {
		loc = site
	}
	str := func(s string) *string { return &s }
	b := func(v bool) *bool { return &v }
	in := EventInput{
		Title: str(e.Title), Description: str(e.Description), Excerpt: str(e.Excerpt),
		Timezone: str(e.Timezone), AllDay: b(e.AllDay),
		StartDate: str(e.StartAt.In(loc).Format(time.DateTime)), EndDate: str(e.EndAt.In(loc).Format(time.DateTime)),
		ImageURL: str(e.ImageURL), Cost: str(e.Cost),
		ShowMap: b(e.ShowMap), ShowMapLink: b(e.ShowMapLink), HideFromListings: b(e.HideFromListings),
		Sticky: b(e.Sticky), Featured: b(e.Featured), Lang: e.Lang,
	}
	if e.Website != nil {
		in.Website = str(*e.Website)
	}
	cats, tags := make([]TermRef, len(e.Categories)), make([]TermRef, len(e.Tags))
	for i, t := range e.Categories {
		cats[i] = TermRef{ID: t.ID}
	}
	for i, t := range e.Tags {
		tags[i] = TermRef{ID: t.ID}
	}
	vs, os := make([]VenueRef, len(e.Venues)), make([]OrganizerRef, len(e.Organizers))
	for i, v := range e.Venues {
		vs[i] = VenueRef{ID: v.ID}
	}
	for i, o := range e.Organizers {
		os[i] = OrganizerRef{ID: o.ID}
	}
	in.Categories, in.Tags, in.Venues, in.Organizers = &cats, &tags, &vs, &os
	if e.IsSeries() && e.SeriesRule != nil && !e.SeriesRule.Empty() {
		rule := e.SeriesRule.String() // a series writes as a series; an occurrence as the single event it is
		in.Recurrence = &rule
	}
	return in
}

// DuplicateEvent creates a draft copy of the event named by ref, written by
// u: the same fields and links in the source language (translations are
// not copied; the copy gets a slug of its own), and a series' rule (the
// copy of a series is a new series; of an occurrence, a single event). u must be able to read the
// event and to create events; the copy is a draft whatever u may publish.
func (s *Store) DuplicateEvent(ctx context.Context, u *User, ref Ref) (*Event, error) {
	e, err := s.GetEvent(ctx, u, ref, "")
	if err != nil {
		return nil, err
	}
	in := EventInputOf(e, s.site.Zone())
	draft := StatusDraft
	in.Status = &draft
	return s.CreateEvent(ctx, u, in)
}
