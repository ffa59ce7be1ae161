package api

import (
	"testing"

	"github.com/kalends/kalends/models"
)

// The embedded shape (a) is byte for byte TEC's (sample 05, categories[0]),
// plus lang and translations.
func TestPresentTermEmbeddedMatchesTEC(t *testing.T) {
	r := &Request{Deps: &Deps{Site: &models.Site{BaseURL: "http://example.test"}}}
	term := &models.Term{ID: 2, Taxonomy: models.TaxCategory, Name: "Conferences", Slug: "conferences",
		Description: "…", Count: 1, Lang: "en"}
	b, err := marshal(presentTermEmbedded(r, term))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"Conferences","slug":"conferences","term_group":0,"term_taxonomy_id":2,"taxonomy":"tribe_events_cat",` +
		`"description":"…","parent":0,"count":1,"filter":"raw","id":2,"urls":{"self":"http://example.test/cal/events/v1/categories/2",` +
		`"collection":"http://example.test/cal/events/v1/categories"},"lang":"en","translations":[]}`
	if string(b) != want {
		t.Errorf("embedded category =\n%s\nwant\n%s", b, want)
	}
	tag := &models.Term{ID: 3, Taxonomy: models.TaxTag, Name: "featured-talk", Slug: "featured-talk", Lang: "ja",
		Translations: []string{"en", "ko"}}
	r.Prefix = "/ja"
	b, _ = marshal(presentTermEmbedded(r, tag))
	want = `{"name":"featured-talk","slug":"featured-talk","term_group":0,"term_taxonomy_id":3,"taxonomy":"post_tag",` +
		`"description":"","parent":0,"count":0,"filter":"raw","id":3,"urls":{"self":"http://example.test/ja/cal/events/v1/tags/3",` +
		`"collection":"http://example.test/ja/cal/events/v1/tags"},"lang":"ja","translations":["en","ko"]}`
	if string(b) != want {
		t.Errorf("embedded tag =\n%s\nwant\n%s", b, want)
	}
	child := &models.Term{ID: 9, Taxonomy: models.TaxCategory, Name: "Jazz", Slug: "jazz", ParentID: 2, Lang: "en"}
	urls, _ := presentTermEmbedded(r, child).Get("urls")
	if up, _ := urls.(Obj).Get("up"); up != "http://example.test/ja/cal/events/v1/categories/2" {
		t.Errorf("urls.up = %v", up)
	}
}
