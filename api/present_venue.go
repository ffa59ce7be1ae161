package api

import (
	"html"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/models"
)

// presentVenue renders a venue in TEC's key order (tec-rest-v1.md §6.4,
// samples 01, 21): empty text fields are left out, as TEC filters every
// empty value; coordinates only as a pair; json_ld only when asked (single
// reads); then Kalends' lang and translations.
func presentVenue(r *Request, v *models.Venue, withJSONLD bool) Obj {
	o := linkedHead(r, v.ID, v.AuthorID, v.Status, v.PublishedAt, v.UpdatedAt, "venue", v.Slug)
	o = append(o, KV{"venue", v.Venue})
	o = linkedText(o, "description", v.Description)
	o = append(o, KV{"slug", v.Slug})
	o = linkedImageKV(o, v.ImageURL)
	o = linkedText(o, "address", v.Address)
	o = linkedText(o, "city", v.City)
	o = linkedText(o, "country", v.Country)
	o = linkedText(o, "province", v.Province)
	o = linkedText(o, "state", v.State)
	o = linkedText(o, "zip", v.Zip)
	o = linkedText(o, "phone", v.Phone)
	o = linkedText(o, "website", v.Website)
	o = linkedText(o, "stateprovince", v.StateProvince)
	if v.GeoLat != nil && v.GeoLng != nil {
		o = append(o, KV{"geo_lat", *v.GeoLat}, KV{"geo_lng", *v.GeoLng})
	}
	if withJSONLD {
		o = append(o, KV{"json_ld", venueJSONLD(r, v)})
	}
	o = append(o, KV{"show_map", v.ShowMap}, KV{"show_map_link", v.ShowMapLink})
	return linkedTail(r, o, v.ID, v.Lang, v.Translations)
}

// venueJSONLD is the schema.org Place of a venue, in the language the venue
// was read in; the event's json_ld reuses it as its location.
func venueJSONLD(r *Request, v *models.Venue) Obj {
	o := Obj{{"@type", "Place"}, {"name", v.Venue}, {"description", plainText(v.Description)},
		{"url", linkedURL(r, "venue", v.Slug)}}
	var addr Obj
	for _, kv := range []KV{{"streetAddress", v.Address}, {"addressLocality", v.City},
		{"addressRegion", v.StateProvince}, {"postalCode", v.Zip}, {"addressCountry", v.Country}} {
		if kv.V.(string) != "" {
			addr = append(addr, kv)
		}
	}
	if len(addr) > 0 {
		o = append(o, KV{"address", append(Obj{{"@type", "PostalAddress"}}, addr...)})
	}
	if v.GeoLat != nil && v.GeoLng != nil {
		o = append(o, KV{"geo", Obj{{"@type", "GeoCoordinates"}, {"latitude", *v.GeoLat}, {"longitude", *v.GeoLng}}})
	}
	o = linkedText(o, "telephone", v.Phone)
	return linkedText(o, "sameAs", v.Website)
}

// linkedHead is the common start of a venue or organizer object: id,
// author (a string, as TEC), status, dates (site-local and UTC) and url.
func linkedHead(r *Request, id, author int64, status string, published, modified time.Time, kind, slug string) Obj {
	return Obj{
		{"id", id},
		{"author", strconv.FormatInt(author, 10)},
		{"status", status},
		{"date", linkedLocalTime(r, published)},
		{"date_utc", published.UTC().Format(time.DateTime)},
		{"modified", linkedLocalTime(r, modified)},
		{"modified_utc", modified.UTC().Format(time.DateTime)},
		{"url", linkedURL(r, kind, slug)},
	}
}

// linkedTail closes a venue or organizer object: global ids, then lang and
// translations (SPEC §3).
func linkedTail(r *Request, o Obj, id int64, lang string, translations []string) Obj {
	gid := r.Deps.GlobalID(id)
	if translations == nil {
		translations = []string{}
	}
	return append(o, KV{"global_id", gid}, KV{"global_id_lineage", []string{gid}},
		KV{"lang", lang}, KV{"translations", translations})
}

// linkedURL is the public permalink <root>/<kind>/<slug>/.
func linkedURL(r *Request, kind, slug string) string {
	return r.Deps.Root(r) + "/" + kind + "/" + url.PathEscape(slug) + "/"
}

func linkedLocalTime(r *Request, t time.Time) string {
	return t.In(r.Deps.location()).Format(time.DateTime)
}

// linkedText appends key only when the text is not empty (TEC drops empty
// values from venue and organizer objects).
func linkedText(o Obj, key, s string) Obj {
	if s == "" {
		return o
	}
	return append(o, KV{key, s})
}

// linkedImageKV adds the image object when there is one. Without an image
// the key is left out, as TEC drops every empty value of a venue or
// organizer (its image would be false).
func linkedImageKV(o Obj, u string) Obj {
	if u == "" {
		return o
	}
	return append(o, KV{"image", linkedImage(u)})
}

// linkedImage is false when there is no image, else the image object with
// what a stored URL tells: its url and extension.
func linkedImage(u string) any {
	if u == "" {
		return false
	}
	o := Obj{{"url", u}}
	if pu, err := url.Parse(u); err == nil {
		if ext := strings.TrimPrefix(strings.ToLower(path.Ext(pu.Path)), "."); ext != "" {
			o = append(o, KV{"extension", ext})
		}
	}
	return o
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// plainText turns an HTML description into the plain text JSON-LD wants.
func plainText(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(s, " "))), " ")
}
