package api

import (
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/internal/jsonld"
	"github.com/kalends/kalends/internal/ordered"
	"github.com/kalends/kalends/models"
)

// presentVenue renders a venue in TEC's key order (tec-rest-v1.md §6.4,
// samples 01, 21): empty text fields are left out, as TEC filters every
// empty value; coordinates only as a pair; json_ld only when asked (single
// reads); then Kalends' lang and translations.
func presentVenue(r *Request, v *models.Venue, withJSONLD bool) Obj {
	o := linkedHead(r, &v.Post, "venue", v.Venue, v.Description, v.ImageURL)
	o = linkedTexts(o, KV{"address", v.Address}, KV{"city", v.City}, KV{"country", v.Country},
		KV{"province", v.Province}, KV{"state", v.State}, KV{"zip", v.Zip}, KV{"phone", v.Phone},
		KV{"website", v.Website}, KV{"stateprovince", v.StateProvince})
	if v.GeoLat != nil && v.GeoLng != nil {
		o = append(o, KV{"geo_lat", *v.GeoLat}, KV{"geo_lng", *v.GeoLng})
	}
	if withJSONLD {
		o = append(o, KV{"json_ld", venueJSONLD(r, v)})
	}
	o = append(o, KV{"show_map", v.ShowMap}, KV{"show_map_link", v.ShowMapLink})
	return linkedTail(r, o, v.ID, v.Lang, v.Translations)
}

// venueJSONLD is the schema.org Place of a venue (internal/jsonld), in the
// language the venue was read in.
func venueJSONLD(r *Request, v *models.Venue) ordered.Obj {
	return jsonld.Venue(v, linkedURL(r, "venue", v.Slug))
}

// linkedHead is the common start of a venue or organizer object: id,
// author (a string, as TEC), status, dates (site-local and UTC), url, the
// name under the kind's key, description, slug and image.
func linkedHead(r *Request, p *models.Post, kind, name, description, image string) Obj {
	o := Obj{
		{"id", p.ID},
		{"author", strconv.FormatInt(p.AuthorID, 10)},
		{"status", p.Status},
		{"date", linkedLocalTime(r, p.PublishedAt)},
		{"date_utc", p.PublishedAt.UTC().Format(time.DateTime)},
		{"modified", linkedLocalTime(r, p.UpdatedAt)},
		{"modified_utc", p.UpdatedAt.UTC().Format(time.DateTime)},
		{"url", linkedURL(r, kind, p.Slug)},
		{kind, name},
	}
	o = linkedTexts(o, KV{"description", description})
	o = append(o, KV{"slug", p.Slug})
	return linkedImageKV(r, o, image)
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
	return r.Deps.PageRoot(r) + "/" + kind + "/" + url.PathEscape(slug) + "/"
}

func linkedLocalTime(r *Request, t time.Time) string {
	return t.In(r.Deps.location()).Format(time.DateTime)
}

// linkedTexts appends the members whose text is not empty (TEC drops
// empty values from venue and organizer objects).
func linkedTexts(o Obj, kvs ...KV) Obj {
	for _, kv := range kvs {
		if kv.V != "" {
			o = append(o, kv)
		}
	}
	return o
}

// linkedImageKV adds the image object when there is one. Without an image
// the key is left out, as TEC drops every empty value of a venue or
// organizer (its image would be false).
func linkedImageKV(r *Request, o Obj, u string) Obj {
	if u == "" {
		return o
	}
	return append(o, KV{"image", recordImage(r, u)})
}

// linkedImageURL is the image object of an image given by URL, with what
// the URL tells: its url and extension.
func linkedImageURL(u string) Obj {
	o := Obj{{"url", u}}
	if pu, err := url.Parse(u); err == nil {
		if ext := strings.TrimPrefix(strings.ToLower(path.Ext(pu.Path)), "."); ext != "" {
			o = append(o, KV{"extension", ext})
		}
	}
	return o
}
