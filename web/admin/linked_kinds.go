package admin

import (
	"strconv"
	"strings"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web/ui"
)

// The two linked kinds the admin edits with linkedPages.

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
		{Name: "image", LabelID: "admin.event.field.image", Type: "image", Wide: true},
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
			"image": v.ImageURL, "geo_lat": num(v.GeoLat), "geo_lng": num(v.GeoLng), "show_map": boolValue(v.ShowMap), "show_map_link": boolValue(v.ShowMapLink)}
	},
	input: ui.VenueInput,
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
		{Name: "image", LabelID: "admin.event.field.image", Type: "image", Wide: true},
	},
	post: func(o *models.Organizer) *models.Post { return &o.Post },
	values: func(o *models.Organizer) map[string]string {
		return map[string]string{"organizer": o.Organizer, "description": o.Description, "email": o.Email,
			"phone": o.Phone, "website": o.Website, "image": o.ImageURL}
	},
	input: ui.OrganizerInput,
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
