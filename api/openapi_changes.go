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
