package ical

import (
	"context"
	"html"
	"strings"
	"time"

	"github.com/kalends/kalends/models"
)

// Report says what an import did with each event of a file.
type Report struct {
	Created, Updated int
	Skipped          []Skipped
	Notes            []Skipped // imported, with a remark (a recurring event's first occurrence)
}

// Skipped is an event left out (or imported with a remark) and why: a
// message id of the i18n bundle and its Detail.
type Skipped struct{ UID, Summary, Reason, Detail string }

// Import writes the items of one file as u, in one transaction: an item
// whose UID an earlier import stored updates that event, others are
// created; venues come from LOCATION (and GEO) and organizers from
// ORGANIZER, matched by name; categories from CATEGORIES by name. Items
// that cannot be imported are reported, not written. Any refusal of the
// store (permissions, validation) rolls the whole file back.
func Import(ctx context.Context, db *models.DB, u *models.User, items []Item, lang string) (Report, error) {
	var rep Report
	err := db.RunInTx(ctx, func(tx *models.Store) error {
		rep = Report{}
		venues, organizers := map[string]int64{}, map[string]int64{}
		// Series first, then their exceptions (a file may list them in
		// any order).
		ordered := make([]Item, 0, len(items))
		for _, pass := range []bool{false, true} {
			for _, it := range items {
				if (it.RecurrenceID != nil) == pass {
					ordered = append(ordered, it)
				}
			}
		}
		for _, it := range ordered {
			if it.Skip != "" {
				rep.Skipped = append(rep.Skipped, Skipped{it.UID, it.Summary, it.Skip, it.Detail})
				continue
			}
			in := input(it, lang)
			if it.RecurrenceID != nil {
				in.UID = nil
			}
			var err error
			if in.Venues, err = venueRef(ctx, tx, u, it, venues, lang); err != nil {
				return err
			}
			if in.Organizers, err = organizerRef(ctx, tx, u, it, organizers, lang); err != nil {
				return err
			}
			id, err := tx.EventIDByUID(ctx, it.UID)
			if err != nil {
				return err
			}
			if it.RecurrenceID != nil { // an exception: its occurrence of the series
				if id, err = exceptionOf(ctx, tx, id, it); err != nil {
					return err
				}
				if id == 0 {
					rep.Skipped = append(rep.Skipped, Skipped{it.UID, it.Summary, "import.skip.no_occurrence", it.RecurrenceID.Format("2006-01-02 15:04")})
					continue
				}
			}
			var e *models.Event
			if id != 0 {
				e, err = tx.UpdateEvent(ctx, u, models.ByID(id), in)
				rep.Updated++
			} else {
				e, err = tx.CreateEvent(ctx, u, in)
				rep.Created++
			}
			if err != nil {
				return err
			}
			if len(e.Venues) > 0 && it.Location != "" {
				venues[it.Location] = e.Venues[0].ID
			}
			if len(e.Organizers) > 0 && it.Organizer != "" {
				organizers[it.Organizer] = e.Organizers[0].ID
			}
		}
		return nil
	})
	return rep, err
}

// input is the event an item describes.
func input(it Item, lang string) models.EventInput {
	s := func(v string) *string { return &v }
	layout := "2006-01-02 15:04:05"
	if it.AllDay {
		layout = "2006-01-02"
	}
	zone := it.Zone
	if it.AllDay {
		zone = ""
	}
	cats := make([]models.TermRef, 0, len(it.Categories))
	for _, c := range it.Categories {
		cats = append(cats, models.TermRef{Name: c})
	}
	in := models.EventInput{Title: s(it.Summary), Description: s(textHTML(it.Description)),
		StartDate: s(it.Start.Format(layout)), EndDate: s(it.End.Format(layout)), AllDay: &it.AllDay,
		Categories: &cats, Lang: lang, UID: s(it.UID)}
	if zone != "" {
		in.Timezone = s(zone)
	}
	in.Status = s(models.StatusPublish)
	if it.RecurrenceID == nil {
		in.Recurrence = s(it.Recurrence) // "" makes a series imported before a single event again
	}
	return in
}

// exceptionOf is the occurrence of series id (imported with the item's
// UID) that the exception it replaces: 0 when the series or the
// occurrence is not there.
func exceptionOf(ctx context.Context, tx *models.Store, id int64, it Item) (int64, error) {
	if id == 0 {
		return 0, nil
	}
	series, err := tx.GetEvent(ctx, models.Console, models.ByID(id), "")
	if err != nil || !series.Recurring() {
		return 0, err
	}
	loc, err := models.LoadZone(it.RecurrenceZone, tx.Site().Zone())
	if it.RecurrenceZone == "" || err != nil {
		loc, _ = models.LoadZone(series.Timezone, tx.Site().Zone())
	}
	r := *it.RecurrenceID
	at := time.Date(r.Year(), r.Month(), r.Day(), r.Hour(), r.Minute(), r.Second(), 0, loc)
	if it.RecurrenceZone == "" { // a DATE: the series' time of day
		st := series.StartAt.In(loc)
		at = time.Date(r.Year(), r.Month(), r.Day(), st.Hour(), st.Minute(), st.Second(), 0, loc)
	}
	return tx.OccurrenceAt(ctx, id, at)
}

// textHTML is plain text as HTML paragraphs (blank lines part them, line
// breaks within one stay).
func textHTML(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			b.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(p), "\n", "<br>") + "</p>")
		}
	}
	return b.String()
}

func venueRef(ctx context.Context, tx *models.Store, u *models.User, it Item, seen map[string]int64, lang string) (*[]models.VenueRef, error) {
	if it.Location == "" {
		return &[]models.VenueRef{}, nil
	}
	if id, ok := seen[it.Location]; ok {
		return &[]models.VenueRef{{ID: id}}, nil
	}
	p, err := tx.Venues().List(ctx, u, models.LinkedFilter{Words: models.SearchWords(it.Location), PerPage: 50, Page: 1, Lang: lang})
	if err != nil {
		return nil, err
	}
	for _, v := range p.Items {
		if v.Venue == it.Location {
			return &[]models.VenueRef{{ID: v.ID}}, nil
		}
	}
	return &[]models.VenueRef{{New: &models.VenueInput{Venue: &it.Location, GeoLat: it.Lat, GeoLng: it.Lng}}}, nil
}

func organizerRef(ctx context.Context, tx *models.Store, u *models.User, it Item, seen map[string]int64, lang string) (*[]models.OrganizerRef, error) {
	if it.Organizer == "" {
		return &[]models.OrganizerRef{}, nil
	}
	if id, ok := seen[it.Organizer]; ok {
		return &[]models.OrganizerRef{{ID: id}}, nil
	}
	p, err := tx.Organizers().List(ctx, u, models.LinkedFilter{Words: models.SearchWords(it.Organizer), PerPage: 50, Page: 1, Lang: lang})
	if err != nil {
		return nil, err
	}
	for _, o := range p.Items {
		if o.Organizer == it.Organizer {
			return &[]models.OrganizerRef{{ID: o.ID}}, nil
		}
	}
	in := models.OrganizerInput{Organizer: &it.Organizer}
	if it.OrganizerEmail != "" {
		in.Email = &it.OrganizerEmail
	}
	return &[]models.OrganizerRef{{New: &in}}, nil
}
