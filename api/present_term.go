package api

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/kalends/kalends/models"
)

// Wire names of the two taxonomies, kept from TEC for client compatibility.
const (
	wireTaxCategory = "tribe_events_cat"
	wireTaxTag      = "post_tag"
)

// termWire returns the wire taxonomy, the collection path and the public
// archive path of a term's taxonomy.
func termWire(t *models.Term) (taxonomy, collection, archive string) {
	if t.Taxonomy == models.TaxTag {
		return wireTaxTag, "/tags", "/tag/"
	}
	return wireTaxCategory, "/categories", "/events/category/"
}

// termURLs is the urls object of both term shapes: self, collection and,
// for a child category, up. No trailing slashes, as TEC.
func termURLs(r *Request, t *models.Term) Obj {
	_, coll, _ := termWire(t)
	urls := Obj{
		{"self", r.Deps.APIURL(r, coll+"/"+strconv.FormatInt(t.ID, 10))},
		{"collection", r.Deps.APIURL(r, coll)},
	}
	if t.ParentID != 0 {
		urls = append(urls, KV{"up", r.Deps.APIURL(r, coll+"/"+strconv.FormatInt(t.ParentID, 10))})
	}
	return urls
}

// termTranslations never renders null: a term without translations has [].
func termTranslations(t *models.Term) []string {
	if t.Translations == nil {
		return []string{}
	}
	return t.Translations
}

// presentTermEmbedded renders a term inside an event (TEC's shape (a),
// tec-rest-v1.md §8.1): the raw WordPress term object plus urls, then our
// lang and translations.
func presentTermEmbedded(r *Request, t *models.Term) Obj {
	tax, _, _ := termWire(t)
	return Obj{
		{"name", t.Name},
		{"slug", t.Slug},
		{"term_group", t.TermGroup},
		{"term_taxonomy_id", t.ID},
		{"taxonomy", tax},
		{"description", t.Description},
		{"parent", t.ParentID},
		{"count", t.Count},
		{"filter", "raw"},
		{"id", t.ID},
		{"urls", termURLs(r, t)},
		{"lang", t.Lang},
		{"translations", termTranslations(t)},
	}
}

// presentTerm renders a term as /categories and /tags return it (TEC's
// shape (b)): parent only for categories, meta always [], url the public
// archive page (slug percent-encoded, so a CJK slug gives a valid URL).
func presentTerm(r *Request, t *models.Term) Obj {
	tax, _, archive := termWire(t)
	o := Obj{
		{"id", t.ID},
		{"count", t.Count},
		{"description", t.Description},
		{"name", t.Name},
		{"slug", t.Slug},
		{"taxonomy", tax},
	}
	if t.Taxonomy != models.TaxTag {
		o = append(o, KV{"parent", t.ParentID})
	}
	return append(o,
		KV{"meta", []any{}},
		KV{"url", r.Deps.PageRoot(r) + archive + url.PathEscape(t.Slug) + "/"},
		KV{"urls", termURLs(r, t)},
		KV{"lang", t.Lang},
		KV{"translations", termTranslations(t)},
	)
}

// presentTermSingle is a single term (GET, create, update): presentTerm
// with WordPress's _links after urls (samples 03, 04, 25, 27, 31; lists
// carry none), pointing at Kalends' own routes.
func presentTermSingle(r *Request, t *models.Term) Obj {
	o := presentTerm(r, t)
	out := make(Obj, 0, len(o)+1)
	for _, kv := range o {
		out = append(out, kv)
		if kv.K == "urls" {
			out = append(out, KV{"_links", termLinks(r, t)})
		}
	}
	return out
}

// termLinks are a term's _links: self (with the methods the caller may
// use), collection, about (the namespace index), up for a subcategory, the
// events of the term, and WordPress's curies.
func termLinks(r *Request, t *models.Term) Obj {
	_, coll, _ := termWire(t)
	id := strconv.FormatInt(t.ID, 10)
	allow := []string{"GET"}
	if models.TermAccess(r.User, t.Taxonomy).Edit {
		allow = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	}
	href := func(u string) Obj { return Obj{{"href", u}} }
	links := Obj{
		{"self", []Obj{{{"href", r.Deps.APIURL(r, coll+"/"+id)}, {"targetHints", Obj{{"allow", allow}}}}}},
		{"collection", []Obj{href(r.Deps.APIURL(r, coll))}},
		{"about", []Obj{href(r.Deps.APIURL(r, "/"))}},
	}
	if t.ParentID != 0 {
		links = append(links, KV{"up", []Obj{{{"href", r.Deps.APIURL(r, coll+"/"+strconv.FormatInt(t.ParentID, 10))}, {"embeddable", true}}}})
	}
	return append(links,
		KV{"wp:post_type", []Obj{href(r.Deps.APIURL(r, "/events?"+strings.TrimPrefix(coll, "/")+"="+id))}},
		KV{"curies", []Obj{{{"name", "wp"}, {"href", "https://api.w.org/{rel}"}, {"templated", true}}}},
	)
}
