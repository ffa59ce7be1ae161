package api

// The change feed in /doc (issue 34): its operation's description (how to
// join without a gap, what each action means, the 410), its answer's
// schema, and the cursor header every list answer carries.

// operationDescription is the long description of the operations that
// have one ("" for the others).
func operationDescription(r *Request, docPath string) string {
	if docPath == "/changes" {
		return r.T("doc.changes.description", nil)
	}
	return ""
}

// withCursorHeader adds the X-Kalends-Changes-Cursor header to a 200 answer.
func withCursorHeader(r *Request, resp Obj) Obj {
	return append(resp, KV{"headers", Obj{{ChangesCursorHeader, Obj{
		{"description", r.T("doc.changes.header", nil)}, {"schema", Obj{{"type", "string"}}},
	}}}})
}

// changesSchema is the object GET /changes answers with.
func changesSchema(r *Request) Obj {
	b := schemaBuilder{r}
	enum := func(values []string, id string) Obj {
		return Obj{{"type", "string"}, {"enum", values}, {"description", b.desc(id)}}
	}
	change := object(Obj{
		{"kind", enum([]string{"event", "venue", "organizer", "category", "tag", "media"}, "doc.changes.kind")},
		{"id", b.p("integer", "doc.changes.id")},
		{"action", enum([]string{"created", "updated", "removed"}, "doc.changes.action")},
		{"modified_utc", b.p("string", "doc.changes.modified_utc")},
		{"rest_url", b.pf("string", "uri", "doc.changes.rest_url")},
	})
	return object(Obj{
		{"changes", Obj{{"type", "array"}, {"items", change}, {"description", b.desc("doc.changes.changes")}}},
		{"cursor", b.p("string", "doc.changes.cursor")},
		{"next_rest_url", b.pf("string", "uri", "doc.changes.next_rest_url")},
	})
}

// webhookKinds are the kinds a webhook reports, with the schema of the
// record its data holds.
var webhookKinds = []struct{ kind, schema string }{
	{"event", "Event"}, {"venue", "Venue"}, {"organizer", "Organizer"},
	{"category", "Term"}, {"tag", "Term"}, {"media", "Media"},
}

// webhooksDoc describes the requests Kalends sends to webhook endpoints, one
// per kind, as OpenAPI 3.0's x-webhooks extension (3.1's webhooks, which
// Redoc shows beside the paths): the Standard Webhooks headers, the body
// {type, timestamp, data}, and what an answer means.
func webhooksDoc(r *Request) Obj {
	b := schemaBuilder{r}
	header := func(name, id string, typ string) Obj {
		return Obj{{"name", name}, {"in", "header"}, {"required", true}, {"description", b.desc(id)}, {"schema", Obj{{"type", typ}}}}
	}
	params := []Obj{
		header("webhook-id", "doc.webhooks.header.id", "string"),
		header("webhook-timestamp", "doc.webhooks.header.timestamp", "integer"),
		header("webhook-signature", "doc.webhooks.header.signature", "string"),
	}
	removed := object(Obj{
		{"kind", b.p("string", "doc.changes.kind")},
		{"id", b.p("integer", "doc.changes.id")},
	})
	removed = append(removed, KV{"description", b.desc("doc.webhooks.removed")})
	out := Obj{}
	for _, k := range webhookKinds {
		types := []string{k.kind + ".created", k.kind + ".updated", k.kind + ".removed"}
		body := object(Obj{
			{"type", Obj{{"type", "string"}, {"enum", types}, {"description", b.desc("doc.webhooks.type")}}},
			{"timestamp", b.pf("string", "date-time", "doc.webhooks.timestamp")},
			{"data", Obj{{"description", b.desc("doc.webhooks.data")}, {"oneOf", []Obj{
				{{"$ref", "#/components/schemas/" + k.schema}}, removed,
			}}}},
		})
		body = append(body, KV{"required", []string{"type", "timestamp", "data"}})
		out = append(out, KV{k.kind, Obj{{"post", Obj{
			{"operationId", "webhook_" + k.kind},
			{"summary", r.T("doc.webhooks.summary", map[string]any{"Kind": r.T("admin.webhooks.kind."+k.kind, nil)})},
			{"description", r.T("doc.webhooks.description", nil)},
			{"parameters", params},
			{"requestBody", Obj{{"required", true}, {"content", Obj{{"application/json", Obj{{"schema", body}}}}}}},
			{"responses", Obj{
				{"2XX", Obj{{"description", r.T("doc.webhooks.response.ok", nil)}}},
				{"default", Obj{{"description", r.T("doc.webhooks.response.other", nil)}}},
			}},
			{"security", []Obj{}},
		}}}})
	}
	return out
}
