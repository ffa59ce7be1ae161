package ui

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// The venue and organizer forms' values and their reading into a models
// input, shared by the admin (which saves them) and the public site (whose
// preview shows the page they make).

// VenueFields and OrganizerFields name the values of a venue's and an
// organizer's form (the admin's fields and the public site's preview read
// the same names).
var (
	VenueFields = []string{"venue", "description", "address", "city", "stateprovince", "zip", "country", "phone",
		"website", "image", "geo_lat", "geo_lng", "show_map", "show_map_link"}
	OrganizerFields = []string{"organizer", "description", "email", "phone", "website", "image"}
)

// multiline names the form values kept as typed (not trimmed).
func multiline(name string) bool { return name == "description" }

// ReadLinkedForm reads the posted values of the named fields, with the
// status and the version the form was loaded from.
func ReadLinkedForm(c *fiber.Ctx, names []string) map[string]string {
	vals := map[string]string{"status": c.FormValue("status"), "_version": c.FormValue("_version")}
	for _, name := range names {
		v := c.FormValue(name)
		if !multiline(name) {
			v = strings.TrimSpace(v)
		}
		vals[name] = v
	}
	return vals
}

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

// optional is a field a form may not show (the image): set only when sent.
func (s setters) optional(name string) *string {
	v, ok := s.vals[name]
	if !ok {
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

// VenueInput is the models input of a venue form's values.
func VenueInput(vals map[string]string) (models.VenueInput, error) {
	s := newSetters(vals)
	in := models.VenueInput{PostInput: s.status(), Venue: s.str("venue"), Description: s.str("description"),
		Address: s.str("address"), City: s.str("city"), StateProvince: s.str("stateprovince"), Zip: s.str("zip"),
		Country: s.str("country"), Phone: s.str("phone"), Website: s.str("website"), ImageURL: s.optional("image"),
		ShowMap: s.flag("show_map"), ShowMapLink: s.flag("show_map_link")}
	var err1, err2 error
	in.GeoLat, err1 = s.number("geo_lat")
	in.GeoLng, err2 = s.number("geo_lng")
	return in, JoinInvalid(err1, err2)
}

// OrganizerInput is the models input of an organizer form's values.
func OrganizerInput(vals map[string]string) (models.OrganizerInput, error) {
	s := newSetters(vals)
	return models.OrganizerInput{PostInput: s.status(), Organizer: s.str("organizer"), Description: s.str("description"),
		Email: s.str("email"), Phone: s.str("phone"), Website: s.str("website"), ImageURL: s.optional("image")}, nil
}

// JoinInvalid merges validation errors into one (nil when there is none).
func JoinInvalid(errs ...error) error {
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
