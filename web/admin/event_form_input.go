package admin

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// readEventForm reads a posted event form.
func readEventForm(c *fiber.Ctx) eventForm {
	args := c.Request().PostArgs()
	multi := func(name string) []string {
		var out []string
		for _, v := range args.PeekMulti(name) {
			if s := strings.TrimSpace(string(v)); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	on := func(name string) bool { return c.FormValue(name) != "" }
	return eventForm{
		Title: c.FormValue("title"), Description: c.FormValue("description"), Excerpt: c.FormValue("excerpt"),
		Status: c.FormValue("status"), StartDate: c.FormValue("start_date"), EndDate: c.FormValue("end_date"),
		Timezone: strings.TrimSpace(c.FormValue("timezone")), AllDay: on("all_day"),
		Venue: c.FormValue("venue"), NewVenue: strings.TrimSpace(c.FormValue("new_venue")),
		Organizers: multi("organizer"), NewOrganizer: strings.TrimSpace(c.FormValue("new_organizer")),
		Categories: multi("categories"), Tags: multi("tags"), NewTags: c.FormValue("new_tags"),
		Cost: strings.TrimSpace(c.FormValue("cost")), Website: strings.TrimSpace(c.FormValue("website")),
		Image: strings.TrimSpace(c.FormValue("image")), Slug: strings.TrimSpace(c.FormValue("slug")), Date: c.FormValue("date"),
		CurrencySymbol: strings.TrimSpace(c.FormValue("currency_symbol")), CurrencyCode: strings.TrimSpace(c.FormValue("currency_code")),
		CurrencyPosition: c.FormValue("currency_position"),
		Featured:         on("featured"), Sticky: on("sticky"), Hidden: on("hide_from_listings"),
		ShowMap: on("show_map"), ShowMapLink: on("show_map_link"), Repeat: readRepeatForm(c), Version: c.FormValue("_version"),
	}
}

// formDate turns a date input's value into the API's form ("T" between
// date and time becomes a space; a date alone stays a date).
func formDate(s string) string { return strings.Replace(strings.TrimSpace(s), "T", " ", 1) }

// input is the models input of the form, written in lang. Ids the form
// sends that are not numbers are kept as names (they then fail as unknown
// records, never silently).
func (f eventForm) input(lang string) models.EventInput {
	str := func(s string) *string { return &s }
	b := func(v bool) *bool { return &v }
	in := models.EventInput{
		Title: str(f.Title), Description: str(f.Description), Excerpt: str(f.Excerpt),
		StartDate: str(formDate(f.StartDate)), EndDate: str(formDate(f.EndDate)),
		Timezone: str(f.Timezone), AllDay: b(f.AllDay), Website: str(f.Website),
		Cost:     str(models.EncodeCost(f.Cost)),
		Featured: b(f.Featured), Sticky: b(f.Sticky), HideFromListings: b(f.Hidden),
		ShowMap: b(f.ShowMap), ShowMapLink: b(f.ShowMapLink), Lang: lang,
	}
	if f.Status != "" {
		in.Status = str(f.Status)
	}
	in.ImageURL = str(f.Image)
	opt := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	in.Slug, in.Date = opt(f.Slug), opt(formDate(f.Date))
	in.CurrencySymbol, in.CurrencyCode, in.CurrencyPosition = opt(f.CurrencySymbol), opt(f.CurrencyCode), opt(f.CurrencyPosition)
	in.Categories = formTerms(f.Categories, "")
	in.Tags = formTerms(f.Tags, f.NewTags)
	in.Venues, in.Organizers = f.venueRefs(), f.organizerRefs()
	// An occurrence's save changes what its scope says; the rule goes
	// with the scopes that reach the series.
	rule := f.Repeat.text(f.StartDate)
	switch {
	case f.Repeat.Keep:
		if f.Repeat.Occurrence {
			in.Scope = f.Repeat.Scope
		}
	case !f.Repeat.Occurrence:
		in.Recurrence = &rule
	case f.Repeat.Scope == models.ScopeAll || f.Repeat.Scope == models.ScopeFollowing:
		in.Scope, in.Recurrence = f.Repeat.Scope, &rule
	default: // a changed rule with "this occurrence": the models say why not
		in.Scope, in.Recurrence = models.ScopeThis, &rule
	}
	return in
}

// formTerms are the terms of a form: the ids it sends (an id that is not a
// number is kept as a name) and the names typed, separated by commas.
func formTerms(ids []string, names string) *[]models.TermRef {
	out := []models.TermRef{}
	for _, s := range ids {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, models.TermRef{ID: id})
		} else {
			out = append(out, models.TermRef{Name: s})
		}
	}
	for _, n := range strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == '，' || r == '、' }) {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, models.TermRef{Name: n})
		}
	}
	return &out
}

// venueRefs is the form's venue: a new one by its name, or one picked.
func (f eventForm) venueRefs() *[]models.VenueRef {
	venues := []models.VenueRef{}
	switch {
	case f.NewVenue != "":
		venues = append(venues, models.VenueRef{New: &models.VenueInput{Venue: &f.NewVenue}})
	case f.Venue != "":
		id, _ := strconv.ParseInt(f.Venue, 10, 64)
		venues = append(venues, models.VenueRef{ID: id})
	}
	return &venues
}

// organizerRefs are the organizers picked and a new one by its name.
func (f eventForm) organizerRefs() *[]models.OrganizerRef {
	orgs := []models.OrganizerRef{}
	for _, s := range f.Organizers {
		id, _ := strconv.ParseInt(s, 10, 64)
		orgs = append(orgs, models.OrganizerRef{ID: id})
	}
	if f.NewOrganizer != "" {
		orgs = append(orgs, models.OrganizerRef{New: &models.OrganizerInput{Organizer: &f.NewOrganizer}})
	}
	return &orgs
}
