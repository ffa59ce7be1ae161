package models

import (
	"time"

	"github.com/uptrace/bun"
)

// Kind names a kind of record. Events, venues and organizers are post-like
// and share one id space (table post_ids); categories and tags are terms;
// users are accounts.
type Kind string

// The kinds of record.
const (
	KindEvent     Kind = "event"
	KindVenue     Kind = "venue"
	KindOrganizer Kind = "organizer"
	KindCategory  Kind = "category"
	KindTag       Kind = "tag"
	// KindUser names user accounts (and their application passwords and
	// sessions) in refusals and not-found errors; users are not posts.
	KindUser Kind = "user"
	// KindMedia names images of the media library.
	KindMedia Kind = "media"
	// KindRevision names a kept state of an event, venue or organizer.
	KindRevision Kind = "revision"
	// KindSettings names the site's settings (its identity), which only
	// administrators change.
	KindSettings Kind = "settings"
)

// Post statuses (SPEC §6). Terms have none.
const (
	StatusPublish = "publish"
	StatusFuture  = "future"
	StatusDraft   = "draft"
	StatusPending = "pending"
	StatusPrivate = "private"
	StatusTrash   = "trash"
)

// Statuses lists every valid post status, in the order the admin shows them.
var Statuses = []string{StatusPublish, StatusFuture, StatusDraft, StatusPending, StatusPrivate, StatusTrash}

// ValidStatus reports whether s is a post status.
func ValidStatus(s string) bool {
	for _, v := range Statuses {
		if v == s {
			return true
		}
	}
	return false
}

// PostID allocates ids in the shared id space of post-like records.
type PostID struct {
	ID   int64  `bun:"id,pk,autoincrement"`
	Kind string `bun:"kind,notnull"`
}

// Post holds the columns that events, venues and organizers share (they are
// WordPress posts in TEC): each of the three embeds it, so the rules written
// once for posts (permissions, lookup by id or slug, trash) apply to all.
type Post struct {
	ID          int64     `bun:"id,pk"`
	AuthorID    int64     `bun:"author_id,notnull"`
	Status      string    `bun:"status,notnull"`
	Slug        string    `bun:"slug,notnull"`
	Lang        string    `bun:"lang,notnull"` // source language
	PublishedAt time.Time `bun:"published_at,notnull"`
	CreatedAt   time.Time `bun:"created_at,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,notnull"`
	// ModifiedBy is the user who changed the record last (0: unknown, or
	// the system, as the scheduled publisher).
	ModifiedBy int64 `bun:"modified_by,notnull"`

	// Translations lists the languages that have a translation, sorted;
	// loaded in batch by the read operations, not a column.
	Translations []string `bun:"-"`
}

// Event is a stored event. Times are UTC; the local wall-clock values are
// computed at the edge from StartAt/EndAt and Timezone.
type Event struct {
	Post
	Title            string    `bun:"title,notnull"`
	Description      string    `bun:"description,notnull"`
	Excerpt          string    `bun:"excerpt,notnull"`
	StartAt          time.Time `bun:"start_at,notnull"`
	EndAt            time.Time `bun:"end_at,notnull"`
	Timezone         string    `bun:"timezone,notnull"`
	AllDay           bool      `bun:"all_day,notnull"`
	Cost             string    `bun:"cost,notnull"` // JSON of what was sent (string or list); "" for none
	CurrencySymbol   string    `bun:"currency_symbol,notnull"`
	CurrencyCode     string    `bun:"currency_code,notnull"`
	CurrencyPosition string    `bun:"currency_position,notnull"` // "prefix", "postfix" or ""
	Website          *string   `bun:"website"`                   // nil: never set (the permalink is shown)
	ShowMap          bool      `bun:"show_map,notnull"`
	ShowMapLink      bool      `bun:"show_map_link,notnull"`
	HideFromListings bool      `bun:"hide_from_listings,notnull"`
	Sticky           bool      `bun:"sticky,notnull"`
	Featured         bool      `bun:"featured,notnull"`
	ImageURL         string    `bun:"image_url,notnull"`
	ParentID         *int64    `bun:"parent_id"`
	UID              *string   `bun:"uid"` // iCalendar UID of an imported event; nil for events made here

	// Recurrence (recurrence.go). Recurrence is the rule of a series, set
	// on the series row only; SeriesID and RecurrenceID are set on every
	// occurrence, the series row (its own first occurrence) included.
	Recurrence   *string    `bun:"recurrence"`
	SeriesID     *int64     `bun:"series_id"`
	RecurrenceID *time.Time `bun:"recurrence_id"`
	IsException  bool       `bun:"is_exception,notnull"`
	SeriesUntil  *time.Time `bun:"series_until"`
	// SeriesRule is the rule of the event's series, read for every
	// occurrence of a page (nil for events that do not recur).
	SeriesRule  *Recurrence `bun:"-"`
	SeriesStart time.Time   `bun:"-"` // the series' first start, in its zone

	// The linked records, read in the same language as the event: every
	// operation that returns events fills them (a fixed number of queries
	// for a whole page), so adapters never assemble an event themselves.
	Venues     []*Venue     `bun:"-"` // in link order
	Organizers []*Organizer `bun:"-"` // in link order
	Categories []*Term      `bun:"-"` // by name
	Tags       []*Term      `bun:"-"` // by name
}

// Venue is a stored venue.
type Venue struct {
	Post
	Venue         string   `bun:"venue,notnull"`
	Description   string   `bun:"description,notnull"`
	Address       string   `bun:"address,notnull"`
	City          string   `bun:"city,notnull"`
	Country       string   `bun:"country,notnull"`
	Province      string   `bun:"province,notnull"`
	State         string   `bun:"state,notnull"`
	Zip           string   `bun:"zip,notnull"`
	Phone         string   `bun:"phone,notnull"`
	StateProvince string   `bun:"stateprovince,notnull"`
	Website       string   `bun:"website,notnull"`
	ImageURL      string   `bun:"image_url,notnull"`
	GeoLat        *float64 `bun:"geo_lat"`
	GeoLng        *float64 `bun:"geo_lng"`
	ShowMap       bool     `bun:"show_map,notnull"`
	ShowMapLink   bool     `bun:"show_map_link,notnull"`
}

// Organizer is a stored organizer.
type Organizer struct {
	Post
	Organizer   string `bun:"organizer,notnull"`
	Description string `bun:"description,notnull"`
	Phone       string `bun:"phone,notnull"`
	Website     string `bun:"website,notnull"`
	Email       string `bun:"email,notnull"`
	ImageURL    string `bun:"image_url,notnull"`
}

// Term is a category or a tag. Taxonomy is "category" or "tag".
type Term struct {
	ID          int64     `bun:"id,pk,autoincrement"`
	Taxonomy    string    `bun:"taxonomy,notnull"`
	Name        string    `bun:"name,notnull"`
	NameKey     string    `bun:"name_key,notnull"` // lower-cased name: one name per level, whatever the collation
	Slug        string    `bun:"slug,notnull"`
	Description string    `bun:"description,notnull"`
	ParentID    int64     `bun:"parent_id,notnull"`
	TermGroup   int64     `bun:"term_group,notnull"`
	Lang        string    `bun:"lang,notnull"`
	CreatedAt   time.Time `bun:"created_at,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,notnull"`

	Count        int64    `bun:"-"` // published events with the term, loaded in batch
	Translations []string `bun:"-"`
}

// EventVenue links an event to a venue.
type EventVenue struct {
	bun.BaseModel `bun:"table:event_venues"`
	EventID       int64 `bun:"event_id,pk"`
	VenueID       int64 `bun:"venue_id,pk"`
	Position      int   `bun:"position,notnull"`
}

// EventOrganizer links an event to an organizer, in order.
type EventOrganizer struct {
	bun.BaseModel `bun:"table:event_organizers"`
	EventID       int64 `bun:"event_id,pk"`
	OrganizerID   int64 `bun:"organizer_id,pk"`
	Position      int   `bun:"position,notnull"`
}

// EventTerm links an event to a category or tag.
type EventTerm struct {
	bun.BaseModel `bun:"table:event_terms"`
	EventID       int64 `bun:"event_id,pk"`
	TermID        int64 `bun:"term_id,pk"`
	// Copies of the event's fields that a filtered list counts on, kept by
	// syncEventTerms in the transaction of every event write.
	Status  string    `bun:"status,notnull"`
	StartAt time.Time `bun:"start_at,nullzero"`
	EndAt   time.Time `bun:"end_at,nullzero"`
	Hidden  bool      `bun:"hidden,notnull"`
}

// User is an account. Login is stored lower-case.
type User struct {
	ID           int64     `bun:"id,pk,autoincrement"`
	Login        string    `bun:"login,notnull"`
	Email        string    `bun:"email,notnull"`
	DisplayName  string    `bun:"display_name,notnull"`
	Role         Role      `bun:"role,notnull"`
	PasswordHash string    `bun:"password_hash,notnull"`
	Locale       string    `bun:"locale,notnull"`
	CreatedAt    time.Time `bun:"created_at,notnull"`
	UpdatedAt    time.Time `bun:"updated_at,notnull"`
}

// AppPassword is an application password for API clients (HTTP Basic).
type AppPassword struct {
	ID           int64      `bun:"id,pk,autoincrement"`
	UserID       int64      `bun:"user_id,notnull"`
	Name         string     `bun:"name,notnull"`
	PasswordHash string     `bun:"password_hash,notnull"`
	CreatedAt    time.Time  `bun:"created_at,notnull"`
	LastUsedAt   *time.Time `bun:"last_used_at"`
	LastIP       string     `bun:"last_ip,notnull"`
	RevokedAt    *time.Time `bun:"revoked_at"`
}

// Session is a signed-in admin session; ID is the SHA-256 of the cookie token.
type Session struct {
	ID        string    `bun:"id,pk"`
	UserID    int64     `bun:"user_id,notnull"`
	CSRFToken string    `bun:"csrf_token,notnull"`
	Nonce     string    `bun:"nonce,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"` // the sign-in
	ExpiresAt time.Time `bun:"expires_at,notnull"`
	// UserAgent is the browser's User-Agent at sign-in, cut to
	// maxUserAgent characters; IP the client's address when last seen.
	UserAgent string `bun:"user_agent,notnull"`
	IP        string `bun:"ip,notnull"`
	// LastSeenAt is when the session was last used, to within
	// SessionSeenResolution (zero for a row written before it was kept:
	// see SeenAt).
	LastSeenAt time.Time `bun:"last_seen_at,nullzero"`
}
