package api

import (
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/admission"
	"github.com/kalends/kalends/models"
)

// Deps holds what the API needs. One value is built in main and passed to
// Mount.
type Deps struct {
	DB *models.DB
	// MediaMaxBytes is the largest image POST /media takes (--media-max-bytes).
	MediaMaxBytes int64
	I18n          *i18n.Bundle
	// Site holds the settings shared with the store and the admin (base
	// URL, time zone, default language, page cap, currency, clock).
	Site *models.Site
	// CORSOrigins lists the browser origins allowed to write with
	// credentials (SPEC §2).
	CORSOrigins []string
	Logger      *slog.Logger
	// Cache, when set, answers anonymous GETs from memory (ResponseCache).
	Cache *ResponseCache
	// Parts, when set, keeps the rendered JSON of single records, from
	// which lists are assembled (PartCache).
	Parts *PartCache
	// Gate, when set, bounds the requests worked on at once (shared with
	// the admin); answers from the cache do not wait for it.
	Gate *admission.Gate
	// RequestTimeout bounds each request; zero means the package's
	// RequestTimeout. Tests shorten it to reach the deadline quickly.
	RequestTimeout time.Duration
}

func (d *Deps) requestTimeout() time.Duration {
	if d.RequestTimeout > 0 {
		return d.RequestTimeout
	}
	return RequestTimeout
}

// site returns the site settings (the defaults when none were given).
func (d *Deps) site() *models.Site {
	if d.Site == nil {
		return models.DefaultSite()
	}
	return d.Site
}

// Root returns the public root with the request's language prefix:
// "http://host:8080" or "http://host:8080/ja".
func (d *Deps) Root(r *Request) string {
	if r != nil && r.Prefix != "" {
		return d.site().BaseURL + r.Prefix
	}
	return d.site().BaseURL
}

// PageRoot is the root of the public pages in the request's language:
// <base-url> in the site's default language, <base-url>/<lang> in the
// others, whether the language came by path prefix or by ml_language, so a
// record's url leads to its page in the language it was read in.
func (d *Deps) PageRoot(r *Request) string {
	if r != nil && r.Lang != "" && r.Lang != d.defaultLang() {
		return d.site().BaseURL + "/" + r.Lang
	}
	return d.site().BaseURL
}

// APIURL returns the absolute URL of path inside the namespace, keeping the
// request's language prefix: APIURL(r, "/events/7") ->
// "http://host:8080/ja/cal/events/v1/events/7".
func (d *Deps) APIURL(r *Request, path string) string {
	return d.Root(r) + "/" + Namespace + path
}

// GlobalID returns TEC's global id of a post-like record:
// "<host><path>?id=<id>" of the base URL (no scheme, no port), as TEC builds
// it from the home URL.
func (d *Deps) GlobalID(id int64) string {
	base := d.site().BaseURL
	host := base
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		host = u.Hostname() + strings.TrimSuffix(u.Path, "/")
	}
	return host + "?id=" + strconv.FormatInt(id, 10)
}

func (d *Deps) defaultLang() string { return i18n.OrSource(d.site().Language()) }

func (d *Deps) now() time.Time { return d.site().Now() }

func (d *Deps) location() *time.Location { return d.site().Zone() }

func logger(d *Deps) *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.New(slog.DiscardHandler)
}
