package models

import "time"

// Site holds the settings of the whole site: one value, built in main from
// the configuration and given to the store (UseSite) and to both adapters,
// so the API and the admin read the same time zone, language, page cap and
// currency.
type Site struct {
	// BaseURL is the public root without a trailing slash, used in every
	// URL the site emits ("https://events.example.org").
	BaseURL string
	// Location is the site time zone: the zone of events without their own
	// and of date-only filters.
	Location *time.Location
	// DefaultLanguage is the language of requests that name none, one of
	// i18n.Codes (the one list of languages; models keeps none of its own
	// and treats a language as an opaque code). The configuration checks
	// it; "" lets the adapters use i18n's source language.
	DefaultLanguage string
	// MaxPerPage caps the page size of every list.
	MaxPerPage int
	// Currency used for costs that carry no symbol of their own (TEC's
	// defaults: "$", "prefix", "USD").
	CurrencySymbol, CurrencyPosition, CurrencyCode string
	// Clock returns the current time; nil means Now. Tests set it.
	Clock func() time.Time
	// Limits are the abuse limits; nil means DefaultLimits.
	Limits *Limits
	// RevisionsKeep is how many revisions each event, venue and organizer
	// keeps (0: none are kept); nil means DefaultRevisionsKeep.
	RevisionsKeep *int
	// SeriesHorizon is how far ahead of now the occurrences of recurring
	// events are materialized; 0 means DefaultSeriesHorizon.
	SeriesHorizon time.Duration
	// SessionMaxAge is how long a session lasts after sign-in however
	// much it is used; 0 means DefaultSessionMaxAge.
	SessionMaxAge time.Duration
}

// DefaultSessionMaxAge is the absolute lifetime of a session of a site that
// sets none: 30 days after sign-in, the user signs in again.
const DefaultSessionMaxAge = 30 * 24 * time.Hour

// SessionLifetime is the site's SessionMaxAge, or the default.
func (s *Site) SessionLifetime() time.Duration {
	if s == nil || s.SessionMaxAge <= 0 {
		return DefaultSessionMaxAge
	}
	return s.SessionMaxAge
}

// Horizon is the end of the materialized occurrences of series: now plus
// the site's SeriesHorizon.
func (s *Site) Horizon() time.Time {
	h := DefaultSeriesHorizon
	if s != nil && s.SeriesHorizon > 0 {
		h = s.SeriesHorizon
	}
	return s.Now().Add(h)
}

// DefaultSite is the configuration of a site nobody configured: UTC, no
// language of its own (the adapters then speak i18n's source language,
// English), 500 records a page, US dollars, served on 127.0.0.1:8080.
func DefaultSite() *Site {
	return &Site{BaseURL: "http://127.0.0.1:8080", Location: time.UTC, MaxPerPage: 500,
		CurrencySymbol: "$", CurrencyPosition: "prefix", CurrencyCode: "USD"}
}

// Zone is the site time zone (UTC when unset).
func (s *Site) Zone() *time.Location {
	if s == nil || s.Location == nil {
		return time.UTC
	}
	return s.Location
}

// Language is the configured default language, "" when unset; the
// adapters pass it through i18n.OrSource, which also turns an unknown code
// into the source language.
func (s *Site) Language() string {
	if s == nil {
		return ""
	}
	return s.DefaultLanguage
}

// Now is the site clock: UTC, whole seconds (see the package function Now).
func (s *Site) Now() time.Time {
	if s == nil || s.Clock == nil {
		return Now()
	}
	return Sec(s.Clock())
}

// PageSize is the page size of a list asked for n records (0 or less: the
// default of 120), capped at MaxPerPage as TEC caps it silently.
func (s *Site) PageSize(n int64) int {
	if n <= 0 {
		n = DefaultPerPage
	}
	if s != nil && s.MaxPerPage > 0 && n > int64(s.MaxPerPage) {
		n = int64(s.MaxPerPage)
	}
	if n > 1<<31 {
		n = 1 << 31
	}
	return int(n)
}

// DefaultPerPage is the page size of a list that asks for none (the
// published default of every list route).
const DefaultPerPage = 120
