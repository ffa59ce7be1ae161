package models_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// nfd is s decomposed, as macOS writes file names and some keyboards type:
// é as e + U+0301, 한 as ᄒ + ᅡ + ᆫ, が as か + U+3099.
func nfd(s string) string { return norm.NFD.String(s) }

// wantNFC fails unless got is in NFC and equals want (want is written
// composed, as every source file of Kalends is).
func wantNFC(t *testing.T, what, got, want string) {
	t.Helper()
	if !norm.NFC.IsNormalString(got) {
		t.Errorf("%s = %+q: not NFC", what, got)
	} else if got != want {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

// stored reads one text column of one row as the database holds it.
func stored(t *testing.T, db *models.DB, table, col, where string, args ...any) string {
	t.Helper()
	var v string
	if err := db.IDB().NewRaw("SELECT "+col+" FROM "+table+" WHERE "+where, args...).Scan(context.Background(), &v); err != nil {
		t.Fatalf("read %s.%s: %v", table, col, err)
	}
	return v
}

// Issue 29 item 2: whatever form a writer sends, text is stored in NFC,
// the slugs made from it too, and reads give the NFC text back.
func TestDecomposedTextIsStoredComposed(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed", models.RoleEditor)

		in := baseInput(nfd("Fête de la Musique 한국 がっこう"), "2031-06-21 18:00:00", "2031-06-21 23:00:00")
		in.Description = ptr(nfd("<p>Café <b>서울</b> où l’été</p>"))
		in.Excerpt = ptr(nfd("Été à Séoul"))
		in.Cost = ptr(nfd(`"5 €, ¥ café"`))
		in.Categories = &[]models.TermRef{{Name: nfd("Musique élégante")}}
		in.Tags = &[]models.TermRef{{Name: nfd("한국어")}}
		in.Venues = &[]models.VenueRef{{New: &models.VenueInput{Venue: ptr(nfd("Salle Pleyel 강남")), Address: ptr(nfd("252 rue du Faubourg Saint-Honoré")),
			City: ptr(nfd("Montréal")), Country: ptr(nfd("Québec")), Description: ptr(nfd("<p>Grande salle à Séoul</p>"))}}}
		in.Organizers = &[]models.OrganizerRef{{New: &models.OrganizerInput{Organizer: ptr(nfd("Société Générale 한국")), Description: ptr(nfd("Équipe"))}}}
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "title", e.Title, "Fête de la Musique 한국 がっこう")
		wantNFC(t, "slug", e.Slug, "fête-de-la-musique-한국-がっこう")
		wantNFC(t, "stored title", stored(t, db, "events", "title", "id = ?", e.ID), "Fête de la Musique 한국 がっこう")
		wantNFC(t, "stored slug", stored(t, db, "events", "slug", "id = ?", e.ID), "fête-de-la-musique-한국-がっこう")
		wantNFC(t, "stored description", stored(t, db, "events", "description", "id = ?", e.ID), "<p>Café <b>서울</b> où l’été</p>")
		wantNFC(t, "stored excerpt", stored(t, db, "events", "excerpt", "id = ?", e.ID), "Été à Séoul")
		wantNFC(t, "stored cost", stored(t, db, "events", "cost", "id = ?", e.ID), `"5 €, ¥ café"`)
		if len(e.Categories) != 1 || len(e.Tags) != 1 || len(e.Venues) != 1 || len(e.Organizers) != 1 {
			t.Fatalf("links: %d categories, %d tags, %d venues, %d organizers", len(e.Categories), len(e.Tags), len(e.Venues), len(e.Organizers))
		}
		wantNFC(t, "category name", stored(t, db, "terms", "name", "id = ?", e.Categories[0].ID), "Musique élégante")
		wantNFC(t, "category name key", stored(t, db, "terms", "name_key", "id = ?", e.Categories[0].ID), "musique élégante")
		wantNFC(t, "category slug", stored(t, db, "terms", "slug", "id = ?", e.Categories[0].ID), "musique-élégante")
		wantNFC(t, "tag slug", stored(t, db, "terms", "slug", "id = ?", e.Tags[0].ID), "한국어")
		v := e.Venues[0].ID
		wantNFC(t, "venue", stored(t, db, "venues", "venue", "id = ?", v), "Salle Pleyel 강남")
		wantNFC(t, "venue slug", stored(t, db, "venues", "slug", "id = ?", v), "salle-pleyel-강남")
		wantNFC(t, "venue address", stored(t, db, "venues", "address", "id = ?", v), "252 rue du Faubourg Saint-Honoré")
		wantNFC(t, "venue city", stored(t, db, "venues", "city", "id = ?", v), "Montréal")
		wantNFC(t, "venue country", stored(t, db, "venues", "country", "id = ?", v), "Québec")
		wantNFC(t, "venue description", stored(t, db, "venues", "description", "id = ?", v), "<p>Grande salle à Séoul</p>")
		o := e.Organizers[0].ID
		wantNFC(t, "organizer", stored(t, db, "organizers", "organizer", "id = ?", o), "Société Générale 한국")
		wantNFC(t, "organizer slug", stored(t, db, "organizers", "slug", "id = ?", o), "société-générale-한국")

		// An asked slug, a translation, and an update in the source language.
		up, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Slug: ptr(nfd("Été Coréen")), Title: ptr(nfd("Fête d’été"))})
		if err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "updated slug", up.Slug, "été-coréen")
		wantNFC(t, "stored updated title", stored(t, db, "events", "title", "id = ?", e.ID), "Fête d’été")
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Lang: "ko", Title: ptr(nfd("한국 음악 축제")), Description: ptr(nfd("<p>서울의 여름</p>"))}); err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "translated title", stored(t, db, "event_translations", "title", "event_id = ? AND lang = ?", e.ID, "ko"), "한국 음악 축제")
		wantNFC(t, "translated description", stored(t, db, "event_translations", "description", "event_id = ? AND lang = ?", e.ID, "ko"), "<p>서울의 여름</p>")

		// Venues and organizers on their own, terms with an asked slug.
		vn, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: ptr(nfd("Théâtre 부산")), Zip: ptr("75008"), State: ptr(nfd("Île-de-France"))}, "fr")
		if err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "venue read", vn.Venue, "Théâtre 부산")
		wantNFC(t, "venue state", stored(t, db, "venues", "state", "id = ?", vn.ID), "Île-de-France")
		if _, err := db.Venues().Update(ctx, ed, models.ByID(vn.ID), models.VenueInput{City: ptr(nfd("Séoul"))}, "ja"); err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "venue translation", stored(t, db, "venue_translations", "city", "venue_id = ? AND lang = ?", vn.ID, "ja"), "Séoul")
		og, err := db.Organizers().Update(ctx, ed, models.ByID(o), models.OrganizerInput{Organizer: ptr(nfd("Amélie 김"))}, "en")
		if err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "organizer read", og.Organizer, "Amélie 김")
		cat, err := db.CreateTerm(ctx, ed, models.TaxCategory, models.TermInput{Name: ptr(nfd("Cinéma 영화")), Slug: ptr(nfd("Ciné 영화")), Description: ptr(nfd("<p>Écran</p>"))}, "en")
		if err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "term read", cat.Name, "Cinéma 영화")
		wantNFC(t, "term slug", stored(t, db, "terms", "slug", "id = ?", cat.ID), "ciné-영화")
		wantNFC(t, "term description", stored(t, db, "terms", "description", "id = ?", cat.ID), "<p>Écran</p>")
		if _, err := db.UpdateTerm(ctx, ed, models.TaxCategory, cat.ID, models.TermInput{Name: ptr(nfd("映画とカフェ"))}, "ja"); err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "term translation", stored(t, db, "term_translations", "name", "term_id = ? AND lang = ?", cat.ID, "ja"), "映画とカフェ")
		// The same name, composed or not, is one term.
		var exists *models.TermExistsError
		if _, err := db.CreateTerm(ctx, ed, models.TaxCategory, models.TermInput{Name: ptr("Cinéma 영화")}, "en"); !errors.As(err, &exists) || exists.ID != cat.ID {
			t.Errorf("a second Cinéma 영화, composed: %v, want the term exists", err)
		}

		// Images: a file name from macOS is decomposed.
		m, err := db.CreateMedia(ctx, ed, models.MediaUpload{FileName: nfd("Été à Séoul.png"), AltText: nfd("Scène"), Data: imagetest.PNG(20, 20)})
		if err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "media name", stored(t, db, "media", "name", "id = ?", m.ID), "Été-à-Séoul")
		wantNFC(t, "media title", stored(t, db, "media", "title", "id = ?", m.ID), "Été-à-Séoul")
		wantNFC(t, "media alt", stored(t, db, "media", "alt_text", "id = ?", m.ID), "Scène")
		if _, err := db.UpdateMedia(ctx, ed, m.ID, models.MediaText{Title: ptr(nfd("Défilé"))}); err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "media title updated", stored(t, db, "media", "title", "id = ?", m.ID), "Défilé")
		if _, err := db.UpdateMedia(ctx, ed, m.ID, models.MediaText{Title: ptr(nfd("퍼레이드")), Lang: "ko"}); err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "media translation", stored(t, db, "media_translations", "title", "media_id = ? AND lang = ?", m.ID, "ko"), "퍼레이드")
	})
}

// Issue 29 item 2: a by-slug look-up sent decomposed finds the composed
// record, for every kind, and so do the term filters of an event list.
func TestDecomposedSlugFindsComposedRecord(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed", models.RoleEditor)
		in := baseInput("서울 가을 축제", "2031-10-01 10:00:00", "2031-10-01 12:00:00")
		in.Status = ptr(models.StatusPublish)
		in.Categories = &[]models.TermRef{{Name: "Fête foraine"}}
		in.Tags = &[]models.TermRef{{Name: "ガイド"}}
		in.Venues = &[]models.VenueRef{{New: &models.VenueInput{Venue: ptr("Café Müller 한옥")}}}
		in.Organizers = &[]models.OrganizerRef{{New: &models.OrganizerInput{Organizer: ptr("Société 한글")}}}
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, slug := range []string{e.Slug, e.Venues[0].Slug, e.Organizers[0].Slug, e.Categories[0].Slug, e.Tags[0].Slug} {
			if !norm.NFC.IsNormalString(slug) || norm.NFD.String(slug) == slug {
				t.Fatalf("slug %+q: want an NFC slug whose NFD differs", slug)
			}
		}
		got, err := db.GetEvent(ctx, nil, models.BySlug(nfd(e.Slug)), "en")
		if err != nil || got.ID != e.ID {
			t.Errorf("event by NFD slug: %v", err)
		}
		if v, err := db.Venues().Get(ctx, nil, models.BySlug(nfd(e.Venues[0].Slug)), "en"); err != nil || v.ID != e.Venues[0].ID {
			t.Errorf("venue by NFD slug: %v", err)
		}
		if o, err := db.Organizers().Get(ctx, nil, models.BySlug(nfd(e.Organizers[0].Slug)), "en"); err != nil || o.ID != e.Organizers[0].ID {
			t.Errorf("organizer by NFD slug: %v", err)
		}
		for _, tm := range []*models.Term{e.Categories[0], e.Tags[0]} {
			p, err := db.ListTerms(ctx, nil, models.TermFilter{Taxonomy: tm.Taxonomy, Slug: nfd(tm.Slug), PerPage: 1})
			if err != nil || len(p.Items) != 1 || p.Items[0].ID != tm.ID {
				t.Errorf("%s by NFD slug %q: %v", tm.Taxonomy, tm.Slug, err)
			}
			f := models.EventFilter{PerPage: 10}
			if tm.Taxonomy == models.TaxCategory {
				f.Categories = []models.TermRef{{Name: nfd(tm.Slug)}}
			} else {
				f.Tags = []models.TermRef{{Name: nfd(tm.Slug)}}
			}
			if p, err := db.ListEvents(ctx, nil, f); err != nil || len(p.Items) != 1 {
				t.Errorf("events of %s NFD slug %q: %v", tm.Taxonomy, tm.Slug, err)
			}
		}
	})
}

// Issue 29 item 2: FoldSearch composes first, so a Korean query typed in
// conjoining jamo (as macOS produces) finds composed Hangul on both
// dialects; decomposed kana and accents match as before.
func TestDecomposedSearchFindsComposedText(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed", models.RoleEditor)
		titles := []string{"한국 전통 음악회", "がっこう祭り", "Fête de la bière", "한여름 밤"}
		for i, title := range titles {
			day := "2031-08-1" + string(rune('1'+i))
			if _, err := db.CreateEvent(ctx, ed, baseInput(title, day+" 10:00:00", day+" 11:00:00")); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: ptr("한국 문화원")}, "ko"); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			query string
			want  []string
		}{
			{nfd("한국"), []string{"한국 전통 음악회"}},
			{nfd("음악회"), []string{"한국 전통 음악회"}},
			{nfd("한"), []string{"한국 전통 음악회", "한여름 밤"}},
			{nfd("が"), []string{"がっこう祭り"}},
			{nfd("ガッコウ"), []string{"がっこう祭り"}},
			{nfd("fête"), []string{"Fête de la bière"}},
			{nfd("bière"), []string{"Fête de la bière"}},
		} {
			p, err := db.ListEvents(ctx, ed, models.EventFilter{Search: models.SearchWords(tt.query), PerPage: 50})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range p.Items {
				got = append(got, e.Title)
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("search %+q: %q, want %q", tt.query, got, want)
			}
		}
		p, err := db.Venues().List(ctx, ed, models.LinkedFilter{Words: models.SearchWords(nfd("문화원")), PerPage: 10})
		if err != nil || len(p.Items) != 1 {
			t.Errorf("venues matching NFD 문화원: %v, %v", p, err)
		}
	})
}

// exec runs raw SQL on db, bypassing the models (as an older Kalends, or a
// hand edit, would have written).
func exec(t *testing.T, db *models.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.IDB().ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// Issue 29 item 2: the migration composes the rows written before, in
// batches, tells apart the slugs (and term names) that composing makes
// equal, the older record keeping its own, and reports each one it
// changed; a second run changes nothing.
func TestTextMigrationComposesStoredRows(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed", models.RoleEditor)
		o := models.DefaultSeedOptions(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
		o.Events, o.Venues, o.Organizers, o.Categories, o.Tags, o.AuthorID, o.Translated = 1100, 3, 3, 3, 3, ed.ID, 0.5
		if _, err := db.Seed(ctx, o, nil); err != nil {
			t.Fatal(err)
		}
		ev := func(title string) *models.Event {
			t.Helper()
			e, err := db.CreateEvent(ctx, ed, baseInput(title, "2031-05-01 10:00:00", "2031-05-01 11:00:00"))
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		// café (composed, oldest) against café and café-2 decomposed.
		a, b, h := ev("Café"), ev("Bee"), ev("Aitch")
		exec(t, db, "UPDATE events SET slug = ? WHERE id = ?", nfd("café"), b.ID)
		exec(t, db, "UPDATE events SET slug = ? WHERE id = ?", nfd("café-2"), h.ID)
		// 서울, composed, against an older record decomposed (older by its
		// creation, though its id is higher).
		d, c := ev("서울"), ev("See")
		exec(t, db, "UPDATE events SET slug = ?, created_at = ? WHERE id = ?", nfd("서울"), time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), c.ID)
		// Text, HTML with U+0338 right after a tag, translations.
		exec(t, db, "UPDATE events SET title = ?, description = ?, excerpt = ? WHERE id = ?", nfd("Café Crème"),
			"<b>\u0338 onmouseover=alert(1)</b> "+nfd("été"), nfd("Été"), a.ID)
		exec(t, db, "INSERT INTO event_translations (event_id, lang, title, description, excerpt) VALUES (?, ?, ?, ?, NULL)",
			a.ID, "ko", nfd("한국 축제"), nfd("<p>서울</p>"))
		// Every seeded event and translation decomposed: more rows than a
		// batch, on both keys.
		exec(t, db, "UPDATE events SET title = ? WHERE id NOT IN (?, ?, ?, ?, ?)", nfd("Fête à Séoul 한국"), a.ID, b.ID, h.ID, c.ID, d.ID)
		exec(t, db, "UPDATE event_translations SET title = ? WHERE event_id <> ?", nfd("한국의 가을"), a.ID)
		var seeded int
		if err := db.IDB().NewRaw("SELECT COUNT(*) FROM event_translations").Scan(ctx, &seeded); err != nil || seeded < 501 {
			t.Fatalf("%d translations seeded (%v), want more than a batch", seeded, err)
		}

		v1, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: ptr("Théâtre")}, "fr")
		if err != nil {
			t.Fatal(err)
		}
		v2, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: ptr("Other")}, "fr")
		if err != nil {
			t.Fatal(err)
		}
		exec(t, db, "UPDATE venues SET venue = ?, slug = ?, city = ? WHERE id = ?", nfd("Théâtre"), nfd("théâtre"), nfd("Montréal"), v2.ID)
		org, _, err := db.Organizers().Create(ctx, ed, models.OrganizerInput{Organizer: ptr("Org")}, "ko")
		if err != nil {
			t.Fatal(err)
		}
		exec(t, db, "UPDATE organizers SET organizer = ?, slug = ? WHERE id = ?", nfd("김 오케스트라"), nfd("김-오케스트라"), org.ID)

		t1, err := db.CreateTerm(ctx, ed, models.TaxCategory, models.TermInput{Name: ptr("Café")}, "fr")
		if err != nil {
			t.Fatal(err)
		}
		t2, err := db.CreateTerm(ctx, ed, models.TaxCategory, models.TermInput{Name: ptr("Other")}, "fr")
		if err != nil {
			t.Fatal(err)
		}
		exec(t, db, "UPDATE terms SET name = ?, name_key = ?, slug = ? WHERE id = ?", nfd("Café"), nfd("café"), nfd("café"), t2.ID)
		t3, err := db.CreateTerm(ctx, ed, models.TaxTag, models.TermInput{Name: ptr("Tag")}, "fr")
		if err != nil {
			t.Fatal(err)
		}
		exec(t, db, "UPDATE terms SET name = ?, name_key = ?, slug = ?, description = ? WHERE id = ?", nfd("Café"), nfd("café"), nfd("café"), nfd("<p>Crème</p>"), t3.ID)
		m, err := db.CreateMedia(ctx, ed, models.MediaUpload{FileName: "x.png", Data: imagetest.PNG(10, 10)})
		if err != nil {
			t.Fatal(err)
		}
		exec(t, db, "UPDATE media SET title = ?, alt_text = ? WHERE id = ?", nfd("Défilé"), nfd("한복"), m.ID)

		// The migration runs again, as on a database written before it.
		exec(t, db, "DELETE FROM bun_migrations WHERE name = ?", "20261129000100")
		rep, err := db.MigrateAndReport(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rep.Applied, []string{"20261129000100"}) {
			t.Errorf("applied %q, want the text migration", rep.Applied)
		}
		want := []models.TextCollision{
			{Kind: models.KindCategory, ID: t2.ID, Field: "name", Old: nfd("Café"), New: "Café (2)", KeptBy: t1.ID},
			{Kind: models.KindEvent, ID: b.ID, Field: "slug", Old: nfd("café"), New: "café-3", KeptBy: a.ID},
			{Kind: models.KindEvent, ID: d.ID, Field: "slug", Old: "서울", New: "서울-2", KeptBy: c.ID},
			{Kind: models.KindVenue, ID: v2.ID, Field: "slug", Old: nfd("théâtre"), New: "théâtre-2", KeptBy: v1.ID},
			{Kind: models.KindCategory, ID: t2.ID, Field: "slug", Old: nfd("café"), New: "café-2", KeptBy: t1.ID},
		}
		if !slices.Equal(rep.Collisions, want) {
			t.Errorf("collisions:\n got %+v\nwant %+v", rep.Collisions, want)
		}

		slug := func(table string, id int64) string { return stored(t, db, table, "slug", "id = ?", id) }
		for _, w := range []struct {
			what, got, want string
		}{
			{"a slug", slug("events", a.ID), "café"},
			{"b slug", slug("events", b.ID), "café-3"},
			{"h slug", slug("events", h.ID), "café-2"},
			{"c slug", slug("events", c.ID), "서울"},
			{"d slug", slug("events", d.ID), "서울-2"},
			{"a title", stored(t, db, "events", "title", "id = ?", a.ID), "Café Crème"},
			{"a description", stored(t, db, "events", "description", "id = ?", a.ID), "<b>&#x338; onmouseover=alert(1)</b> été"},
			{"a excerpt", stored(t, db, "events", "excerpt", "id = ?", a.ID), "Été"},
			{"a ko title", stored(t, db, "event_translations", "title", "event_id = ? AND lang = ?", a.ID, "ko"), "한국 축제"},
			{"a ko description", stored(t, db, "event_translations", "description", "event_id = ? AND lang = ?", a.ID, "ko"), "<p>서울</p>"},
			{"v2 venue", stored(t, db, "venues", "venue", "id = ?", v2.ID), "Théâtre"},
			{"v2 slug", slug("venues", v2.ID), "théâtre-2"},
			{"v2 city", stored(t, db, "venues", "city", "id = ?", v2.ID), "Montréal"},
			{"organizer", stored(t, db, "organizers", "organizer", "id = ?", org.ID), "김 오케스트라"},
			{"organizer slug", slug("organizers", org.ID), "김-오케스트라"},
			{"t1 slug", slug("terms", t1.ID), "café"},
			{"t2 name", stored(t, db, "terms", "name", "id = ?", t2.ID), "Café (2)"},
			{"t2 key", stored(t, db, "terms", "name_key", "id = ?", t2.ID), "café (2)"},
			{"t2 slug", slug("terms", t2.ID), "café-2"},
			{"t3 (a tag) name", stored(t, db, "terms", "name", "id = ?", t3.ID), "Café"},
			{"t3 slug", slug("terms", t3.ID), "café"},
			{"t3 description", stored(t, db, "terms", "description", "id = ?", t3.ID), "<p>Crème</p>"},
			{"media title", stored(t, db, "media", "title", "id = ?", m.ID), "Défilé"},
			{"media alt", stored(t, db, "media", "alt_text", "id = ?", m.ID), "한복"},
		} {
			wantNFC(t, w.what, w.got, w.want)
		}
		for _, q := range []struct {
			table, title string
		}{{"events", "Fête à Séoul 한국"}, {"event_translations", "한국의 가을"}} {
			var left int
			if err := db.IDB().NewRaw("SELECT COUNT(*) FROM "+q.table+" WHERE title = ?", nfd(q.title)).Scan(ctx, &left); err != nil || left != 0 {
				t.Errorf("%s: %d titles still decomposed (%v)", q.table, left, err)
			}
		}
		// Found by their composed slugs.
		if got, err := db.GetEvent(ctx, ed, models.BySlug("서울"), ""); err != nil || got.ID != c.ID {
			t.Errorf("서울 is event %v (%v), want %d", got, err, c.ID)
		}

		again, err := db.NormalizeText(ctx)
		if err != nil || len(again) != 0 {
			t.Errorf("a second run: %+v, %v; want nothing to do", again, err)
		}
	})
}

// Issue 29 item 2: a site export holding decomposed text (from an older
// Kalends, or edited by hand) loads composed, with the slugs it makes
// equal told apart and reported.
func TestSiteLoadComposesText(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, src *models.DB) {
		ctx := context.Background()
		ed := newUser(t, src, "ed", models.RoleEditor)
		a, err := src.CreateEvent(ctx, ed, baseInput("Café", "2031-05-01 10:00:00", "2031-05-01 11:00:00"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := src.CreateEvent(ctx, ed, baseInput("Bee", "2031-05-02 10:00:00", "2031-05-02 11:00:00"))
		if err != nil {
			t.Fatal(err)
		}
		exec(t, src, "UPDATE events SET slug = ?, title = ? WHERE id = ?", nfd("café"), nfd("Crème brûlée"), b.ID)
		var dump bytes.Buffer
		if err := src.DumpSite(ctx, &dump); err != nil {
			t.Fatal(err)
		}
		dst := modelstest.Open(t, src.Dialect())
		rep, err := dst.LoadSite(ctx, &dump)
		if err != nil {
			t.Fatal(err)
		}
		want := []models.TextCollision{{Kind: models.KindEvent, ID: b.ID, Field: "slug", Old: nfd("café"), New: "café-2", KeptBy: a.ID}}
		if !slices.Equal(rep.Collisions, want) {
			t.Errorf("collisions %+v, want %+v", rep.Collisions, want)
		}
		wantNFC(t, "loaded slug", stored(t, dst, "events", "slug", "id = ?", b.ID), "café-2")
		wantNFC(t, "loaded title", stored(t, dst, "events", "title", "id = ?", b.ID), "Crème brûlée")
	})
}

// Issue 29 item 2: a revision kept while the record's text was decomposed
// (before the migration) is restored composed, and an image searched for
// decomposed is found.
func TestRestoredRevisionAndMediaSearchAreComposed(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed", models.RoleEditor)
		site := models.DefaultSite()
		keep := 5
		site.RevisionsKeep = &keep
		db.UseSite(site)
		e, err := db.CreateEvent(ctx, ed, baseInput("Fête", "2031-05-01 10:00:00", "2031-05-01 11:00:00"))
		if err != nil {
			t.Fatal(err)
		}
		// As an older Kalends stored it, then an edit that keeps it as a
		// revision.
		exec(t, db, "UPDATE events SET title = ?, excerpt = ? WHERE id = ?", nfd("Fête 한국"), nfd("Été"), e.ID)
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(e.ID), models.EventInput{Title: ptr("Later")}); err != nil {
			t.Fatal(err)
		}
		_, revs, err := db.Revisions(ctx, ed, models.KindEvent, models.ByID(e.ID))
		if err != nil || len(revs) != 1 {
			t.Fatalf("revisions %v, %v", revs, err)
		}
		back, err := db.RestoreEventRevision(ctx, ed, models.ByID(e.ID), revs[0].ID, "")
		if err != nil {
			t.Fatal(err)
		}
		wantNFC(t, "restored title", back.Title, "Fête 한국")
		wantNFC(t, "stored restored title", stored(t, db, "events", "title", "id = ?", e.ID), "Fête 한국")
		wantNFC(t, "stored restored excerpt", stored(t, db, "events", "excerpt", "id = ?", e.ID), "Été")

		m, err := db.CreateMedia(ctx, ed, models.MediaUpload{FileName: "x.png", Title: "Défilé à Séoul", Data: imagetest.PNG(10, 10)})
		if err != nil {
			t.Fatal(err)
		}
		list, n, err := db.ListMedia(ctx, ed, models.MediaQuery{Search: nfd("défilé"), PerPage: 10})
		if err != nil || n != 1 || len(list) != 1 || list[0].ID != m.ID {
			t.Errorf("media matching NFD défilé: %d (%v)", n, err)
		}
	})
}
