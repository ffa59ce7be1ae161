package models

import (
	"strings"

	"github.com/uptrace/bun"
)

// OrganizerInput holds the fields of an organizer create or partial update.
// A nil field was not sent: create uses the default, update keeps the value.
type OrganizerInput struct {
	PostInput
	Organizer, Description, Phone, Website, Email, ImageURL *string
}

// OrganizerRef names an organizer to link to an event.
type OrganizerRef = LinkRef[OrganizerInput]

var organizerSpec = linkedSpec{
	kind: KindOrganizer, table: "organizers", alias: "organizer", linkTable: "event_organizers", linkCol: "organizer_id",
	search: []string{"organizer", "description", "phone", "email", "website"},
}

// organizers is how organizers differ from venues (see linkedKind).
var organizers = &linkedKind[Organizer, OrganizerInput]{
	spec:          organizerSpec,
	unknownReason: "reason.events.unknown_organizer",
	post:          func(o *Organizer) *Post { return &o.Post },
	name:          func(o *Organizer) string { return o.Organizer },
	base:          func(in *OrganizerInput) *PostInput { return &in.PostInput },
	image:         func(in *OrganizerInput) *string { return in.ImageURL },
	check: func(in *OrganizerInput, create bool) error {
		nfcFields(&in.Organizer, &in.Phone)
		var c fieldChecks
		checkName(&c, "organizer", in.Organizer, create)
		in.PostInput.check(&c)
		in.Description = sanitizeHTML(in.Description)
		c.text("description", in.Description, MaxLongTextLen)
		c.text("phone", in.Phone, MaxNameLen)
		c.text("website", in.Website, MaxNameLen)
		c.text("email", in.Email, MaxNameLen)
		c.text("image", in.ImageURL, MaxNameLen)
		c.url("website", in.Website, "reason.invalid_url")
		c.image("image", in.ImageURL, "reason.invalid_url")
		if in.Email != nil && *in.Email != "" && !ValidEmail(*in.Email) {
			c.add("email", "reason.invalid_email", nil)
		}
		return c.err()
	},
	build: func(in *OrganizerInput) *Organizer {
		return &Organizer{
			Organizer: strings.TrimSpace(strOr(in.Organizer, "")), Description: strOr(in.Description, ""),
			Phone: strOr(in.Phone, ""), Website: strOr(in.Website, ""), Email: strOr(in.Email, ""),
			ImageURL: strOr(in.ImageURL, ""),
		}
	},
	apply: func(o *Organizer, in *OrganizerInput, text func(field string, p, dst *string)) {
		text("organizer", trimmed(in.Organizer), &o.Organizer)
		text("description", in.Description, &o.Description)
		setStr(&o.Phone, in.Phone)
		setStr(&o.Website, in.Website)
		setStr(&o.Email, in.Email)
		setStr(&o.ImageURL, in.ImageURL)
	},
	// Every provided identifying field (name, description, phone, e-mail,
	// website) must be equal ignoring case.
	duplicates: func(q *bun.SelectQuery, in *OrganizerInput) *bun.SelectQuery {
		a := organizerSpec.alias
		q = dupCondition(q, a, "organizer", in.Organizer, false)
		q = dupCondition(q, a, "description", in.Description, false)
		q = dupCondition(q, a, "phone", in.Phone, false)
		q = dupCondition(q, a, "email", in.Email, false)
		return dupCondition(q, a, "website", in.Website, false)
	},
}
