package csvimport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
)

// page is how many venues or organizers one read of the names takes.
const page = 500

// Statuses are the records an import matches against: every status but
// the trash (as the export writes them).
var Statuses = []string{models.StatusPublish, models.StatusFuture, models.StatusDraft, models.StatusPending, models.StatusPrivate}

// Writer writes the rows read as user u, in content language lang (the
// site's zone for rows without their own), finding or creating venues and
// organizers by name. Categories and tags named in a row are found by name
// or slug, and created only when u may (models decides).
type Writer struct {
	db     *models.DB
	u      *models.User
	lang   string
	site   *time.Location
	venues map[string]int64 // by NameKey
	orgs   map[string]int64
}

// NewWriter returns a Writer of rows as u.
func NewWriter(db *models.DB, u *models.User, lang string, site *time.Location) *Writer {
	return &Writer{db: db, u: u, lang: lang, site: site}
}

// Outcomes of one row.
const (
	Created   = "created"
	Updated   = "updated"
	Unchanged = "unchanged"
)

// Count adds the outcome of one row to the report: its outcome, or its
// problem.
func (r *Report) Count(outcome string, p *Problem) {
	switch {
	case p != nil:
		r.Add(*p)
	case outcome == Created:
		r.Created++
	case outcome == Updated:
		r.Updated++
	case outcome == Unchanged:
		r.Unchanged++
	}
}

// Write creates, updates or leaves the record of one row; a refusal of
// the store is the row's problem.
func (w *Writer) Write(ctx context.Context, r *Row, kind string) (string, *Problem) {
	var outcome string
	var err error
	if err = w.load(ctx); err == nil {
		if kind == eventcsv.KindEvents {
			outcome, err = w.writeEvent(ctx, r)
		} else {
			outcome, err = w.writeLinked(ctx, r, kind)
		}
	}
	if err == nil {
		return outcome, nil
	}
	if ctx.Err() != nil {
		return "", &Problem{Row: r.Line, Column: "-", ID: ProblemFailed, Data: map[string]string{"Detail": ctx.Err().Error()}}
	}
	return "", w.problem(r, err)
}

// problem is a refusal of the store as a row's problem: a field's reason
// (the column named when the field is one of the file's), a refusal's
// message, or the error itself.
func (w *Writer) problem(r *Row, err error) *Problem {
	var ve *models.ValidationError
	var fe *models.ForbiddenError
	switch {
	case errors.As(err, &ve) && len(ve.Fields) > 0:
		f := ve.Fields[0]
		col := r.column[f.Field]
		if col == "" && (f.Field == "venue" || f.Field == "organizer") { // the name of a venue or organizer of its own file
			col = r.column[eventcsv.FieldTitle]
		}
		return &Problem{Row: r.Line, Column: cmp.Or(col, "-"), ID: ProblemRefused,
			Data: map[string]string{"Field": f.Field}, Reason: f.Reason, ReasonData: f.Data}
	case errors.As(err, &fe):
		return &Problem{Row: r.Line, Column: "-", ID: ProblemRefused, Data: map[string]string{"Field": "-"}, Reason: fe.MessageID()}
	}
	return &Problem{Row: r.Line, Column: "-", ID: ProblemFailed, Data: map[string]string{"Detail": clip(err.Error(), 200)}}
}

// load reads the names of every venue and organizer not trashed.
func (w *Writer) load(ctx context.Context) error {
	if w.venues != nil {
		return nil
	}
	venues, orgs := map[string]int64{}, map[string]int64{}
	for p := 1; ; p++ {
		l, err := w.db.Venues().List(ctx, models.Console, models.LinkedFilter{Page: p, PerPage: page, Statuses: Statuses, Lang: w.lang})
		if err != nil {
			return err
		}
		for _, v := range l.Items {
			if _, dup := venues[models.NameKey(v.Venue)]; !dup {
				venues[models.NameKey(v.Venue)] = v.ID
			}
		}
		if len(l.Items) < page {
			break
		}
	}
	for p := 1; ; p++ {
		l, err := w.db.Organizers().List(ctx, models.Console, models.LinkedFilter{Page: p, PerPage: page, Statuses: Statuses, Lang: w.lang})
		if err != nil {
			return err
		}
		for _, o := range l.Items {
			if _, dup := orgs[models.NameKey(o.Organizer)]; !dup {
				orgs[models.NameKey(o.Organizer)] = o.ID
			}
		}
		if len(l.Items) < page {
			break
		}
	}
	w.venues, w.orgs = venues, orgs
	return nil
}

// writeEvent creates, updates or leaves the event of one row.
func (w *Writer) writeEvent(ctx context.Context, ev *Row) (string, error) {
	venueRefs := []models.VenueRef{}
	if ev.venue != "" {
		id, ok := w.venues[models.NameKey(ev.venue)]
		if !ok {
			v, _, err := w.db.Venues().Create(ctx, w.u, models.VenueInput{Venue: ptrOf(ev.venue)}, w.lang)
			if err != nil {
				return "", err
			}
			id = v.ID
			w.venues[models.NameKey(ev.venue)] = id
		}
		venueRefs = append(venueRefs, models.VenueRef{ID: id})
	}
	orgRefs := []models.OrganizerRef{}
	for _, n := range ev.organizers {
		id, ok := w.orgs[models.NameKey(n)]
		if !ok {
			o, _, err := w.db.Organizers().Create(ctx, w.u, models.OrganizerInput{Organizer: ptrOf(n)}, w.lang)
			if err != nil {
				return "", err
			}
			id = o.ID
			w.orgs[models.NameKey(n)] = id
		}
		orgRefs = append(orgRefs, models.OrganizerRef{ID: id})
	}
	ev.event.Venues, ev.event.Organizers = &venueRefs, &orgRefs
	old, err := w.find(ctx, ev)
	if err != nil {
		return "", err
	}
	if old == nil {
		if _, err := w.db.CreateEvent(ctx, w.u, ev.event); err != nil {
			return "", err
		}
		return Created, nil
	}
	if w.same(old, ev) {
		return Unchanged, nil
	}
	if _, err := w.db.UpdateEvent(ctx, w.u, models.ByID(old.ID), ev.event); err != nil {
		return "", err
	}
	return Updated, nil
}

// find is the event a row stands for: the id of a file this site
// exported, else the one with the same title, start and venue.
func (w *Writer) find(ctx context.Context, ev *Row) (*models.Event, error) {
	loc := w.site
	if ev.event.Timezone != nil && *ev.event.Timezone != "" {
		if z, err := models.LoadZone(*ev.event.Timezone, w.site); err == nil {
			loc = z
		}
	}
	start, err := time.ParseInLocation("2006-01-02 15:04", ev.start, loc)
	if err != nil {
		return nil, err
	}
	next := start.Add(time.Minute)
	p, err := w.db.ListEvents(ctx, models.Console, models.EventFilter{StartMin: &start, StartsBefore: &next, PerPage: 100,
		Lang: w.lang, Statuses: Statuses, IncludeHidden: true})
	if err != nil {
		return nil, err
	}
	for _, e := range p.Items {
		if ev.id != 0 && e.ID == ev.id {
			return e, nil
		}
	}
	for _, e := range p.Items {
		venue := ""
		if len(e.Venues) > 0 {
			venue = e.Venues[0].Venue
		}
		if models.NameKey(e.Title) == models.NameKey(ev.title) && models.NameKey(venue) == models.NameKey(ev.venue) {
			return e, nil
		}
	}
	return nil, nil
}

// same reports whether the event already holds what the row says.
func (w *Writer) same(e *models.Event, ev *Row) bool {
	loc := w.site
	if z, err := models.LoadZone(e.Timezone, w.site); err == nil {
		loc = z
	}
	in := ev.event
	eq := func(p *string, v string) bool { return p == nil || *p == v }
	eqb := func(p *bool, v bool) bool { return p == nil || *p == v }
	website := ""
	if e.Website != nil {
		website = *e.Website
	}
	var orgs, cats, tags, wantOrgs []string
	for _, o := range e.Organizers {
		orgs = append(orgs, models.NameKey(o.Organizer))
	}
	for _, c := range e.Categories {
		cats = append(cats, models.NameKey(c.Name))
	}
	for _, t := range e.Tags {
		tags = append(tags, models.NameKey(t.Name))
	}
	for _, n := range ev.organizers {
		wantOrgs = append(wantOrgs, models.NameKey(n))
	}
	keys := func(refs *[]models.TermRef) []string {
		var out []string
		if refs != nil {
			for _, r := range *refs {
				out = append(out, models.NameKey(r.Name))
			}
		}
		slices.Sort(out)
		return out
	}
	slices.Sort(cats)
	slices.Sort(tags)
	start, end := e.StartAt.In(loc).Format("2006-01-02 15:04"), e.EndAt.In(loc).Format("2006-01-02 15:04")
	if e.AllDay {
		end = e.EndAt.In(loc).Format(time.DateOnly) + " 23:59"
	}
	return e.Title == ev.title && eq(in.Description, e.Description) && eq(in.Excerpt, e.Excerpt) &&
		start == ev.start && end == ev.end && eqb(in.AllDay, e.AllDay) && (in.Timezone == nil || *in.Timezone == "" || *in.Timezone == e.Timezone) &&
		eq(in.Website, website) && eq(in.ImageURL, e.ImageURL) && eq(in.Cost, e.Cost) &&
		eq(in.CurrencySymbol, e.CurrencySymbol) && eq(in.CurrencyCode, e.CurrencyCode) && eq(in.CurrencyPosition, e.CurrencyPosition) &&
		eqb(in.Featured, e.Featured) && eqb(in.HideFromListings, e.HideFromListings) && eqb(in.ShowMap, e.ShowMap) &&
		eqb(in.ShowMapLink, e.ShowMapLink) && (!ev.hasStatus || *in.Status == e.Status) &&
		slices.Equal(orgs, wantOrgs) && (in.Categories == nil || slices.Equal(cats, keys(in.Categories))) &&
		(in.Tags == nil || slices.Equal(tags, keys(in.Tags)))
}

// writeLinked creates, updates or leaves the venue or organizer of one
// row, matched by name (NFC, case folded) with one not trashed.
func (w *Writer) writeLinked(ctx context.Context, r *Row, kind string) (string, error) {
	key := models.NameKey(r.name)
	eq := func(p *string, v string) bool { return p == nil || *p == v }
	eqb := func(p *bool, v bool) bool { return p == nil || *p == v }
	if kind == eventcsv.KindVenues {
		venue := r.venueIn
		id, found := w.venues[key]
		if !found {
			v, _, err := w.db.Venues().Create(ctx, w.u, venue, w.lang)
			if err != nil {
				return "", err
			}
			w.venues[key] = v.ID
			return Created, nil
		}
		old, err := w.db.Venues().Get(ctx, w.u, models.ByID(id), w.lang)
		if err != nil {
			return "", err
		}
		if old.Venue == r.name && eq(venue.Description, old.Description) && eq(venue.Address, old.Address) && eq(venue.City, old.City) &&
			eq(venue.Country, old.Country) && eq(venue.Province, old.Province) && eq(venue.State, old.State) && eq(venue.Zip, old.Zip) &&
			eq(venue.Phone, old.Phone) && eq(venue.Website, old.Website) && eq(venue.ImageURL, old.ImageURL) &&
			eq(venue.Status, old.Status) && eqb(venue.ShowMap, old.ShowMap) && eqb(venue.ShowMapLink, old.ShowMapLink) {
			return Unchanged, nil
		}
		if _, err := w.db.Venues().Update(ctx, w.u, models.ByID(id), venue, w.lang); err != nil {
			return "", err
		}
		return Updated, nil
	}
	if kind != eventcsv.KindOrganizers {
		return "", fmt.Errorf("csvimport: unknown kind %q", kind)
	}
	org := r.org
	id, found := w.orgs[key]
	if !found {
		o, _, err := w.db.Organizers().Create(ctx, w.u, org, w.lang)
		if err != nil {
			return "", err
		}
		w.orgs[key] = o.ID
		return Created, nil
	}
	old, err := w.db.Organizers().Get(ctx, w.u, models.ByID(id), w.lang)
	if err != nil {
		return "", err
	}
	if old.Organizer == r.name && eq(org.Description, old.Description) && eq(org.Phone, old.Phone) && eq(org.Website, old.Website) &&
		eq(org.Email, old.Email) && eq(org.ImageURL, old.ImageURL) && eq(org.Status, old.Status) {
		return Unchanged, nil
	}
	if _, err := w.db.Organizers().Update(ctx, w.u, models.ByID(id), org, w.lang); err != nil {
		return "", err
	}
	return Updated, nil
}
