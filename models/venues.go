package models

import (
	"strings"

	"github.com/uptrace/bun"
)

// VenueInput holds the fields of a venue create or partial update. A nil
// field was not sent: create uses the default, update keeps the value.
type VenueInput struct {
	PostInput
	Venue, Description, Address, City, Country, Province, State, Zip, Phone, StateProvince, Website, ImageURL *string

	GeoLat, GeoLng       *float64
	ShowMap, ShowMapLink *bool
}

// VenueRef names a venue to link to an event.
type VenueRef = LinkRef[VenueInput]

var venueSpec = linkedSpec{
	kind: KindVenue, table: "venues", alias: "venue", linkTable: "event_venues", linkCol: "venue_id",
	search: []string{"venue", "description", "address", "city", "province", "state", "stateprovince", "zip", "phone"},
}

// venues is how venues differ from organizers (see linkedKind).
var venues = &linkedKind[Venue, VenueInput]{
	spec:          venueSpec,
	unknownReason: "reason.events.unknown_venue",
	post:          func(v *Venue) *Post { return &v.Post },
	name:          func(v *Venue) string { return v.Venue },
	base:          func(in *VenueInput) *PostInput { return &in.PostInput },
	image:         func(in *VenueInput) *string { return in.ImageURL },
	check: func(in *VenueInput, create bool) error {
		nfcFields(&in.Venue, &in.Address, &in.City, &in.Country, &in.Province, &in.State, &in.Zip, &in.Phone, &in.StateProvince)
		var c fieldChecks
		checkName(&c, "venue", in.Venue, create)
		in.PostInput.check(&c)
		in.Description = sanitizeHTML(in.Description)
		c.text("description", in.Description, MaxLongTextLen)
		for _, f := range []struct {
			name string
			v    *string
		}{{"address", in.Address}, {"city", in.City}, {"country", in.Country}, {"province", in.Province},
			{"state", in.State}, {"zip", in.Zip}, {"phone", in.Phone}, {"stateprovince", in.StateProvince},
			{"website", in.Website}, {"image", in.ImageURL}} {
			c.text(f.name, f.v, MaxNameLen)
		}
		c.url("website", in.Website, "reason.invalid_url")
		c.image("image", in.ImageURL, "reason.invalid_url")
		coordinate(&c, "geo_lat", in.GeoLat, 90)
		coordinate(&c, "geo_lng", in.GeoLng, 180)
		return c.err()
	},
	build: func(in *VenueInput) *Venue {
		v := &Venue{
			Venue: strings.TrimSpace(strOr(in.Venue, "")), Description: strOr(in.Description, ""),
			Address: strOr(in.Address, ""), City: strOr(in.City, ""), Country: strOr(in.Country, ""),
			Province: strOr(in.Province, ""), State: strOr(in.State, ""), Zip: strOr(in.Zip, ""),
			Phone: strOr(in.Phone, ""), Website: strOr(in.Website, ""), ImageURL: strOr(in.ImageURL, ""),
			GeoLat: in.GeoLat, GeoLng: in.GeoLng, ShowMap: true, ShowMapLink: true,
			StateProvince: strOr(in.StateProvince, ""),
		}
		if v.StateProvince == "" {
			v.StateProvince = DeriveStateProvince(v.Country, v.State, v.Province)
		}
		setBool(&v.ShowMap, in.ShowMap)
		setBool(&v.ShowMapLink, in.ShowMapLink)
		return v
	},
	apply: func(v *Venue, in *VenueInput, text func(field string, p, dst *string)) {
		oldDerived := DeriveStateProvince(v.Country, v.State, v.Province)
		text("venue", trimmed(in.Venue), &v.Venue)
		text("description", in.Description, &v.Description)
		text("address", in.Address, &v.Address)
		text("city", in.City, &v.City)
		setStr(&v.Country, in.Country)
		setStr(&v.Province, in.Province)
		setStr(&v.State, in.State)
		setStr(&v.Zip, in.Zip)
		setStr(&v.Phone, in.Phone)
		setStr(&v.Website, in.Website)
		setStr(&v.ImageURL, in.ImageURL)
		switch {
		case in.StateProvince != nil && *in.StateProvince != "":
			v.StateProvince = *in.StateProvince
		case in.StateProvince != nil || v.StateProvince == oldDerived:
			// Cleared, or still the derived value: follow the new country,
			// state and province.
			v.StateProvince = DeriveStateProvince(v.Country, v.State, v.Province)
		}
		if in.GeoLat != nil {
			v.GeoLat = in.GeoLat
		}
		if in.GeoLng != nil {
			v.GeoLng = in.GeoLng
		}
		setBool(&v.ShowMap, in.ShowMap)
		setBool(&v.ShowMapLink, in.ShowMapLink)
	},
	// Every provided identifying field must match: name, description,
	// city, province, state, stateprovince, zip, phone equal ignoring case;
	// the address contained.
	duplicates: func(q *bun.SelectQuery, in *VenueInput) *bun.SelectQuery {
		a := venueSpec.alias
		q = dupCondition(q, a, "venue", in.Venue, false)
		q = dupCondition(q, a, "description", in.Description, false)
		q = dupCondition(q, a, "address", in.Address, true)
		for col, v := range map[string]*string{"city": in.City, "province": in.Province, "state": in.State,
			"stateprovince": in.StateProvince, "zip": in.Zip, "phone": in.Phone} {
			q = dupCondition(q, a, col, v, false)
		}
		return q
	},
}

// DeriveStateProvince is TEC's stateprovince when none is given: the state
// for the United States (or no country), the province elsewhere.
func DeriveStateProvince(country, state, province string) string {
	switch strings.ToLower(strings.TrimSpace(country)) {
	case "", "us", "usa", "united states":
		return state
	}
	return province
}

// coordinate checks a latitude or longitude against ±limit degrees.
func coordinate(c *fieldChecks, field string, v *float64, limit float64) {
	if v != nil && (*v < -limit || *v > limit || *v != *v) {
		c.fields = append(c.fields, FieldError{Field: field, Code: "rest_out_of_bounds", Reason: "reason.linked.out_of_range",
			Data: map[string]any{"Min": -limit, "Max": limit}})
	}
}
