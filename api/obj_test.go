package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// oldObjJSON is how Obj was written before appendJSON: each key and value
// through encoding/json on its own. appendJSON must give the same bytes.
func oldObjJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

func TestObjJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	strs := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "ctl \x00\x01\x08\x0c\n\r\t\x1f\x7f",
		"bad utf8 \xff\xfe end", "\xc3", "line\u2028para\u2029", "日本語 한국어 中文 🎉", "é\u0301"}
	var list []any
	for _, s := range strs {
		list = append(list, s)
	}
	cases := map[string]any{
		"nil obj":   Obj(nil),
		"empty obj": Obj{},
		"nested": Obj{{"a", 1}, {"b", int64(-7)}, {"c", true}, {"d", nil}, {"e", 1.5}, {"f", []Obj{{{"x", "y"}}, nil}},
			{"g", []any{Obj{{"k", []string{"a", "<"}}}, 3, false}}, {"h", map[string]any{"z": Obj{{"q", "\u2028"}}}},
			{"i", []Obj(nil)}, {"j", []any(nil)}, {"k", Obj(nil)}, {"l", time.Unix(0, 0).UTC()}, {"m", (*Obj)(nil)}, {"n", []string(nil)}, {"o", []string{}}, {"p", []string{"\x00", "\u2029"}}},
		"strings": list,
	}
	for _, s := range strs {
		cases["key "+s] = Obj{{s, s}}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		n := r.IntN(12)
		bs := make([]byte, n)
		for j := range bs {
			bs[j] = byte(r.IntN(256)) //nolint:gosec // G115: IntN(256) is 0..255.
		}
		cases["random "+string(rune('a'+i%26))+string(bs)] = Obj{{string(bs), []any{string(bs)}}}
	}
	for name, v := range cases {
		got, err := marshal(v)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		var want []byte
		if o, ok := v.(Obj); ok {
			// The old Obj.MarshalJSON: member by member.
			var b bytes.Buffer
			b.WriteByte('{')
			for i, kv := range o {
				if i > 0 {
					b.WriteByte(',')
				}
				b.Write(oldObjJSON(t, kv.K))
				b.WriteByte(':')
				b.Write(oldObjJSON(t, kv.V))
			}
			b.WriteByte('}')
			want = b.Bytes()
		} else {
			want = oldObjJSON(t, v)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", name, got, want)
		}
	}
}

func TestZeroPadMatchesSprintf(t *testing.T) {
	t.Parallel()
	for _, w := range []int{2, 4} {
		for _, n := range []int{-10000, -999, -1, 0, 1, 9, 10, 99, 100, 999, 1000, 2026, 9999, 10000, 123456} {
			if got, want := zeroPad(n, w), fmt.Sprintf("%0*d", w, n); got != want {
				t.Errorf("zeroPad(%d, %d) = %q, want %q", n, w, got, want)
			}
		}
	}
}
