package ui

import (
	"net/url"

	"github.com/kalends/kalends/i18n"
)

// PageURL is the absolute URL of path in lang: no prefix in the site's
// default language, /<lang> otherwise (as the API's url of a record).
func (d *Deps) PageURL(lang, path string) string {
	if lang == d.SiteLang() {
		return d.Site.BaseURL + path
	}
	return d.Site.BaseURL + "/" + lang + path
}

// SiteLang is the site's default language (the source language when unset).
func (d *Deps) SiteLang() string { return i18n.OrSource(d.Site.Language()) }

// PagePath is PageURL without the base URL (for redirects).
func (d *Deps) PagePath(lang, path string) string {
	if lang == d.SiteLang() {
		return path
	}
	return "/" + lang + path
}

// WebcalURL is url with its scheme replaced by webcal (calendar apps
// subscribe to it).
func WebcalURL(u string) string {
	if p, err := url.Parse(u); err == nil {
		p.Scheme = "webcal"
		return p.String()
	}
	return u
}

// PreviewPath is where the edit forms of events, venues and organizers
// post a preview (web/site serves it): PreviewPath+"event" for a new
// event, PreviewPath+"event/12" for event 12.
const PreviewPath = "/preview/"
