package api

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/kalends/kalends/models"
)

func TestEventLinksAcceptTECShapesAndKeepOrder(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		base := map[string]any{"title": "Linked", "start_date": "2027-06-01 10:00", "end_date": "2027-06-01 12:00",
			"venue":      []any{map[string]any{"venue": "Hall A"}, map[string]any{"venue": "Hall B"}},
			"organizer":  []any{map[string]any{"organizer": "Zed"}, map[string]any{"organizer": "Alpha"}},
			"categories": []any{"Music", map[string]any{"name": "Art"}}, "tags": "one, two"}
		ev := e.createEvent(t, base)
		venues, ok := ev["venue"].([]any)
		if !ok || len(venues) != 2 {
			t.Fatalf("two venues should be a list: %v", ev["venue"])
		}
		orgs := ev["organizer"].([]any)
		if len(orgs) != 2 || orgs[0].(map[string]any)["organizer"] != "Zed" {
			t.Fatalf("organizer order: %v", orgs)
		}
		zed, alpha := int64(orgs[0].(map[string]any)["id"].(float64)), int64(orgs[1].(map[string]any)["id"].(float64))
		cats := ev["categories"].([]any)
		if len(cats) != 2 || cats[0].(map[string]any)["name"] != "Art" {
			t.Errorf("categories sorted by name: %v", cats)
		}
		id := eventIDOf(ev)
		path := fmt.Sprintf("/cal/events/v1/events/%d", id)
		// Mixed organizers: CSV string, {id}, inline object; order kept.
		r := e.do(t, "PATCH", path, map[string]any{"organizer": []any{fmt.Sprint(alpha), map[string]any{"id": zed}, map[string]any{"organizer": "New"}}}, models.RoleAdministrator)
		mustStatus(t, r, http.StatusOK)
		got := r.Map(t)["organizer"].([]any)
		if len(got) != 3 || eventIDOf(got[0].(map[string]any)) != alpha || eventIDOf(got[1].(map[string]any)) != zed {
			t.Errorf("mixed organizers: %v", got)
		}
		r = e.do(t, "PATCH", path, map[string]any{"organizer": fmt.Sprintf("%d,%d", zed, alpha)}, models.RoleAdministrator)
		if got := r.Map(t)["organizer"].([]any); len(got) != 2 || eventIDOf(got[0].(map[string]any)) != zed {
			t.Errorf("CSV organizers: %v", got)
		}
		// Empty values clear; one venue is an object.
		r = e.do(t, "PATCH", path, map[string]any{"categories": "", "tags": []any{}, "venue": map[string]any{"id": eventIDOf(venues[1].(map[string]any))}}, models.RoleAdministrator)
		m := r.Map(t)
		if len(m["categories"].([]any)) != 0 || len(m["tags"].([]any)) != 0 {
			t.Errorf("clear terms: %v %v", m["categories"], m["tags"])
		}
		if v, ok := m["venue"].(map[string]any); !ok || v["venue"] != "Hall B" {
			t.Errorf("one venue: %v", m["venue"])
		}
		r = e.do(t, "PATCH", path, map[string]any{"venue": ""}, models.RoleAdministrator)
		if v, ok := r.Map(t)["venue"].([]any); !ok || len(v) != 0 {
			t.Errorf("cleared venue: %v", r.Map(t)["venue"])
		}
		// Same inline venue again: TEC's duplicate detection reuses it.
		again := e.createEvent(t, map[string]any{"title": "Again", "start_date": "2027-06-02", "end_date": "2027-06-02", "venue": map[string]any{"venue": "Hall A"}})
		if eventIDOf(again["venue"].(map[string]any)) != eventIDOf(venues[0].(map[string]any)) {
			t.Errorf("duplicate venue not reused")
		}
		// Contributors may not create categories: an unknown name is 400.
		r = e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "C", "start_date": "2027-06-02", "end_date": "2027-06-02",
			"categories": []any{"Brand New"}}, models.RoleContributor)
		if r.Status != http.StatusBadRequest {
			t.Errorf("contributor new category: %d %s", r.Status, r.Body)
		}
		r = e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "C", "start_date": "2027-06-02", "end_date": "2027-06-02",
			"categories": []any{"music"}}, models.RoleContributor)
		mustStatus(t, r, http.StatusCreated)
	})
}
