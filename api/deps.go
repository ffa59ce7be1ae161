package api

import (
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// Config is the part of the server configuration the API needs.
type Config struct {
	BaseURL         string         // public root without trailing slash, e.g. "http://127.0.0.1:8080"
	MaxPerPage      int            // page size cap (values above are clamped)
	Location        *time.Location // site time zone
	DefaultLanguage string         // "en" unless configured
	CORSOrigins     []string       // browser origins allowed to write with credentials
	// Currency defaults for costs without their own symbol (TEC's defaults).
	CurrencySymbol   string // "$"
	CurrencyPosition string // "prefix"
	CurrencyCode     string // "USD"
}

// Deps holds what handlers need. One value is built in main and passed down.
type Deps struct {
	DB     *models.DB
	I18n   *i18n.Bundle
	Config Config
	Logger *slog.Logger
	// Now is the clock (UTC); tests may replace it.
	Now func() time.Time
}

// Root returns the public root with the request's language prefix:
// "http://host:8080" or "http://host:8080/ja".
func (d *Deps) Root(r *Request) string {
	if r != nil && r.Prefix != "" {
		return d.Config.BaseURL + r.Prefix
	}
	return d.Config.BaseURL
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
	host := d.Config.BaseURL
	if u, err := url.Parse(d.Config.BaseURL); err == nil && u.Host != "" {
		host = u.Hostname() + strings.TrimSuffix(u.Path, "/")
	}
	return host + "?id=" + strconv.FormatInt(id, 10)
}
