package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

// Issue 15 item 3: a PATCH that sends only a start after the stored end
// names start_date, the field that was sent; sending only an end before
// the stored start names end_date.
func TestDateOrderErrorNamesTheFieldSent(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		id := eventIDOf(e.createEvent(t, map[string]any{"title": "Talk", "start_date": "2031-05-01 10:00:00", "end_date": "2031-05-01 11:00:00"}))
		for _, tt := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"start_date": "2031-05-02 10:00:00"}, "start_date"},
			{map[string]any{"end_date": "2031-04-30 10:00:00"}, "end_date"},
			{map[string]any{"start_date": "2031-05-03 10:00:00", "end_date": "2031-05-02 10:00:00"}, "end_date"},
		} {
			r := e.do(t, "PATCH", fmt.Sprintf("/cal/events/v1/events/%d", id), tt.body, models.RoleEditor)
			mustStatus(t, r, http.StatusBadRequest)
			params, _ := r.Map(t)["data"].(map[string]any)["params"].(map[string]any)
			if _, ok := params[tt.field]; !ok || len(params) != 1 {
				t.Errorf("%v: params %v, want only %s", tt.body, params, tt.field)
			}
		}
	})
}

// Issue 15 item 4: every URL the API emits is an RFC 3986 URI, IRI
// characters percent-encoded, for records whose slugs are Chinese,
// Japanese, Korean or accented Latin.
func TestEveryURLIsAnASCIIURI(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		var check func(path string, v any)
		check = func(path string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, w := range x {
					check(path+"."+k, w)
				}
			case []any:
				for i, w := range x {
					check(fmt.Sprintf("%s[%d]", path, i), w)
				}
			case string:
				if !strings.HasPrefix(x, "http://") && !strings.HasPrefix(x, "https://") {
					return
				}
				u, err := url.Parse(x)
				if err != nil || u.Host == "" {
					t.Errorf("%s: %q does not parse: %v", path, x, err)
				}
				for _, r := range x {
					if r > 0x7e || r < 0x21 {
						t.Errorf("%s: %q is not an ASCII URI", path, x)
						break
					}
				}
			}
		}
		for i, title := range []string{"港のジャズナイト", "夏日音乐节", "한여름 음악회", "Fête de la musique"} {
			day := fmt.Sprintf("2031-06-%02d", i+1)
			ev := e.createEvent(t, map[string]any{"title": title, "start_date": day + " 19:00:00", "end_date": day + " 21:00:00",
				"venue": map[string]any{"venue": title + " hall"}, "organizer": []any{map[string]any{"organizer": title + " org"}},
				"categories": []string{title + " cat"}, "tags": []string{title + " tag"}})
			check(title, ev)
			r := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(ev)), nil, "")
			mustStatus(t, r, http.StatusOK)
			check(title+" (single)", r.Map(t))
		}
		for _, list := range []string{"events?search=%E6%B8%AF&per_page=1", "venues", "organizers", "categories", "tags"} {
			r := e.do(t, "GET", "/cal/events/v1/"+list, nil, "")
			mustStatus(t, r, http.StatusOK)
			check(list, r.Map(t))
		}
	})
}

// Issue 15 item 6: categories=<parent> lists the events of its
// subcategories too, as WordPress does; a child alone lists its own.
func TestCategoryFilterIncludesSubcategories(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		r := e.do(t, "POST", "/cal/events/v1/categories", map[string]any{"name": "Music"}, models.RoleEditor)
		mustStatus(t, r, http.StatusCreated)
		music := int64(r.Map(t)["id"].(float64))
		r = e.do(t, "POST", "/cal/events/v1/categories", map[string]any{"name": "Jazz", "parent": music}, models.RoleEditor)
		mustStatus(t, r, http.StatusCreated)
		jazz := int64(r.Map(t)["id"].(float64))
		r = e.do(t, "POST", "/cal/events/v1/categories", map[string]any{"name": "Bebop", "parent": jazz}, models.RoleEditor)
		mustStatus(t, r, http.StatusCreated)
		bebop := int64(r.Map(t)["id"].(float64))
		e.createEvent(t, map[string]any{"title": "Quartet", "start_date": day(3) + " 20:00:00", "end_date": day(3) + " 22:00:00", "categories": []int64{bebop}})
		e.createEvent(t, map[string]any{"title": "Choir", "start_date": day(4) + " 20:00:00", "end_date": day(4) + " 22:00:00", "categories": []int64{music}})
		e.createEvent(t, map[string]any{"title": "Other", "start_date": day(5) + " 20:00:00", "end_date": day(5) + " 22:00:00"})
		for _, tt := range []struct {
			filter string
			want   int
		}{{"music", 2}, {fmt.Sprint(music), 2}, {"jazz", 1}, {fmt.Sprint(bebop), 1}} {
			if n, _ := e.listTotal(t, "categories="+tt.filter, ""); n != tt.want {
				t.Errorf("categories=%s: %d events, want %d", tt.filter, n, tt.want)
			}
		}
	})
}

// Issue 15 item 13: creating a term that exists answers term_exists with
// data.term_id and additional_data [term_id, term_taxonomy_id], in TEC's
// key order (sample 48).
func TestTermExistsCarriesTheExistingTerm(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, kind := range []string{"categories", "tags"} {
			r := e.do(t, "POST", "/cal/events/v1/"+kind, map[string]any{"name": "Outdoor"}, models.RoleEditor)
			mustStatus(t, r, http.StatusCreated)
			id := r.Map(t)["id"].(float64)
			r = e.do(t, "POST", "/cal/events/v1/"+kind, map[string]any{"name": "outdoor"}, models.RoleEditor)
			mustStatus(t, r, http.StatusBadRequest)
			m := r.Map(t)
			if m["code"] != "term_exists" || m["data"].(map[string]any)["term_id"] != id {
				t.Errorf("%s: %v", kind, m)
			}
			if add, _ := m["additional_data"].([]any); len(add) != 2 || add[0] != id || add[1] != id {
				t.Errorf("%s: additional_data %v, want [%v %v]", kind, m["additional_data"], id, id)
			}
			if keys := topKeys(t, r.Body); strings.Join(keys, ",") != "code,message,data,additional_data" {
				t.Errorf("%s: keys %v", kind, keys)
			}
		}
	})
}

// topKeys lists the top-level keys of a JSON object in order.
func topKeys(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// Issue 15 item 9 (part): json_ld of an event's venue and organizer always
// has telephone and sameAs, empty when unset, and offers.price is a string
// ("0" when free), as TEC (samples 18, 19).
func TestJSONLDShapesOfTEC(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, tt := range []struct {
			cost, price string
		}{{"0", "0"}, {"Free", "0"}, {"25", "25"}} {
			ev := e.createEvent(t, map[string]any{"title": "Jazz " + tt.cost, "start_date": day(3) + " 20:00:00", "end_date": day(3) + " 23:00:00",
				"cost": tt.cost, "venue": map[string]any{"venue": "Blue Note", "city": "Chicago"},
				"organizer": []any{map[string]any{"organizer": "Jazz Society"}}})
			r := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(ev)), nil, "")
			mustStatus(t, r, http.StatusOK)
			ld := r.Map(t)["json_ld"].(map[string]any)
			if got := ld["offers"].(map[string]any)["price"]; got != tt.price {
				t.Errorf("cost %q: offers.price %#v, want the string %q", tt.cost, got, tt.price)
			}
			for _, part := range []string{"location", "organizer"} {
				obj := ld[part].(map[string]any)
				for _, k := range []string{"telephone", "sameAs"} {
					if v, ok := obj[k]; !ok || v != "" {
						t.Errorf("json_ld.%s.%s = %#v, want \"\"", part, k, v)
					}
				}
			}
		}
	})
}

// Issue 15 item 10: deleting for good answers the record as it was, for
// events as for venues, organizers and terms.
func TestForceDeleteAnswersTheRecordAsItWas(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		ev := e.createEvent(t, map[string]any{"title": "Gone", "start_date": day(3) + " 20:00:00", "end_date": day(3) + " 21:00:00"})
		created := map[string]float64{"events": float64(eventIDOf(ev))}
		for kind, body := range map[string]map[string]any{"venues": {"venue": "Hall"}, "organizers": {"organizer": "Org"}, "categories": {"name": "Cat"}, "tags": {"name": "Tag"}} {
			r := e.do(t, "POST", "/cal/events/v1/"+kind, body, models.RoleEditor)
			mustStatus(t, r, http.StatusCreated)
			created[kind] = r.Map(t)["id"].(float64)
		}
		for kind, id := range created {
			r := e.do(t, "DELETE", fmt.Sprintf("/cal/events/v1/%s/%d?force=true", kind, int64(id)), nil, models.RoleEditor)
			mustStatus(t, r, http.StatusOK)
			m := r.Map(t)
			if m["id"] != id {
				t.Errorf("%s: %v, want the record (id %v) as it was", kind, m, id)
			}
			if _, ok := m["deleted"]; ok {
				t.Errorf("%s: a deleted/previous wrapper: %v", kind, m)
			}
		}
	})
}

// Issue 15 item 7: East Asian cost ranges read as ranges, through the
// API, on both dialects.
func TestCJKCostRanges(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, tt := range []struct {
			cost, symbol, position, text string
			values                       []any
		}{
			{"¥1,000～¥3,000", "¥", "prefix", "¥1,000 – ¥3,000", []any{"1000", "3000"}},
			{"1000〜3000円", "円", "postfix", "1000円 – 3000円", []any{"1000", "3000"}},
			{"100元至500元", "元", "postfix", "100元 – 500元", []any{"100", "500"}},
			{"₩10,000~₩20,000", "₩", "prefix", "₩10,000 – ₩20,000", []any{"10000", "20000"}},
		} {
			ev := e.createEvent(t, map[string]any{"title": "Cost " + tt.cost, "start_date": day(3) + " 20:00:00", "end_date": day(3) + " 21:00:00", "cost": tt.cost})
			d := ev["cost_details"].(map[string]any)
			if d["currency_symbol"] != tt.symbol || d["currency_position"] != tt.position || fmt.Sprint(d["values"]) != fmt.Sprint(tt.values) {
				t.Errorf("%s: cost_details %v", tt.cost, d)
			}
			if ev["cost"] != tt.text {
				t.Errorf("%s: cost %q, want %q", tt.cost, ev["cost"], tt.text)
			}
		}
	})
}

// Issue 15 item 8: per-event currency (TEC's event meta) wins over what the
// cost text shows, which wins over the site's; the code goes to
// json_ld.offers.priceCurrency; a later cost keeps an explicit symbol.
func TestEventCurrencyPrecedence(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		ev := func(body map[string]any) map[string]any {
			t.Helper()
			body["start_date"], body["end_date"] = day(3)+" 20:00:00", day(3)+" 21:00:00"
			created := e.createEvent(t, body)
			r := e.do(t, "GET", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(created)), nil, "")
			mustStatus(t, r, http.StatusOK)
			return r.Map(t)
		}
		offer := func(m map[string]any) any {
			return m["json_ld"].(map[string]any)["offers"].(map[string]any)["priceCurrency"]
		}
		site := ev(map[string]any{"title": "Site", "cost": "1000"})
		if site["cost"] != "$1000" || offer(site) != "USD" {
			t.Errorf("site currency: %v, %v", site["cost"], offer(site))
		}
		text := ev(map[string]any{"title": "Text", "cost": "1000円"})
		if text["cost"] != "1000円" || offer(text) != "USD" {
			t.Errorf("text currency: %v, %v", text["cost"], offer(text))
		}
		own := ev(map[string]any{"title": "Own", "cost": "1000円", "currency_symbol": "¥", "currency_code": "jpy", "currency_position": "prefix"})
		d := own["cost_details"].(map[string]any)
		if own["cost"] != "¥1000" || offer(own) != "JPY" || d["currency_code"] != "JPY" || d["currency_symbol"] != "¥" || d["currency_position"] != "prefix" {
			t.Errorf("own currency: %v, %v, %v", own["cost"], offer(own), d)
		}
		r := e.do(t, "POST", fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(own)), map[string]any{"cost": "2000円"}, models.RoleEditor)
		mustStatus(t, r, http.StatusOK)
		if got := r.Map(t)["cost"]; got != "¥2000" {
			t.Errorf("a new cost text replaced the event's own symbol: %v", got)
		}
		for field, bad := range map[string]string{"currency_code": "JP", "currency_position": "left"} {
			r := e.do(t, "POST", "/cal/events/v1/events", map[string]any{"title": "Bad", "start_date": day(3) + " 20:00:00",
				"end_date": day(3) + " 21:00:00", field: bad}, models.RoleEditor)
			mustStatus(t, r, http.StatusBadRequest)
			if params, _ := r.Map(t)["data"].(map[string]any)["params"].(map[string]any); params[field] == nil {
				t.Errorf("%s=%s: params %v", field, bad, params)
			}
		}
	})
}

// Issue 15 item 9: a single term carries WordPress's _links (samples 03,
// 25, 27, 31) pointing at Kalends' routes, self's allow naming what the
// caller may do, up for a subcategory; lists carry none (sample 24).
func TestSingleTermLinks(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		r := e.do(t, "POST", "/cal/events/v1/categories", map[string]any{"name": "Music"}, models.RoleEditor)
		mustStatus(t, r, http.StatusCreated)
		parent := int64(r.Map(t)["id"].(float64))
		r = e.do(t, "POST", "/cal/events/v1/categories", map[string]any{"name": "Jazz", "parent": parent}, models.RoleEditor)
		mustStatus(t, r, http.StatusCreated)
		child := r.Map(t)
		links := child["_links"].(map[string]any)
		var keys []string
		for _, k := range []string{"self", "collection", "about", "up", "wp:post_type", "curies"} {
			if _, ok := links[k]; ok {
				keys = append(keys, k)
			}
		}
		if len(keys) != 6 {
			t.Errorf("_links keys %v", links)
		}
		self := links["self"].([]any)[0].(map[string]any)
		if fmt.Sprint(self["targetHints"]) != "map[allow:[GET POST PUT PATCH DELETE]]" {
			t.Errorf("editor's allow %v", self["targetHints"])
		}
		up := links["up"].([]any)[0].(map[string]any)["href"]
		if up != fmt.Sprintf("http://example.test/cal/events/v1/categories/%d", parent) {
			t.Errorf("up %v", up)
		}
		r = e.do(t, "GET", fmt.Sprintf("/cal/events/v1/categories/%d", int64(child["id"].(float64))), nil, "")
		mustStatus(t, r, http.StatusOK)
		self = r.Map(t)["_links"].(map[string]any)["self"].([]any)[0].(map[string]any)
		if fmt.Sprint(self["targetHints"]) != "map[allow:[GET]]" {
			t.Errorf("anonymous allow %v", self["targetHints"])
		}
		r = e.do(t, "GET", "/cal/events/v1/categories", nil, "")
		for _, it := range r.Map(t)["categories"].([]any) {
			if _, ok := it.(map[string]any)["_links"]; ok {
				t.Errorf("a list item carries _links")
			}
		}
	})
}

// Issue 15 item 1: every date field of every kind survives GET → PUT → GET
// unchanged, with site and event zones with and without DST (the
// publication date is read and written in the site zone).
func TestDatesRoundTripThroughPUT(t *testing.T) {
	t.Parallel()
	fields := []string{"date", "date_utc", "start_date", "end_date", "utc_start_date", "utc_end_date", "all_day", "timezone"}
	for _, siteZone := range []string{"UTC", "America/New_York", "Asia/Tokyo"} {
		t.Run(siteZone, func(t *testing.T) {
			t.Parallel()
			eachEnv(t, func(t *testing.T, e *testEnv) {
				loc, err := time.LoadLocation(siteZone)
				if err != nil {
					t.Fatal(err)
				}
				e.Deps.Site.Location = loc
				var paths []string
				for _, ev := range []map[string]any{
					{"title": "Berlin", "timezone": "Europe/Berlin", "start_date": "2027-03-28 01:30:00", "end_date": "2027-03-28 04:00:00", "date": "2026-10-25 02:30:00"},
					{"title": "Seoul", "timezone": "Asia/Seoul", "start_date": "2027-06-01 19:00:00", "end_date": "2027-06-01 21:00:00", "date": "2027-03-14 03:30:00"},
					{"title": "All day", "timezone": "America/New_York", "all_day": true, "start_date": "2027-11-07", "end_date": "2027-11-08", "date_utc": "2026-11-01 06:30:00"},
				} {
					paths = append(paths, fmt.Sprintf("/cal/events/v1/events/%d", eventIDOf(e.createEvent(t, ev))))
				}
				for kind, body := range map[string]map[string]any{"venues": {"venue": "Hall", "date": "2027-03-14 02:30:00"}, "organizers": {"organizer": "Org", "date": "2026-11-01 01:30:00"}} {
					r := e.do(t, "POST", "/cal/events/v1/"+kind, body, models.RoleEditor)
					mustStatus(t, r, http.StatusCreated)
					paths = append(paths, fmt.Sprintf("/cal/events/v1/%s/%d", kind, int64(r.Map(t)["id"].(float64))))
				}
				for _, p := range paths {
					before := e.do(t, "GET", p, nil, models.RoleEditor).Map(t)
					for _, send := range []string{"date", "date_utc"} {
						put := map[string]any{send: before[send]}
						for _, f := range fields[2:] {
							if v, ok := before[f]; ok && send == "date" {
								put[f] = v
							}
						}
						delete(put, "utc_start_date")
						delete(put, "utc_end_date")
						mustStatus(t, e.do(t, "PUT", p, put, models.RoleEditor), http.StatusOK)
						after := e.do(t, "GET", p, nil, models.RoleEditor).Map(t)
						for _, f := range fields {
							if fmt.Sprint(after[f]) != fmt.Sprint(before[f]) {
								t.Errorf("%s, sending %s back: %s %v -> %v", p, send, f, before[f], after[f])
							}
						}
					}
				}
			})
		})
	}
}

// Issue 15 item 2, through the API: a start a spring-forward night skips
// moves forward by the gap; a time a fall-back night repeats is its first
// occurrence.
func TestDSTGapAndOverlapThroughTheAPI(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, tt := range []struct{ start, wantUTC string }{
			{"2027-03-14 02:30:00", "2027-03-14 07:30:00"},
			{"2027-11-07 01:30:00", "2027-11-07 05:30:00"},
		} {
			ev := e.createEvent(t, map[string]any{"title": "DST " + tt.start, "timezone": "America/New_York",
				"start_date": tt.start, "end_date": "2027-12-01 00:00:00"})
			if ev["utc_start_date"] != tt.wantUTC {
				t.Errorf("%s New York: utc_start_date %v, want %s", tt.start, ev["utc_start_date"], tt.wantUTC)
			}
		}
	})
}

// Issue 15 item 9 (last part): a venue update recomputes stateprovince from
// the new country, state and province (SPEC §4) while it was derived.
func TestVenueUpdateRecomputesStateProvince(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		r := e.do(t, "POST", "/cal/events/v1/venues", map[string]any{"venue": "Hall", "country": "Japan", "province": "Tokyo"}, models.RoleEditor)
		mustStatus(t, r, http.StatusCreated)
		v := r.Map(t)
		if v["stateprovince"] != "Tokyo" {
			t.Errorf("created stateprovince %v, want Tokyo", v["stateprovince"])
		}
		path := fmt.Sprintf("/cal/events/v1/venues/%d", int64(v["id"].(float64)))
		r = e.do(t, "POST", path, map[string]any{"country": "United States", "state": "NY"}, models.RoleEditor)
		mustStatus(t, r, http.StatusOK)
		if got := r.Map(t)["stateprovince"]; got != "NY" {
			t.Errorf("after moving to the US: stateprovince %v, want NY", got)
		}
	})
}
