package ordered

import (
	"encoding/json"
	"testing"
)

func TestObjKeepsOrderAndNests(t *testing.T) {
	t.Parallel()
	o := Obj{{K: "z", V: 1}, {K: "a", V: Obj{{K: "y", V: "<b>&"}, {K: "b", V: []Obj{{{K: "k", V: nil}}}}}}, {K: "m", V: 2.5}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1,"a":{"y":"\u003cb\u003e\u0026","b":[{"k":null}]},"m":2.5}`
	got, err := o.MarshalJSON()
	if err != nil || string(got) != `{"z":1,"a":{"y":"<b>&","b":[{"k":null}]},"m":2.5}` {
		t.Errorf("MarshalJSON: %s, %v", got, err)
	}
	if string(b) != want { // encoding/json escapes HTML when it compacts the output
		t.Errorf("json.Marshal: %s", b)
	}
}
