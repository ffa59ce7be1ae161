package api

import "github.com/kalends/kalends/models"

// presentOrganizer renders an organizer in TEC's key order (tec-rest-v1.md
// §7, samples 02, 23): empty text fields left out, json_ld only when asked,
// then lang and translations.
func presentOrganizer(r *Request, o *models.Organizer, withJSONLD bool) Obj {
	out := linkedHead(r, o.ID, o.AuthorID, o.Status, o.PublishedAt, o.UpdatedAt, "organizer", o.Slug)
	out = append(out, KV{"organizer", o.Organizer})
	out = linkedText(out, "description", o.Description)
	out = append(out, KV{"slug", o.Slug})
	out = linkedImageKV(out, o.ImageURL)
	out = linkedText(out, "phone", o.Phone)
	out = linkedText(out, "website", o.Website)
	out = linkedText(out, "email", o.Email)
	if withJSONLD {
		out = append(out, KV{"json_ld", organizerJSONLD(r, o)})
	}
	return linkedTail(r, out, o.ID, o.Lang, o.Translations)
}

// organizerJSONLD is the schema.org Person of an organizer, in the language
// it was read in. The e-mail is plain text: TEC's HTML-entity obfuscation
// only breaks JSON consumers.
func organizerJSONLD(r *Request, o *models.Organizer) Obj {
	out := Obj{{"@type", "Person"}, {"name", o.Organizer}, {"description", plainText(o.Description)},
		{"url", o.Website}}
	out = linkedText(out, "telephone", o.Phone)
	out = linkedText(out, "email", o.Email)
	return linkedText(out, "sameAs", o.Website)
}
