package site

// The values the public pages' templ components render: handlers fill
// them, the components read them, and neither side is needed to read this
// file.

import (
	"time"

	"github.com/kalends/kalends/web/ui"
)

// publicView is the frame of a public page.
type publicView struct {
	Lang, HTMLLang, Title, Description string
	T                                  func(id string) string
	CSSURL                             string
	Canonical                          string
	XDefault                           string        // the page in the site's default language
	Alternates                         []ui.LangLink // hreflang: every language, then x-default
	OG                                 []metaPair
	JSONLD                             string
	SiteName, Home                     string
	Path                               string // the page's path without language prefix
	// Robots is the page's robots meta ("" for none): noindex on lists
	// that show no event and on filtered pages, which search engines
	// should not keep (their links are still followed).
	Robots string
	// Preview is the banner of a preview page ("" on every other page).
	Preview string
	// The site's identity (/admin/settings): tagline, logo (address and
	// size), the generated stylesheet ("" for none), the links back to the
	// organization's site, and the page's oEmbed discovery address.
	Tagline               string
	Logo                  string
	LogoWidth, LogoHeight int
	ThemeURL              string
	SiteLinks             []link
	OEmbed                string
}

type metaPair struct{ Property, Content string }

// link is a labelled URL.
type link struct{ Label, Href string }

// eventCard is one event in a public list.
type eventCard struct {
	Title, URL, When, Venue string
	Start                   time.Time
	// The views' card: the start date (for the photo grid), the times in
	// the event's own zone when it differs from the site's (with the
	// zone), the venue's city, the categories, cost, featured marking
	// and image; Placeholder names the first category where there is no
	// image.
	Date, OwnWhen, City, Cost, Placeholder string
	Chips                                  []link
	Featured                               bool
	Image                                  *cardImage
}

// eventPageView is the page of one event.
type eventPageView struct {
	Frame                                         publicView
	When, Zone, Cost, Image, Website, Description string
	Venue                                         *venueBlock
	Organizers                                    []organizerBlock
	Categories, Tags                              []link
	AddTo                                         []link // Google, Outlook, .ics
	Webcal                                        string
	// Repeats is the sentence of a recurring event's rule, Next the
	// series' next occurrences (this one marked by an empty Href).
	Repeats string
	Next    []link
}

type venueBlock struct {
	Name, URL, Address, Map string
}

type organizerBlock struct {
	Name, URL, Email, Phone, Website string
}

// recordPageView is the page of a venue, an organizer, a category or a tag:
// its details and its upcoming events.
type recordPageView struct {
	Frame       publicView
	Kind        string // heading above the name, localized
	Description string // sanitized HTML
	Details     []link // label: value (Href when a link)
	Map         string
	Events      []eventCard
	Pager       publicPager
	Webcal, ICS string
	Image       string // the record's image (URL), "" for none
}

// publicPager links the previous and next pages of a list.
type publicPager struct {
	Prev, Next string
	Page, Of   int
}

type monthDay struct {
	Day         int
	In          bool // in the month shown (not a neighbour's day filling the week)
	Today       bool
	Date, Label string // YYYY-MM-DD, and as the language writes it
	Href        string // the day view ("" for a day without events)
	Count       int    // the day's events, all of them
	Events      []monthEvent
	More        int // Count less those shown
	MoreText    string
	MoreLabel   string // "+N more" with the date, for assistive technology
}

// viewPage is a page of /events/: one of its views with the filter bar
// and the subscribe links. The view's own part (viewBody) is apart from
// the page shell, so another frame can show it.
type viewPage struct {
	Frame     publicView
	View      string // list, month, day or photo
	Tabs      []viewTab
	Filters   filterBar
	Subscribe []link
	// Switch links the list between upcoming and past events; FilterRel
	// is "nofollow" on a filtered page (its links keep the filters).
	Switch    link
	FilterRel string
	None      string // what an empty list says
	// Days are the list's and the day view's events under their day.
	Days   []dayGroup
	Photos []eventCard
	Month  *monthGrid
	Pager  publicPager
	// DayTitle is the day view's day; DayPrev and DayNext the nearest
	// days with events ("" for none).
	DayTitle, DayPrev, DayNext string
	MonthPrev, MonthNext       string
}

type viewTab struct {
	Label, Href, Rel string
	Current          bool
}

// filterBar is the form of every view's filters.
type filterBar struct {
	Categories, Tags, Venues, Organizers []filterOption
	// VenueSearch and OrganizerSearch show a search box for records
	// beyond the listed ones.
	VenueSearch, OrganizerSearch bool
	VenueQuery, OrganizerQuery   string
	Featured                     bool
	Search                       string
	Keep                         []link // hidden arguments: the view's own (Label: name, Href: value)
}

type filterOption struct {
	Value, Label string
	// ID is the record's id when Value is its slug (a filter names a term
	// by either).
	ID       string `json:",omitempty"`
	Selected bool   `json:"-"`
}

type dayGroup struct {
	Date, Heading string // YYYY-MM-DD, and as the language writes it
	Cards         []eventCard
}

// cardImage is an event's image on a card.
type cardImage struct {
	Src, Srcset, Alt string
	Loading          string // lazy, or eager for the first cards of a page
	Width, Height    int
	External         bool // not of the media library: shown in a fixed box
}

type monthGrid struct {
	Title    string
	Weekdays []string
	Weeks    [][]monthDay
}

type monthEvent struct {
	Time, Title, Href string
}
