package api

import (
	"encoding/json"
	"math"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
// declaration order. Dates come back as UTC times: date_utc wins over date
// (as WordPress's date_gmt), and date is wall-clock time of the site zone.
func linkedValues(r *Request, args []Arg, m map[string]any) (map[string]any, []Invalid) {
	out := map[string]any{}
	var invalid []Invalid
	for i := range args {
		a := &args[i]
		raw, ok := m[a.Name]
		if !ok {
			continue
		}
		v, reason := parseLinkedValue(r, a, raw)
		if reason == nil && a.Validate != nil {
			reason = a.Validate(r, v)
		}
		if reason != nil {
			invalid = append(invalid, Invalid{Name: a.Name, Reason: *reason})
			continue
		}
		out[a.Name] = v
	}
	if t, ok := out["date_utc"]; ok {
		out["date"] = t
	}
	delete(out, "date_utc")
	return out, invalid
}

// parseLinkedValue turns one raw value (a JSON value, a form string, or a
// value the argument pipeline already typed) into the Go value of its kind.
func parseLinkedValue(r *Request, a *Arg, raw any) (any, *Reason) {
	switch a.Kind {
	case KPositiveInt:
		n, ok := linkedInt(raw)
		if !ok || n <= 0 {
			return nil, linkedReason("rest_invalid_type", "reason.linked.not_positive_int")
		}
		return n, nil
	case KNumber:
		f, ok := linkedFloat(raw)
		if !ok {
			return nil, linkedReason("rest_invalid_type", "reason.linked.not_number")
		}
		return f, nil
	case KBool:
		b, ok := linkedBool(raw)
		if !ok {
			return nil, linkedReason("rest_invalid_type", "reason.linked.not_boolean")
		}
		return b, nil
	}
	s, ok := raw.(string)
	if !ok {
		return nil, linkedReason("rest_invalid_type", "reason.linked.not_string")
	}
	max := a.MaxLen
	if max == 0 {
		max = 255
	}
	if utf8.RuneCountInString(s) > max {
		return nil, &Reason{Code: "rest_too_long", ID: "reason.linked.too_long", Data: map[string]any{"Max": max}}
	}
	switch a.Kind {
	case KNonEmpty:
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, linkedReason("rest_invalid_param", "reason.linked.empty")
		}
	case KStatus:
		if !models.ValidStatus(s) {
			return nil, linkedReason("rest_not_in_enum", "reason.linked.bad_status")
		}
	case KURL:
		if s != "" && !linkedValidURL(s) {
			return nil, linkedReason("rest_invalid_param", "reason.linked.bad_url")
		}
	case KEmail:
		if s != "" && !linkedValidEmail(s) {
			return nil, linkedReason("rest_invalid_param", "reason.linked.bad_email")
		}
	case KDate:
		loc := r.Deps.Config.Location
		if a.Name == "date_utc" || loc == nil {
			loc = time.UTC
		}
		t, err := linkedParseDate(s, loc, r.Deps.Now())
		if err != nil {
			return nil, linkedReason("rest_invalid_param", "reason.linked.bad_date")
		}
		return models.Sec(t), nil
	}
	return s, nil
}

func linkedReason(code, id string) *Reason { return &Reason{Code: code, ID: id} }

func linkedInt(raw any) (int64, bool) {
	switch x := raw.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int64(x), true
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}

func linkedFloat(raw any) (float64, bool) {
	var f float64
	var err error
	switch x := raw.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	case json.Number:
		f, err = x.Float64()
	case string:
		f, err = strconv.ParseFloat(strings.TrimSpace(x), 64)
	default:
		return 0, false
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// linkedBool accepts the booleans of SPEC §2.
func linkedBool(raw any) (bool, bool) {
	switch x := raw.(type) {
	case bool:
		return x, true
	case float64:
		if x == 0 || x == 1 {
			return x == 1, true
		}
	case int64:
		if x == 0 || x == 1 {
			return x == 1, true
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1", "yes", "on":
			return true, true
		case "false", "0", "no", "off", "":
			return false, true
		}
	}
	return false, false
}

// linkedValidURL: an absolute http(s) URL with a host.
func linkedValidURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		!strings.ContainsAny(s, " \t\r\n")
}

// linkedValidEmail: one bare address (no display name), with a dot in the domain.
func linkedValidEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".") && !strings.HasSuffix(s, ".")
}
