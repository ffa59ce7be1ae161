package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// Namespace is the API namespace; routes live under "/" + Namespace.
const Namespace = "cal/events/v1"

// Kind tells the argument pipeline how to parse and validate a value. The
// value handlers read from Request.Args has the Go type noted per kind.
type Kind int

// Argument kinds.
const (
	KString      Kind = iota // string, any (also "")
	KNonEmpty                // string, not "" (TEC is_string)
	KInt                     // int64, integer or integer-looking string
	KPositiveInt             // int64 > 0
	KBool                    // bool: true/false, 1/0, "yes"/"no", "on"/"off", "" (false)
	KNumber                  // float64
	KDate                    // string, validated by ParseDate (re-parse in the right zone in the handler)
	KIntList                 // []int64, positive, from a JSON array, x[]=… or a comma list
	KStringList              // []string, non-empty items, from a JSON array, x[]=… or a comma list
	KEnum                    // string, one of Arg.Enum
	KURL                     // string, "" or an absolute http(s) URL
	KEmail                   // string, "" or an e-mail address
	KStatus                  // string, one post status
	KTimezone                // string, "" or an IANA zone or a UTC±N offset
	KImage                   // string: "", an absolute http(s) URL, or a media id (a positive integer, or digits)
	KRaw                     // any: the decoded JSON value as sent (numbers as json.Number; objects map[string]any; arrays []any), or the form string/map/list
)

// Arg declares one argument of an endpoint. The exported fields map one to
// one onto what the namespace index, OPTIONS and /doc show.
type Arg struct {
	Name       string
	Type       string // JSON type shown in the index: integer, string, boolean, number, array; "" for untyped
	Format     string // shown as "format" (TEC shows "string" on status lists, "double" on coordinates)
	Items      string // item type of lists, shown as items.type
	Default    any    // shown when HasDefault
	HasDefault bool
	// DefaultFunc computes a default at request time (the events list's
	// start_date/end_date); when set it wins over Default.
	DefaultFunc func(r *Request) any
	Enum        []string
	Required    bool
	Desc        string // i18n message id of the description
	In          string // "query", "body" or "path" (for /doc)

	Kind Kind
	// MaxLen limits strings (in characters); 0 means the kind's default
	// (255 for names and slugs, 64 KiB for long text is set per arg).
	MaxLen int
	// Validate runs after the kind's own parsing with the parsed value and
	// returns nil or a Reason. It may look at other args but never at the
	// database: it runs before authorization, and checks that read data
	// belong to the models operation, after its permission checks (SPEC §2).
	Validate func(r *Request, v any) *Reason
	// Accepts, for a body argument that takes several shapes, names them
	// for /doc (see acceptsSchema): "terms", "venue", "organizer", "cost".
	Accepts string
}

// HandlerFunc answers a request whose arguments passed the pipeline and whose
// caller passed the endpoint's permission check.
type HandlerFunc func(c *fiber.Ctx, r *Request) error

// Endpoint is one handler of a route with its methods and arguments.
type Endpoint struct {
	Methods []string
	Args    []Arg
	// Action on Kind is the general capability the endpoint needs
	// (models.MayAttempt), checked after the arguments that need no data:
	// "" lets everyone in. It also decides the Allow header. The models
	// operation the handler calls checks it again, then the record itself.
	Action  models.Action
	Kind    models.Kind
	Handler HandlerFunc
	// Multipart: the body is multipart/form-data (a file upload); /doc
	// says so instead of JSON and url-encoded forms.
	Multipart bool
}

// allows reports whether u has the endpoint's general capability.
func (ep *Endpoint) allows(u *models.User) bool {
	return ep.Action == "" || models.MayAttempt(u, ep.Action, ep.Kind)
}

// Route is one path pattern of the namespace.
type Route struct {
	// Pattern is the WordPress-style regex after the namespace, e.g.
	// "/events/(?P<id>\\d+)"; "" for the namespace index itself.
	Pattern   string
	Endpoints []Endpoint
	// DocPath is the OpenAPI path ("/events/{id}"); "" to leave the route out of /doc.
	DocPath string
}
