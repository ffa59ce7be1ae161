package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// EventInput holds the fields of an event create or update. A nil pointer
// means "not sent": on update the stored value is kept (a true partial
// update, SPEC §9); on create the default applies.
type EventInput struct {
	PostInput   // author, publication date (wall clock of the site zone), status
	Title       *string
	Description *string
	Excerpt     *string
	Slug        *string
	Timezone    *string // IANA id, "UTC+N" offset or "" (site zone)
	AllDay      *bool
	StartDate   *string // as sent, parsed with ParseDate in the event zone
	EndDate     *string
	ImageURL    *string
	Cost        *string // stored JSON text of what was sent ("" for none), see EncodeCost
	Website     *string
	// The event's own currency (TEC's event meta): it wins over what the
	// cost text shows and over the site's; "" clears it.
	CurrencySymbol, CurrencyCode, CurrencyPosition *string

	ShowMap, ShowMapLink, HideFromListings, Sticky, Featured *bool

	// Categories and tags by id, slug or name; unknown names are created
	// when the acting user may manage that taxonomy, else refused.
	Categories *[]TermRef // nil: keep; empty: clear
	Tags       *[]TermRef
	Venues     *[]VenueRef
	Organizers *[]OrganizerRef

	Lang string // request language: source language on create, translation language otherwise

	// UID is the iCalendar UID of an imported event (import only; the API
	// does not take it).
	UID *string

	// Recurrence makes the event a series (RFC 5545 lines or a bare
	// RRULE, see ParseRecurrence); "" makes a series a single event again.
	Recurrence *string
	// Scope says what an update of an occurrence of a series changes:
	// ScopeThis (the default: that occurrence, which becomes an
	// exception), ScopeFollowing (it and the later ones: the series is
	// split) or ScopeAll (the series and every occurrence but exceptions).
	Scope string
}

// Scopes of an update of an occurrence (EventInput.Scope).
const (
	ScopeThis      = "this"
	ScopeFollowing = "following"
	ScopeAll       = "all"
)

// currencyCode is an ISO 4217 code (upper-cased before the check).
var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// check applies the rules that need no data (SPEC §2 order: these come
// before the permission checks and the checks that read the database).
func (in *EventInput) check(create bool) error {
	nfcFields(&in.Title, &in.Description, &in.Excerpt, &in.Slug, &in.Cost, &in.CurrencySymbol)
	var c fieldChecks
	checkName(&c, "title", in.Title, create)
	if create && in.StartDate == nil {
		c.add("start_date", "reason.required", nil)
	}
	if create && in.EndDate == nil {
		c.add("end_date", "reason.required", nil)
	}
	in.PostInput.check(&c)
	in.Description, in.Excerpt = sanitizeHTML(in.Description), sanitizeHTML(in.Excerpt)
	c.text("description", in.Description, MaxLongTextLen)
	c.text("excerpt", in.Excerpt, MaxLongTextLen)
	c.text("slug", in.Slug, MaxNameLen)
	c.text("currency_symbol", in.CurrencySymbol, 16)
	if in.CurrencyCode != nil {
		code := strings.ToUpper(strings.TrimSpace(*in.CurrencyCode))
		if code != "" && !currencyCode.MatchString(code) {
			c.add("currency_code", "reason.events.currency_code", nil)
		}
		in.CurrencyCode = &code
	}
	if in.CurrencyPosition != nil && *in.CurrencyPosition != "" && *in.CurrencyPosition != "prefix" && *in.CurrencyPosition != "postfix" {
		c.add("currency_position", "reason.events.currency_position", nil)
	}
	if in.Timezone != nil && *in.Timezone != "" && !ValidTimezone(*in.Timezone) {
		c.add("timezone", "reason.invalid_timezone", nil)
	}
	c.text("image", in.ImageURL, MaxNameLen)
	c.image("image", in.ImageURL, "reason.events.invalid_image")
	c.text("website", in.Website, MaxNameLen)
	c.url("website", in.Website, "reason.invalid_url")
	switch in.Scope {
	case "", ScopeThis, ScopeFollowing, ScopeAll:
	default:
		c.add("scope", "reason.events.scope", nil)
	}
	if err := c.err(); err != nil {
		return err
	}
	if in.Recurrence != nil {
		return CheckRecurrenceSyntax(*in.Recurrence)
	}
	return nil
}

// utcOffsetZone matches TEC's "UTC+N" / "UTC-N:30" manual offsets.
var utcOffsetZone = regexp.MustCompile(`^UTC([+-])(\d{1,2})(?:([.:])(\d{1,2}))?$`)

// LoadZone resolves an event time zone: "" is the site zone, "UTC±N[:MM]"
// a fixed offset named as given, anything else an IANA id.
func LoadZone(name string, site *time.Location) (*time.Location, error) {
	if site == nil {
		site = time.UTC
	}
	switch name {
	case "":
		return site, nil
	case "UTC", "UTC+0", "UTC-0":
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
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("models: time zone %q: %w", name, ErrInvalid)
	}
	zones.Store(name, loc) // only names the tz database knows: a bounded set
	return loc, nil
}

// zones caches the IANA zones LoadZone has read (time.LoadLocation parses
// the tz database file every time: a tenth of a realistic event list).
var zones sync.Map

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
		return time.Time{}, invalidBecause(field, "reason.events.invalid_date", nil, err)
	}
	if !storable(t) {
		return time.Time{}, Invalid(field, "reason.events.date_out_of_range", nil)
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

// applyEventFields sets the non-text fields of in on e. old is the stored
// event on update (nil on create): its local wall-clock times are kept when
// only the zone changes.
func applyEventFields(e *Event, in EventInput, old *Event, site *Site) error {
	now := site.Now()
	zone := site.Zone()
	zoneName := e.Timezone
	if in.Timezone != nil || old == nil {
		z := ""
		if in.Timezone != nil {
			z = strings.TrimSpace(*in.Timezone)
		}
		zoneName = ZoneName(z, zone)
	}
	loc, err := LoadZone(zoneName, zone)
	if err != nil {
		return invalidBecause("timezone", "reason.invalid_timezone", nil, err)
	}
	var oldLoc *time.Location
	if old != nil {
		if oldLoc, err = LoadZone(old.Timezone, zone); err != nil {
			oldLoc = zone
		}
	}
	e.Timezone = zoneName

	// Start and end: parsed in the event zone; kept as local wall clock
	// when not sent (so a zone change keeps "09:00").
	keep := func(t time.Time) time.Time {
		if old.Timezone == zoneName {
			// Same zone: the same instant. Its wall clock read back could
			// name the other 02:30 of a fall-back night.
			return t.In(loc)
		}
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
		// Blame the date that was sent: a new start after the stored end
		// is the start's fault, not the end's.
		if in.StartDate != nil && in.EndDate == nil {
			return Invalid("start_date", "reason.events.start_after_end", nil)
		}
		return Invalid("end_date", "reason.events.end_before_start", nil)
	}
	if !storable(start) || !storable(end) {
		return Invalid("start_date", "reason.events.date_out_of_range", nil)
	}
	e.StartAt, e.EndAt = Sec(start), Sec(end)

	// Publication date: date_utc wins over date, which is read in the site
	// zone, the zone it is shown in (saving what was read keeps it).
	var stored *time.Time
	if old != nil {
		stored = &old.PublishedAt
	}
	published, err := in.publishedAt(site.Zone(), now, stored)
	if err != nil {
		return err
	}
	if published != nil {
		e.PublishedAt = *published
	}

	if in.ImageURL != nil {
		e.ImageURL = clean(*in.ImageURL)
	}
	if in.Cost != nil {
		// The symbol and position follow the cost text unless the event
		// set its own (what is stored then differs from what the old text
		// shows).
		oldSym, oldPos := DetectCurrency(CostItems(e.Cost))
		detected := old == nil || (e.CurrencySymbol == oldSym && e.CurrencyPosition == oldPos)
		e.Cost = clean(*in.Cost)
		if detected {
			e.CurrencySymbol, e.CurrencyPosition = DetectCurrency(CostItems(e.Cost))
		}
	}
	if in.CurrencySymbol != nil {
		e.CurrencySymbol = strings.TrimSpace(clean(*in.CurrencySymbol))
	}
	if in.CurrencyPosition != nil {
		e.CurrencyPosition = *in.CurrencyPosition
	}
	if in.CurrencyCode != nil {
		e.CurrencyCode = *in.CurrencyCode
	}
	if in.Website != nil {
		w := clean(*in.Website)
		e.Website = &w
	}
	setBool(&e.ShowMap, in.ShowMap)
	setBool(&e.ShowMapLink, in.ShowMapLink)
	setBool(&e.HideFromListings, in.HideFromListings)
	setBool(&e.Sticky, in.Sticky)
	setBool(&e.Featured, in.Featured)
	if in.UID != nil && *in.UID != "" {
		e.UID = in.UID
	}
	return nil
}

// EventIDByUID returns the id of the event imported with the iCalendar UID
// uid (0 when none).
func (s *Store) EventIDByUID(ctx context.Context, uid string) (int64, error) {
	var ids []int64
	err := s.db.NewSelect().Model((*Event)(nil)).Column("id").Where("uid = ?", uid).Where("status <> ?", StatusTrash).
		OrderExpr("id").Limit(1).Scan(ctx, &ids)
	if err != nil {
		return 0, fmt.Errorf("models: event by uid: %w", mapErr(err))
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return ids[0], nil
}

// CreateEvent stores a new event by u with its links, in one transaction,
// and returns it as read in in.Lang, whole (venues, organizers, terms). In
// order: the rules that need no data (title, start and end required; text
// limits; URL and zone formats), then u's capability (contributors and up;
// only editors write in someone else's name), then the checks that read the
// database (author, linked records and terms exist). The status asked for
// is scaled back for users who may not publish.
func (s *Store) CreateEvent(ctx context.Context, u *User, in EventInput) (*Event, error) {
	if err := in.check(true); err != nil {
		return nil, err
	}
	if err := attempt(u, ActCreate, KindEvent); err != nil {
		return nil, err
	}
	if err := mayAssignAuthor(u, KindEvent, in.AuthorID); err != nil {
		return nil, err
	}
	if err := s.resolveImage(ctx, in.ImageURL); err != nil {
		return nil, err
	}
	now := s.site.Now()
	e := &Event{Post: Post{AuthorID: u.ID, Lang: in.Lang, CreatedAt: now, UpdatedAt: now, PublishedAt: now, ModifiedBy: u.ID}}
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
	if err := applyEventFields(e, in, nil, s.site); err != nil {
		return nil, err
	}
	rule, err := s.ruleOf(e, in)
	if err != nil {
		return nil, err
	}
	var id int64
	err = s.RunInTx(ctx, func(tx *Store) error {
		if err := tx.checkEventRefs(ctx, u, &in); err != nil {
			return err
		}
		var err error
		if id, err = tx.NewPostID(ctx, KindEvent); err != nil {
			return err
		}
		e.ID = id
		_, err = tx.InsertWithUniqueSlug(ctx, KindEvent, eventSlugBase(in.Slug, e.Title, id), 0, func(slug string) error {
			e.Slug = slug
			return mapErr(tx.insertRow(ctx, e))
		})
		if err != nil {
			return fmt.Errorf("models: create event: %w", err)
		}
		if err := tx.writeEventLinks(ctx, u, id, in); err != nil {
			return err
		}
		after, err := tx.eventTermCounts(ctx, id, e.Status)
		if err != nil {
			return err
		}
		if len(after.terms) > 0 {
			if err := tx.copyEventToTerms(ctx, e, in.Categories != nil); err != nil {
				return err
			}
		}
		if err := tx.adjustTermCounts(ctx, termCounts{}, after); err != nil {
			return err
		}
		if rule != nil {
			if err := tx.setRule(ctx, id, rule); err != nil {
				return err
			}
			return tx.syncSeries(ctx, id, false, tx.site.Horizon())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.readEvent(ctx, u, id, in.Lang)
}

// UpdateEvent changes only the fields of in that were sent (SPEC §9) on the
// event named by ref, if u may edit it, and returns it whole as read in
// in.Lang. Text fields sent in a language other than the event's source
// language are stored as translations. Trashed events keep their slug.
func (s *Store) UpdateEvent(ctx context.Context, u *User, ref Ref, in EventInput) (*Event, error) {
	if err := in.check(false); err != nil {
		return nil, err
	}
	// The ids the input names are checked before the event is looked up
	// (an unknown venue is reported even when the event does not exist).
	if err := attempt(u, ActEdit, KindEvent); err != nil {
		return nil, err
	}
	if err := mayAssignAuthor(u, KindEvent, in.AuthorID); err != nil {
		return nil, err
	}
	if err := s.resolveImage(ctx, in.ImageURL); err != nil {
		return nil, err
	}
	if err := s.checkEventRefs(ctx, u, &in); err != nil {
		return nil, err
	}
	if ev, done, err := s.updateScoped(ctx, u, ref, in); done {
		return ev, err
	}
	id, err := changePost(ctx, s, u, ActEdit, KindEvent, ref, lockEvent, eventPost, func(tx *Store, old *Event, _ *Post) error {
		id := old.ID
		before, err := tx.eventTermCounts(ctx, id, old.Status)
		if err != nil {
			return err
		}
		snap, err := tx.snapshotFor(ctx, KindEvent, id)
		if err != nil {
			return err
		}
		e := *old
		// An occurrence edited on its own is an exception from then on.
		e.IsException = e.IsException || old.IsOccurrence()
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
		if err := applyEventFields(&e, in, old, tx.site); err != nil {
			return err
		}
		e.UpdatedAt, e.ModifiedBy = tx.site.Now(), u.ID
		write := func(slug string) error {
			e.Slug = slug
			return mapErr(tx.updateByPK(ctx, &e, "id", "created_at"))
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
			if err := tx.saveTranslation(ctx, KindEvent, id, in.Lang, translated); err != nil {
				return err
			}
		}
		if err := tx.writeEventLinks(ctx, u, id, in); err != nil {
			return err
		}
		after, err := tx.eventTermCounts(ctx, id, e.Status)
		if err != nil {
			return err
		}
		// The links' copies change with the status, the dates, the hidden
		// flag, or new links; an edit of the text leaves them as they are.
		// An occurrence has links but counts in no term (after.terms is
		// empty): its copies were once left stale by a move of its dates,
		// and the totals of its categories went wrong.
		if (len(after.terms) > 0 || e.IsOccurrence()) && (in.Categories != nil || in.Tags != nil || old.Status != e.Status ||
			!old.StartAt.Equal(e.StartAt) || !old.EndAt.Equal(e.EndAt) || old.HideFromListings != e.HideFromListings) {
			if err := tx.copyEventToTerms(ctx, &e, in.Categories != nil); err != nil {
				return err
			}
		}
		if err := tx.adjustTermCounts(ctx, before, after); err != nil {
			return err
		}
		if err := tx.afterEventEdit(ctx, u, old, &e, in); err != nil {
			return err
		}
		return tx.keepRevision(ctx, KindEvent, id, u, snap)
	})
	if err != nil {
		return nil, err
	}
	return s.readEvent(ctx, u, id, in.Lang)
}

// lockEvent reads event id for a change, locking its row until the
// transaction ends.
func lockEvent(ctx context.Context, tx *Store, id int64) (*Event, error) {
	return tx.rawEvent(ctx, id, true)
}

func eventPost(e *Event) *Post { return &e.Post }

// rawEvent loads the stored event without translation overlay; forUpdate
// locks its row until the transaction ends (MySQL).
func (s *Store) rawEvent(ctx context.Context, id int64, forUpdate bool) (*Event, error) {
	q := s.modelQuery(fmt.Sprintf("event by id %t", forUpdate), func() string {
		q := s.db.NewSelect().Model((*Event)(nil)).Where("event.id = ?", bun.Safe("?"))
		if forUpdate {
			q = s.forUpdate(q)
		}
		return q.String()
	})
	var found []*Event
	if err := s.scan(ctx, &found, q, id); err != nil {
		return nil, fmt.Errorf("models: get event %d: %w", id, mapErr(err))
	}
	if len(found) == 0 {
		return nil, &NotFoundError{Kind: KindEvent, Ref: ByID(id)}
	}
	return found[0], nil
}

// readEvent returns event id whole for reader, read in lang: text fields
// in lang (falling back field by field to the source text), translation
// languages, the venues and organizers reader may read, categories and
// tags. It checks no permission on the event itself.
func (s *Store) readEvent(ctx context.Context, reader *User, id int64, lang string) (*Event, error) {
	e, err := s.rawEvent(ctx, id, false)
	if err != nil {
		return nil, err
	}
	if err := s.completeEvents(ctx, reader, []*Event{e}, lang); err != nil {
		return nil, err
	}
	return e, nil
}

// GetEvent returns the event named by ref, whole and read in lang, if u may
// read it: a trashed event is refused as no longer available, an
// unpublished one u may not see as not accessible.
func (s *Store) GetEvent(ctx context.Context, u *User, ref Ref, lang string) (*Event, error) {
	e, err := s.GetEventBare(ctx, u, ref)
	if err != nil {
		return nil, err
	}
	if err := s.completeEvents(ctx, u, []*Event{e}, lang); err != nil {
		return nil, err
	}
	return e, nil
}

// GetEventBare is GetEvent with the event as stored (no translation, no
// linked records): the caller completes it with CompleteEvents when it
// needs to (the API, when it has no ready part of it).
func (s *Store) GetEventBare(ctx context.Context, u *User, ref Ref) (*Event, error) {
	id := ref.ID
	if id == 0 {
		var err error
		if id, err = s.resolvePost(ctx, KindEvent, ref); err != nil {
			return nil, err
		}
	}
	// By id, the event is read at once; only when there is none does the
	// id's kind matter (a venue's id is a WrongKindError, not a 404).
	e, err := s.rawEvent(ctx, id, false)
	if errors.Is(err, ErrNotFound) && ref.ID != 0 {
		if _, rerr := s.resolvePost(ctx, KindEvent, ref); rerr != nil {
			return nil, rerr
		}
	}
	if err != nil {
		return nil, err
	}
	if e.Status == StatusTrash {
		return nil, refuse(u, KindEvent, RefusalNoLongerAvailable)
	}
	if err := authorize(u, ActRead, e.subject(KindEvent)); err != nil {
		return nil, err
	}
	return e, nil
}

// TrashEvent moves the event named by ref to the trash (it keeps its slug),
// if u may, and returns it whole as read in lang. An event already in the
// trash is refused (RefusalInTrash): delete it for good instead.
func (s *Store) TrashEvent(ctx context.Context, u *User, ref Ref, lang string) (*Event, error) {
	id, err := changePost(ctx, s, u, ActTrash, KindEvent, ref, lockEvent, eventPost, func(tx *Store, old *Event, p *Post) error {
		return moveToTrash(u, KindEvent, p, func() error {
			// A trashed occurrence leaves its series (an EXDATE); a
			// trashed series takes its occurrences along.
			if old.IsOccurrence() {
				if err := tx.excludeOccurrence(ctx, old, false); err != nil {
					return err
				}
			} else if old.IsSeries() {
				if err := tx.trashSeriesRows(ctx, u, old.ID); err != nil {
					return err
				}
			}
			before, err := tx.eventTermCounts(ctx, p.ID, p.Status)
			if err != nil {
				return err
			}
			_, err = tx.db.NewUpdate().TableExpr("events").Set("status = ?", StatusTrash).Set("updated_at = ?", tx.site.Now()).Set("modified_by = ?", u.ID).
				Where("id = ?", p.ID).Exec(ctx)
			if err != nil {
				return fmt.Errorf("models: trash event %d: %w", p.ID, mapErr(err))
			}
			if err := tx.syncEventTerms(ctx, p.ID); err != nil {
				return err
			}
			return tx.adjustTermCounts(ctx, before, termCounts{})
		})
	})
	if err != nil {
		return nil, err
	}
	return s.readEvent(ctx, u, id, lang)
}

// DeleteEvent deletes the event named by ref for good (editors and up),
// with its links and translations, and returns it whole as it was, read in
// lang. Its id stays allocated (ids are never reused).
func (s *Store) DeleteEvent(ctx context.Context, u *User, ref Ref, lang string) (*Event, error) {
	id, err := s.target(ctx, u, ActForceDelete, KindEvent, ref)
	if err != nil {
		return nil, err
	}
	e, err := s.readEvent(ctx, u, id, lang)
	if err != nil {
		return nil, err
	}
	if err := authorize(u, ActForceDelete, e.subject(KindEvent)); err != nil {
		return nil, err
	}
	err = s.RunInTx(ctx, func(tx *Store) error {
		cur, err := lockEvent(ctx, tx, id)
		if err != nil {
			return err
		}
		before, err := tx.eventTermCounts(ctx, id, cur.Status)
		if err != nil {
			return err
		}
		if cur.IsOccurrence() {
			if err := tx.excludeOccurrence(ctx, cur, false); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		} else if cur.IsSeries() {
			if err := tx.deleteSeriesRows(ctx, id); err != nil {
				return err
			}
		}
		n, err := tx.deleteEventRows(ctx, []int64{id})
		if err != nil {
			return err
		}
		if n == 0 {
			return &NotFoundError{Kind: KindEvent, Ref: ref}
		}
		return tx.adjustTermCounts(ctx, before, termCounts{})
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}
