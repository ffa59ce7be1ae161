package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// Venues and organizers are served by the same handlers: linkedOps binds
// one kind's models operations (models.Linked), its argument table and its
// presenter, so both kinds follow exactly the same rules.
type linkedOps[T any, In any] struct {
	kind    models.Kind
	plural  string // "venues": path segment, envelope key, message ids
	ops     func(db *models.DB) models.Linked[T, In]
	input   *linkedInput[In]
	present func(r *Request, v *T, withJSONLD bool) Obj
	post    func(v *T) *models.Post
}

// newLinkedOps serves the kind of records ops works on: its routes take the
// plural of the kind ("venues") as path segment, envelope key and message
// id prefix.
func newLinkedOps[T any, In any](kind models.Kind, ops func(db *models.DB) models.Linked[T, In], input *linkedInput[In],
	present func(r *Request, v *T, withJSONLD bool) Obj, post func(v *T) *models.Post) *linkedOps[T, In] {
	return &linkedOps[T, In]{kind: kind, plural: string(kind) + "s", ops: ops, input: input, present: present, post: post}
}

// routes declares the three routes of the kind (collection, by id, by slug).
func (k *linkedOps[T, In]) routes() []Route {
	p, kind := k.plural, k.kind
	idArg := argIDPath("arg." + p + ".id")
	idArg.Required = true // TEC's index shows the path id as required
	slugArg := argSlugPath("arg."+p+".slug", true)
	item := func(path Arg) []Endpoint {
		return []Endpoint{
			{Methods: []string{"GET"}, Args: []Arg{path}, Handler: k.handleGet},
			{Methods: []string{"DELETE"}, Args: []Arg{path, argForce()}, Action: models.ActTrash, Kind: kind, Handler: k.handleDelete},
			{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]Arg{path}, k.input.args(false)...),
				Action: models.ActEdit, Kind: kind, Handler: k.handleUpdate},
		}
	}
	return []Route{
		{Pattern: "/" + p, DocPath: "/" + p, Endpoints: []Endpoint{
			{Methods: []string{"GET"}, Args: k.listArgs(), Handler: k.handleList},
			{Methods: []string{"POST"}, Args: k.input.args(true), Action: models.ActCreate, Kind: kind, Handler: k.handleCreate},
		}},
		{Pattern: "/" + p + `/(?P<id>\d+)`, DocPath: "/" + p + "/{id}", Endpoints: item(idArg)},
		{Pattern: "/" + p + `/by-slug/(?P<slug>[^/]+)`, DocPath: "/" + p + "/by-slug/{slug}", Endpoints: item(slugArg)},
	}
}

// listArgs are the list arguments of TEC's index, with the published defaults.
func (k *linkedOps[T, In]) listArgs() []Arg {
	p := "arg." + k.plural + ".list."
	return append([]Arg{
		argPage(),
		argPerPage(),
		{Name: "search", Type: "string", Desc: p + "search", In: "query", Kind: KString, MaxLen: models.MaxSearchLen},
		{Name: "event", Type: "integer", Desc: p + "event", In: "query", Kind: KPositiveInt},
		{Name: "has_events", Desc: p + "has_events", In: "query", Kind: KRaw},
		{Name: "only_with_upcoming", Default: false, HasDefault: true, Desc: p + "only_with_upcoming", In: "query", Kind: KRaw},
		{Name: "status", Format: "string", Desc: p + "status", In: "query", Kind: KStringList, Validate: validStatusList},
	}, modifiedArgs("arg.changes.linked_", linkedOrderBys, "desc")...)
}

// linkedOrderBys are the orders of GET /venues and /organizers, the
// default first.
var linkedOrderBys = []string{"date", orderByModified}

// statusFilterValues lists what a list's status filter accepts.
var statusFilterValues = strings.Join(append(append([]string{}, models.Statuses...), "any"), ", ")

// validStatusList checks a list's status filter: known statuses or "any"
// (which of them the caller may ask for is the models' rule, SPEC §6).
func validStatusList(_ *Request, v any) *Reason {
	list, _ := v.([]string)
	for _, s := range list {
		if s != "any" && !models.ValidStatus(s) {
			return rsn("rest_not_in_enum", "reason.not_in_enum", map[string]any{"Values": statusFilterValues})
		}
	}
	return nil
}

func (k *linkedOps[T, In]) handleGet(c *fiber.Ctx, r *Request) error {
	v, err := k.ops(r.Deps.DB).Get(r.Ctx, r.User, itemRef(r), r.Lang)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, k.present(r, v, true))
}

func (k *linkedOps[T, In]) handleDelete(c *fiber.Ctx, r *Request) error {
	ops := k.ops(r.Deps.DB)
	if force, _ := r.Bool("force"); force {
		v, err := ops.Delete(r.Ctx, r.User, itemRef(r), r.Lang)
		if err != nil {
			return err
		}
		return sendJSON(c, http.StatusOK, k.present(r, v, false))
	}
	v, err := ops.Trash(r.Ctx, r.User, itemRef(r), r.Lang)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, k.present(r, v, false))
}

// inputOf reads the write fields the client sent, as the pipeline typed them.
func (k *linkedOps[T, In]) inputOf(r *Request) (In, error) {
	m := map[string]any{}
	for _, a := range k.input.args(false) {
		if r.Has(a.Name) {
			if v, ok := r.Args[a.Name]; ok && v != nil {
				m[a.Name] = v
			}
		}
	}
	in, bad := k.input.fromMap(r, m)
	if len(bad) > 0 {
		return in, invalidParams(bad)
	}
	return in, nil
}

func (k *linkedOps[T, In]) handleCreate(c *fiber.Ctx, r *Request) error {
	in, err := k.inputOf(r)
	if err != nil {
		return err
	}
	v, _, err := k.ops(r.Deps.DB).Create(r.Ctx, r.User, in, r.Lang)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, r.Deps.APIURL(r, fmt.Sprintf("/%s/%d", k.plural, k.post(v).ID)))
	return sendJSON(c, http.StatusCreated, k.present(r, v, false))
}

func (k *linkedOps[T, In]) handleUpdate(c *fiber.Ctx, r *Request) error {
	in, err := k.inputOf(r)
	if err != nil {
		return err
	}
	v, err := k.ops(r.Deps.DB).Update(r.Ctx, r.User, itemRef(r), in, r.Lang)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, k.present(r, v, false))
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
