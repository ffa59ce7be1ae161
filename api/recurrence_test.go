package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

// eventIDs is the ids of an event list answer, in order.
func eventIDs(t *testing.T, r *testResp) []int64 {
	t.Helper()
	ids, _ := listIDs(t, r, "events")
	return ids
}

func TestRecurringEventsOverTheAPI(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		const admin = models.RoleAdministrator
		s := e.createEvent(t, map[string]any{"title": "Book club", "start_date": "2027-03-02 19:00:00", "end_date": "2027-03-02 21:00:00",
			"timezone": "Asia/Tokyo", "categories": "Reading", "recurrence": map[string]any{"rrule": "FREQ=WEEKLY;BYDAY=TU;COUNT=6",
				"exdate": []any{"2027-03-16 19:00:00"}, "rdate": "20270320T100000"}})
		id := eventIDOf(s)
		if s["series_id"] != float64(id) || s["recurrence_id"] != "2027-03-02 19:00:00" || s["is_exception"] != false {
			t.Fatalf("series fields: %v %v %v", s["series_id"], s["recurrence_id"], s["is_exception"])
		}
		rec := s["recurrence"].(map[string]any)
		if fmt.Sprint(rec["rrule"]) != "[FREQ=WEEKLY;BYDAY=TU;COUNT=6]" || fmt.Sprint(rec["exdate"]) != "[2027-03-16 19:00:00]" ||
			fmt.Sprint(rec["rdate"]) != "[2027-03-20 10:00:00]" || rec["text"] == "" {
			t.Errorf("recurrence: %v", rec)
		}
		// A single event has none of the series fields (TEC's shape).
		single := e.createEvent(t, map[string]any{"title": "Once", "start_date": "2027-03-03 10:00", "end_date": "2027-03-03 11:00"})
		for _, k := range []string{"series_id", "recurrence", "recurrence_id", "is_exception"} {
			if _, ok := single[k]; ok {
				t.Errorf("single event has %s", k)
			}
		}
		window := "&start_date=2027-03-01&end_date=2027-04-30&per_page=50"
		// occurrences (default): six Tuesdays minus one EXDATE plus one RDATE.
		r := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events?post_parent=%d%s", id, window), nil, admin)
		mustStatus(t, r, http.StatusOK)
		occ := eventIDs(t, r)
		if len(occ) != 6 || occ[0] != id {
			t.Fatalf("post_parent lists %d occurrences, first %v", len(occ), occ)
		}
		var dates []string
		for _, ev := range r.Map(t)["events"].([]any) {
			m := ev.(map[string]any)
			dates = append(dates, m["start_date"].(string)[:10])
			if m["series_id"] != float64(id) {
				t.Errorf("occurrence %v: series_id %v", m["id"], m["series_id"])
			}
		}
		if got := strings.Join(dates, " "); got != "2027-03-02 2027-03-09 2027-03-20 2027-03-23 2027-03-30 2027-04-06" {
			t.Errorf("dates %s", got)
		}
		all := eventIDs(t, e.do(t, "GET", "/cal/events/v1/events?"+window[1:], nil, admin))
		series := eventIDs(t, e.do(t, "GET", "/cal/events/v1/events?recurrence=series"+window, nil, admin))
		first := eventIDs(t, e.do(t, "GET", "/cal/events/v1/events?recurrence=first"+window, nil, admin))
		if len(all) != 7 || fmt.Sprint(first) != fmt.Sprint([]int64{id, eventIDOf(single)}) || len(series) != 2 {
			t.Errorf("all %v, first %v, series %v", all, first, series)
		}
		// A full page counts: one per series, one per single event.
		for mode, want := range map[string]float64{"series": 2, "first": 2, "occurrences": 7} {
			r := e.do(t, "GET", "/cal/events/v1/events?per_page=1&recurrence="+mode+window[strings.Index(window, "&start"):strings.Index(window, "&per_page")], nil, admin)
			if got := r.Map(t)["total"]; got != want {
				t.Errorf("recurrence=%s: total %v, want %v", mode, got, want)
			}
		}
		// series: the next occurrence in the window.
		later := eventIDs(t, e.do(t, "GET", "/cal/events/v1/events?recurrence=series&start_date=2027-03-21&end_date=2027-04-30", nil, admin))
		if len(later) != 1 || later[0] != occ[3] {
			t.Errorf("next occurrence from 03-21: %v, want %d", later, occ[3])
		}
		// The category counts the series once.
		cat := s["categories"].([]any)[0].(map[string]any)
		c := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/categories/%d", eventIDOf(cat)), nil, admin).Map(t)
		if c["count"] != float64(1) {
			t.Errorf("category count %v", c["count"])
		}

		// this (the default for an occurrence): an exception.
		r = e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d", occ[1]), map[string]any{"title": "Book club: guest author"}, admin)
		mustStatus(t, r, http.StatusOK)
		if r.Map(t)["is_exception"] != true {
			t.Errorf("edited occurrence is not an exception")
		}
		// all: every occurrence but the exception.
		r = e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d", occ[4]), map[string]any{"title": "Reading circle", "scope": "all"}, admin)
		mustStatus(t, r, http.StatusOK)
		titles := map[string]int{}
		for _, ev := range e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events?post_parent=%d%s", id, window), nil, admin).Map(t)["events"].([]any) {
			titles[ev.(map[string]any)["title"].(string)]++
		}
		if titles["Reading circle"] != 5 || titles["Book club: guest author"] != 1 {
			t.Errorf("titles after scope all: %v", titles)
		}
		// DELETE of an occurrence adds an EXDATE to the series.
		mustStatus(t, e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d", occ[5]), nil, admin), http.StatusOK)
		got := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", id), nil, admin).Map(t)["recurrence"].(map[string]any)
		if fmt.Sprint(got["exdate"]) != "[2027-03-16 19:00:00 2027-04-06 19:00:00]" {
			t.Errorf("exdate after delete: %v", got["exdate"])
		}
		// scope this on the series row is refused; recurrence on an occurrence too.
		r = e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d", id), map[string]any{"title": "x", "scope": "this"}, admin)
		if r.Status != http.StatusBadRequest || r.Code(t) != "rest_invalid_param" {
			t.Errorf("scope this on the series: %d %s", r.Status, r.Body)
		}
		r = e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d", occ[2]), map[string]any{"recurrence": "FREQ=DAILY"}, admin)
		if r.Status != http.StatusBadRequest {
			t.Errorf("recurrence on an occurrence: %d %s", r.Status, r.Body)
		}
		// "" makes the series a single event again.
		r = e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d", id), map[string]any{"recurrence": ""}, admin)
		mustStatus(t, r, http.StatusOK)
		if _, ok := r.Map(t)["series_id"]; ok {
			t.Errorf("still a series: %s", r.Body)
		}
		if n := len(eventIDs(t, e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events?post_parent=%d%s", id, window), nil, admin))); n != 0 {
			t.Errorf("%d occurrences left", n)
		}
	})
}

func TestRecurrenceErrorsNameThePartInTheCallersLanguage(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, c := range []struct {
			rule any
			lang string
			want string
		}{
			{"FREQ=WEEKLY;BYDAY=XX", "en", "BYDAY=XX"},
			{"FREQ=WEEKLY;BYDAY=XX", "ja", "BYDAY=XX の部分"},
			{map[string]any{"rrule": "FREQ=HOURLY"}, "zh-hans", "FREQ=HOURLY：系列按天重复"},
			{map[string]any{"rrule": []any{"FREQ=DAILY"}, "exdate": "someday"}, "ko", "EXDATE:someday"},
			{map[string]any{"rule": "FREQ=DAILY"}, "en", "rrule, rdate and exdate"},
			{42, "en", "RFC 5545"},
		} {
			r := e.do(t, "POST", "/cal/events/v1/events?ml_language="+c.lang, map[string]any{"title": "Bad", "start_date": "2027-03-02 19:00",
				"end_date": "2027-03-02 20:00", "recurrence": c.rule}, models.RoleAdministrator)
			if r.Status != http.StatusBadRequest || r.Code(t) != "rest_invalid_param" || !strings.Contains(string(r.Body), c.want) {
				t.Errorf("%v (%s): %d %s", c.rule, c.lang, r.Status, r.Body)
			}
		}
		r := e.do(t, "GET", "/cal/events/v1/events?recurrence=all", nil, models.RoleAdministrator)
		if r.Status != http.StatusBadRequest {
			t.Errorf("recurrence=all on a list: %d", r.Status)
		}
		r = e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "x", "start_date": "2027-03-02 19:00",
			"end_date": "2027-03-02 20:00", "scope": "some"}, models.RoleAdministrator)
		if r.Status != http.StatusBadRequest {
			t.Errorf("scope=some: %d", r.Status)
		}
	})
}

func TestDeleteOfAnOccurrenceTakesAScope(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		const admin = models.RoleAdministrator
		s := e.createEvent(t, map[string]any{"title": "Run club", "start_date": "2027-09-06 07:00", "end_date": "2027-09-06 08:00",
			"recurrence": "FREQ=WEEKLY;COUNT=4"})
		id := eventIDOf(s)
		list := fmt.Sprintf("/cal/events/v1/events?start_date=2027-09-01&end_date=2027-12-31&post_parent=%d", id)
		occ := eventIDs(t, e.do(t, "GET", list, nil, admin))
		r := e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d?scope=sometimes", occ[2]), nil, admin)
		if r.Status != http.StatusBadRequest {
			t.Errorf("scope=sometimes: %d", r.Status)
		}
		mustStatus(t, e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/events/%d?scope=following", occ[2]), nil, admin), http.StatusOK)
		if got := eventIDs(t, e.do(t, "GET", list, nil, admin)); fmt.Sprint(got) != fmt.Sprint(occ[:2]) {
			t.Errorf("after DELETE scope=following: %v, want %v", got, occ[:2])
		}
		series := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", id), nil, admin).Map(t)
		rule := series["recurrence"].(map[string]any)
		if !strings.Contains(fmt.Sprint(rule["rrule"]), "UNTIL=") {
			t.Errorf("the series does not end: %v", rule["rrule"])
		}
		// Its JSON-LD says the schedule in schema.org's terms.
		sch, _ := series["json_ld"].(map[string]any)["eventSchedule"].(map[string]any)
		if sch["repeatFrequency"] != "P1W" || sch["startDate"] != "2027-09-06" || sch["endDate"] != "2027-09-19" ||
			sch["startTime"] != "07:00:00" || sch["endTime"] != "08:00:00" {
			t.Errorf("eventSchedule: %v", sch)
		}
	})
}

// TestSeriesRowsOverTheAPI: with one row per series, an occurrence made
// longer on its own (ending after the window) does not hide the later one
// the window holds, and a reader who sees drafts gets one row for a series
// with a draft occurrence; the rows agree with X-WP-Total on a full page,
// for the anonymous reader (twice: the second from ready parts) and an
// administrator.
func TestSeriesRowsOverTheAPI(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		const admin = models.RoleAdministrator
		s := e.createEvent(t, map[string]any{"title": "書道教室 Atelier d'écriture", "start_date": "2027-03-01 10:00:00",
			"end_date": "2027-03-01 12:00:00", "recurrence": "FREQ=WEEKLY;COUNT=4"})
		id := eventIDOf(s)
		occ := eventIDs(t, e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events?post_parent=%d&start_date=2027-03-01&end_date=2027-03-31", id), nil, admin))
		if len(occ) != 4 {
			t.Fatalf("occurrences %v", occ)
		}
		mustStatus(t, e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d", occ[1]), map[string]any{"end_date": "2027-03-20 18:00:00"}, admin), http.StatusOK)
		check := func(what, query string, as models.Role, want int64) {
			t.Helper()
			for _, perPage := range []string{"50", "1"} {
				r := e.do(t, "GET", "/cal/events/v1/events?recurrence=series&per_page="+perPage+query, nil, as)
				mustStatus(t, r, http.StatusOK)
				if ids := eventIDs(t, r); len(ids) != 1 || ids[0] != want || r.Header.Get("X-WP-Total") != "1" {
					t.Errorf("%s, per_page %s: rows %v, X-WP-Total %s; want %d alone, total 1", what, perPage, ids, r.Header.Get("X-WP-Total"), want)
				}
			}
		}
		for range 2 {
			check("5–18 March, anonymous", "&start_date=2027-03-05&end_date=2027-03-18", "", occ[2])
		}
		check("5–18 March, administrator", "&start_date=2027-03-05&end_date=2027-03-18", admin, occ[2])
		mustStatus(t, e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d", occ[2]), map[string]any{"status": "draft"}, admin), http.StatusOK)
		check("March, drafts and published", "&start_date=2027-03-01&end_date=2027-03-31&status=draft,publish", admin, id)
		check("March, anonymous", "&start_date=2027-03-01&end_date=2027-03-31", "", id)
	})
}
