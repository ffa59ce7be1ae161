package api

import (
	"time"

	"github.com/kalends/kalends/models"
)

// The arguments that let a program copy the calendar and stay in sync
// (issue 34): modified_after and modified_before, in WordPress's names and
// date forms, read in the site zone like the other dates, and the order by
// last change.

// orderByModified is the orderby value that sorts by the last change.
const orderByModified = "modified"

// modifiedArgs are modified_after, modified_before, orderby (values:
// orderBys, the first the default) and order, for the list whose message
// ids start with p.
func modifiedArgs(p string, orderBys []string, order string) []Arg {
	return []Arg{
		{Name: "modified_after", Type: "string", Kind: KDate, Desc: "arg.changes.modified_after", In: "query"},
		{Name: "modified_before", Type: "string", Kind: KDate, Desc: "arg.changes.modified_before", In: "query"},
		{Name: "orderby", Type: "string", Enum: orderBys, Default: orderBys[0], HasDefault: true, Kind: KEnum, Desc: p + "orderby", In: "query"},
		{Name: "order", Type: "string", Enum: []string{"asc", "desc"}, Default: order, HasDefault: true, Kind: KEnum, Desc: p + "order", In: "query"},
	}
}

// modifiedBounds reads modified_after (inclusive) and modified_before
// (exclusive) in the site zone, and the arguments to echo in rest_url.
func modifiedBounds(r *Request) (after, before *time.Time, echo []KV, err error) {
	loc := r.Deps.location()
	for _, b := range []struct {
		name string
		dst  **time.Time
	}{{"modified_after", &after}, {"modified_before", &before}} {
		s := r.String(b.name)
		if s == "" {
			continue
		}
		t, _, perr := models.ParseDate(s, r.Deps.now(), loc)
		if perr != nil {
			return nil, nil, nil, ErrInvalidParam(b.name, *invalid("reason.events.invalid_date", nil))
		}
		t = t.In(loc)
		*b.dst = &t
		echo = append(echo, KV{b.name, t.Format(time.DateTime)})
	}
	return after, before, echo, nil
}

// orderEcho is the orderby and order to echo in rest_url when they are
// not the defaults.
func orderEcho(r *Request, defBy, defOrder string) []KV {
	var echo []KV
	if by := r.String("orderby"); by != "" && by != defBy {
		echo = append(echo, KV{"orderby", by})
	}
	if o := r.String("order"); o != "" && o != defOrder {
		echo = append(echo, KV{"order", o})
	}
	return echo
}
