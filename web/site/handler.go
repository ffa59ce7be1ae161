package site

import "github.com/kalends/kalends/web/ui"

// handler holds the dependencies of the public pages, the feeds and the
// sitemap.
type handler struct{ d *ui.Deps }
