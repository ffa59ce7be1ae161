package api

// Temporary stubs of functions other branches deliver (apicore, terms,
// linked). Deleted when they land on main.

import (
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

func argPage() Arg {
	return Arg{Name: "page", Type: "integer", Default: int64(1), HasDefault: true, Kind: KPositiveInt, Desc: "arg.common.page", In: "query"}
}

func argPerPage() Arg {
	return Arg{Name: "per_page", Type: "integer", Default: int64(120), HasDefault: true, Kind: KPositiveInt, Desc: "arg.common.per_page", In: "query"}
}

func argSearch() Arg {
	return Arg{Name: "search", Type: "string", Kind: KString, MaxLen: 200, Desc: "arg.common.search", In: "query"}
}

func argIDPath(desc string) Arg {
	return Arg{Name: "id", Type: "integer", Required: true, Kind: KInt, Desc: desc, In: "path"}
}

func argSlugPath(desc string, required bool) Arg {
	return Arg{Name: "slug", Type: "string", Required: required, Kind: KNonEmpty, Desc: desc, In: "path"}
}

func argForce() Arg {
	return Arg{Name: "force", Type: "boolean", Default: false, HasDefault: true, Kind: KBool, Desc: "arg.common.force", In: "query"}
}

// Page is the requested page number.
func (r *Request) Page() int {
	n, ok := r.Int("page")
	if !ok || n < 1 {
		return 1
	}
	return int(n)
}

// PerPage is the requested page size, clamped.
func (r *Request) PerPage() int {
	n, ok := r.Int("per_page")
	if !ok || n < 1 {
		n = 120
	}
	if m := int64(r.Deps.Config.MaxPerPage); m > 0 && n > m {
		n = m
	}
	return int(n)
}

func listURL(r *Request, path string, q []KV) string {
	v := url.Values{}
	s := ""
	for _, kv := range q {
		v = url.Values{kv.K: {kv.V.(string)}}
		if s != "" {
			s += "&"
		}
		s += v.Encode()
	}
	u := r.Deps.APIURL(r, path)
	if s != "" {
		u += "?" + s
	}
	return u
}

func setListHeaders(c *fiber.Ctx, r *Request, total, totalPages int, next, prev string) {
	c.Set("X-TEC-Total", strconv.Itoa(total))
	c.Set("X-TEC-TotalPages", strconv.Itoa(totalPages))
}

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
