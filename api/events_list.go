package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
)

// maxLinks bounds the items of one list argument (ids, terms, organizers):
// far above real use, low enough that a hostile 10,000-item list is a 400
// and not a giant IN (…) query.
const maxLinks = 500

// listEvents answers GET /events (SPEC §5).
func listEvents(c *fiber.Ctx, r *Request) error {
	f, echo, statusAt, err := eventFilter(r)
	if err != nil {
		return err
	}
	if err := setChangesCursor(c, r); err != nil {
		return err
	}
	gen, parts := r.Deps.Parts.Generation(r.Ctx)
	f.Bare = parts
	page, err := r.Deps.DB.ListEvents(r.Ctx, r.User, f)
	if err != nil {
		return err
	}
	if f.Page > 1 && len(page.Items) == 0 {
		return archiveNotFound(models.KindEvent)
	}
	if len(page.Statuses) > 0 { // echoed where TEC lists it, after search
		echo = append(echo[:statusAt], append([]KV{{"status", strings.Join(page.Statuses, ",")}}, echo[statusAt:]...)...)
	}
	objs, sums, err := eventItems(r, page.Items, gen, parts)
	if err != nil {
		return err
	}
	totalPages := (page.Total + f.PerPage - 1) / f.PerPage
	pageKV := func(n int) []KV {
		out := append([]KV{}, echo...)
		if n > 1 {
			out = append(out, KV{"page", strconv.Itoa(n)})
		}
		return out
	}
	self := listURL(r, "/events", append([]KV{{"page", strconv.Itoa(f.Page)}, {"per_page", strconv.Itoa(f.PerPage)}}, echo...))
	var next, prev string
	body := Obj{{"events", objs}, {"rest_url", self}}
	if f.Page < totalPages {
		next = listURL(r, "/events", append([]KV{{"per_page", strconv.Itoa(f.PerPage)}}, pageKV(f.Page+1)...))
		body = append(body, KV{"next_rest_url", next})
	}
	if f.Page > 1 && f.Page-1 <= totalPages {
		prev = listURL(r, "/events", append([]KV{{"per_page", strconv.Itoa(f.PerPage)}}, pageKV(f.Page-1)...))
		body = append(body, KV{"previous_rest_url", prev})
	}
	body = append(body, KV{"total", page.Total}, KV{"total_pages", totalPages})
	setListHeaders(c, r, int64(page.Total), totalPages, next, prev)
	if sums != nil {
		return sendParts(c, "events", objs, sums, body[1:])
	}
	return sendJSON(c, http.StatusOK, body)
}

// eventFilter turns the validated arguments into a store filter and the
// list of effective filters to echo in rest_url (after page and per_page,
// in TEC's order, then categories and tags).
func eventFilter(r *Request) (f models.EventFilter, echo []KV, statusAt int, err error) {
	loc := r.Deps.location()
	now := r.Deps.now()
	f = models.EventFilter{Page: r.Page(), PerPage: r.PerPage(), Lang: r.Lang}
	strict, _ := r.Bool("strict_dates")
	include := r.IntList("include")

	// bound parses a date argument in the site zone; date-only values widen
	// to the start (startOfDay) or end of their day unless strict_dates.
	bound := func(name string, startOfDay bool) (*time.Time, error) {
		s := r.String(name)
		if s == "" {
			return nil, nil
		}
		t, form, err := models.ParseDate(s, now, loc)
		if err != nil {
			return nil, ErrInvalidParam(name, *invalid("reason.events.invalid_date", nil))
		}
		t = t.In(loc)
		if !strict && form.DateOnly {
			y, m, d := t.Date()
			if startOfDay {
				t = time.Date(y, m, d, 0, 0, 0, 0, loc)
			} else {
				t = time.Date(y, m, d, 23, 59, 59, 0, loc)
			}
		}
		echo = append(echo, KV{name, t.Format(time.DateTime)})
		return &t, nil
	}
	// A bound on the last change stands for the window, as starts_* and
	// ends_* do: a program catching up wants every event changed since.
	modRel := r.Has("modified_after") || r.Has("modified_before")
	if len(include) == 0 {
		startsRel := r.Has("starts_before") || r.Has("starts_after") || modRel
		endsRel := r.Has("ends_before") || r.Has("ends_after") || modRel
		if r.Has("start_date") || !startsRel {
			if f.StartMin, err = bound("start_date", true); err != nil {
				return f, nil, 0, err
			}
		}
		if r.Has("end_date") || !endsRel {
			if f.EndMax, err = bound("end_date", false); err != nil {
				return f, nil, 0, err
			}
		}
	}
	if words := r.String("search"); strings.TrimSpace(words) != "" {
		f.Search = strings.Fields(words)
		echo = append(echo, KV{"search", words})
	}
	f.Statuses = r.StringList("status")
	statusAt = len(echo) // the status that applied is known once listed
	if len(include) > 0 {
		f.Include = include
		echo = append(echo, KV{"include", joinIDs(include)})
	}
	if r.Has("recurrence") {
		f.Recurrence = r.String("recurrence")
		if f.Recurrence != models.RecurrenceOccurrences {
			echo = append(echo, KV{"recurrence", f.Recurrence})
		}
	}
	if id, ok := r.Int("post_parent"); ok {
		f.ParentID = &id
		echo = append(echo, KV{"post_parent", strconv.FormatInt(id, 10)})
	}
	if len(include) == 0 {
		for _, rel := range []struct {
			name string
			dst  **time.Time
		}{{"starts_before", &f.StartsBefore}, {"starts_after", &f.StartsAfter}, {"ends_before", &f.EndsBefore}, {"ends_after", &f.EndsAfter}} {
			if *rel.dst, err = bound(rel.name, false); err != nil {
				return f, nil, 0, err
			}
		}
	}
	var modEcho []KV
	if f.ModifiedAfter, f.ModifiedBefore, modEcho, err = modifiedBounds(r); err != nil {
		return f, nil, 0, err
	}
	echo = append(echo, modEcho...)
	switch r.String("orderby") {
	case orderByModified:
		f.Order = models.OrderModified
	case "title":
		f.Order = models.OrderTitle
	}
	f.Desc = r.String("order") == "desc"
	echo = append(echo, orderEcho(r, eventOrderBys[0], "asc")...)
	if v, ok := r.Bool("geoloc"); ok && r.Has("geoloc") {
		f.Geoloc = &v
		echo = append(echo, KV{"geoloc", boolText(v)})
	}
	if r.Has("geoloc_lat") && r.Has("geoloc_lng") {
		lat, _ := r.Args["geoloc_lat"].(float64)
		lng, _ := r.Args["geoloc_lng"].(float64)
		f.Near = &models.GeoPoint{Lat: lat, Lng: lng}
		echo = append(echo, KV{"geoloc_lat", strconv.FormatFloat(lat, 'f', -1, 64)}, KV{"geoloc_lng", strconv.FormatFloat(lng, 'f', -1, 64)})
	}
	if ids := r.IntList("venue"); len(ids) > 0 {
		f.VenueIDs = ids
		echo = append(echo, KV{"venue", joinIDs(ids)})
	}
	if ids := r.IntList("organizer"); len(ids) > 0 {
		f.OrganizerIDs = ids
		echo = append(echo, KV{"organizer", joinIDs(ids)})
	}
	if v, ok := r.Bool("featured"); ok && r.Has("featured") {
		f.Featured = &v
		echo = append(echo, KV{"featured", boolText(v)})
	}
	// Our extension: events hidden from listings too, for the admin's
	// calendar; models honours it only for those who may see drafts.
	if v, _ := r.Bool("include_hidden"); v {
		f.IncludeHidden = true
		echo = append(echo, KV{"include_hidden", "true"})
	}
	for _, tx := range []struct {
		name string
		dst  *[]models.TermRef
	}{{"categories", &f.Categories}, {"tags", &f.Tags}} {
		if !r.Has(tx.name) {
			continue
		}
		refs, reason := termRefs(r.Args[tx.name], false)
		if reason != nil {
			return f, nil, 0, ErrInvalidParam(tx.name, *reason)
		}
		if len(refs) == 0 {
			continue
		}
		*tx.dst = refs
		echo = append(echo, KV{tx.name, termRefsText(refs)})
	}
	// The language selects the content of the page, so it is echoed too
	// (a path prefix is kept by listURL itself).
	if r.Has("ml_language") {
		echo = append(echo, KV{"ml_language", r.Lang})
	}
	return f, echo, statusAt, nil
}

// validateTermFilter checks the form of a categories/tags filter: ids or
// slugs (the models check that they exist).
func validateTermFilter(_ *Request, v any) *Reason {
	_, reason := termRefs(v, false)
	return reason
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}

func boolText(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// termRefsText writes term references back as a comma list.
func termRefsText(refs []models.TermRef) string {
	s := make([]string, len(refs))
	for i, t := range refs {
		if t.ID != 0 {
			s[i] = strconv.FormatInt(t.ID, 10)
		} else {
			s[i] = t.Name
		}
	}
	return strings.Join(s, ",")
}
