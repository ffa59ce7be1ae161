package api

// The component schemas of /doc: TEC's, with its mistakes fixed
// ("currency_position" without a trailing space, date details as the
// zero-padded strings they are, term urls as the object they are, author
// as a string, cost values as strings, image false-or-object), plus our
// lang and translations keys and an Error schema.

import "github.com/kalends/kalends/i18n"

// schemaBuilder localizes descriptions while building schemas.
type schemaBuilder struct{ r *Request }

func (b schemaBuilder) desc(id string) string { return b.r.T(id, nil) }

// p is a property of a plain type.
func (b schemaBuilder) p(typ, id string) Obj {
	return Obj{{"type", typ}, {"description", b.desc(id)}}
}

// pf is a property of a plain type with a format.
func (b schemaBuilder) pf(typ, format, id string) Obj {
	return Obj{{"type", typ}, {"format", format}, {"description", b.desc(id)}}
}

// arr is an array of a plain type.
func (b schemaBuilder) arr(items, id string) Obj {
	return Obj{{"type", "array"}, {"items", Obj{{"type", items}}}, {"description", b.desc(id)}}
}

// ref is a property holding one component (allOf, because OpenAPI 3.0
// ignores siblings of $ref).
func (b schemaBuilder) ref(name, id string) Obj {
	return Obj{{"allOf", []Obj{refTo(name)}}, {"description", b.desc(id)}}
}

// arrRef is an array of components.
func (b schemaBuilder) arrRef(name, id string) Obj {
	return Obj{{"type", "array"}, {"items", refTo(name)}, {"description", b.desc(id)}}
}

func refTo(name string) Obj { return Obj{{"$ref", "#/components/schemas/" + name}} }

func object(props Obj) Obj { return Obj{{"type", "object"}, {"properties", props}} }

// postCommon are the leading keys shared by events, venues and organizers.
func (b schemaBuilder) postCommon() Obj {
	return Obj{
		{"id", b.p("integer", "doc.prop.id")},
		{"global_id", b.p("string", "doc.prop.global_id")},
		{"global_id_lineage", b.arr("string", "doc.prop.global_id_lineage")},
		{"author", b.p("string", "doc.prop.author")},
		{"status", b.p("string", "doc.prop.status")},
		{"date", b.p("string", "doc.prop.date")},
		{"date_utc", b.p("string", "doc.prop.date_utc")},
		{"modified", b.p("string", "doc.prop.modified")},
		{"modified_utc", b.p("string", "doc.prop.modified_utc")},
		{"url", b.pf("string", "uri", "doc.prop.url")},
	}
}

// imageOrFalse: an image object, or false when there is none.
func (b schemaBuilder) imageOrFalse() Obj {
	return Obj{{"oneOf", []Obj{refTo("Image"), {{"type", "boolean"}}}}, {"description", b.desc("doc.prop.image")}}
}

func (b schemaBuilder) langKeys() Obj {
	return Obj{
		{"lang", Obj{{"type", "string"}, {"enum", i18n.Codes}, {"description", b.desc("doc.prop.lang")}}},
		{"translations", Obj{{"type", "array"}, {"items", Obj{{"type", "string"}, {"enum", i18n.Codes}}},
			{"description", b.desc("doc.prop.translations")}}},
		{"json_ld", b.p("object", "doc.prop.json_ld")},
	}
}

// docSchemas returns components.schemas in TEC's order, then Error.
func docSchemas(r *Request) Obj {
	b := schemaBuilder{r}
	dateDetails := Obj{}
	for _, k := range []string{"year", "month", "day", "hour", "minutes", "seconds"} {
		dateDetails = append(dateDetails, KV{k, b.p("string", "doc.prop.date_details."+k)})
	}
	event := append(b.postCommon(),
		KV{"rest_url", b.pf("string", "uri", "doc.prop.rest_url")},
		KV{"title", b.p("string", "doc.prop.title")},
		KV{"description", b.p("string", "doc.prop.description")},
		KV{"excerpt", b.p("string", "doc.prop.excerpt")},
		KV{"slug", b.p("string", "doc.prop.slug")},
		KV{"image", b.imageOrFalse()},
		KV{"all_day", b.p("boolean", "doc.prop.all_day")},
		KV{"start_date", b.p("string", "doc.prop.start_date")},
		KV{"start_date_details", b.ref("DateDetails", "doc.prop.start_date_details")},
		KV{"end_date", b.p("string", "doc.prop.end_date")},
		KV{"end_date_details", b.ref("DateDetails", "doc.prop.end_date_details")},
		KV{"utc_start_date", b.p("string", "doc.prop.utc_start_date")},
		KV{"utc_start_date_details", b.ref("DateDetails", "doc.prop.utc_start_date_details")},
		KV{"utc_end_date", b.p("string", "doc.prop.utc_end_date")},
		KV{"utc_end_date_details", b.ref("DateDetails", "doc.prop.utc_end_date_details")},
		KV{"timezone", b.p("string", "doc.prop.timezone")},
		KV{"timezone_abbr", b.p("string", "doc.prop.timezone_abbr")},
		KV{"cost", b.p("string", "doc.prop.cost")},
		KV{"cost_details", b.ref("CostDetails", "doc.prop.cost_details")},
		KV{"website", b.p("string", "doc.prop.website")},
		KV{"show_map", b.p("boolean", "doc.prop.show_map")},
		KV{"show_map_link", b.p("boolean", "doc.prop.show_map_link")},
		KV{"hide_from_listings", b.p("boolean", "doc.prop.hide_from_listings")},
		KV{"sticky", b.p("boolean", "doc.prop.sticky")},
		KV{"featured", b.p("boolean", "doc.prop.featured")},
		KV{"categories", b.arrRef("Term", "doc.prop.categories")},
		KV{"tags", b.arrRef("Term", "doc.prop.tags")},
		KV{"venue", Obj{{"oneOf", []Obj{refTo("Venue"), {{"type", "array"}, {"items", refTo("Venue")}}}},
			{"description", b.desc("doc.prop.event_venue")}}},
		KV{"organizer", b.arrRef("Organizer", "doc.prop.event_organizer")},
		KV{"custom_fields", Obj{{"type", "array"}, {"items", Obj{}}, {"description", b.desc("doc.prop.custom_fields")}}},
	)
	event = append(event, b.langKeys()...)
	// Our extension: the fields of events of a recurring series (absent
	// on single events).
	rule := Obj{
		{"rrule", Obj{{"type", "array"}, {"items", Obj{{"type", "string"}}}, {"description", b.desc("doc.prop.recurrence.rrule")}}},
		{"rdate", Obj{{"type", "array"}, {"items", Obj{{"type", "string"}}}, {"description", b.desc("doc.prop.recurrence.rdate")}}},
		{"exdate", Obj{{"type", "array"}, {"items", Obj{{"type", "string"}}}, {"description", b.desc("doc.prop.recurrence.exdate")}}},
		{"ical", b.p("string", "doc.prop.recurrence.ical")},
		{"text", b.p("string", "doc.prop.recurrence.text")},
	}
	event = append(event,
		KV{"series_id", b.p("integer", "doc.prop.series_id")},
		KV{"recurrence_id", b.p("string", "doc.prop.recurrence_id")},
		KV{"is_exception", b.p("boolean", "doc.prop.is_exception")},
		KV{"recurrence", Obj{{"type", "object"}, {"properties", rule}, {"description", b.desc("doc.prop.recurrence")}}},
	)
	venue := append(b.postCommon(),
		KV{"venue", b.p("string", "doc.prop.venue_name")},
		KV{"description", b.p("string", "doc.prop.description")},
		KV{"slug", b.p("string", "doc.prop.slug")},
		KV{"image", b.imageOrFalse()},
		KV{"address", b.p("string", "doc.prop.address")},
		KV{"city", b.p("string", "doc.prop.city")},
		KV{"country", b.p("string", "doc.prop.country")},
		KV{"province", b.p("string", "doc.prop.province")},
		KV{"state", b.p("string", "doc.prop.state")},
		KV{"zip", b.p("string", "doc.prop.zip")},
		KV{"phone", b.p("string", "doc.prop.phone")},
		KV{"website", b.p("string", "doc.prop.website")},
		KV{"stateprovince", b.p("string", "doc.prop.stateprovince")},
		KV{"geo_lat", b.pf("number", "double", "doc.prop.geo_lat")},
		KV{"geo_lng", b.pf("number", "double", "doc.prop.geo_lng")},
		KV{"show_map", b.p("boolean", "doc.prop.show_map")},
		KV{"show_map_link", b.p("boolean", "doc.prop.show_map_link")},
	)
	venue = append(venue, b.langKeys()...)
	organizer := append(b.postCommon(),
		KV{"organizer", b.p("string", "doc.prop.organizer_name")},
		KV{"description", b.p("string", "doc.prop.description")},
		KV{"slug", b.p("string", "doc.prop.slug")},
		KV{"image", b.imageOrFalse()},
		KV{"phone", b.p("string", "doc.prop.phone")},
		KV{"website", b.p("string", "doc.prop.website")},
		KV{"email", b.pf("string", "email", "doc.prop.email")},
	)
	organizer = append(organizer, b.langKeys()...)
	term := Obj{
		{"id", b.p("integer", "doc.prop.id")},
		{"name", b.p("string", "doc.prop.term_name")},
		{"slug", b.p("string", "doc.prop.slug")},
		{"taxonomy", b.p("string", "doc.prop.taxonomy")},
		{"description", b.p("string", "doc.prop.description")},
		{"parent", b.p("integer", "doc.prop.parent")},
		{"count", b.p("integer", "doc.prop.count")},
		{"url", b.pf("string", "uri", "doc.prop.url")},
		{"urls", Obj{{"type", "object"}, {"additionalProperties", Obj{{"type", "string"}, {"format", "uri"}}},
			{"description", b.desc("doc.prop.urls")}}},
		{"lang", Obj{{"type", "string"}, {"enum", i18n.Codes}, {"description", b.desc("doc.prop.lang")}}},
		{"translations", Obj{{"type", "array"}, {"items", Obj{{"type", "string"}, {"enum", i18n.Codes}}},
			{"description", b.desc("doc.prop.translations")}}},
	}
	return Obj{
		{"ImageSize", object(Obj{
			{"width", b.p("integer", "doc.prop.width")},
			{"height", b.p("integer", "doc.prop.height")},
			{"mime-type", b.p("string", "doc.prop.mime_type")},
			{"filesize", b.p("integer", "media.doc.filesize")},
			{"url", b.pf("string", "uri", "doc.prop.image_url")},
		})},
		{"CostDetails", object(Obj{
			{"currency_symbol", b.p("string", "doc.prop.currency_symbol")},
			{"currency_code", b.p("string", "doc.prop.currency_code")},
			{"currency_position", Obj{{"type", "string"}, {"enum", []string{"prefix", "postfix", ""}},
				{"description", b.desc("doc.prop.currency_position")}}},
			{"values", b.arr("string", "doc.prop.cost_values")},
		})},
		{"Term", object(term)},
		{"Image", object(Obj{
			{"url", b.pf("string", "uri", "doc.prop.image_url")},
			{"id", b.p("integer", "doc.prop.image_id")},
			{"extension", b.p("string", "doc.prop.extension")},
			{"width", b.p("integer", "doc.prop.width")},
			{"height", b.p("integer", "doc.prop.height")},
			{"filesize", b.p("integer", "media.doc.filesize")},
			{"sizes", Obj{{"type", "object"}, {"additionalProperties", refTo("ImageSize")}, {"description", b.desc("doc.prop.sizes")}}},
		})},
		{"DateDetails", object(dateDetails)},
		{"Event", object(event)},
		{"Venue", object(venue)},
		{"Organizer", object(organizer)},
		{"Media", object(Obj{
			{"url", b.pf("string", "uri", "doc.prop.image_url")},
			{"id", b.p("integer", "doc.prop.image_id")},
			{"extension", b.p("string", "doc.prop.extension")},
			{"width", b.p("integer", "doc.prop.width")},
			{"height", b.p("integer", "doc.prop.height")},
			{"filesize", b.p("integer", "media.doc.filesize")},
			{"sizes", Obj{{"type", "object"}, {"additionalProperties", refTo("ImageSize")}, {"description", b.desc("doc.prop.sizes")}}},
			{"alt_text", b.p("string", "media.doc.alt_text")},
			{"title", b.p("string", "media.doc.title")},
			{"mime_type", b.p("string", "doc.prop.mime_type")},
			{"translations", Obj{{"type", "array"}, {"items", Obj{{"type", "string"}, {"enum", i18n.Codes}}},
				{"description", b.desc("doc.prop.translations")}}},
		})},
		{"Error", object(Obj{
			{"code", b.p("string", "doc.prop.error_code")},
			{"message", b.p("string", "doc.prop.error_message")},
			{"data", Obj{{"type", "object"}, {"properties", Obj{{"status", b.p("integer", "doc.prop.error_status")}}},
				{"description", b.desc("doc.prop.error_data")}}},
		})},
	}
}
