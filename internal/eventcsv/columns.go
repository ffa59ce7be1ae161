package eventcsv

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Kinds of file.
const (
	KindEvents     = "events"
	KindVenues     = "venues"
	KindOrganizers = "organizers"
)

// Fields a column can hold: our API's field names (SPEC), so a file with
// our own headers maps one to one.
const (
	FieldID             = "id"
	FieldTitle          = "title"
	FieldDescription    = "description"
	FieldExcerpt        = "excerpt"
	FieldStartDate      = "start_date"
	FieldStartTime      = "start_time"
	FieldEndDate        = "end_date"
	FieldEndTime        = "end_time"
	FieldAllDay         = "all_day"
	FieldTimezone       = "timezone"
	FieldVenue          = "venue"
	FieldOrganizer      = "organizer"
	FieldCategories     = "categories"
	FieldTags           = "tags"
	FieldCost           = "cost"
	FieldCurrencySymbol = "currency_symbol"
	FieldCurrencyCode   = "currency_code"
	FieldCurrencyPos    = "currency_position"
	FieldWebsite        = "website"
	FieldImage          = "image"
	FieldStatus         = "status"
	FieldSlug           = "slug"
	FieldFeatured       = "featured"
	FieldHidden         = "hide_from_listings"
	FieldShowMap        = "show_map"
	FieldShowMapLink    = "show_map_link"
	FieldAddress        = "address"
	FieldCity           = "city"
	FieldCountry        = "country"
	FieldProvince       = "province"
	FieldState          = "state"
	FieldZip            = "zip"
	FieldPhone          = "phone"
	FieldEmail          = "email"
	// FieldMarker is the column of files Kalends exported: its presence
	// makes their id column count and their escaped cells unescaped.
	FieldMarker = "kalends_export"
)

// headers maps a normalized header (headerKey) to its field, per kind:
// The Events Calendar's CSV names (its knowledge base's examples), their
// common variants, and our API's names.
var headers = map[string]map[string]string{
	KindEvents: keyed(map[string][]string{
		FieldID:             {"id", "event id"},
		FieldTitle:          {"title", "event name", "event title", "name"},
		FieldDescription:    {"description", "event description", "content"},
		FieldExcerpt:        {"excerpt", "event excerpt"},
		FieldStartDate:      {"start_date", "event start date", "start date"},
		FieldStartTime:      {"start_time", "event start time", "start time"},
		FieldEndDate:        {"end_date", "event end date", "end date"},
		FieldEndTime:        {"end_time", "event end time", "end time"},
		FieldAllDay:         {"all_day", "all day event", "event all day", "all day"},
		FieldTimezone:       {"timezone", "event time zone", "event timezone", "time zone"},
		FieldVenue:          {"venue", "event venue name", "venue name", "event venue"},
		FieldOrganizer:      {"organizer", "event organizer name", "organizer name", "event organizer", "event organizers"},
		FieldCategories:     {"categories", "event category", "event categories", "category"},
		FieldTags:           {"tags", "event tags", "event tag", "tag"},
		FieldCost:           {"cost", "event cost"},
		FieldCurrencySymbol: {"currency_symbol", "event currency symbol", "currency symbol"},
		FieldCurrencyCode:   {"currency_code", "event currency code", "currency code", "event iso currency code"},
		FieldCurrencyPos:    {"currency_position", "event currency position", "currency position"},
		FieldWebsite:        {"website", "event website", "url", "event url"},
		FieldImage:          {"image", "event featured image", "featured image", "image url"},
		FieldStatus:         {"status", "event status"},
		FieldSlug:           {"slug", "event slug"},
		FieldFeatured:       {"featured", "event featured", "featured event"},
		FieldHidden:         {"hide_from_listings", "hide from event listings", "hide from listings", "event hide from listings"},
		FieldShowMap:        {"show_map", "event show map", "show map"},
		FieldShowMapLink:    {"show_map_link", "event show map link", "show map link"},
		FieldMarker:         {FieldMarker},
	}),
	KindVenues: keyed(map[string][]string{
		FieldID:          {"id", "venue id"},
		FieldTitle:       {"venue", "venue name", "name", "title"},
		FieldDescription: {"description", "venue description"},
		FieldAddress:     {"address", "venue address"},
		FieldCity:        {"city", "venue city"},
		FieldCountry:     {"country", "venue country"},
		FieldProvince:    {"province", "venue state/province", "venue province", "state/province"},
		FieldState:       {"state", "venue state"},
		FieldZip:         {"zip", "venue zip", "postal code", "venue postal code"},
		FieldPhone:       {"phone", "venue phone"},
		FieldWebsite:     {"website", "venue website", "url"},
		FieldImage:       {"image", "venue featured image", "featured image"},
		FieldStatus:      {"status", "venue status"},
		FieldSlug:        {"slug", "venue slug"},
		FieldShowMap:     {"show_map", "venue show map", "show map"},
		FieldShowMapLink: {"show_map_link", "venue show map link", "show map link"},
		FieldMarker:      {FieldMarker},
	}),
	KindOrganizers: keyed(map[string][]string{
		FieldID:          {"id", "organizer id"},
		FieldTitle:       {"organizer", "organizer name", "name", "title"},
		FieldDescription: {"description", "organizer description"},
		FieldEmail:       {"email", "organizer email", "e-mail"},
		FieldPhone:       {"phone", "organizer phone"},
		FieldWebsite:     {"website", "organizer website", "url"},
		FieldImage:       {"image", "organizer featured image", "featured image"},
		FieldStatus:      {"status", "organizer status"},
		FieldSlug:        {"slug", "organizer slug"},
		FieldMarker:      {FieldMarker},
	}),
}

// keyed inverts field → names into headerKey(name) → field.
func keyed(m map[string][]string) map[string]string {
	out := map[string]string{}
	for field, names := range m {
		for _, n := range names {
			out[headerKey(n)] = field
		}
	}
	return out
}

// headerKey is a header as it is matched: NFKC (full-width letters and
// spaces become ASCII), lower case, spaces, underscores and hyphens
// dropped ("Event Start Date", "event_start_date" and "EVENT  START DATE"
// are one key).
func headerKey(h string) string {
	h = norm.NFKC.String(strings.TrimPrefix(h, "\uFEFF"))
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		if unicode.IsSpace(r) || r == '_' || r == '-' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Mapping is the field of each column of a file ("" for a column that is
// not read), guessed by GuessMapping and changeable by hand.
type Mapping []string

// GuessMapping maps the header row of a file of kind to fields. A field
// named by two columns goes to the first; the second is left unread.
func GuessMapping(kind string, header []string) Mapping {
	known := headers[kind]
	m := make(Mapping, len(header))
	taken := map[string]bool{}
	for i, h := range header {
		f := known[headerKey(h)]
		if f != "" && !taken[f] {
			m[i], taken[f] = f, true
		}
	}
	return m
}

// Fields lists the fields a column of kind can be mapped to, for a
// mapping chosen by hand.
func Fields(kind string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range headers[kind] {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// DetectSeparator says which of comma, semicolon and tab separates the
// cells of text, from its first line (outside quotes): the one found most
// often, comma on a tie or when none is found.
func DetectSeparator(text string) rune {
	inQuote := false
	counts := map[rune]int{}
scan:
	for _, r := range text {
		switch {
		case r == '"':
			inQuote = !inQuote
		case inQuote:
		case r == '\n' || r == '\r':
			break scan
		case r == ',' || r == ';' || r == '\t':
			counts[r]++
		}
	}
	best := ','
	for _, r := range []rune{';', '\t'} {
		if counts[r] > counts[best] {
			best = r
		}
	}
	return best
}

// formulaStarts are the first characters that make a spreadsheet read a
// cell as a formula (OWASP's CSV injection list).
const formulaStarts = "=+-@\t\r"

// EscapeCell keeps a spreadsheet from running a cell as a formula: a
// value starting with = + - @, a tab or a carriage return gets a leading
// apostrophe, which spreadsheets show as text and do not display. A value
// that already starts with apostrophes before such a character gets one
// more, so UnescapeCell gives it back exactly.
func EscapeCell(v string) string {
	if formulaLike(v) {
		return "'" + v
	}
	return v
}

// UnescapeCell undoes EscapeCell, for files this site exported (they
// carry FieldMarker): one apostrophe before apostrophes and a formula
// character is dropped; any other apostrophe was the author's.
func UnescapeCell(v string) string {
	if strings.HasPrefix(v, "'") && formulaLike(v[1:]) {
		return v[1:]
	}
	return v
}

// formulaLike reports whether v, past any leading apostrophes, starts
// with a formula character.
func formulaLike(v string) bool {
	v = strings.TrimLeft(v, "'")
	return v != "" && strings.ContainsRune(formulaStarts, rune(v[0]))
}
