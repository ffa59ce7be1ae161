package api

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/models"
)

// The write arguments of venues and organizers, declared once: the route
// table shows them, and venueInputFromMap/organizerInputFromMap validate
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
		{Name: "author", Type: "integer", Desc: "arg.venues.author", In: "body", Kind: KPositiveInt, Validate: validUserID},
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
		linkedStr("image", "arg.venues.image", KURL, 255),
		{Name: "geo_lat", Type: "number", Format: "double", Desc: "arg.venues.geo_lat", In: "body", Kind: KNumber, Validate: inRange(-90, 90)},
		{Name: "geo_lng", Type: "number", Format: "double", Desc: "arg.venues.geo_lng", In: "body", Kind: KNumber, Validate: inRange(-180, 180)},
	}
}

// organizerWriteArgs are the fields of an organizer create or update, in
// TEC's order (every one shown with a null default, as TEC does).
func organizerWriteArgs(create bool) []Arg {
	return []Arg{
		{Name: "author", Type: "integer", HasDefault: true, Desc: "arg.organizers.author", In: "body", Kind: KPositiveInt, Validate: validUserID},
		{Name: "date", Type: "string", HasDefault: true, Desc: "arg.organizers.date", In: "body", Kind: KDate},
		{Name: "date_utc", Type: "string", HasDefault: true, Desc: "arg.organizers.date_utc", In: "body", Kind: KDate},
		{Name: "organizer", Type: "string", HasDefault: true, Required: create, Desc: "arg.organizers.organizer", In: "body", Kind: KNonEmpty, MaxLen: 255},
		linkedStr("description", "arg.organizers.description", KString, maxLongText),
		{Name: "status", Type: "string", HasDefault: true, Desc: "arg.organizers.status", In: "body", Kind: KStatus},
		linkedStr("phone", "arg.organizers.phone", KString, 255),
		linkedStr("website", "arg.organizers.website", KURL, 255),
		linkedStr("email", "arg.organizers.email", KEmail, 255),
		linkedStr("image", "arg.organizers.image", KURL, 255),
	}
}

// validUserID checks that an author id names a user.
func validUserID(r *Request, v any) *Reason {
	id, _ := v.(int64)
	ok, err := r.Deps.DB.UserExists(r.Ctx, id)
	if err != nil || !ok {
		return &Reason{Code: "rest_invalid_param", ID: "reason.linked.unknown_user"}
	}
	return nil
}

// inRange checks a number against closed bounds.
func inRange(min, max float64) func(r *Request, v any) *Reason {
	return func(r *Request, v any) *Reason {
		f, _ := v.(float64)
		if f < min || f > max {
			return &Reason{Code: "rest_out_of_bounds", ID: "reason.linked.out_of_range", Data: map[string]any{"Min": min, "Max": max}}
		}
		return nil
	}
}

// venueInputFromMap validates the fields of a venue given as a map (an
// inline venue object of an event, or a venue route's arguments) and turns
// them into a store input: only the fields present are set. It does not
// check that the name is there (required on create only: check in.Venue).
func venueInputFromMap(r *Request, m map[string]any) (models.VenueInput, []Invalid) {
	var in models.VenueInput
	strs := map[string]**string{
		"venue": &in.Venue, "description": &in.Description, "address": &in.Address, "city": &in.City,
		"country": &in.Country, "province": &in.Province, "state": &in.State, "zip": &in.Zip, "phone": &in.Phone,
		"stateprovince": &in.StateProvince, "website": &in.Website, "image": &in.ImageURL, "status": &in.Status,
	}
	vals, invalid := linkedValues(r, venueWriteArgs(false), m)
	for name, v := range vals {
		switch x := v.(type) {
		case string:
			if dst, ok := strs[name]; ok {
				*dst = &x
			}
		case float64:
			if name == "geo_lat" {
				in.GeoLat = &x
			} else {
				in.GeoLng = &x
			}
		case bool:
			if name == "show_map" {
				in.ShowMap = &x
			} else {
				in.ShowMapLink = &x
			}
		case int64:
			in.AuthorID = &x
		case time.Time:
			in.PublishedAt = &x
		}
	}
	return in, invalid
}

// organizerInputFromMap is venueInputFromMap for organizers.
func organizerInputFromMap(r *Request, m map[string]any) (models.OrganizerInput, []Invalid) {
	var in models.OrganizerInput
	strs := map[string]**string{
		"organizer": &in.Organizer, "description": &in.Description, "phone": &in.Phone, "website": &in.Website,
		"email": &in.Email, "image": &in.ImageURL, "status": &in.Status,
	}
	vals, invalid := linkedValues(r, organizerWriteArgs(false), m)
	for name, v := range vals {
		switch x := v.(type) {
		case string:
			if dst, ok := strs[name]; ok {
				*dst = &x
			}
		case int64:
			in.AuthorID = &x
		case time.Time:
			in.PublishedAt = &x
		}
	}
	return in, invalid
}

// linkedValues parses and validates each declared field present in m, in
// declaration order, through the argument pipeline's own parseKind and the
// argument's Validate: the same rules whether the fields come from a venue
// route or from an event's inline object. Values already typed by the
// pipeline (a route's Args) are turned back into their raw form first.
// Dates come back as UTC times: date is wall-clock time of the site zone,
// date_utc is UTC and wins (as WordPress's date_gmt).
func linkedValues(r *Request, args []Arg, m map[string]any) (map[string]any, []Invalid) {
	out := map[string]any{}
	var invalid []Invalid
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
		if reason == nil && a.Kind == KDate {
			v, reason = linkedDate(r, a.Name, v.(string))
		}
		if reason != nil {
			invalid = append(invalid, Invalid{Name: a.Name, Reason: *reason})
			continue
		}
		if a.Kind == KNonEmpty {
			v = strings.TrimSpace(v.(string))
		}
		out[a.Name] = v
	}
	if t, ok := out["date_utc"]; ok {
		out["date"] = t
	}
	delete(out, "date_utc")
	return out, invalid
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

// linkedDate parses a publication date: date in the site time zone,
// date_utc in UTC.
func linkedDate(r *Request, name, s string) (any, *Reason) {
	loc := r.Deps.location()
	if name == "date_utc" {
		loc = time.UTC
	}
	t, _, err := models.ParseDate(strings.TrimSpace(s), r.Deps.now(), loc)
	if err != nil {
		return nil, &Reason{Code: "rest_invalid_param", ID: "reason.invalid_date"}
	}
	return models.Sec(t), nil
}
