package api

import (
	"context"

	"github.com/kalends/kalends/models"
)

// Request is what a handler gets: the matched route and endpoint, the
// validated arguments, the caller and the language.
type Request struct {
	Ctx      context.Context // c.UserContext(), with the request deadline
	Route    *Route
	Endpoint *Endpoint
	Method   string

	// Args holds the parsed value of every argument that was sent or has a
	// default, typed per Arg.Kind.
	Args map[string]any
	// Sent holds the names of the arguments the client actually sent (path
	// parameters included). A default does not count as sent.
	Sent map[string]bool
	// Path holds the raw path parameters ("id", "slug"). Handlers find the
	// record with these, never with Args: a body or query value of the same
	// name (SPEC §2 precedence puts it first in Args) must not redirect the
	// operation to another record. On the event by-slug update route,
	// Args["slug"] sent in the body is the new slug.
	Path map[string]string

	User *models.User // nil for an anonymous caller
	Lang string       // response language: one of i18n.Codes
	// Prefix is the language path prefix the request came in with ("/ja"),
	// or "". URLs the response emits keep it (see Deps.URL).
	Prefix string

	Deps *Deps

	// presented holds the objects of embedded records (venues, organizers,
	// terms) already shaped for this response: a page of events shares a
	// few of them, and each is shaped once.
	presented map[presentedKey]Obj
	// media holds the library images already read for this response.
	media map[int64]*models.Media
}

// Has reports whether the client sent argument name.
func (r *Request) Has(name string) bool { return r.Sent[name] }

// String returns a string argument ("" when absent).
func (r *Request) String(name string) string {
	s, _ := r.Args[name].(string)
	return s
}

// Int returns an integer argument and whether it is there.
func (r *Request) Int(name string) (int64, bool) {
	v, ok := r.Args[name].(int64)
	return v, ok
}

// Bool returns a boolean argument and whether it is there.
func (r *Request) Bool(name string) (bool, bool) {
	v, ok := r.Args[name].(bool)
	return v, ok
}

// IntList returns a list-of-ids argument (nil when absent).
func (r *Request) IntList(name string) []int64 {
	v, _ := r.Args[name].([]int64)
	return v
}

// StringList returns a list-of-strings argument (nil when absent).
func (r *Request) StringList(name string) []string {
	v, _ := r.Args[name].([]string)
	return v
}

// T localizes message id in the request language.
func (r *Request) T(id string, data map[string]any) string {
	return r.Deps.I18n.T(r.Lang, id, data)
}

type presentedKey struct {
	rec    any // the record's pointer
	single bool
}

// embedded returns the shaped object of the embedded record rec (a
// pointer the models share between the events of a page), shaping it with
// present the first time. The object is shared, so it must not be changed
// after.
func (r *Request) embedded(rec any, single bool, present func() Obj) Obj {
	k := presentedKey{rec, single}
	if o, ok := r.presented[k]; ok {
		return o
	}
	o := present()
	if r.presented == nil {
		r.presented = map[presentedKey]Obj{}
	}
	r.presented[k] = o
	return o
}
