package api

// Temporary stubs of functions other branches deliver (apicore, terms,
// linked). Deleted when they land on main.

import (
	"github.com/kalends/kalends/models"
)

func presentTermEmbedded(r *Request, t *models.Term) Obj {
	return Obj{{"name", t.Name}, {"slug", t.Slug}, {"id", t.ID}}
}

func presentVenue(r *Request, v *models.Venue, withJSONLD bool) Obj {
	o := Obj{{"id", v.ID}, {"venue", v.Venue}}
	if withJSONLD {
		o = append(o, KV{"json_ld", venueJSONLD(r, v)})
	}
	return o
}

func presentOrganizer(r *Request, o *models.Organizer, withJSONLD bool) Obj {
	out := Obj{{"id", o.ID}, {"organizer", o.Organizer}}
	if withJSONLD {
		out = append(out, KV{"json_ld", organizerJSONLD(r, o)})
	}
	return out
}

func venueJSONLD(r *Request, v *models.Venue) Obj {
	return Obj{{"@type", "Place"}, {"name", v.Venue}}
}

func organizerJSONLD(r *Request, o *models.Organizer) Obj {
	return Obj{{"@type", "Person"}, {"name", o.Organizer}}
}

func venueInputFromMap(r *Request, m map[string]any) (models.VenueInput, []Invalid) {
	name, _ := m["venue"].(string)
	if name == "" {
		return models.VenueInput{}, []Invalid{{Name: "venue", Reason: Reason{Code: "rest_invalid_param", ID: "reason.required"}}}
	}
	return models.VenueInput{Venue: name}, nil
}

func organizerInputFromMap(r *Request, m map[string]any) (models.OrganizerInput, []Invalid) {
	name, _ := m["organizer"].(string)
	if name == "" {
		return models.OrganizerInput{}, []Invalid{{Name: "organizer", Reason: Reason{Code: "rest_invalid_param", ID: "reason.required"}}}
	}
	return models.OrganizerInput{Organizer: name}, nil
}
