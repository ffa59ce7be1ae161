package api

import (
	"net/url"
	"strconv"
	"strings"
)

// Limits of the form and query parsers, as PHP's max_input_vars and
// max_input_nesting_level: pairs past maxPairs are ignored, deeper keys are
// dropped.
const (
	maxPairs    = 20000
	maxNesting  = 16
	maxKeyBytes = 1024
)

// omap is an ordered map under construction: PHP arrays keep insertion
// order, and a node whose keys are all indexes becomes a list.
type omap struct {
	keys []string
	m    map[string]any // string or *omap
	next int            // next index for "x[]"
}

func newOmap() *omap { return &omap{m: map[string]any{}} }

func (o *omap) set(k string, v any) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
	if n, ok := indexKey(k); ok && n >= o.next {
		o.next = n + 1
	}
}

func (o *omap) child(k string) *omap {
	if c, ok := o.m[k].(*omap); ok {
		return c
	}
	c := newOmap()
	o.set(k, c)
	return c
}

// indexKey reports whether k is a PHP integer key (no sign, no leading zero).
func indexKey(k string) (int, bool) {
	if k == "" || len(k) > 9 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(k)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// value converts the node: all-index keys give []any in insertion order,
// anything else map[string]any.
func (o *omap) value() any {
	list := true
	for _, k := range o.keys {
		if _, ok := indexKey(k); !ok {
			list = false
			break
		}
	}
	if list && len(o.keys) > 0 {
		out := make([]any, 0, len(o.keys))
		for _, k := range o.keys {
			out = append(out, leafValue(o.m[k]))
		}
		return out
	}
	out := make(map[string]any, len(o.keys))
	for _, k := range o.keys {
		out[k] = leafValue(o.m[k])
	}
	return out
}

func leafValue(v any) any {
	if c, ok := v.(*omap); ok {
		return c.value()
	}
	return v
}

// splitKey splits "a[b][0][]" into "a" and ["b", "0", ""]. A key without
// well-formed brackets is a plain name (PHP keeps it too, give or take its
// character replacements, which we do not copy).
func splitKey(k string) (string, []string) {
	i := strings.IndexByte(k, '[')
	if i <= 0 {
		return k, nil
	}
	base, rest := k[:i], k[i:]
	var segs []string
	for strings.HasPrefix(rest, "[") {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			break
		}
		segs = append(segs, rest[1:j])
		rest = rest[j+1:]
	}
	if len(segs) == 0 {
		return k, nil
	}
	return base, segs
}

// addPair puts one key=value into the tree with bracket syntax.
func addPair(root *omap, key, val string) {
	if key == "" || len(key) > maxKeyBytes {
		return
	}
	base, segs := splitKey(key)
	if len(segs) > maxNesting {
		return
	}
	if len(segs) == 0 {
		root.set(base, val)
		return
	}
	node := root.child(base)
	for i, s := range segs {
		if s == "" {
			s = strconv.Itoa(node.next)
		}
		if i == len(segs)-1 {
			node.set(s, val)
			return
		}
		node = node.child(s)
	}
}

// parsePairs parses an application/x-www-form-urlencoded string (a query
// string or a form body) with bracket syntax into top-level values
// (string, []any or map[string]any). Undecodable escapes are kept as sent.
func parsePairs(s string) map[string]any {
	root := newOmap()
	n := 0
	for s != "" && n < maxPairs {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if pair == "" {
			continue
		}
		n++
		k, v, _ := strings.Cut(pair, "=")
		addPair(root, unescape(k), unescape(v))
	}
	out := make(map[string]any, len(root.keys))
	for _, k := range root.keys {
		out[k] = leafValue(root.m[k])
	}
	return out
}

// parseMultiValues adds multipart form values (already decoded) to a tree.
func parseMultiValues(vals map[string][]string) map[string]any {
	root := newOmap()
	n := 0
	for k, vs := range vals {
		for _, v := range vs {
			if n++; n > maxPairs {
				break
			}
			addPair(root, k, v)
		}
	}
	out := make(map[string]any, len(root.keys))
	for _, k := range root.keys {
		out[k] = leafValue(root.m[k])
	}
	return out
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}
