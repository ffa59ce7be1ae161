package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestRenamedRecordsOldAddressesRedirect: when a record's slug changes (an
// edit through the store, as the API and the admin do; a restored
// revision; a write straight to the table, as an import may), its old
// public address answers 301 to the current one, for every kind, in every
// language prefix, with the query kept, and the event's .ics to the new
// .ics. A chain of renames leads to the latest slug in one step. A slug a
// record takes back is live again, not a redirect. A draft's old slug and
// the API's by-slug stay 404: the API is exact, drafts have no page.
func TestRenamedRecordsOldAddressesRedirect(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := testApp(t, db, io.Discard)
		ctx := context.Background()
		admin, v, o := seedAdminVenueOrganizer(t, db)
		s := func(v string) *string { return &v }
		in := models.EventInput{Title: s("春季音乐节"), StartDate: s("2027-05-01 19:00"), EndDate: s("2027-05-01 21:00"), Lang: "en",
			Categories: &[]models.TermRef{{Name: "Fête"}}, Tags: &[]models.TermRef{{Name: "야외"}},
			Venues: &[]models.VenueRef{{ID: v.ID}}, Organizers: &[]models.OrganizerRef{{ID: o.ID}}}
		in.Status = s(models.StatusPublish)
		e, err := db.CreateEvent(ctx, admin, in)
		if err != nil {
			t.Fatal(err)
		}
		draftIn := models.EventInput{Title: s("下書き"), StartDate: s("2027-05-02 10:00"), EndDate: s("2027-05-02 11:00"), Lang: "en"}
		draftIn.Status = s(models.StatusDraft)
		d, err := db.CreateEvent(ctx, admin, draftIn)
		if err != nil {
			t.Fatal(err)
		}
		cat, tag := e.Categories[0], e.Tags[0]
		oldEvent, oldCat, oldTag, oldDraft := e.Slug, cat.Slug, tag.Slug, d.Slug
		// Renames: the event twice (a chain), the terms once, the draft once;
		// the venue and the organizer straight in their tables.
		for _, slug := range []string{"春の音楽祭", "春季音乐节-2027"} {
			if _, err := db.UpdateEvent(ctx, admin, models.ByID(e.ID), models.EventInput{Slug: s(slug), Lang: "en"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.UpdateTerm(ctx, admin, models.TaxCategory, cat.ID, models.TermInput{Slug: s("fête-2027")}, "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateTerm(ctx, admin, models.TaxTag, tag.ID, models.TermInput{Slug: s("야외-공연")}, "en"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(d.ID), models.EventInput{Slug: s("下書き-2"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct{ table, slug, old string }{{"venues", "東京ホール-新館", v.Slug}, {"organizers", "서울-음악회-2027", o.Slug}} {
			if _, err := db.Bun.NewRaw("UPDATE "+q.table+" SET slug = ? WHERE slug = ?", q.slug, q.old).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		esc := url.PathEscape
		moves := []struct{ from, to string }{
			{"/event/" + esc(oldEvent) + "/", "/event/" + esc("春季音乐节-2027") + "/"},
			{"/event/" + esc("春の音楽祭") + "/", "/event/" + esc("春季音乐节-2027") + "/"},
			{"/event/" + esc(oldEvent) + ".ics", "/event/" + esc("春季音乐节-2027") + ".ics"},
			{"/venue/" + esc(v.Slug) + "/", "/venue/" + esc("東京ホール-新館") + "/"},
			{"/organizer/" + esc(o.Slug) + "/?page=1", "/organizer/" + esc("서울-음악회-2027") + "/?page=1"},
			{"/events/category/" + esc(oldCat) + "/", "/events/category/" + esc("fête-2027") + "/"},
			{"/tag/" + esc(oldTag) + "/", "/tag/" + esc("야외-공연") + "/"},
		}
		for _, pre := range []string{"", "/ja", "/zh-hans", "/ko"} {
			for _, m := range moves {
				res, _ := do(t, app, httptest.NewRequest("GET", pre+m.from, nil))
				if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != pre+m.to {
					t.Errorf("GET %s: %d to %q, want 301 to %q", pre+m.from, res.StatusCode, res.Header.Get("Location"), pre+m.to)
					continue
				}
				if res, _ := do(t, app, httptest.NewRequest("GET", pre+m.to, nil)); res.StatusCode != http.StatusOK {
					t.Errorf("GET %s (the redirect's target): %d", pre+m.to, res.StatusCode)
				}
			}
		}
		for _, p := range []string{"/event/" + esc(oldDraft) + "/", "/ja/event/" + esc(oldDraft) + "/", "/event/" + esc(oldDraft) + ".ics",
			"/cal/events/v1/events/by-slug/" + esc(oldEvent)} {
			if res, _ := do(t, app, httptest.NewRequest("GET", p, nil)); res.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", p, res.StatusCode)
			}
		}
		if got := apiJSON(t, app, "/cal/events/v1/categories?slug="+url.QueryEscape(oldCat)); len(got["categories"].([]any)) != 0 {
			t.Errorf("API categories?slug=<old slug>: %v, want none", got["categories"])
		}
		// Restoring the first revision takes the first slug back: it is live,
		// and the slug the event leaves now redirects.
		_, revs, err := db.Revisions(ctx, admin, models.KindEvent, models.ByID(e.ID))
		if err != nil || len(revs) < 2 {
			t.Fatalf("revisions: %v (%d)", err, len(revs))
		}
		if _, err := db.RestoreEventRevision(ctx, admin, models.ByID(e.ID), revs[len(revs)-1].ID, "en"); err != nil {
			t.Fatal(err)
		}
		if res, _ := do(t, app, httptest.NewRequest("GET", "/event/"+esc(oldEvent)+"/", nil)); res.StatusCode != http.StatusOK {
			t.Errorf("restored slug: %d, want 200", res.StatusCode)
		}
		res, _ := do(t, app, httptest.NewRequest("GET", "/ja/event/"+esc("春季音乐节-2027")+"/", nil))
		if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/ja/event/"+esc(oldEvent)+"/" {
			t.Errorf("slug left by the restore: %d to %q", res.StatusCode, res.Header.Get("Location"))
		}
	})
}
