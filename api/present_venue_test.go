package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

func keysOf(t *testing.T, o Obj) string {
	t.Helper()
	var ks []string
	for _, kv := range o {
		ks = append(ks, kv.K)
	}
	return strings.Join(ks, ",")
}

func linkedTestRequest() *Request {
	loc, _ := time.LoadLocation("America/New_York")
	return &Request{Lang: "en", Deps: &Deps{Site: &models.Site{BaseURL: "http://example.test", Location: loc}}}
}

func TestPresentVenueKeyOrderAsTEC(t *testing.T) {
	r := linkedTestRequest()
	at := time.Date(2026, 11, 22, 9, 22, 19, 0, time.UTC)
	lat, lng := 40.7, -74.0
	v := &models.Venue{Post: models.Post{ID: 5, AuthorID: 1, Status: "publish", Slug: "grand-arena", Lang: "en",
		PublishedAt: at, UpdatedAt: at}, Venue: "Grand Arena",
		Address: "1 Main St", City: "Metropolis", Country: "United States", State: "NY", Zip: "10001", Phone: "555-1234",
		Website: "https://arena.example.com", StateProvince: "NY", ShowMap: true, ShowMapLink: true}
	got := keysOf(t, presentVenue(r, v, true))
	want := "id,author,status,date,date_utc,modified,modified_utc,url,venue,slug,address,city,country,state,zip,phone,website,stateprovince,json_ld,show_map,show_map_link,global_id,global_id_lineage,lang,translations"
	if got != want {
		t.Errorf("keys\n got %s\nwant %s", got, want)
	}
	v.GeoLat, v.GeoLng, v.ImageURL = &lat, &lng, "https://img.example.com/a.JPG"
	o := presentVenue(r, v, false)
	b, _ := json.Marshal(o)
	for _, s := range []string{`"date":"2026-11-22 04:22:19"`, `"date_utc":"2026-11-22 09:22:19"`, `"url":"http://example.test/venue/grand-arena/"`,
		`"geo_lat":40.7,"geo_lng":-74`, `"image":{"url":"https://img.example.com/a.JPG","extension":"jpg"}`,
		`"global_id":"example.test?id=5","global_id_lineage":["example.test?id=5"]`, `"translations":[]`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("missing %s in %s", s, b)
		}
	}
	if strings.Contains(string(b), "json_ld") {
		t.Errorf("json_ld without asking")
	}
	ld, _ := json.Marshal(venueJSONLD(r, v))
	if !strings.Contains(string(ld), `"geo":{"@type":"GeoCoordinates","latitude":40.7,"longitude":-74}`) ||
		!strings.Contains(string(ld), `"address":{"@type":"PostalAddress","streetAddress":"1 Main St"`) {
		t.Errorf("json_ld: %s", ld)
	}
}

func TestPresentOrganizerKeyOrderAsTEC(t *testing.T) {
	r := linkedTestRequest()
	at := time.Now()
	o := &models.Organizer{Post: models.Post{ID: 6, AuthorID: 1, Status: "publish", Slug: "acme-events", Lang: "en",
		PublishedAt: at, UpdatedAt: at, Translations: []string{"ja"}}, Organizer: "Acme Events",
		Phone: "555-9999", Website: "https://acme.example.com", Email: "info@acme.example.com",
		Description: "<p>Fun &amp; games</p>"}
	got := keysOf(t, presentOrganizer(r, o, true))
	want := "id,author,status,date,date_utc,modified,modified_utc,url,organizer,description,slug,phone,website,email,json_ld,global_id,global_id_lineage,lang,translations"
	if got != want {
		t.Errorf("keys\n got %s\nwant %s", got, want)
	}
	ld, _ := organizerJSONLD(r, o).MarshalJSON()
	if string(ld) != `{"@type":"Person","name":"Acme Events","description":"Fun & games","url":"https://acme.example.com","telephone":"555-9999","email":"info@acme.example.com","sameAs":"https://acme.example.com"}` {
		t.Errorf("json_ld: %s", ld)
	}
}

func TestLinkedInputFromMapRejectsHostileValues(t *testing.T) {
	r := linkedTestRequest()
	for _, c := range []struct {
		m       map[string]any
		invalid string
	}{
		{map[string]any{"venue": "A", "city": "B", "show_map": "no", "geo_lat": "45.5", "geo_lng": -122.0}, ""},
		{map[string]any{"venue": ""}, "venue"},
		{map[string]any{"venue": "   "}, "venue"},
		{map[string]any{"venue": 12.0}, "venue"},
		{map[string]any{"zip": 10001.0}, "zip"},
		{map[string]any{"website": "foo"}, "website"},
		{map[string]any{"website": "javascript:alert(1)"}, "website"},
		{map[string]any{"image": "ftp://x.example/a.png"}, "image"},
		{map[string]any{"status": "kinda_thinking_about_it"}, "status"},
		{map[string]any{"show_map": "maybe"}, "show_map"},
		{map[string]any{"geo_lat": 91.0}, "geo_lat"},
		{map[string]any{"geo_lng": "-180.5"}, "geo_lng"},
		{map[string]any{"geo_lat": "NaN"}, "geo_lat"},
		{map[string]any{"date": "not a date"}, "date"},
		{map[string]any{"city": strings.Repeat("x", 256)}, "city"},
		{map[string]any{"city": map[string]any{"a": 1}}, "city"},
		{map[string]any{"author": -1.0}, "author"},
	} {
		_, inv := venueInput.fromMap(r, c.m)
		var names []string
		for _, i := range inv {
			names = append(names, i.Field)
		}
		if strings.Join(names, ",") != c.invalid {
			t.Errorf("%v: invalid %v, want %q", c.m, names, c.invalid)
		}
	}
	in, inv := venueInput.fromMap(r, map[string]any{"venue": " A ", "show_map": "no", "geo_lat": "45.5", "date": "2026-01-02 03:04:05"})
	if len(inv) != 0 || *in.Venue != "A" || *in.ShowMap || *in.GeoLat != 45.5 || in.City != nil ||
		in.Date == nil || *in.Date != "2026-01-02 03:04:05" {
		t.Errorf("parsed: %+v %v", in, inv)
	}
	for _, c := range []struct {
		email string
		ok    bool
	}{{"info@acme.example.com", true}, {"", true}, {"nope", false}, {"Info <a@b.co>", false}} {
		_, inv := organizerInput.fromMap(r, map[string]any{"email": c.email})
		if (len(inv) == 0) != c.ok {
			t.Errorf("email %q: invalid=%v", c.email, inv)
		}
	}
}
