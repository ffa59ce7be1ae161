package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// Venues and organizers are served by the same handlers: linkedOps says how
// to store and present one kind, so both follow exactly the same rules.
type linkedOps[T any] struct {
	kind   models.Kind
	plural string // "venues": path segment, envelope key, message ids
	// meta returns what permission checks need.
	meta    func(v *T) (id, author int64, status string)
	get     func(r *Request, id int64) (*T, error)
	bySlug  func(r *Request, slug string) (*T, error)
	list    func(r *Request, f models.LinkedFilter) ([]*T, int, error)
	present func(r *Request, v *T, withJSONLD bool) Obj
	// create validates m and creates (or finds the duplicate).
	create func(r *Request, m map[string]any) (v *T, invalid []Invalid, err error)
	update func(r *Request, id int64, m map[string]any) (v *T, invalid []Invalid, err error)
	trash  func(r *Request, id int64) (*T, error)
	remove func(r *Request, id int64) error
	write  func(create bool) []Arg
}

// singular is the kind's name in error codes: "venue", "organizer".
func (k *linkedOps[T]) singular() string { return string(k.kind) }

// routes declares the three routes of the kind (collection, by id, by slug).
func (k *linkedOps[T]) routes() []Route {
	p := k.plural
	canWrite := func(u *models.User) bool { return models.Can(u, models.ActCreate, models.Subject{Kind: k.kind}) }
	idArg := argIDPath("arg." + p + ".id")
	idArg.Required, idArg.Validate = true, k.validID // TEC's index shows the path id as required
	slugArg := argSlugPath("arg."+p+".slug", true)
	item := func(path Arg) []Endpoint {
		return []Endpoint{
			{Methods: []string{"GET"}, Args: []Arg{path}, Handler: k.handleGet},
			{Methods: []string{"DELETE"}, Args: []Arg{path, argForce()}, Allowed: canWrite, Handler: k.handleDelete},
			{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]Arg{path}, k.write(false)...), Allowed: canWrite, Handler: k.handleUpdate},
		}
	}
	return []Route{
		{Pattern: "/" + p, DocPath: "/" + p, Endpoints: []Endpoint{
			{Methods: []string{"GET"}, Args: k.listArgs(), Handler: k.handleList},
			{Methods: []string{"POST"}, Args: k.write(true), Allowed: canWrite, Handler: k.handleCreate},
		}},
		{Pattern: "/" + p + `/(?P<id>\d+)`, DocPath: "/" + p + "/{id}", Endpoints: item(idArg)},
		{Pattern: "/" + p + `/by-slug/(?P<slug>[^/]+)`, DocPath: "/" + p + "/by-slug/{slug}", Endpoints: item(slugArg)},
	}
}

// listArgs are the list arguments of TEC's index, with the published defaults.
func (k *linkedOps[T]) listArgs() []Arg {
	p := "arg." + k.plural + ".list."
	return []Arg{
		argPage(),
		argPerPage(),
		{Name: "search", Type: "string", Desc: p + "search", In: "query", Kind: KString, MaxLen: 200},
		{Name: "event", Type: "integer", Desc: p + "event", In: "query", Kind: KPositiveInt, Validate: validEventID},
		{Name: "has_events", Desc: p + "has_events", In: "query", Kind: KRaw},
		{Name: "only_with_upcoming", Default: false, HasDefault: true, Desc: p + "only_with_upcoming", In: "query", Kind: KRaw},
		{Name: "status", Format: "string", Desc: p + "status", In: "query", Kind: KStringList, Validate: validStatusList},
	}
}

// validID: an id of another kind (an event's) is 400 naming id, as TEC;
// an id that names nothing passes here and is 404 in the handler (SPEC §9).
func (k *linkedOps[T]) validID(r *Request, v any) *Reason {
	id, _ := v.(int64)
	kind, err := r.Deps.DB.PostKind(r.Ctx, id)
	if err == nil && kind != k.kind {
		return &Reason{Code: "rest_invalid_param", ID: "reason.linked.wrong_kind_" + k.singular()}
	}
	return nil
}

func validEventID(r *Request, v any) *Reason {
	id, _ := v.(int64)
	if kind, err := r.Deps.DB.PostKind(r.Ctx, id); err != nil || kind != models.KindEvent {
		return &Reason{Code: "rest_invalid_param", ID: "reason.linked.not_event"}
	}
	return nil
}

// statusFilterValues lists what a list's status filter accepts.
var statusFilterValues = strings.Join(append(append([]string{}, models.Statuses...), "any"), ", ")

// validStatusList checks a list's status filter: known statuses, and
// only publish for anonymous callers and subscribers (SPEC §6).
func validStatusList(r *Request, v any) *Reason {
	list, _ := v.([]string)
	for _, s := range list {
		if s != "any" && !models.ValidStatus(s) {
			return rsn("rest_not_in_enum", "reason.not_in_enum", map[string]any{"Values": statusFilterValues})
		}
		if s != models.StatusPublish && !models.MayFilterStatus(r.User) {
			return rsn("rest_invalid_param", "reason.linked.status_not_allowed", nil)
		}
	}
	return nil
}

// find loads the record named by the path (id or slug), or a 404.
func (k *linkedOps[T]) find(r *Request) (*T, error) {
	var v *T
	var err error
	if s, ok := r.Path["slug"]; ok {
		v, err = k.bySlug(r, s)
	} else {
		id, perr := strconv.ParseInt(r.Path["id"], 10, 64)
		if perr != nil {
			return nil, k.notFound()
		}
		v, err = k.get(r, id)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil, k.notFound()
	}
	return v, err
}

func (k *linkedOps[T]) notFound() *Error {
	code := "rest-" + k.singular() + "-not-found"
	return NewError(http.StatusNotFound, code, "error."+code)
}

func (k *linkedOps[T]) subject(v *T) models.Subject {
	_, author, status := k.meta(v)
	return models.Subject{Kind: k.kind, AuthorID: author, Status: status}
}

func (k *linkedOps[T]) handleGet(c *fiber.Ctx, r *Request) error {
	v, err := k.find(r)
	if err != nil {
		return err
	}
	if !models.Can(r.User, models.ActRead, k.subject(v)) {
		code := k.singular() + "-not-accessible"
		return NewError(http.StatusForbidden, code, "error."+code)
	}
	return sendJSON(c, http.StatusOK, k.present(r, v, true))
}

func (k *linkedOps[T]) handleDelete(c *fiber.Ctx, r *Request) error {
	v, err := k.find(r)
	if err != nil {
		return err
	}
	id, _, status := k.meta(v)
	force, _ := r.Bool("force")
	act := models.ActTrash
	if force {
		act = models.ActForceDelete
	}
	if !models.Can(r.User, act, k.subject(v)) {
		return ErrForbidden(r)
	}
	if force {
		before := k.present(r, v, false)
		if err := k.remove(r, id); err != nil {
			return k.storeErr(err)
		}
		return sendJSON(c, http.StatusOK, before)
	}
	if status == models.StatusTrash {
		code := k.singular() + "-is-in-trash"
		return NewError(http.StatusGone, code, "error."+code)
	}
	if v, err = k.trash(r, id); err != nil {
		return k.storeErr(err)
	}
	return sendJSON(c, http.StatusOK, k.present(r, v, false))
}

// sentFields collects the write fields the client sent, as the pipeline
// typed them, for venueInputFromMap/organizerInputFromMap.
func (k *linkedOps[T]) sentFields(r *Request) map[string]any {
	m := map[string]any{}
	for _, a := range k.write(false) {
		if r.Has(a.Name) {
			if v, ok := r.Args[a.Name]; ok && v != nil {
				m[a.Name] = v
			}
		}
	}
	return m
}

// mayAssignAuthor: only editors and administrators write records in
// someone else's name (WordPress's edit_others_posts).
func mayAssignAuthor(r *Request, m map[string]any) bool {
	a, ok := m["author"].(int64)
	return !ok || (r.User != nil && (a == r.User.ID || r.User.Role.AtLeast(models.RoleEditor)))
}

func (k *linkedOps[T]) handleCreate(c *fiber.Ctx, r *Request) error {
	m := k.sentFields(r)
	if !mayAssignAuthor(r, m) {
		return ErrForbidden(r)
	}
	v, invalid, err := k.create(r, m)
	if err != nil || len(invalid) > 0 {
		return linkedWriteError(invalid, err)
	}
	id, _, _ := k.meta(v)
	c.Set("Location", r.Deps.APIURL(r, fmt.Sprintf("/%s/%d", k.plural, id)))
	return sendJSON(c, http.StatusCreated, k.present(r, v, false))
}

func (k *linkedOps[T]) handleUpdate(c *fiber.Ctx, r *Request) error {
	v, err := k.find(r)
	if err != nil {
		return err
	}
	if !models.Can(r.User, models.ActEdit, k.subject(v)) {
		return ErrForbidden(r)
	}
	m := k.sentFields(r)
	if !mayAssignAuthor(r, m) {
		return ErrForbidden(r)
	}
	id, _, _ := k.meta(v)
	v, invalid, err := k.update(r, id, m)
	if err != nil || len(invalid) > 0 {
		return linkedWriteError(invalid, k.storeErr(err))
	}
	return sendJSON(c, http.StatusOK, k.present(r, v, false))
}

// storeErr maps a record that vanished between the read and the write (a
// concurrent delete) to the kind's 404; other errors pass through.
func (k *linkedOps[T]) storeErr(err error) error {
	if errors.Is(err, models.ErrNotFound) {
		return k.notFound()
	}
	return err
}

// linkedWriteError turns a failed validation or store write into the API
// error: invalid fields are 400 rest_invalid_param; anything else goes to
// the error handler as it is.
func linkedWriteError(invalid []Invalid, err error) error {
	if len(invalid) > 0 {
		e := NewError(http.StatusBadRequest, "rest_invalid_param", "error.rest_invalid_param")
		e.Invalid = invalid
		return e
	}
	return err
}

// tecTruthy is TEC's tribe_is_truthy: true, 1, "1", "yes", "y", "on",
// "true", "enable", "enabled" (any case) are true; everything else false.
func tecTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x == 1
	case int64:
		return x == 1
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "1", "enable", "enabled", "on", "y", "yes", "true":
			return true
		}
	}
	return false
}
