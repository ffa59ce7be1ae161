// Package ordered is a JSON object that keeps its key order, for the
// schema.org JSON-LD that the API and the public pages share
// (internal/jsonld): the API writes it inside its own responses, the pages
// marshal it alone.
package ordered

import (
	"bytes"
	"encoding/json"
)

// KV is one member of an Obj.
type KV struct {
	K string
	V any
}

// Obj is a JSON object whose members are written in order.
type Obj []KV

// MarshalJSON writes the members in order, without HTML escaping.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(kv.K); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(kv.V); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
