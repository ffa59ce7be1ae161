package api

import "github.com/kalends/kalends/models"

// Shared argument builders for the resource tables.

// argPage is the 1-based page number of a list.
func argPage() Arg {
	return Arg{Name: "page", Type: "integer", Default: 1, HasDefault: true, Desc: "arg.common.page",
		In: "query", Kind: KPositiveInt}
}

// argPerPage is the page size of a list (default 120; Request.PerPage
// clamps it to Config.MaxPerPage).
func argPerPage() Arg {
	return Arg{Name: "per_page", Type: "integer", Default: 120, HasDefault: true, Desc: "arg.common.per_page",
		In: "query", Kind: KPositiveInt}
}

// argSearch is a free-text search of a list (at most models.MaxSearchLen
// characters).
func argSearch() Arg {
	return Arg{Name: "search", Type: "string", Desc: "arg.common.search", In: "query", Kind: KString, MaxLen: models.MaxSearchLen}
}

// argIDPath is the numeric id in a route path; desc is its message id.
// KInt, not KPositiveInt: the route pattern already admits digits only,
// and id 0 names nothing, so it must reach the handler and answer the
// route's own 404 (as TEC does), not a 400.
func argIDPath(desc string) Arg {
	return Arg{Name: "id", Type: "integer", Desc: desc, In: "path", Kind: KInt}
}

// argSlugPath is the slug in a by-slug route path; desc is its message id.
// The path always carries it; required says what the index shows.
func argSlugPath(desc string, required bool) Arg {
	return Arg{Name: "slug", Type: "string", Desc: desc, In: "path", Kind: KNonEmpty, Required: required}
}

// argForce is our DELETE extension: true deletes for good instead of
// moving to the trash.
func argForce() Arg {
	return Arg{Name: "force", Type: "boolean", Default: false, HasDefault: true, Desc: "arg.common.force",
		In: "query", Kind: KBool}
}
