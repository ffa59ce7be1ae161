package api

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kalends/kalends/models"
)

// The write arguments of venues and organizers, declared once: the route
// table shows them, and linkedInput.fromMap validates
// with them, both for these routes and for venues and organizers created
// inline from an event (one code path, one set of rules).

const maxLongText = 64 << 10 // description: 64 KiB (SPEC §11)

// linkedStr declares a text field with a null default, as TEC's index shows.
func linkedStr(name, desc string, kind Kind, maxLen int) Arg {
	return Arg{Name: name, Type: "string", HasDefault: true, Desc: desc, In: "body", Kind: kind, MaxLen: maxLen}
}

// venueWriteArgs are the fields of a venue create (required name) or update,
// in TEC's order, plus geo_lat and geo_lng.
func venueWriteArgs(create bool) []Arg {
	name := Arg{Name: "venue", Type: "string", Required: create, Desc: "arg.venues.venue", In: "body", Kind: KNonEmpty, MaxLen: 255}
	return []Arg{
		{Name: "author", Type: "integer", Desc: "arg.venues.author", In: "body", Kind: KPositiveInt},
		{Name: "date", Type: "string", Desc: "arg.venues.date", In: "body", Kind: KDate},
		{Name: "date_utc", Type: "string", Desc: "arg.venues.date_utc", In: "body", Kind: KDate},
		name,
		linkedStr("description", "arg.venues.description", KString, maxLongText),
		{Name: "status", Type: "string", Desc: "arg.venues.status", In: "body", Kind: KStatus},
		linkedStr("show_map", "arg.venues.show_map", KBool, 0),
		linkedStr("show_map_link", "arg.venues.show_map_link", KBool, 0),
		linkedStr("address", "arg.venues.address", KString, 255),
		linkedStr("city", "arg.venues.city", KString, 255),
		linkedStr("country", "arg.venues.country", KString, 255),
		linkedStr("province", "arg.venues.province", KString, 255),
		linkedStr("state", "arg.venues.state", KString, 255),
		linkedStr("zip", "arg.venues.zip", KString, 255),
		linkedStr("phone", "arg.venues.phone", KString, 255),
		linkedStr("stateprovince", "arg.venues.stateprovince", KString, 255),
		linkedStr("website", "arg.venues.website", KURL, 255),
		linkedImageArg("arg.venues.image"),
		{Name: "geo_lat", Type: "number", Format: "double", Desc: "arg.venues.geo_lat", In: "body", Kind: KNumber, Validate: inRange(-90, 90)},
		{Name: "geo_lng", Type: "number", Format: "double", Desc: "arg.venues.geo_lng", In: "body", Kind: KNumber, Validate: inRange(-180, 180)},
	}
}

// organizerWriteArgs are the fields of an organizer create or update, in
// TEC's order (every one shown with a null default, as TEC does).
func organizerWriteArgs(create bool) []Arg {
	return []Arg{
		{Name: "author", Type: "integer", HasDefault: true, Desc: "arg.organizers.author", In: "body", Kind: KPositiveInt},
		{Name: "date", Type: "string", HasDefault: true, Desc: "arg.organizers.date", In: "body", Kind: KDate},
		{Name: "date_utc", Type: "string", HasDefault: true, Desc: "arg.organizers.date_utc", In: "body", Kind: KDate},
		{Name: "organizer", Type: "string", HasDefault: true, Required: create, Desc: "arg.organizers.organizer", In: "body", Kind: KNonEmpty, MaxLen: 255},
		linkedStr("description", "arg.organizers.description", KString, maxLongText),
		{Name: "status", Type: "string", HasDefault: true, Desc: "arg.organizers.status", In: "body", Kind: KStatus},
		linkedStr("phone", "arg.organizers.phone", KString, 255),
		linkedStr("website", "arg.organizers.website", KURL, 255),
		linkedStr("email", "arg.organizers.email", KEmail, 255),
		linkedImageArg("arg.organizers.image"),
	}
}

// inRange checks a number against closed bounds.
func inRange(min, max float64) func(r *Request, v any) *Reason {
	return func(_ *Request, v any) *Reason {
		f, _ := v.(float64)
		if f < min || f > max {
			return &Reason{Code: "rest_out_of_bounds", Reason: "reason.linked.out_of_range", Data: map[string]any{"Min": min, "Max": max}}
		}
		return nil
	}
}

// linkedInput says how the arguments of a linked kind (venue, organizer)
// become its models input: one implementation for both kinds, used by
// their own routes and by the objects given inline in an event.
type linkedInput[In any] struct {
	args    func(create bool) []Arg
	nameArg string // the field an inline record needs (TEC §14)
	// Reasons of an event's link argument that cannot be read, and of an
	// inline object with an invalid field.
	invalidReason, inlineReason string
	// fields names the destinations of the arguments in an input.
	fields func(in *In) linkedFields
}

// linkedFields are the destinations of a linked kind's arguments, by name.
type linkedFields struct {
	post    *models.PostInput
	strs    map[string]**string
	bools   map[string]**bool
	numbers map[string]**float64
}

var venueInput = &linkedInput[models.VenueInput]{
	args: venueWriteArgs, nameArg: "venue",
	invalidReason: "reason.events.invalid_venue", inlineReason: "reason.events.invalid_inline_venue",
	fields: func(in *models.VenueInput) linkedFields {
		return linkedFields{post: &in.PostInput,
			strs: map[string]**string{"venue": &in.Venue, "description": &in.Description, "address": &in.Address,
				"city": &in.City, "country": &in.Country, "province": &in.Province, "state": &in.State, "zip": &in.Zip,
				"phone": &in.Phone, "stateprovince": &in.StateProvince, "website": &in.Website, "image": &in.ImageURL},
			bools:   map[string]**bool{"show_map": &in.ShowMap, "show_map_link": &in.ShowMapLink},
			numbers: map[string]**float64{"geo_lat": &in.GeoLat, "geo_lng": &in.GeoLng},
		}
	},
}

var organizerInput = &linkedInput[models.OrganizerInput]{
	args: organizerWriteArgs, nameArg: "organizer",
	invalidReason: "reason.events.invalid_organizer", inlineReason: "reason.events.invalid_inline_organizer",
	fields: func(in *models.OrganizerInput) linkedFields {
		return linkedFields{post: &in.PostInput,
			strs: map[string]**string{"organizer": &in.Organizer, "description": &in.Description, "phone": &in.Phone,
				"website": &in.Website, "email": &in.Email, "image": &in.ImageURL},
		}
	},
}

// fromMap reads the fields of a record given as a map (an inline object of
// an event, or a route's arguments) into the models input, parsing and
// checking each present field through the argument pipeline's own
// parseKind and the argument's Validate, in declaration order: the same
// rules whether the fields come from the kind's route or from an event.
// Values the pipeline already typed are turned back into their raw form
// first. It does not check that the name is there (required on create only).
func (li *linkedInput[In]) fromMap(r *Request, m map[string]any) (In, []models.FieldError) {
	var in In
	dst := li.fields(&in)
	var bad []models.FieldError
	args := li.args(false)
	for i := range args {
		a := &args[i]
		raw, ok := m[a.Name]
		if !ok || raw == nil {
			continue
		}
		v, reason := parseKind(r, a, rawArg(raw))
		if reason == nil && a.Validate != nil {
			reason = a.Validate(r, v)
		}
		if reason != nil {
			reason.Field = a.Name
			bad = append(bad, *reason)
			continue
		}
		switch x := v.(type) {
		case string:
			if a.Kind == KNonEmpty {
				x = strings.TrimSpace(x)
			}
			switch a.Name {
			case "date":
				dst.post.Date = &x
			case "date_utc":
				dst.post.DateUTC = &x
			case "status":
				dst.post.Status = &x
			default:
				if p, ok := dst.strs[a.Name]; ok {
					*p = &x
				}
			}
		case bool:
			if p, ok := dst.bools[a.Name]; ok {
				*p = &x
			}
		case float64:
			if p, ok := dst.numbers[a.Name]; ok {
				*p = &x
			}
		case int64:
			dst.post.AuthorID = &x
		}
	}
	return in, bad
}

// rawArg turns a value the pipeline already typed back into the raw form
// parseKind reads (numbers as json.Number).
func rawArg(v any) any {
	switch x := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case int:
		return json.Number(strconv.Itoa(x))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return v
}
