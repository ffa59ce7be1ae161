package api

import (
	"github.com/kalends/kalends/internal/jsonld"
	"github.com/kalends/kalends/internal/ordered"
	"github.com/kalends/kalends/models"
)

// presentOrganizer renders an organizer in TEC's key order (tec-rest-v1.md
// §7, samples 02, 23): empty text fields left out, json_ld only when asked,
// then lang and translations.
func presentOrganizer(r *Request, o *models.Organizer, withJSONLD bool) Obj {
	out := linkedHead(r, &o.Post, "organizer", o.Organizer, o.Description, o.ImageURL)
	out = linkedTexts(out, KV{"phone", o.Phone}, KV{"website", o.Website}, KV{"email", o.Email})
	if withJSONLD {
		out = append(out, KV{"json_ld", organizerJSONLD(r, o)})
	}
	return linkedTail(r, out, o.ID, o.Lang, o.Translations)
}

// organizerJSONLD is the schema.org Person of an organizer (internal/jsonld).
func organizerJSONLD(_ *Request, o *models.Organizer) ordered.Obj { return jsonld.Organizer(o) }
