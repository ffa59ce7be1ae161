package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The role × route matrix of recurring series (issue 18): each caller ×
// each owner × a draft and a published series × an update of its third
// occurrence with scope this, following and all, and the DELETE of an
// occurrence. A scoped edit is an edit of the events it changes, so the
// expected outcome is expect's "update" (or "trash") for the owner and the
// status the series and its occurrences share: who may not edit a
// published event may not reach it through scope all either. An allowed
// cell must have done what the scope says, a refused one nothing at all.
func TestRoleRouteMatrixSeries(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app, users, auth := matrixApp(t, db)
		ctx := context.Background()
		cells := 0
		for _, caller := range matrixCallers {
			for _, owner := range matrixOwners {
				for _, status := range []string{models.StatusDraft, models.StatusPublish} {
					for _, op := range []string{models.ScopeThis, models.ScopeFollowing, models.ScopeAll, "delete"} {
						name := fmt.Sprintf("%s/%s/%s/%s", or(caller, "anonymous"), op, owner, status)
						in := models.EventInput{Title: ptrOf("Series " + name), StartDate: ptrOf("2027-05-06 18:00:00"),
							EndDate: ptrOf("2027-05-06 19:00:00"), Recurrence: ptrOf("FREQ=WEEKLY;COUNT=4"), Lang: "en"}
						in.Status, in.AuthorID = ptrOf(status), &users[owner].ID
						s, err := db.CreateEvent(ctx, models.Console, in)
						if err != nil || s.Status != status {
							t.Fatalf("%s: fixture: %v (%v)", name, err, s)
						}
						occ, err := db.ListEvents(ctx, models.Console, models.EventFilter{ParentID: &s.ID, PerPage: 10,
							Statuses: []string{status}, IncludeHidden: true})
						if err != nil || len(occ.Items) != 4 {
							t.Fatalf("%s: fixture occurrences: %v", name, err)
						}
						third := occ.Items[2].ID
						method, body, want := http.MethodPatch, `{"title":"Changed","scope":"`+op+`"}`, expect("events", caller, "update", owner, status)
						if op == "delete" {
							method, body, want = http.MethodDelete, "", expect("events", caller, "trash", owner, status)
						}
						code, resp := matrixCall(t, app, auth, caller, method, fmt.Sprintf("/cal/events/v1/events/%d", third), body)
						if got := code >= 200 && code < 300; got != want {
							t.Errorf("%s: %d, want allowed=%v: %.200s", name, code, want, resp)
							continue
						}
						titles := seriesTitleCounts(t, db, s.ID)
						s2, _ := db.GetEvent(ctx, models.Console, models.ByID(s.ID), "en")
						switch {
						case !want && (titles["Changed"] != 0 || len(s2.SeriesRule.ExDates) != 0):
							t.Errorf("%s: refused, yet the series changed: %v, EXDATE %v", name, titles, s2.SeriesRule.ExDates)
						case want && op == models.ScopeThis && titles["Changed"] != 1:
							t.Errorf("%s: %v, want one occurrence changed", name, titles)
						case want && op == models.ScopeFollowing && (titles["Changed"] != 0 || len(titles) != 1):
							// the changed part is a series of its own now
							t.Errorf("%s: the old series holds %v after the split", name, titles)
						case want && op == models.ScopeAll && titles["Changed"] != 4:
							t.Errorf("%s: %v, want all four changed", name, titles)
						case want && op == "delete" && len(s2.SeriesRule.ExDates) != 1:
							t.Errorf("%s: deleting an occurrence left EXDATE %v", name, s2.SeriesRule.ExDates)
						}
						cells++
					}
				}
			}
		}
		if cells != len(matrixCallers)*len(matrixOwners)*2*4 {
			t.Errorf("%d cells checked", cells)
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 0 {
			t.Errorf("recount found %d wrong counts (%v)", n, err)
		}
	})
}

// seriesTitleCounts counts the titles of the events of series id, in any
// status but trash.
func seriesTitleCounts(t *testing.T, db *models.DB, id int64) map[string]int {
	t.Helper()
	p, err := db.ListEvents(context.Background(), models.Console, models.EventFilter{ParentID: &id, PerPage: 50, IncludeHidden: true,
		Statuses: []string{models.StatusDraft, models.StatusPublish, models.StatusPending}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range p.Items {
		out[e.Title]++
	}
	return out
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
