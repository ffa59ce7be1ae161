package api

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

// TestModifiedAfterAndOrderByModified: modified_after is inclusive and
// modified_before exclusive, both read in the site zone; they lift the
// default event window; orderby=modified sorts by the last change on
// events, venues and organizers, and the bounds are echoed in rest_url.
func TestModifiedAfterAndOrderByModified(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		ctx := context.Background()
		tokyo, _ := time.LoadLocation("Asia/Tokyo")
		e.Deps.DB.Site().Location = tokyo
		titles := []string{"夏祭り", "벚꽃 축제", "Fête de la Musique", "音乐节"}
		base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		var events, venues []int64
		for i, title := range titles {
			// Events of 2020: outside the default window.
			ev := e.createEvent(t, map[string]any{"title": title, "start_date": fmt.Sprintf("2020-0%d-10 10:00:00", i+1),
				"end_date": fmt.Sprintf("2020-0%d-10 12:00:00", i+1)})
			events = append(events, eventIDOf(ev))
			r := e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": title + "会場"}, models.RoleEditor)
			venues = append(venues, idOf(t, r))
		}
		// Last changes in the reverse order of creation, an hour apart
		// (the first changed last).
		for i := range titles {
			at := base.Add(time.Duration(len(titles)-i) * time.Hour)
			for _, tbl := range []struct {
				name string
				id   int64
			}{{"events", events[i]}, {"venues", venues[i]}} {
				if _, err := e.DB.IDB().NewUpdate().Table(tbl.name).Set("updated_at = ?", at).Where("id = ?", tbl.id).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		// 2026-03-01 02:00 UTC is 11:00 in Tokyo: the events changed at
		// 02:00 (inclusive), 03:00 and 04:00.
		after := url.QueryEscape("2026-03-01 11:00:00")
		got, total := listIDs(t, e.do(t, "GET", nsURL+"/events?modified_after="+after+"&orderby=modified", nil, ""), "events")
		if want := []int64{events[2], events[1], events[0]}; !reflect.DeepEqual(got, want) || total != 3 {
			t.Errorf("events modified_after, orderby=modified: %v (%d), want %v", got, total, want)
		}
		got, _ = listIDs(t, e.do(t, "GET", nsURL+"/events?modified_after="+after+"&orderby=modified&order=desc", nil, ""), "events")
		if want := []int64{events[0], events[1], events[2]}; !reflect.DeepEqual(got, want) {
			t.Errorf("events order=desc: %v, want %v", got, want)
		}
		before := url.QueryEscape("2026-03-01 13:00:00") // 04:00 UTC, exclusive
		r := e.do(t, "GET", nsURL+"/events?modified_after="+after+"&modified_before="+before+"&orderby=modified&per_page=1", nil, "")
		got, total = listIDs(t, r, "events")
		if want := []int64{events[2]}; !reflect.DeepEqual(got, want) || total != 2 {
			t.Errorf("events between: %v (%d), want %v of 2", got, total, want)
		}
		next, _ := r.Map(t)["next_rest_url"].(string)
		if want := "modified_after=2026-03-01+11%3A00%3A00&modified_before=2026-03-01+13%3A00%3A00&orderby=modified"; !strings.Contains(next, want) {
			t.Errorf("next_rest_url %q lacks %q", next, want)
		}
		got, total = listIDs(t, e.do(t, "GET", nsURL+"/venues?modified_after="+after+"&orderby=modified&order=asc", nil, ""), "venues")
		if want := []int64{venues[2], venues[1], venues[0]}; !reflect.DeepEqual(got, want) || total != 3 {
			t.Errorf("venues modified_after asc: %v (%d), want %v", got, total, want)
		}
		got, _ = listIDs(t, e.do(t, "GET", nsURL+"/venues?orderby=modified", nil, ""), "venues")
		if want := []int64{venues[0], venues[1], venues[2], venues[3]}; !reflect.DeepEqual(got, want) {
			t.Errorf("venues orderby=modified: %v, want %v", got, want)
		}
		expect(t, "bad modified_after", e.do(t, "GET", nsURL+"/events?modified_after=yesterday-ish", nil, ""), 400, "rest_invalid_param")
		expect(t, "bad orderby", e.do(t, "GET", nsURL+"/organizers?orderby=start_date", nil, ""), 400, "rest_invalid_param")
	})
}
