package tecimport

import (
	"encoding/json"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
)

// The records as TEC (and Kalends, which answers in TEC's shape) send
// them; only the fields the import keeps.

type srcTerm struct {
	ID           int64    `json:"id"`
	Name         string   `json:"name"`
	Slug         string   `json:"slug"`
	Description  string   `json:"description"`
	Parent       int64    `json:"parent"`
	Lang         string   `json:"lang"`
	Translations []string `json:"translations"`
}

type srcPost struct {
	ID           int64           `json:"id"`
	Author       string          `json:"author"`
	Status       string          `json:"status"`
	DateUTC      string          `json:"date_utc"`
	URL          string          `json:"url"`
	Description  string          `json:"description"`
	Slug         string          `json:"slug"`
	Image        json.RawMessage `json:"image"`
	Lang         string          `json:"lang"`
	Translations []string        `json:"translations"`
}

type srcVenue struct {
	srcPost
	Venue         string   `json:"venue"`
	Address       string   `json:"address"`
	City          string   `json:"city"`
	Country       string   `json:"country"`
	Province      string   `json:"province"`
	State         string   `json:"state"`
	Zip           string   `json:"zip"`
	Phone         string   `json:"phone"`
	Website       string   `json:"website"`
	StateProvince string   `json:"stateprovince"`
	GeoLat        *float64 `json:"geo_lat"`
	GeoLng        *float64 `json:"geo_lng"`
	ShowMap       *bool    `json:"show_map"`
	ShowMapLink   *bool    `json:"show_map_link"`
}

type srcOrganizer struct {
	srcPost
	Organizer string `json:"organizer"`
	Phone     string `json:"phone"`
	Website   string `json:"website"`
	Email     string `json:"email"`
}

type srcEvent struct {
	srcPost
	Title       string `json:"title"`
	Excerpt     string `json:"excerpt"`
	AllDay      bool   `json:"all_day"`
	StartDate   string `json:"start_date"`
	EndDate     string `json:"end_date"`
	Timezone    string `json:"timezone"`
	Cost        string `json:"cost"`
	CostDetails struct {
		CurrencySymbol   string   `json:"currency_symbol"`
		CurrencyCode     string   `json:"currency_code"`
		CurrencyPosition string   `json:"currency_position"`
		Values           []string `json:"values"`
	} `json:"cost_details"`
	Website          string            `json:"website"`
	ShowMap          bool              `json:"show_map"`
	ShowMapLink      bool              `json:"show_map_link"`
	HideFromListings bool              `json:"hide_from_listings"`
	Sticky           bool              `json:"sticky"`
	Featured         bool              `json:"featured"`
	Categories       []srcTerm         `json:"categories"`
	Tags             []srcTerm         `json:"tags"`
	Venue            json.RawMessage   `json:"venue"`
	Organizer        []json.RawMessage `json:"organizer"`
	SeriesID         *int64            `json:"series_id"`
	Recurrence       *struct {
		ICal string `json:"ical"`
	} `json:"recurrence"`
}

// imageURL is the address of a record's image: TEC sends false for none,
// an object with url otherwise (or, from older sites, the URL itself).
func imageURL(raw json.RawMessage) string {
	var obj struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.URL != "" {
		return obj.URL
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// venues are the venue objects of an event: TEC sends one object, [] for
// none, or a list when there are several.
func (e *srcEvent) venues() []json.RawMessage {
	raw := strings.TrimSpace(string(e.Venue))
	if raw == "" || raw == "[]" || raw == "null" || raw == "false" {
		return nil
	}
	if strings.HasPrefix(raw, "[") {
		var list []json.RawMessage
		_ = json.Unmarshal(e.Venue, &list)
		return list
	}
	return []json.RawMessage{e.Venue}
}

// DecodeSlug is a WordPress slug as Kalends stores it: WordPress keeps
// non-ASCII slugs percent-encoded in lower case (%e6%9d%b1…), so they are
// decoded and composed (models.DecodeSlug, as the public pages read a slug
// in a path); a slug that does not decode is kept as sent (composed).
func DecodeSlug(s string) string {
	if d, ok := models.DecodeSlug(s); ok {
		return d
	}
	return norm.NFC.String(s)
}

// sourceID is a record's id at the source, as stored in import_sources.
func sourceID(id int64) string { return strconv.FormatInt(id, 10) }
