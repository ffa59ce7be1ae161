package models_test

import (
	"context"
	"errors"
	"slices"
	"testing"

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
