// Package ui holds what the admin (web/admin) and the public site
// (web/site) share: their dependencies, the page headers, dates in each
// language, the session reader, the URL builders and the language list.
// It imports neither surface.
package ui

import (
	"log/slog"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/admission"
	"github.com/kalends/kalends/internal/partcache"
	"github.com/kalends/kalends/internal/respcache"
	"github.com/kalends/kalends/models"
)

// Deps holds what the browser pages need. One value is built in main.
type Deps struct {
	DB     *models.DB
	I18n   *i18n.Bundle
	Logger *slog.Logger
	// Site holds the settings shared with the store and the API (its
	// default language is used when nothing in the request picks one).
	Site    *models.Site
	APIPath string // path of the API index, e.g. "/cal/events/v1/"
	// Cache, when set, is the response cache shared with the API: public
	// pages and feeds are answered from it for anonymous readers.
	Cache *respcache.Cache
	// Parts, when set, is the parts cache shared with the API: what pages
	// read the same for every visitor is kept there until the next write.
	Parts *partcache.Cache
	// Gate, when set, bounds the requests worked on at once (shared with
	// the API); the admin and the public pages' cache misses go through it.
	Gate *admission.Gate
	// ImportMaxBytes bounds a spreadsheet uploaded to the admin's CSV
	// import (--import-max-bytes); 0 is DefaultImportMaxBytes.
	ImportMaxBytes int64
	// Ident, when set, keeps the site's identity (the settings) in memory
	// until the cache generation moves; see Identity.
	Ident *Identity
	// EmbedOrigins are the origins that may frame the embeds
	// (--embed-origins: exact origins or "*"); none: no embeds, no oEmbed.
	EmbedOrigins []string
}

// DefaultImportMaxBytes is --import-max-bytes' default: 50 MiB.
const DefaultImportMaxBytes = 50 << 20
