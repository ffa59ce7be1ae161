package api

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/models"
)

func TestVenueListScenariosAsTEC(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		var ids []int64
		for i := 1; i <= 10; i++ {
			r := e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": fmt.Sprintf("Venue %02d", i), "city": "Paris",
				"address": fmt.Sprintf("%d, Avenue du Temple", i), "zip": fmt.Sprintf("7500%d", i%10), "phone": fmt.Sprintf("+33 1 %02d", i)}, models.RoleEditor)
			ids = append(ids, idOf(t, r))
		}
		// Newest first: ids descending (same second, then id).
		p1, total := listIDs(t, e.do(t, "GET", nsURL+"/venues?per_page=5", nil, ""), "venues")
		p2, _ := listIDs(t, e.do(t, "GET", nsURL+"/venues?per_page=5&page=2", nil, ""), "venues")
		if total != 10 || len(p1) != 5 || len(p2) != 5 || p1[0] != ids[9] || p2[4] != ids[0] {
			t.Errorf("per_page=5: %v %v total %d", p1, p2, total)
		}
		r := e.do(t, "GET", nsURL+"/venues?per_page=4&page=2", nil, "")
		m := r.Map(t)
		if m["total_pages"].(float64) != 3 || r.Header.Get("X-TEC-TotalPages") != "3" || r.Header.Get("X-WP-Total") != "10" ||
			m["next_rest_url"] != "http://example.test/cal/events/v1/venues?page=3&per_page=4&status=publish" ||
			m["previous_rest_url"] != "http://example.test/cal/events/v1/venues?page=1&per_page=4&status=publish" ||
			!strings.Contains(r.Header.Get("Link"), `rel="next"`) {
			t.Errorf("per_page=4 page 2: %v %s", r.Header, r.Body)
		}
		if got := strings.Join(r.Keys(t), ","); got != "venues,rest_url,next_rest_url,previous_rest_url,total,total_pages" {
			t.Errorf("envelope keys: %s", got)
		}

		// Drafts: invisible to anonymous callers, visible to editors.
		d := e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "Hidden", "status": "draft"}, models.RoleEditor)
		did := idOf(t, d)
		if _, n := listIDs(t, e.do(t, "GET", nsURL+"/venues", nil, ""), "venues"); n != 10 {
			t.Errorf("anonymous total with a draft: %d", n)
		}
		if _, n := listIDs(t, e.do(t, "GET", nsURL+"/venues", nil, models.RoleEditor), "venues"); n != 11 {
			t.Errorf("editor total with a draft: %d", n)
		}
		expect(t, "anonymous single draft", e.do(t, "GET", fmt.Sprintf("%s/venues/%d", nsURL, did), nil, ""), 403, "venue-not-accessible")
		expect(t, "subscriber single draft", e.do(t, "GET", nsURL+"/venues/by-slug/hidden", nil, models.RoleSubscriber), 403, "venue-not-accessible")
		expect(t, "editor single draft", e.do(t, "GET", fmt.Sprintf("%s/venues/%d", nsURL, did), nil, models.RoleEditor), 200, "")
		if got, _ := listIDs(t, e.do(t, "GET", nsURL+"/venues?status=draft", nil, models.RoleEditor), "venues"); len(got) != 1 || got[0] != did {
			t.Errorf("status=draft for an editor: %v", got)
		}
		expect(t, "trash", e.do(t, "DELETE", fmt.Sprintf("%s/venues/%d", nsURL, did), nil, models.RoleEditor), 200, "")
		if got, _ := listIDs(t, e.do(t, "GET", nsURL+"/venues?status=trash", nil, models.RoleEditor), "venues"); len(got) != 1 || got[0] != did {
			t.Errorf("status=trash for an editor: %v", got)
		}
		if got, _ := listIDs(t, e.do(t, "GET", nsURL+"/venues?status=trash", nil, models.RoleAuthor), "venues"); len(got) != 0 {
			t.Errorf("status=trash for an author shows others' trash: %v", got)
		}

		// Search: title, address, city, zip, phone; all words; no match is total 0.
		for q, want := range map[string]int{"Venue 03": 1, "temple avenue": 10, "paris": 10, "75004": 1, "+33 1 07": 1, "VENUE": 10, "nowhere": 0} {
			r := e.do(t, "GET", nsURL+"/venues?search="+strings.ReplaceAll(q, " ", "+")+"&per_page=3", nil, "")
			m := r.Map(t)
			if int(m["total"].(float64)) != want {
				t.Errorf("search %q: total %v, want %d", q, m["total"], want)
			}
			if want > 0 && !strings.Contains(m["rest_url"].(string), "search=") {
				t.Errorf("search not echoed: %v", m["rest_url"])
			}
		}

		// Links to events: has_events, event, only_with_upcoming.
		past := linkedEvent(t, e, models.StatusPublish, time.Now().Add(-48*time.Hour), []int64{ids[0]}, nil)
		linkedEvent(t, e, models.StatusPublish, time.Now().Add(48*time.Hour), []int64{ids[1]}, nil)
		linkedEvent(t, e, models.StatusDraft, time.Now().Add(48*time.Hour), []int64{ids[2]}, nil)
		for _, c := range []struct {
			query string
			want  []int64
		}{
			{"has_events=true", []int64{ids[1], ids[0]}},
			{"has_events=1&only_with_upcoming=yes", []int64{ids[1]}},
			{fmt.Sprintf("event=%d", past), []int64{ids[0]}},
			{"only_with_upcoming=true", []int64{ids[1]}},
			{"only_with_upcoming=false&per_page=100", ids},
		} {
			got, _ := listIDs(t, e.do(t, "GET", nsURL+"/venues?"+c.query, nil, ""), "venues")
			if fmt.Sprint(sortedIDs(got)) != fmt.Sprint(sortedIDs(c.want)) {
				t.Errorf("%s: %v, want %v", c.query, got, c.want)
			}
		}
		if _, n := listIDs(t, e.do(t, "GET", nsURL+"/venues?has_events=false", nil, ""), "venues"); n != 8 {
			t.Errorf("has_events=false: %d, want 8", n)
		}
		r = e.do(t, "GET", nsURL+"/venues?has_events=true&only_with_upcoming=1", nil, "")
		if u := r.Map(t)["rest_url"]; u != "http://example.test/cal/events/v1/venues?page=1&per_page=120&has_events=true&only_with_upcoming=true&status=publish" {
			t.Errorf("filters echoed: %v", u)
		}
	})
}

func sortedIDs(ids []int64) []int64 {
	out := append([]int64(nil), ids...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestOrganizerScenariosAsTEC(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		mk := func(name, phone, email, website string) int64 {
			return idOf(t, e.do(t, "POST", nsURL+"/organizers", map[string]any{"organizer": name, "phone": phone, "email": email, "website": website}, models.RoleEditor))
		}
		one := mk("One", "1111", "one@common.com", "http://one.com")
		mk("Two", "1111 22", "two@common.com", "http://two.com")
		mk("Three", "333", "three@three.com", "http://three.example")
		for q, want := range map[string]int{"1111": 2, "three@three.com": 1, "common.com": 2, "http://one.com": 1, "@common.com": 2} {
			if _, n := listIDs(t, e.do(t, "GET", nsURL+"/organizers?search="+q, nil, ""), "organizers"); n != want {
				t.Errorf("search %q: %d, want %d", q, n, want)
			}
		}
		again := e.do(t, "POST", nsURL+"/organizers", map[string]any{"organizer": "One", "phone": "1111", "email": "one@common.com", "website": "http://one.com"}, models.RoleEditor)
		if again.Status != 201 || idOf(t, again) != one {
			t.Errorf("second identical POST: %d %s", again.Status, again.Body)
		}
		u := e.do(t, "POST", fmt.Sprintf("%s/organizers/%d", nsURL, one), map[string]any{"organizer": "One renamed"}, models.RoleEditor)
		um := u.Map(t)
		if u.Status != 200 || um["email"] != "one@common.com" || um["phone"] != "1111" || um["website"] != "http://one.com" || um["organizer"] != "One renamed" {
			t.Errorf("partial update: %d %s", u.Status, u.Body)
		}
		want := "id,author,status,date,date_utc,modified,modified_utc,url,organizer,slug,phone,website,email,json_ld,global_id,global_id_lineage,lang,translations"
		if got := strings.Join(e.do(t, "GET", nsURL+"/organizers/by-slug/one", nil, "").Keys(t), ","); got != want {
			t.Errorf("single keys\n got %s\nwant %s", got, want)
		}
		ev := linkedEvent(t, e, models.StatusPublish, time.Now().Add(time.Hour), nil, []int64{one})
		if got, _ := listIDs(t, e.do(t, "GET", fmt.Sprintf("%s/organizers?event=%d", nsURL, ev), nil, ""), "organizers"); len(got) != 1 || got[0] != one {
			t.Errorf("event filter: %v", got)
		}
		expect(t, "trash", e.do(t, "DELETE", nsURL+"/organizers/by-slug/one", nil, models.RoleAdministrator), 200, "")
		expect(t, "trash again", e.do(t, "DELETE", fmt.Sprintf("%s/organizers/%d", nsURL, one), nil, models.RoleAdministrator), 410, "organizer-is-in-trash")
		if got, _ := listIDs(t, e.do(t, "GET", fmt.Sprintf("%s/organizers?event=%d", nsURL, ev), nil, models.RoleEditor), "organizers"); len(got) != 0 {
			t.Errorf("trashed organizer still linked: %v", got)
		}
	})
}

func TestLinkedTranslationsThroughTheAPI(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		id := idOf(t, e.do(t, "POST", nsURL+"/venues", map[string]any{"venue": "Town Hall", "city": "Tokyo", "phone": "03"}, models.RoleEditor))
		r := e.do(t, "PATCH", fmt.Sprintf("%s/venues/%d?ml_language=ja", nsURL, id), map[string]any{"venue": "市役所", "city": "東京", "phone": "04"}, models.RoleEditor)
		m := r.Map(t)
		if m["venue"] != "市役所" || m["city"] != "東京" || m["phone"] != "04" || m["lang"] != "en" || fmt.Sprint(m["translations"]) != "[ja]" {
			t.Errorf("ja update: %s", r.Body)
		}
		en := e.do(t, "GET", fmt.Sprintf("%s/venues/%d", nsURL, id), nil, "").Map(t)
		if en["venue"] != "Town Hall" || en["phone"] != "04" {
			t.Errorf("en read after ja update: %v", en)
		}
		ja := e.do(t, "GET", fmt.Sprintf("/ja%s/venues/%d", nsURL, id), nil, "").Map(t)
		if ja["venue"] != "市役所" || !strings.HasPrefix(ja["url"].(string), "http://example.test/ja/venue/") {
			t.Errorf("ja read: %v", ja)
		}
		if ld := ja["json_ld"].(map[string]any); ld["name"] != "市役所" {
			t.Errorf("json_ld not in the request language: %v", ld)
		}
		if _, n := listIDs(t, e.do(t, "GET", nsURL+"/venues?ml_language=ja&search=東京", nil, ""), "venues"); n != 1 {
			t.Errorf("search of a ja translation: %d", n)
		}
	})
}

// countHook counts the queries the app runs.
type countHook struct {
	mu sync.Mutex
	n  int
}

func (h *countHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (h *countHook) AfterQuery(context.Context, *bun.QueryEvent) {
	h.mu.Lock()
	h.n++
	h.mu.Unlock()
}
func (h *countHook) take() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.n
	h.n = 0
	return n
}

func TestLinkedListsRunAFixedNumberOfQueries(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		var vids, oids []int64
		ctx, ed := context.Background(), e.Users[models.RoleEditor]
		for i := 0; i < 101; i++ { // through the store: the lists are under test here
			name := fmt.Sprintf("V%d", i)
			v, _, err := e.DB.Venues().Create(ctx, ed, models.VenueInput{Venue: &name}, "en")
			if err != nil {
				t.Fatal(err)
			}
			o, _, err := e.DB.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: &name}, "en")
			if err != nil {
				t.Fatal(err)
			}
			vids, oids = append(vids, v.ID), append(oids, o.ID)
		}
		ev := linkedEvent(t, e, models.StatusPublish, time.Now().Add(time.Hour), vids, oids)
		// Sign in once first: the first use of an application password is
		// recorded with a write, later ones within a minute are not.
		e.do(t, "GET", nsURL+"/venues?per_page=1", nil, models.RoleEditor)
		h := &countHook{}
		e.DB.AddQueryHook(h)
		for _, kind := range []string{"venues", "organizers"} {
			for _, q := range []string{"", "&search=1&has_events=1", fmt.Sprintf("&event=%d&only_with_upcoming=1", ev)} {
				counts := map[int]int{}
				for _, per := range []int{1, 100} {
					h.take()
					r := e.do(t, "GET", fmt.Sprintf("%s/%s?per_page=%d%s&ml_language=ja", nsURL, kind, per, q), nil, models.RoleEditor)
					if got, _ := listIDs(t, r, kind); len(got) == 0 {
						t.Fatalf("%s %s: empty", kind, q)
					}
					counts[per] = h.take()
				}
				if counts[1] != counts[100] {
					t.Errorf("%s%s: %d queries with per_page=1, %d with per_page=100", kind, q, counts[1], counts[100])
				}
				t.Logf("%s%s: %d queries per request (auth included)", kind, q, counts[1])
			}
		}
	})
}
