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

// monthView is /events/?view=month: a month as a table of weeks, each day
// with the events on it; no JavaScript.
type monthView struct {
	Frame       publicView
	Month       string // as the language writes it
	Weekdays    []string
	Weeks       [][]monthDay
	Prev, Next  string
	List        string // the list view with the same filters
	Truncated   bool
	Webcal, ICS string
}

type monthDay struct {
	Day    int
	In     bool // in the month shown (not a neighbour's day filling the week)
	Today  bool
	Events []link
}
