package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// revisionSource reads and restores the revisions of one kind of record.
type revisionSource struct {
	plural string
	kind   models.Kind
	list   func(r *Request) (int64, []models.Revision, error)
	at     func(r *Request, rev int64) (Obj, *models.Revision, error)
	undo   func(r *Request, rev int64) (Obj, error)
}

// revisionRoutes declares /{plural}/{id}/revisions, .../{revision} and
// .../{revision}/restore: our extension (WordPress has revisions of posts,
// TEC none of its own). Who may edit the record may read and restore them.
func revisionRoutes(src revisionSource) []Route {
	id := argIDPath("arg." + src.plural + ".id")
	id.Required = true
	rev := Arg{Name: "revision", Type: "integer", Desc: "arg.revisions.revision", In: "path", Kind: KInt, Required: true}
	base := "/" + src.plural + `/(?P<id>\d+)/revisions`
	doc := "/" + src.plural + "/{id}/revisions"
	return []Route{
		{Pattern: base, DocPath: doc, Endpoints: []Endpoint{
			{Methods: []string{"GET"}, Args: []Arg{id}, Action: models.ActEdit, Kind: src.kind, Handler: src.handleList},
		}},
		{Pattern: base + `/(?P<revision>\d+)`, DocPath: doc + "/{revision}", Endpoints: []Endpoint{
			{Methods: []string{"GET"}, Args: []Arg{id, rev}, Action: models.ActEdit, Kind: src.kind, Handler: src.handleGet},
		}},
		{Pattern: base + `/(?P<revision>\d+)/restore`, DocPath: doc + "/{revision}/restore", Endpoints: []Endpoint{
			{Methods: []string{"POST"}, Args: []Arg{id, rev}, Action: models.ActEdit, Kind: src.kind, Handler: src.handleRestore},
		}},
	}
}

func revisionID(r *Request) int64 {
	n, _ := strconv.ParseInt(r.Path["revision"], 10, 64)
	return n
}

// presentRevision is a revision's summary: who, when (in the site zone
// and in UTC, as WordPress dates), and which stored fields it changed.
func presentRevision(r *Request, src revisionSource, v *models.Revision) Obj {
	fields := v.Fields
	if fields == nil {
		fields = []string{}
	}
	return Obj{
		{"id", v.ID},
		{"parent", v.RecordID},
		{"author", v.AuthorID},
		{"date", localTime(v.CreatedAt, r.Deps.site().Zone())},
		{"date_utc", localTime(v.CreatedAt, time.UTC)},
		{"fields", fields},
		{"rest_url", r.Deps.APIURL(r, "/"+src.plural+"/"+strconv.FormatInt(v.RecordID, 10)+"/revisions/"+strconv.FormatInt(v.ID, 10))},
	}
}

func (src revisionSource) handleList(c *fiber.Ctx, r *Request) error {
	_, revs, err := src.list(r)
	if err != nil {
		return err
	}
	items := make([]Obj, 0, len(revs))
	for i := range revs {
		items = append(items, presentRevision(r, src, &revs[i]))
	}
	return sendJSON(c, http.StatusOK, Obj{{"total", len(items)}, {"revisions", items}})
}

// handleGet answers a revision with the record as it left it, in the
// shape of the record's own GET.
func (src revisionSource) handleGet(c *fiber.Ctx, r *Request) error {
	rec, rev, err := src.at(r, revisionID(r))
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, append(presentRevision(r, src, rev), KV{string(src.kind), rec}))
}

// handleRestore writes the revision back and answers the record as the
// record's own GET does.
func (src revisionSource) handleRestore(c *fiber.Ctx, r *Request) error {
	rec, err := src.undo(r, revisionID(r))
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, rec)
}

// eventRevisions are the revisions of events.
var eventRevisions = revisionSource{plural: "events", kind: models.KindEvent,
	list: func(r *Request) (int64, []models.Revision, error) {
		return r.Deps.DB.Revisions(r.Ctx, r.User, models.KindEvent, itemRef(r))
	},
	at: func(r *Request, rev int64) (Obj, *models.Revision, error) {
		e, v, err := r.Deps.DB.EventAtRevision(r.Ctx, r.User, itemRef(r), rev, r.Lang)
		if err != nil {
			return nil, nil, err
		}
		return presentEvent(r, e, true), v, nil
	},
	undo: func(r *Request, rev int64) (Obj, error) {
		e, err := r.Deps.DB.RestoreEventRevision(r.Ctx, r.User, itemRef(r), rev, r.Lang)
		if err != nil {
			return nil, err
		}
		return presentEvent(r, e, true), nil
	},
}

// linkedRevisions are the revisions of venues or organizers.
func linkedRevisions[T any, In any](k *linkedOps[T, In]) revisionSource {
	return revisionSource{plural: k.plural, kind: k.kind,
		list: func(r *Request) (int64, []models.Revision, error) {
			return k.ops(r.Deps.DB).Revisions(r.Ctx, r.User, itemRef(r))
		},
		at: func(r *Request, rev int64) (Obj, *models.Revision, error) {
			v, meta, err := k.ops(r.Deps.DB).AtRevision(r.Ctx, r.User, itemRef(r), rev, r.Lang)
			if err != nil {
				return nil, nil, err
			}
			return k.present(r, v, true), meta, nil
		},
		undo: func(r *Request, rev int64) (Obj, error) {
			v, err := k.ops(r.Deps.DB).RestoreRevision(r.Ctx, r.User, itemRef(r), rev, r.Lang)
			if err != nil {
				return nil, err
			}
			return k.present(r, v, true), nil
		},
	}
}

// allRevisionRoutes are the revision routes of events, venues and
// organizers.
func allRevisionRoutes() []Route {
	var rs []Route
	rs = append(rs, revisionRoutes(eventRevisions)...)
	rs = append(rs, revisionRoutes(linkedRevisions(venueOps))...)
	rs = append(rs, revisionRoutes(linkedRevisions(organizerOps))...)
	return rs
}
