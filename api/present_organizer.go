package api

import "github.com/kalends/kalends/models"

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

// organizerJSONLD is the schema.org Person of an organizer, in the language
// it was read in. The e-mail is plain text: TEC's HTML-entity obfuscation
// only breaks JSON consumers.
func organizerJSONLD(_ *Request, o *models.Organizer) Obj {
	out := Obj{{"@type", "Person"}, {"name", o.Organizer}, {"description", plainText(o.Description)},
		{"url", o.Website}}
	// telephone and sameAs are always there, empty when unset (sample 19).
	out = append(out, KV{"telephone", o.Phone})
	return append(linkedTexts(out, KV{"email", o.Email}), KV{"sameAs", o.Website})
}
