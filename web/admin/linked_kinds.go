package admin

import (
	"errors"
	"strconv"
	"strings"

	"github.com/kalends/kalends/models"
)

// The two linked kinds the admin edits with linkedPages.

// setters build a models input from form values: a full form sets every
// field it shows (an empty text clears it, an unticked box is false); a
// partial one (translations, status changes) only the values it carries.
type setters struct {
	vals map[string]string
	full bool
}

func newSetters(vals map[string]string) setters {
	return setters{vals: vals, full: vals["_partial"] == "" && vals["_status_only"] == ""}
}

func (s setters) str(name string) *string {
	v, ok := s.vals[name]
	if !ok && !s.full {
		return nil
	}
	return &v
}

func (s setters) flag(name string) *bool {
	if !s.full {
		return nil
	}
	b := s.vals[name] != ""
	return &b
}

// number is a decimal field: nil when empty, an error naming the field
// when it is not a number.
func (s setters) number(name string) (*float64, error) {
	v := strings.TrimSpace(s.vals[name])
	if !s.full || v == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(v, ",", "."), 64)
	if err != nil {
		return nil, models.Invalid(name, "reason.not_number", nil)
	}
	return &f, nil
}

func (s setters) status() models.PostInput {
	if st := s.vals["status"]; st != "" {
		return models.PostInput{Status: &st}
	}
	return models.PostInput{}
}

func text(name, label string, translatable bool) formField {
	return formField{Name: name, LabelID: label, Type: "text", Translatable: translatable}
}

// venuePages are the venues pages.
var venuePages = &linkedPages[models.Venue, models.VenueInput]{
	path: "/admin/venues", kind: models.KindVenue, ops: func(db *models.DB) models.Linked[models.Venue, models.VenueInput] { return db.Venues() },
	titleID: "admin.venues.title", newID: "admin.venues.new", editID: "admin.venues.edit", empty: "admin.venues.empty",
	flash: "venue",
	fields: []formField{
		{Name: "venue", LabelID: "admin.venue.field.venue", Type: "text", Translatable: true, Wide: true},
		{Name: "description", LabelID: "admin.event.field.description", Type: "textarea", Translatable: true, Wide: true, HelpID: "admin.event.help.description"},
		{Name: "address", LabelID: "admin.venue.field.address", Type: "text", Translatable: true, Wide: true},
		text("city", "admin.venue.field.city", true),
		text("stateprovince", "admin.venue.field.stateprovince", false),
		text("zip", "admin.venue.field.zip", false),
		text("country", "admin.venue.field.country", false),
		{Name: "phone", LabelID: "admin.venue.field.phone", Type: "tel"},
		{Name: "website", LabelID: "admin.event.field.website", Type: "url"},
		{Name: "geo_lat", LabelID: "admin.venue.field.geo_lat", Type: "number", HelpID: "admin.venue.help.geo"},
		{Name: "geo_lng", LabelID: "admin.venue.field.geo_lng", Type: "number"},
		{Name: "show_map", LabelID: "admin.event.field.show_map", Type: "checkbox"},
		{Name: "show_map_link", LabelID: "admin.event.field.show_map_link", Type: "checkbox"},
	},
	post: func(v *models.Venue) *models.Post { return &v.Post },
	values: func(v *models.Venue) map[string]string {
		num := func(f *float64) string {
			if f == nil {
				return ""
			}
			return strconv.FormatFloat(*f, 'f', -1, 64)
		}
		return map[string]string{"venue": v.Venue, "description": v.Description, "address": v.Address, "city": v.City,
			"stateprovince": v.StateProvince, "zip": v.Zip, "country": v.Country, "phone": v.Phone, "website": v.Website,
			"geo_lat": num(v.GeoLat), "geo_lng": num(v.GeoLng), "show_map": boolValue(v.ShowMap), "show_map_link": boolValue(v.ShowMapLink)}
	},
	input: func(vals map[string]string) (models.VenueInput, error) {
		s := newSetters(vals)
		in := models.VenueInput{PostInput: s.status(), Venue: s.str("venue"), Description: s.str("description"),
			Address: s.str("address"), City: s.str("city"), StateProvince: s.str("stateprovince"), Zip: s.str("zip"),
			Country: s.str("country"), Phone: s.str("phone"), Website: s.str("website"),
			ShowMap: s.flag("show_map"), ShowMapLink: s.flag("show_map_link")}
		var err1, err2 error
		in.GeoLat, err1 = s.number("geo_lat")
		in.GeoLng, err2 = s.number("geo_lng")
		return in, joinInvalid(err1, err2)
	},
	sub: func(v *models.Venue) string {
		parts := []string{}
		for _, p := range []string{v.City, v.Country} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, " · ")
	},
}

// organizerPages are the organizers pages.
var organizerPages = &linkedPages[models.Organizer, models.OrganizerInput]{
	path: "/admin/organizers", kind: models.KindOrganizer,
	ops:     func(db *models.DB) models.Linked[models.Organizer, models.OrganizerInput] { return db.Organizers() },
	titleID: "admin.organizers.title", newID: "admin.organizers.new", editID: "admin.organizers.edit", empty: "admin.organizers.empty",
	flash: "organizer",
	fields: []formField{
		{Name: "organizer", LabelID: "admin.organizer.field.organizer", Type: "text", Translatable: true, Wide: true},
		{Name: "description", LabelID: "admin.event.field.description", Type: "textarea", Translatable: true, Wide: true, HelpID: "admin.event.help.description"},
		{Name: "email", LabelID: "admin.organizer.field.email", Type: "email"},
		{Name: "phone", LabelID: "admin.venue.field.phone", Type: "tel"},
		{Name: "website", LabelID: "admin.event.field.website", Type: "url", Wide: true},
	},
	post: func(o *models.Organizer) *models.Post { return &o.Post },
	values: func(o *models.Organizer) map[string]string {
		return map[string]string{"organizer": o.Organizer, "description": o.Description, "email": o.Email,
			"phone": o.Phone, "website": o.Website}
	},
	input: func(vals map[string]string) (models.OrganizerInput, error) {
		s := newSetters(vals)
		return models.OrganizerInput{PostInput: s.status(), Organizer: s.str("organizer"), Description: s.str("description"),
			Email: s.str("email"), Phone: s.str("phone"), Website: s.str("website")}, nil
	},
	sub: func(o *models.Organizer) string {
		if o.Email != "" {
			return o.Email
		}
		return o.Website
	},
}

func boolValue(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// joinInvalid merges validation errors into one (nil when there is none).
func joinInvalid(errs ...error) error {
	var out *models.ValidationError
	for _, err := range errs {
		var v *models.ValidationError
		if errors.As(err, &v) {
			if out == nil {
				out = &models.ValidationError{}
			}
			out.Fields = append(out.Fields, v.Fields...)
		}
	}
	if out == nil {
		return nil
	}
	return out
}
