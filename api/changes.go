package api

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// The change feed of issue 34: GET /changes (our extension). A program
// copies the lists, keeps the X-Kalends-Changes-Cursor header of its first
// list answer, then follows the feed from it: every change of a record it
// may read after that cursor, in commit order (models.Changes).

// ChangesCursorHeader carries the feed's cursor on every list answer.
const ChangesCursorHeader = "X-Kalends-Changes-Cursor"

// Page sizes of the feed.
const (
	changesPerPage    = 100
	changesMaxPerPage = 500
)

func changeRoutes() []Route {
	return []Route{{Pattern: "/changes", DocPath: "/changes", Endpoints: []Endpoint{
		{Methods: []string{"GET"}, Args: []Arg{
			{Name: "cursor", Type: "string", Desc: "arg.changes.cursor", In: "query", Kind: KString, MaxLen: 64},
			{Name: "per_page", Type: "integer", Default: changesPerPage, HasDefault: true, Desc: "arg.changes.per_page", In: "query",
				Kind: KPositiveInt, Validate: perPageAtMost},
		}, Handler: listChanges},
	}}}
}

// perPageAtMost holds the feed's per_page to changesMaxPerPage.
func perPageAtMost(_ *Request, v any) *Reason {
	if n, _ := v.(int64); n > changesMaxPerPage {
		return &Reason{Code: "rest_out_of_bounds", Reason: "reason.linked.out_of_range", Data: map[string]any{"Min": 1, "Max": changesMaxPerPage}}
	}
	return nil
}

// cursorPrefix versions the cursor's form; the cursor is opaque to clients.
const cursorPrefix = "kc1."

func encodeCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

func decodeCursor(s string) (int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b[len(cursorPrefix):]), 10, 64)
	if err != nil || n < 0 || encodeCursor(n) != s {
		return 0, false
	}
	return n, true
}

// setChangesCursor puts the feed's cursor on a list answer: one the list
// holds every change up to. Lists are made of cached parts when they can
// be, and a part is as fresh as the generation it was made under, which
// this instance may have read up to --cache-check ago: the cursor is then
// the head read with that generation (cachegen.HeadSource). Otherwise it
// is read now, before the list.
func setChangesCursor(c *fiber.Ctx, r *Request) error {
	if _, head, ok := r.Deps.Parts.GenerationHead(r.Ctx); ok {
		c.Set(ChangesCursorHeader, encodeCursor(head))
		return nil
	}
	head, err := r.Deps.DB.ChangesHead(r.Ctx)
	if err != nil {
		return err
	}
	c.Set(ChangesCursorHeader, encodeCursor(head))
	return nil
}

// changeRestPath is the API path of a record of kind k, below the
// namespace.
var changeRestPath = map[models.Kind]string{
	models.KindEvent: "/events/", models.KindVenue: "/venues/", models.KindOrganizer: "/organizers/",
	models.KindCategory: "/categories/", models.KindTag: "/tags/", models.KindMedia: "/media/",
}

// RecordPath is the path of the API's answer for the record of kind k with
// id (what a change's rest_url names, without the host): the webhooks read
// the record they send through it.
func RecordPath(k models.Kind, id int64) string {
	return "/" + Namespace + changeRestPath[k] + strconv.FormatInt(id, 10)
}

// listChanges answers GET /changes.
func listChanges(c *fiber.Ctx, r *Request) error {
	perPage := changesPerPage
	if n, ok := r.Int("per_page"); ok {
		perPage = int(n)
	}
	var cursor int64
	fromOldest := true
	if s := r.String("cursor"); s != "" {
		n, ok := decodeCursor(s)
		if !ok {
			return ErrInvalidParam("cursor", *invalid("reason.changes.bad_cursor", nil))
		}
		cursor, fromOldest = n, false
	}
	page, err := r.Deps.DB.Changes(r.Ctx, r.User, cursor, fromOldest, perPage)
	if errors.Is(err, models.ErrChangesExpired) {
		return NewError(http.StatusGone, "rest_changes_cursor_expired", "error.rest_changes_cursor_expired")
	}
	if err != nil {
		return err
	}
	items := make([]any, 0, len(page.Items))
	for _, ch := range page.Items {
		o := Obj{{"kind", string(ch.Kind)}, {"id", ch.ID}, {"action", ch.Action}, {"modified_utc", ch.At.UTC().Format(time.DateTime)}}
		if ch.Action != models.ChangeRemoved {
			o = append(o, KV{"rest_url", r.Deps.APIURL(r, changeRestPath[ch.Kind]+strconv.FormatInt(ch.ID, 10))})
		}
		items = append(items, o)
	}
	next := encodeCursor(page.Next)
	c.Set(ChangesCursorHeader, next)
	return sendJSON(c, http.StatusOK, Obj{
		{"changes", items},
		{"cursor", next},
		{"next_rest_url", listURL(r, "/changes", []KV{{"cursor", next}, {"per_page", strconv.Itoa(perPage)}})},
	})
}
