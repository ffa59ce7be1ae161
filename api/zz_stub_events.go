package api

// Temporary stubs of functions other branches deliver (apicore, terms,
// linked). Deleted when they land on main.

import (
	"github.com/kalends/kalends/models"
)

func presentTermEmbedded(r *Request, t *models.Term) Obj {
	return Obj{{"name", t.Name}, {"slug", t.Slug}, {"id", t.ID}}
}
