package models

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FieldError says that one input field breaks a rule the store checks
// (dates in the wrong order, an unknown link). The API answers 400
// rest_invalid_param naming Field, with the localized Reason (a message id).
type FieldError struct {
	Field  string
	Reason string
	Data   map[string]any
	Err    error // the underlying cause, if any
}

func (e *FieldError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("models: invalid %s (%s): %v", e.Field, e.Reason, e.Err)
	}
	return fmt.Sprintf("models: invalid %s (%s)", e.Field, e.Reason)
}

func (e *FieldError) Unwrap() error { return e.Err }

// VenueRef names a venue to link: an existing one by ID, or New to create
// (TEC's duplicate detection may reuse an existing venue).
type VenueRef struct {
	ID  int64
	New *VenueInput
}

// OrganizerRef names an organizer to link: by ID, or New to create.
type OrganizerRef struct {
	ID  int64
	New *OrganizerInput
}

// EventInput holds the fields of an event create or update. A nil pointer
// means "not sent": on update the stored value is kept (a true partial
// update, SPEC §9); on create the default applies.
type EventInput struct {
	AuthorID    *int64
	Date        *string // publication date, wall clock in the event zone
	DateUTC     *string // publication date in UTC (wins over Date)
	Title       *string
	Description *string
	Excerpt     *string
	Slug        *string
	Status      *string // as asked; scaled back with EffectiveStatus
	Timezone    *string // IANA id, "UTC+N" offset or "" (site zone)
	AllDay      *bool
	StartDate   *string // as sent, parsed with ParseDate in the event zone
	EndDate     *string
	ImageURL    *string
	Cost        *string // stored JSON text of what was sent ("" for none), see EncodeCost
	Website     *string

	ShowMap, ShowMapLink, HideFromListings, Sticky, Featured *bool

	Categories *[]TermRef // nil: keep; empty: clear
	Tags       *[]TermRef
	Venues     *[]VenueRef
	Organizers *[]OrganizerRef
	// CreateCategories/CreateTags allow unknown category/tag names to be
	// created (the caller may manage that taxonomy); else they are 400.
	CreateCategories, CreateTags bool

	Lang string         // request language: source language on create, translation language otherwise
	Site *time.Location // site time zone
	Now  time.Time      // request clock
}

// utcOffsetZone matches TEC's "UTC+N" / "UTC-N:30" manual offsets.
var utcOffsetZone = regexp.MustCompile(`^UTC([+-])(\d{1,2})(?:([.:])(\d{1,2}))?$`)

// LoadZone resolves an event time zone: "" is the site zone, "UTC±N[:MM]"
// a fixed offset named as given, anything else an IANA id.
func LoadZone(name string, site *time.Location) (*time.Location, error) {
	if site == nil {
		site = time.UTC
	}
	switch {
	case name == "":
		return site, nil
	case name == "UTC" || name == "UTC+0" || name == "UTC-0":
		if name == "UTC" {
			return time.UTC, nil
		}
		return time.FixedZone(name, 0), nil
	}
	if m := utcOffsetZone.FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins := 0
		if m[4] != "" {
			n, _ := strconv.Atoi(m[4])
			if m[3] == "." { // TEC's fractional hours: UTC+5.5, UTC+5.75
				f, _ := strconv.ParseFloat("0."+m[4], 64)
				n = int(f*60 + 0.5)
			}
			mins = n
		}
		if h > 14 || mins >= 60 {
			return nil, fmt.Errorf("models: time zone %q: %w", name, ErrInvalid)
		}
		off := h*3600 + mins*60
		if m[1] == "-" {
			off = -off
		}
		return time.FixedZone(name, off), nil
	}
	if name == "Local" || len(name) > 64 || !utf8.ValidString(name) || strings.ContainsAny(name, "\\\x00") || strings.HasPrefix(name, "/") {
		return nil, fmt.Errorf("models: time zone %q: %w", name, ErrInvalid)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("models: time zone %q: %w", name, ErrInvalid)
	}
	return loc, nil
}

// ZoneName is the name an event stores for its zone: what was given, or
// the site zone's name when empty.
func ZoneName(name string, site *time.Location) string {
	if name != "" {
		return name
	}
	if site == nil {
		return "UTC"
	}
	return site.String()
}

// ZoneAbbr is TEC's timezone_abbr: the zone abbreviation at t ("EST",
// "JST"), or the offset text itself for UTC±N zones.
func ZoneAbbr(name string, loc *time.Location, t time.Time) string {
	if utcOffsetZone.MatchString(name) {
		return name
	}
	return t.In(loc).Format("MST")
}

// storable reports whether t fits the DATETIME range of both dialects.
func storable(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1000 && y <= 9999
}

// parseEventDate parses a date input of field in loc.
func parseEventDate(field, s string, now time.Time, loc *time.Location) (time.Time, error) {
	t, _, err := ParseDate(s, now, loc)
	if err != nil {
		return time.Time{}, &FieldError{Field: field, Reason: "reason.invalid_date", Err: err}
	}
	if !storable(t) {
		return time.Time{}, &FieldError{Field: field, Reason: "reason.date_out_of_range"}
	}
	return t.In(loc), nil
}

// clean makes text safe to store: valid UTF-8 (MySQL rejects invalid bytes).
func clean(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// dayBounds applies all-day rounding: start at 00:00:00 of its local day,
// end at 23:59:59 of its local day.
func dayBounds(start, end time.Time) (time.Time, time.Time) {
	y, m, d := start.Date()
	start = time.Date(y, m, d, 0, 0, 0, 0, start.Location())
	y, m, d = end.Date()
	end = time.Date(y, m, d, 23, 59, 59, 0, end.Location())
	return start, end
}

// eventSlugBase is the slug to start from: the one asked for, else one made
// from the title, else the id (titles made only of punctuation).
func eventSlugBase(asked *string, title string, id int64) string {
	base := ""
	if asked != nil {
		base = Slugify(*asked)
	}
	if base == "" {
		base = Slugify(title)
	}
	if base == "" {
		base = strconv.FormatInt(id, 10)
	}
	return base
}

// CreateEvent stores a new event by u with its links, in one transaction,
// and returns it as read in in.Lang. Title, start and end are required
// (the API checks they were sent).
func (s *Store) CreateEvent(ctx context.Context, u *User, in EventInput) (*Event, error) {
	if u == nil {
		return nil, fmt.Errorf("models: create event: %w: no user", ErrInvalid)
	}
	now := in.Now
	if now.IsZero() {
		now = Now()
	}
	now = Sec(now)
	e := &Event{AuthorID: u.ID, Lang: in.Lang, CreatedAt: now, UpdatedAt: now, PublishedAt: now}
	if in.AuthorID != nil {
		e.AuthorID = *in.AuthorID
	}
	if in.Title != nil {
		e.Title = clean(*in.Title)
	}
	if in.Description != nil {
		e.Description = clean(*in.Description)
	}
	if in.Excerpt != nil {
		e.Excerpt = clean(*in.Excerpt)
	}
	asked := ""
	if in.Status != nil {
		asked = *in.Status
	}
	e.Status = EffectiveStatus(u, KindEvent, asked)
	if err := applyEventFields(e, in, nil, now); err != nil {
		return nil, err
	}
	var id int64
	err := s.RunInTx(ctx, func(tx *Store) error {
		var err error
		if id, err = tx.NewPostID(ctx, KindEvent); err != nil {
			return err
		}
		e.ID = id
		_, err = tx.InsertWithUniqueSlug(ctx, KindEvent, eventSlugBase(in.Slug, e.Title, id), 0, func(slug string) error {
			e.Slug = slug
			_, err := tx.db.NewInsert().Model(e).Exec(ctx)
			return mapErr(err)
		})
		if err != nil {
			return fmt.Errorf("models: create event: %w", err)
		}
		return tx.writeEventLinks(ctx, u, id, in)
	})
	if err != nil {
		return nil, err
	}
	return s.GetEvent(ctx, id, in.Lang)
}

// applyEventFields sets the non-text fields of in on e. old is the stored
// event on update (nil on create): its local wall-clock times are kept when
// only the zone changes.
func applyEventFields(e *Event, in EventInput, old *Event, now time.Time) error {
	site := in.Site
	if site == nil {
		site = time.UTC
	}
	zoneName := e.Timezone
	if in.Timezone != nil || old == nil {
		z := ""
		if in.Timezone != nil {
			z = strings.TrimSpace(*in.Timezone)
		}
		zoneName = ZoneName(z, site)
	}
	loc, err := LoadZone(zoneName, site)
	if err != nil {
		return &FieldError{Field: "timezone", Reason: "reason.invalid_timezone", Err: err}
	}
	var oldLoc *time.Location
	if old != nil {
		if oldLoc, err = LoadZone(old.Timezone, site); err != nil {
			oldLoc = site
		}
	}
	e.Timezone = zoneName

	// Start and end: parsed in the event zone; kept as local wall clock
	// when not sent (so a zone change keeps "09:00").
	keep := func(t time.Time) time.Time {
		l := t.In(oldLoc)
		return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), 0, loc)
	}
	var start, end time.Time
	if in.StartDate != nil {
		if start, err = parseEventDate("start_date", *in.StartDate, now, loc); err != nil {
			return err
		}
	} else if old != nil {
		start = keep(old.StartAt)
	}
	if in.EndDate != nil {
		if end, err = parseEventDate("end_date", *in.EndDate, now, loc); err != nil {
			return err
		}
	} else if old != nil {
		end = keep(old.EndAt)
	}
	if in.AllDay != nil {
		e.AllDay = *in.AllDay
	}
	if e.AllDay {
		start, end = dayBounds(start, end)
	}
	if start.After(end) {
		return &FieldError{Field: "end_date", Reason: "reason.end_before_start"}
	}
	if !storable(start) || !storable(end) {
		return &FieldError{Field: "start_date", Reason: "reason.date_out_of_range"}
	}
	e.StartAt, e.EndAt = Sec(start), Sec(end)

	// Publication date: date_utc wins over date (read in the event zone).
	switch {
	case in.DateUTC != nil:
		t, err := parseEventDate("date_utc", *in.DateUTC, now, time.UTC)
		if err != nil {
			return err
		}
		e.PublishedAt = Sec(t)
	case in.Date != nil:
		t, err := parseEventDate("date", *in.Date, now, loc)
		if err != nil {
			return err
		}
		e.PublishedAt = Sec(t)
	}

	if in.ImageURL != nil {
		e.ImageURL = clean(*in.ImageURL)
	}
	if in.Cost != nil {
		e.Cost = clean(*in.Cost)
		e.CurrencySymbol, e.CurrencyPosition = DetectCurrency(CostItems(e.Cost))
	}
	if in.Website != nil {
		w := clean(*in.Website)
		e.Website = &w
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setBool(&e.ShowMap, in.ShowMap)
	setBool(&e.ShowMapLink, in.ShowMapLink)
	setBool(&e.HideFromListings, in.HideFromListings)
	setBool(&e.Sticky, in.Sticky)
	setBool(&e.Featured, in.Featured)
	return nil
}

// UpdateEvent changes only the fields of in that were sent (SPEC §9). Text
// fields sent in a language other than the event's source language are
// stored as translations. Trashed events keep their slug. It returns the
// event as read in in.Lang.
func (s *Store) UpdateEvent(ctx context.Context, u *User, id int64, in EventInput) (*Event, error) {
	now := in.Now
	if now.IsZero() {
		now = Now()
	}
	now = Sec(now)
	err := s.RunInTx(ctx, func(tx *Store) error {
		old, err := tx.rawEvent(ctx, id)
		if err != nil {
			return err
		}
		e := *old
		translated := map[string]string{}
		text := func(field string, dst *string, v *string) {
			if v == nil {
				return
			}
			if in.Lang != "" && in.Lang != e.Lang {
				translated[field] = clean(*v)
				return
			}
			*dst = clean(*v)
		}
		text("title", &e.Title, in.Title)
		text("description", &e.Description, in.Description)
		text("excerpt", &e.Excerpt, in.Excerpt)
		if in.AuthorID != nil {
			e.AuthorID = *in.AuthorID
		}
		if in.Status != nil {
			e.Status = EffectiveStatus(u, KindEvent, *in.Status)
		}
		if err := applyEventFields(&e, in, old, now); err != nil {
			return err
		}
		e.UpdatedAt = now
		write := func(slug string) error {
			e.Slug = slug
			_, err := tx.db.NewUpdate().Model(&e).WherePK().ExcludeColumn("id", "created_at").Exec(ctx)
			return mapErr(err)
		}
		if in.Slug != nil && Slugify(*in.Slug) != "" && Slugify(*in.Slug) != old.Slug {
			_, err = tx.InsertWithUniqueSlug(ctx, KindEvent, Slugify(*in.Slug), id, write)
		} else {
			err = write(old.Slug)
		}
		if err != nil {
			return fmt.Errorf("models: update event %d: %w", id, err)
		}
		if len(translated) > 0 {
			if err := tx.SaveTranslation(ctx, KindEvent, id, in.Lang, translated); err != nil {
				return err
			}
		}
		return tx.writeEventLinks(ctx, u, id, in)
	})
	if err != nil {
		return nil, err
	}
	return s.GetEvent(ctx, id, in.Lang)
}

// rawEvent loads the stored event without translation overlay.
func (s *Store) rawEvent(ctx context.Context, id int64) (*Event, error) {
	e := new(Event)
	if err := s.db.NewSelect().Model(e).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: get event %d: %w", id, mapErr(err))
	}
	return e, nil
}

// GetEvent returns event id with its text fields in lang (falling back
// field by field to the source text) and its translation languages.
func (s *Store) GetEvent(ctx context.Context, id int64, lang string) (*Event, error) {
	e, err := s.rawEvent(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.overlayEvents(ctx, []*Event{e}, lang); err != nil {
		return nil, err
	}
	return e, nil
}

// GetEventBySlug returns the event with slug (trashed ones too), as GetEvent.
func (s *Store) GetEventBySlug(ctx context.Context, slug, lang string) (*Event, error) {
	if slug == "" || !utf8.ValidString(slug) || len(slug) > 1024 {
		return nil, fmt.Errorf("models: get event by slug: %w", ErrNotFound)
	}
	var id int64
	err := s.db.NewSelect().TableExpr("events").Column("id").Where("slug = ?", slug).Scan(ctx, &id)
	if err != nil {
		return nil, fmt.Errorf("models: get event by slug %q: %w", slug, mapErr(err))
	}
	return s.GetEvent(ctx, id, lang)
}

// overlayEvents lays the lang translations over es and sets their
// translation languages (one query whatever the number of events).
func (s *Store) overlayEvents(ctx context.Context, es []*Event, lang string) error {
	return overlayTranslations(ctx, s, KindEvent, es, lang)
}

// TrashEvent moves event id to the trash (it keeps its slug) and returns it.
func (s *Store) TrashEvent(ctx context.Context, id int64, lang string) (*Event, error) {
	_, err := s.db.NewUpdate().TableExpr("events").Set("status = ?", StatusTrash).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: trash event %d: %w", id, mapErr(err))
	}
	return s.GetEvent(ctx, id, lang)
}

// DeleteEvent deletes event id for good with its links and translations.
// Its id stays allocated (ids are never reused).
func (s *Store) DeleteEvent(ctx context.Context, id int64) error {
	return s.RunInTx(ctx, func(tx *Store) error {
		for _, t := range []string{"event_venues", "event_organizers", "event_terms", "event_translations"} {
			if _, err := tx.db.NewDelete().TableExpr(t).Where("event_id = ?", id).Exec(ctx); err != nil {
				return fmt.Errorf("models: delete event %d: %w", id, mapErr(err))
			}
		}
		res, err := tx.db.NewDelete().TableExpr("events").Where("id = ?", id).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: delete event %d: %w", id, mapErr(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("models: delete event %d: %w", id, ErrNotFound)
		}
		return nil
	})
}
