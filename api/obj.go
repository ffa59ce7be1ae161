package api

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/kalends/kalends/internal/ordered"
)

// KV is one member of an Obj.
type KV struct {
	K string
	V any
}

// Obj is a JSON object that keeps its key order (TEC's key order is part of
// the wire contract; Go maps would sort the keys).
type Obj []KV

// MarshalJSON writes the members in order, without HTML escaping. Nested
// Objs, slices and scalars are written into the one buffer; marshalling
// each value on its own made encoding/json re-validate and re-copy every
// nested object once per level.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := appendJSON(&b, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// appendJSON writes v as JSON to b, byte for byte as marshal would: the
// shapes responses are built of are written directly, anything else goes
// through encoding/json.
func appendJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case rawJSON: // a part (parts.go), written once
		b.Write(v)
	case ordered.Obj: // the JSON-LD of internal/jsonld, written as an Obj
		return appendMembers(b, len(v), func(i int) (string, any) { return v[i].K, v[i].V })
	case []ordered.Obj:
		return appendArray(b, v, func(o ordered.Obj) error { return appendJSON(b, o) })
	case Obj: // a nil Obj is {} too, as its MarshalJSON always said
		return appendMembers(b, len(v), func(i int) (string, any) { return v[i].K, v[i].V })
	case []Obj:
		return appendArray(b, v, func(o Obj) error { return appendJSON(b, o) })
	case []any:
		return appendArray(b, v, func(e any) error { return appendJSON(b, e) })
	case []string:
		return appendArray(b, v, func(e string) error { appendString(b, e); return nil })
	case string:
		appendString(b, v)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case nil:
		b.WriteString("null")
	default:
		raw, err := marshalStd(v)
		if err != nil {
			return err
		}
		b.Write(raw)
	}
	return nil
}

// appendMembers writes n members as a JSON object, member i being the key
// and value member(i) returns.
func appendMembers(b *bytes.Buffer, n int, member func(i int) (string, any)) error {
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		k, v := member(i)
		appendString(b, k)
		b.WriteByte(':')
		if err := appendJSON(b, v); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// appendArray writes a slice as a JSON array (null when nil), each item
// with item.
func appendArray[T any](b *bytes.Buffer, v []T, item func(T) error) error {
	if v == nil {
		b.WriteString("null")
		return nil
	}
	b.WriteByte('[')
	for i, e := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := item(e); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// appendString writes s as a JSON string the way encoding/json does with
// HTML escaping off: control characters, quote and backslash escaped,
// invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped.
func appendString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '\\', '"':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// Get returns the value of key k and whether it is there.
func (o Obj) Get(k string) (any, bool) {
	for _, kv := range o {
		if kv.K == k {
			return kv.V, true
		}
	}
	return nil, false
}

// marshal encodes v as JSON without HTML escaping and without the trailing
// newline of json.Encoder.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := appendJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// marshalStd is marshal through encoding/json, for the types appendJSON
// does not write itself.
func marshalStd(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
