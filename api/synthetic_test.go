package api

import (
	"errors"
	"fmt"
	"net/http"
	"sort"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// echo answers with what the pipeline produced, so tests can check it.
func echo(c *fiber.Ctx, r *Request) error {
	names := make([]string, 0, len(r.Args))
	for k := range r.Args {
		names = append(names, k)
	}
	sort.Strings(names)
	args := Obj{}
	for _, k := range names {
		args = append(args, KV{k, r.Args[k]})
	}
	sent := []string{}
	for k := range r.Sent {
		sent = append(sent, k)
	}
	sort.Strings(sent)
	login := ""
	if r.User != nil {
		login = r.User.Login
	}
	types := Obj{}
	for _, k := range names {
		types = append(types, KV{k, fmt.Sprintf("%T", r.Args[k])})
	}
	return sendJSON(c, http.StatusOK, Obj{{"args", args}, {"types", types}, {"sent", sent}, {"path", r.Path},
		{"lang", r.Lang}, {"user", login}, {"method", r.Method}})
}

// kindArgs has one argument of every Kind.
func kindArgs() []Arg {
	return []Arg{
		{Name: "s", Type: "string", Kind: KString, Desc: "arg.common.search"},
		{Name: "ne", Type: "string", Kind: KNonEmpty, Desc: "arg.common.search"},
		{Name: "i", Type: "integer", Kind: KInt, Desc: "arg.common.search"},
		{Name: "pi", Type: "integer", Kind: KPositiveInt, Desc: "arg.common.search"},
		{Name: "b", Type: "boolean", Kind: KBool, Desc: "arg.common.search"},
		{Name: "n", Type: "number", Kind: KNumber, Desc: "arg.common.search"},
		{Name: "d", Type: "string", Kind: KDate, Desc: "arg.common.search"},
		{Name: "il", Type: "array", Items: "integer", Kind: KIntList, Desc: "arg.common.search"},
		{Name: "sl", Type: "array", Items: "string", Kind: KStringList, Desc: "arg.common.search"},
		{Name: "e", Type: "string", Enum: []string{"asc", "desc"}, Kind: KEnum, Desc: "arg.common.search"},
		{Name: "u", Type: "string", Kind: KURL, Desc: "arg.common.search"},
		{Name: "em", Type: "string", Kind: KEmail, Desc: "arg.common.search"},
		{Name: "st", Type: "string", Kind: KStatus, Desc: "arg.common.search"},
		{Name: "tz", Type: "string", Kind: KTimezone, Desc: "arg.common.search"},
		{Name: "raw", Kind: KRaw, Desc: "arg.common.search"},
		{Name: "long", Type: "string", Kind: KString, MaxLen: 5, Desc: "arg.common.search"},
		{Name: "hb", Type: "boolean", Kind: KBool, Default: "1", HasDefault: true, Desc: "arg.common.search"},
		{Name: "dn", Type: "number", Kind: KNumber, Default: 2, HasDefault: true, Desc: "arg.common.search"},
	}
}

// syntheticRoutes is a small table covering the pipeline's features.
func syntheticRoutes() []Route {
	return []Route{
		{Pattern: "", Endpoints: []Endpoint{{Methods: []string{"GET"}, Handler: echo}}},
		{
			Pattern: "/things",
			DocPath: "/things",
			Endpoints: []Endpoint{
				{Methods: []string{"GET"}, Args: []Arg{argPage(), argPerPage(), argSearch()}, Handler: echo},
				{Methods: []string{"POST"}, Action: models.ActForceDelete, Kind: models.KindEvent, Handler: echo, Args: []Arg{
					{Name: "title", Type: "string", Required: true, Kind: KNonEmpty, Desc: "arg.common.search"},
					{Name: "start", Type: "string", Required: true, Kind: KDate, Desc: "arg.common.search"},
					{Name: "count", Type: "integer", Kind: KInt, Desc: "arg.common.search",
						Validate: func(_ *Request, v any) *Reason {
							if v.(int64) > 100 {
								return &Reason{Code: "rest_out_of_bounds", Reason: "reason.number_out_of_range"}
							}
							return nil
						}},
					{Name: "venue", Kind: KRaw, Desc: "arg.common.search"},
				}},
			},
		},
		{
			Pattern: "/things/(?P<id>\\d+)",
			DocPath: "/things/{id}",
			Endpoints: []Endpoint{
				{Methods: []string{"GET"}, Args: []Arg{argIDPath("arg.common.page")}, Handler: echo},
				{Methods: []string{"POST", "PUT", "PATCH"}, Action: models.ActForceDelete, Kind: models.KindEvent, Handler: echo,
					Args: []Arg{argIDPath("arg.common.page"), {Name: "title", Type: "string", Kind: KNonEmpty, Desc: "arg.common.search"}}},
				{Methods: []string{"DELETE"}, Action: models.ActForceDelete, Kind: models.KindEvent, Args: []Arg{argIDPath("arg.common.page"), argForce()}, Handler: echo},
			},
		},
		{
			Pattern: "/things/by-slug/(?P<slug>[^/]+)",
			Endpoints: []Endpoint{
				{Methods: []string{"GET"}, Args: []Arg{argSlugPath("arg.common.page", true)}, Handler: echo},
			},
		},
		{Pattern: "/kinds", Endpoints: []Endpoint{{Methods: []string{"GET", "POST"}, Args: kindArgs(), Handler: echo}}},
		{Pattern: "/panic", Endpoints: []Endpoint{{Methods: []string{"GET"}, Handler: func(_ *fiber.Ctx, _ *Request) error {
			panic("secret panic detail")
		}}}},
		{Pattern: "/unavailable", Endpoints: []Endpoint{{Methods: []string{"GET"}, Handler: func(_ *fiber.Ctx, _ *Request) error {
			return fmt.Errorf("models: list: %w", models.ErrUnavailable)
		}}}},
		{Pattern: "/fail", Endpoints: []Endpoint{{Methods: []string{"GET"}, Handler: func(_ *fiber.Ctx, _ *Request) error {
			return errors.New("secret internal detail")
		}}}},
		{Pattern: "/hang", Endpoints: []Endpoint{{Methods: []string{"GET"}, Handler: func(_ *fiber.Ctx, r *Request) error {
			<-r.Ctx.Done()
			return fmt.Errorf("models: hang: %w", r.Ctx.Err())
		}}}},
		{Pattern: "/list", Endpoints: []Endpoint{{Methods: []string{"GET"}, Args: []Arg{argPage(), argPerPage(), argSearch()},
			Handler: func(c *fiber.Ctx, r *Request) error {
				next := listURL(r, "/list", []KV{{"page", int64(r.Page() + 1)}, {"per_page", int64(r.PerPage())}, {"search", r.String("search")}})
				setListHeaders(c, r, 42, 3, next, "")
				return sendJSON(c, http.StatusOK, Obj{{"next", next}, {"per_page", r.PerPage()}})
			}}}},
	}
}
