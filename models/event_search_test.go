package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// searchFixtures are events whose text tries the folding and the index's
// edges: width, kana, accents (composed and not), Korean, LIKE and GLOB
// wildcards, a word across two fields.
var searchFixtures = []struct{ title, description, excerpt string }{
	{"ＦＵＬＬ Ｗｉｄｔｈ ジャズ祭", "<p>カタカナとひらがなの音楽祭</p>", "ｶﾀｶﾅ半角"},
	{"Fête de l'Été à Montréal", "Cafe\u0301 crème, naïve façade", "Straße"},
	{"한여름 음악회", "서울 재즈 페스티벌 2027", "음악"},
	{"100% *glob* [draft] _under_ !bang?", "a*b?c[d]e 50%_off", ""},
	{"夏日音乐节", "上海·北京 祭", "音楽"},
	{"edge", "ab", "cd"}, // "bc" only across two fields: never found
	{"a<b>c x>y", "<<p>> <i>one</i><b>" + strings.Repeat("long", 20) + "</b>tail", "<"},
}

// TestIndexedSearchEqualsLikeSearch: the search through the index finds
// exactly the events the LIKE search finds, on a seeded calendar in four
// languages, for more than 500 queries drawn from its text (whole words,
// fragments, 1- and 2-character Chinese and Japanese, Korean, mixed case,
// full width, katakana for hiragana, accents, separators, several words),
// read in every language, on both dialects. The words' lists are kept
// (DB.KeepSearchLists), as a server keeps them: a query's second page, and
// every word met again, is read from them.
func TestIndexedSearchEqualsLikeSearch(t *testing.T) {
	t.Parallel()
	// The events of an "ends after" edge's days are read as a range, not
	// one by one (the admin's upcoming tab at a million events), here
	// whatever their number.
	models.ForceOngoingAtEdge(true)
	t.Cleanup(func() { models.ForceOngoingAtEdge(false) })
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		db.KeepSearchLists(8 << 20)
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		o := seedOptions(400, admin.ID)
		o.Translated, o.Series = 0.5, 3
		if _, err := db.Seed(ctx, o, nil); err != nil {
			t.Fatal(err)
		}
		for i, f := range searchFixtures {
			in := baseInput(f.title, fmt.Sprintf("2027-03-%02d 10:00", i+1), fmt.Sprintf("2027-03-%02d 11:00", i+1))
			in.Description, in.Excerpt = ptr(f.description), ptr(f.excerpt)
			if _, err := db.CreateEvent(ctx, admin, in); err != nil {
				t.Fatal(err)
			}
		}
		// Trashed events, which the keys do not tell: the admin's list
		// reads those of its window apart.
		seeded, err := db.EventIDs(ctx, admin, models.EventFilter{IncludeHidden: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(seeded); i += 23 {
			if _, err := db.TrashEvent(ctx, admin, models.ByID(seeded[i]), "en"); err != nil {
				t.Fatal(err)
			}
		}
		indexInStep(t, db, "seeded")
		queries := searchQueries(t, db, 520)
		langs := []string{"", "en", "ja", "ko", "zh-hans"}
		var checked, found int
		for i, q := range queries {
			// One language per query, in turn (two made the test 48 s of
			// make test's wall time; 520 queries still meet every language
			// 104 times).
			if n := compareSearch(t, db, admin, q, langs[i%len(langs)]); n > 0 {
				found++
			}
			checked++
			// The public list's pages and totals (read from the index's
			// keys alone), in a window whose edges fall within hours.
			compareList(t, db, admin, q, langs[(i+1)%len(langs)], i)
		}
		if found < checked/3 {
			t.Errorf("only %d of %d searches found events: the queries are not drawn from the data", found, checked)
		}
		if st := db.SearchListStats(); st.Hits < int64(checked)/2 {
			t.Errorf("the kept lists served %d of the searches' words (%+v): they were not used", st.Hits, st)
		}
	})
}

// compareSearch fails unless the index and LIKE find the same events for
// q read in lang, and returns how many.
func compareSearch(t *testing.T, db *models.DB, u *models.User, q, lang string) int {
	t.Helper()
	ctx := context.Background()
	f := models.EventFilter{Search: models.SearchWords(q), Lang: lang, IncludeHidden: true}
	got, err := db.EventIDs(ctx, u, f)
	if err != nil {
		t.Fatalf("search %q in %q: %v", q, lang, err)
	}
	want, err := db.EventIDs(ctx, u, models.LikeSearch(f))
	if err != nil {
		t.Fatalf("LIKE search %q in %q: %v", q, lang, err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("search %q in %q: index found %d %v, LIKE %d %v", q, lang, len(got), clip(got), len(want), clip(want))
	}
	return len(want)
}

// searchWindows are the windows compareList rotates through: none, edges
// within hours, a window whose end cuts multi-day events, one edge only;
// each as start_date and end_date, then as the admin's "upcoming" and
// "past" (ends after, ends before) and as starts after and before.
var searchWindows = [][2]string{
	{"", ""},
	{"2026-06-15 07:30:20", "2027-03-10 13:00:00"},
	{"2026-12-31 00:00:00", "2027-02-01 23:59:59"},
	{"2027-03-02 10:00:00", ""},
	{"", "2026-09-30 12:15:00"},
}

// compareList fails unless a list through the index gives the pages and
// the total that LIKE gives (pages of seven, both orders), for q read in
// lang in one of searchWindows: the public list (anonymous reader, read
// from the keys alone), the admin's (every status but trash, hidden
// events too) or an administrator's API list (hidden events left out),
// whole or bare.
func compareList(t *testing.T, db *models.DB, admin *models.User, q, lang string, i int) {
	t.Helper()
	ctx := context.Background()
	w := searchWindows[i%len(searchWindows)]
	// Bare pages (the API's ids, read by a prepared query) on half the
	// queries.
	f := models.EventFilter{Search: models.SearchWords(q), Lang: lang, PerPage: 7, Desc: i%3 == 2, Bare: i%4 >= 2}
	var u *models.User
	switch (i / len(searchWindows)) % 3 {
	case 1:
		u, f.IncludeHidden = admin, true
	case 2:
		u = admin
	}
	bounds := [][2]**time.Time{{&f.StartMin, &f.EndMax}, {&f.EndsAfter, &f.EndsBefore}, {&f.StartsAfter, &f.StartsBefore}}[(i/7)%3]
	for k, dst := range bounds {
		if w[k] != "" {
			v, err := time.Parse(time.DateTime, w[k])
			if err != nil {
				t.Fatal(err)
			}
			*dst = &v
		}
	}
	pages := []int{1}
	if i%2 == 0 {
		pages = append(pages, 2) // the second page of every other query
	}
	for _, page := range pages {
		f.Page = page
		got, err := db.ListEvents(ctx, u, f)
		if err != nil {
			t.Fatalf("list %q in %q: %v", q, lang, err)
		}
		want, err := db.ListEvents(ctx, u, models.LikeSearch(f))
		if err != nil {
			t.Fatalf("LIKE list %q in %q: %v", q, lang, err)
		}
		if g, l := pageIDs(got), pageIDs(want); !slices.Equal(g, l) || got.Total != want.Total {
			t.Errorf("list %q in %q as %v (hidden %v), window %v %d, page %d, desc %v: index %v of %d, LIKE %v of %d",
				q, lang, u != nil, f.IncludeHidden, w, (i/7)%3, page, f.Desc, g, got.Total, l, want.Total)
		}
	}
}

func pageIDs(p *models.Page[models.Event]) []int64 {
	ids := make([]int64, len(p.Items))
	for i, e := range p.Items {
		ids[i] = e.ID
	}
	return ids
}

func clip(ids []int64) []int64 {
	if len(ids) > 8 {
		return ids[:8]
	}
	return ids
}

// searchQueries draws n queries from the stored text of events and their
// translations.
func searchQueries(t *testing.T, db *models.DB, n int) []string {
	t.Helper()
	var texts []string
	for _, q := range []string{
		"SELECT title FROM events", "SELECT description FROM events", "SELECT excerpt FROM events",
		"SELECT title FROM event_translations WHERE title IS NOT NULL",
		"SELECT description FROM event_translations WHERE description IS NOT NULL",
	} {
		var col []string
		if err := db.IDB().NewRaw(q).Scan(context.Background(), &col); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, col...)
	}
	rng := rand.New(rand.NewPCG(31, 1))
	fragment := func(s string, size int) string {
		r := []rune(s)
		if len(r) <= size {
			return s
		}
		i := rng.IntN(len(r) - size)
		return string(r[i : i+size])
	}
	word := func(s string) string {
		ws := strings.Fields(s)
		if len(ws) == 0 {
			return s
		}
		return ws[rng.IntN(len(ws))]
	}
	cjk := func(s string) string { // one or two Han, kana or Hangul characters
		var r []rune
		for _, c := range s {
			if unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				r = append(r, c)
			}
		}
		if len(r) == 0 {
			return "祭"
		}
		i := rng.IntN(len(r))
		return string(r[i:min(len(r), i+1+rng.IntN(2))])
	}
	shapes := []func(string) string{
		word,
		func(s string) string { return fragment(s, 3+rng.IntN(6)) },
		func(s string) string { return fragment(s, 1+rng.IntN(2)) },
		cjk,
		func(s string) string { return strings.ToUpper(word(s)) },
		func(s string) string { return mixCase(fragment(s, 4+rng.IntN(4)), rng) },
		func(s string) string { return width.Widen.String(fragment(s, 3+rng.IntN(4))) },
		func(s string) string { return toKatakana(fragment(s, 2+rng.IntN(3))) },
		func(s string) string { return norm.NFD.String(word(s)) },
		func(s string) string { return stripAccents(word(s)) },
		func(s string) string {
			seps := []string{" ", ",", "，", "、", " , "}
			return word(s) + seps[rng.IntN(len(seps))] + fragment(texts[rng.IntN(len(texts))], 2+rng.IntN(3))
		},
		func(s string) string { return fragment(s, 3) + " " + fragment(s, 2) + "、" + cjk(s) },
	}
	qs := []string{"祭", "音楽", "音乐", "재즈", "음악", "ジャズ", "じゃず", "ＪＡＺＺ", "Jazz", "cafe", "CAFÉ", "ete", "été",
		"straße", "strasse", "100%", "*glob*", "[draft]", "_under_", "!bang?", "a*b", "?c[", "50%_", "bc", "ab", "ｶﾀｶﾅ", "かたかな",
		"\u0301", "jazz,音楽", "jazz，音乐、재즈", "e\u0301t\u00e9",
		// Across the markup of descriptions: words with a split point
		// (a phrase of pieces), short edge pieces, one that would need
		// too many phrases (read in the text), and markup alone.
		"<p>jazz", "<P>JAZZ", "＜p＞jazz", "jazz.</p>", ".</p><p>", "z.</p><p>c", "p>c", "</p><p", "><", ".<", ">", "<", "<p>",
		"a<b>c", "x>y", "<<"}
	for len(qs) < n {
		s := texts[rng.IntN(len(texts))]
		q := shapes[len(qs)%len(shapes)](s)
		if r := []rune(q); len(r) > models.MaxSearchLen {
			// What every entry point lets through (the API refuses more,
			// the admin and the public list cut it): a "word" of a
			// Chinese or Japanese description is the whole paragraph, and
			// 28 such queries of about 1,000 characters took three
			// quarters of this test's time on SQLite.
			q = string(r[:models.MaxSearchLen])
		}
		if strings.TrimSpace(q) != "" && utf8.ValidString(q) {
			qs = append(qs, q)
		}
	}
	return qs
}

func mixCase(s string, rng *rand.Rand) string {
	var b strings.Builder
	for _, r := range s {
		if rng.IntN(2) == 0 {
			r = unicode.ToUpper(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func toKatakana(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'ぁ' && r <= 'ゖ' {
			return r + 0x60
		}
		return r
	}, s)
}

func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// indexInStep fails unless the search index equals the events' folded
// text, with no event left marked.
func indexInStep(t *testing.T, db *models.DB, step string) {
	t.Helper()
	st, err := db.CheckSearchIndex(context.Background())
	if err != nil || !st.InStep() {
		t.Errorf("%s: search index not in step: %+v (%v)", step, st, err)
	}
}

// TestSearchIndexFollowsEveryWrite: after every kind of write of an
// event's text (create, update, translations, series copies and their
// sync, trash, delete, revision restore, a site loaded, seed) the index
// equals the events' folded text, in the write's own transaction, and a
// search through it finds what LIKE finds; text changed by raw SQL is
// found at once (its events are marked and searched with LIKE) and
// refolded by the next transaction, IndexBacklog or Reindex. The words'
// lists are kept, as a server keeps them, and every word is searched
// before and after each write: a list kept across a write that changed
// it fails the comparison with LIKE.
func TestSearchIndexFollowsEveryWrite(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		db.KeepSearchLists(1 << 20)
		editor := newUser(t, db, "editor", models.RoleEditor)
		words := []string{"jazz", "cafe", "müller", "ja", "音楽", "祭", "tokyo", "blues", "じゃず", "ジャズ", "夕べ",
			"재즈", "seance", "피아노", "orgue", "오르간"}
		step := func(name string, queries ...string) {
			t.Helper()
			indexInStep(t, db, name)
			for _, q := range append(queries, words...) {
				for _, lang := range []string{"", "en", "ja"} {
					compareSearch(t, db, editor, q, lang)
				}
				comparePublicList(t, db, q)
			}
		}
		step("empty")
		mk := func(title, desc, start string) *models.Event {
			t.Helper()
			in := baseInput(title, start, start)
			in.Description = ptr(desc)
			e, err := db.CreateEvent(ctx, editor, in)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		found := func(q, lang string, want int) {
			t.Helper()
			if n := compareSearch(t, db, editor, q, lang); n != want {
				t.Errorf("search %q in %q: %d events, want %d", q, lang, n, want)
			}
		}
		a := mk("Café Müller", "<p>Jazz à la cave</p>", "2027-05-01 10:00")
		step("create", "jazz", "cafe", "müller", "ja")
		found("jazz", "", 1)
		upd := func(e *models.Event, in models.EventInput) {
			t.Helper()
			in.Lang = "en"
			if _, err := db.UpdateEvent(ctx, editor, models.ByID(e.ID), in); err != nil {
				t.Fatal(err)
			}
		}
		upd(a, models.EventInput{Title: ptr("音楽祭 Tokyo")})
		step("title updated", "音楽", "祭", "cafe", "tokyo")
		found("音楽", "", 1)
		found("cafe", "", 0)
		upd(a, models.EventInput{Description: ptr("Blues au sous-sol")})
		step("description updated", "blues", "jazz")
		found("jazz", "", 0)
		// A translation.
		jin := models.EventInput{Title: ptr("ジャズの夕べ"), Lang: "ja"}
		if _, err := db.UpdateEvent(ctx, editor, models.ByID(a.ID), jin); err != nil {
			t.Fatal(err)
		}
		step("translated", "じゃず", "ジャズ", "夕べ")
		found("じゃず", "ja", 1)
		found("じゃず", "en", 0)
		// A series: its copies carry the text.
		sin := baseInput("Séance hebdomadaire 재즈", "2027-05-04 19:00", "2027-05-04 21:00")
		sin.Recurrence = ptr("FREQ=WEEKLY;COUNT=4")
		series, err := db.CreateEvent(ctx, editor, sin)
		if err != nil {
			t.Fatal(err)
		}
		step("series created", "재즈", "seance")
		found("재즈", "", 4)
		upd(series, models.EventInput{Title: ptr("Séance 피아노"), Scope: models.ScopeAll})
		step("series synced", "피아노", "재즈")
		found("피아노", "", 4)
		if _, err := db.TrashEvent(ctx, editor, models.ByID(a.ID), "en"); err != nil {
			t.Fatal(err)
		}
		step("trash", "音楽")
		// Revisions: restoring the first brings the first text back.
		_, revs, err := db.Revisions(ctx, editor, models.KindEvent, models.ByID(a.ID))
		if err != nil || len(revs) == 0 {
			t.Fatalf("revisions: %d, %v", len(revs), err)
		}
		if _, err := db.RestoreEventRevision(ctx, editor, models.ByID(a.ID), revs[len(revs)-1].ID, "en"); err != nil {
			t.Fatal(err)
		}
		step("revision restored", "cafe", "音楽", "jazz")
		if _, err := db.DeleteEvent(ctx, editor, models.ByID(a.ID), "en"); err != nil {
			t.Fatal(err)
		}
		step("delete", "cafe", "音楽", "じゃず")

		// Raw SQL, outside Kalends: found at once through LIKE.
		if _, err := db.IDB().NewRaw("UPDATE events SET title = ? WHERE id = ?", "Ｏｒｇｕｅ 오르간", series.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		found("orgue", "", 1)
		found("오르간", "ja", 1)
		found("피아노", "", 3)
		comparePublicList(t, db, "orgue")
		if st, err := db.CheckSearchIndex(ctx); err != nil || st.Marked == 0 || st.Stale == 0 {
			t.Errorf("after raw SQL: %+v (%v), want the event marked and its row stale", st, err)
		}
		// Refolded by the backlog, which no record's trigger sees: the
		// lists read while the event was marked are stale.
		if n, err := db.IndexBacklog(ctx); err != nil || n == 0 {
			t.Fatalf("backlog: %d events refolded, %v", n, err)
		}
		step("backlog refolded", "orgue", "피아노")
		found("orgue", "", 1)
		found("피아노", "", 3)
		if _, err := db.IDB().NewRaw("UPDATE events SET title = ? WHERE id = ?", "Séance 피아노", series.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		found("피아노", "", 4)
		if _, err := db.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		step("reindexed", "orgue", "피아노")
		found("orgue", "", 0)
		found("피아노", "", 4)
		if st := db.SearchListStats(); st.Hits == 0 {
			t.Errorf("the kept lists never served a word (%+v): they were not used", st)
		}
	})
}

// comparePublicList fails unless the public list (an anonymous reader,
// read from the index's keys alone on SQLite) gives through the index the
// first page and the total LIKE gives, for q, in both orders and in the
// first again (a kept list is shared: an order must not change it).
func comparePublicList(t *testing.T, db *models.DB, q string) {
	t.Helper()
	ctx := context.Background()
	for _, desc := range []bool{false, true, false} {
		f := models.EventFilter{Search: models.SearchWords(q), PerPage: 3, Desc: desc}
		got, err := db.ListEvents(ctx, nil, f)
		if err != nil {
			t.Fatalf("public list %q: %v", q, err)
		}
		want, err := db.ListEvents(ctx, nil, models.LikeSearch(f))
		if err != nil {
			t.Fatalf("LIKE public list %q: %v", q, err)
		}
		if g, l := pageIDs(got), pageIDs(want); !slices.Equal(g, l) || got.Total != want.Total {
			t.Errorf("public list %q, desc %v: index %v of %d, LIKE %v of %d", q, desc, g, got.Total, l, want.Total)
		}
	}
}

// TestIndexedSearchNoticesASkippedWrite: with the index writes dropped
// (marks cleared, nothing refolded), the index falls out of step and the
// equality check fails: the tests above can fail.
func TestIndexedSearchNoticesASkippedWrite(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		editor := newUser(t, db, "editor", models.RoleEditor)
		db.DropSearchIndexWrites(true)
		if _, err := db.CreateEvent(ctx, editor, baseInput("音楽祭 Jazz", "2027-05-01 10:00", "2027-05-01 11:00")); err != nil {
			t.Fatal(err)
		}
		db.DropSearchIndexWrites(false)
		st, err := db.CheckSearchIndex(ctx)
		if err != nil || st.Missing != 1 {
			t.Errorf("dropped write: %+v (%v), want one row missing", st, err)
		}
		f := models.EventFilter{Search: []string{"jazz"}, PerPage: 10}
		got, err := db.ListEvents(ctx, editor, f)
		if err != nil {
			t.Fatal(err)
		}
		like, err := db.ListEvents(ctx, editor, models.LikeSearch(f))
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != 0 || like.Total != 1 {
			t.Errorf("dropped write: index found %d, LIKE %d; want 0 and 1", got.Total, like.Total)
		}
		// The public list, read from the index's keys alone, too.
		pub, err := db.ListEvents(ctx, nil, f)
		if err != nil {
			t.Fatal(err)
		}
		publike, err := db.ListEvents(ctx, nil, models.LikeSearch(f))
		if err != nil {
			t.Fatal(err)
		}
		if pub.Total != 0 || publike.Total != 1 {
			t.Errorf("dropped write, public list: index found %d, LIKE %d; want 0 and 1", pub.Total, publike.Total)
		}
	})
}

// TestSearchWordsAcrossRuns: a word whose folded form holds a separator
// ("¨" folds to a space, "﹐" to a comma) is found in the text it folds
// like, though it spans the text's runs (which the SQLite index keeps
// apart), on both dialects, by the public list too.
func TestSearchWordsAcrossRuns(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed", models.RoleEditor)
		in := baseInput("Tarif¨réduit", "2031-02-01 10:00", "2031-02-01 11:00")
		in.Description, in.Excerpt = ptr("prix﹐ bas"), ptr("une´deux")
		e, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"tarif¨réduit", "f¨r", "prix﹐", "x﹐", "une´d", "F¨R"} {
			got, err := db.EventIDs(ctx, ed, models.EventFilter{Search: []string{q}})
			if err != nil || !slices.Equal(got, []int64{e.ID}) {
				t.Errorf("search %q: %v (%v), want [%d]", q, got, err, e.ID)
			}
			p, err := db.ListEvents(ctx, nil, models.EventFilter{Search: []string{q}, PerPage: 5})
			if err != nil || p.Total != 1 || len(p.Items) != 1 || p.Items[0].ID != e.ID {
				t.Errorf("public list %q: %v (%v), want event %d", q, p, err, e.ID)
			}
		}
	})
}

// TestIndexedSearchFoldsAsFoldSearch: a character whose folded form is
// several characters (ligatures, roman numerals, squared units, ǆ, ĳ, the
// ellipsis, a half-width kana with its separate voicing mark) is found as
// FoldSearch writes it, on both dialects. MySQL's LIKE compares its
// collation's weights character by character and misses these (ﬁ is not
// found by "fi" there, nor "fi" by ﬁ): the index follows FoldSearch, the
// documented rule, as SQLite's LIKE already did.
func TestIndexedSearchFoldsAsFoldSearch(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed", models.RoleEditor)
		for _, group := range [][]string{{"ﬁ", "fi"}, {"Ⅳ", "iv"}, {"ǆ", "dž"}, {"ĳ", "ij"}, {"㎏", "kg"}, {"…", "..."}, {"ｳﾞ", "ヴ", "ゔ"}} {
			var ids []int64
			for i, c := range group {
				e, err := db.CreateEvent(ctx, ed, baseInput("q"+c+"z", fmt.Sprintf("2031-01-%02d 10:00", i+1), fmt.Sprintf("2031-01-%02d 11:00", i+1)))
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, e.ID)
			}
			slices.Sort(ids)
			for _, c := range group {
				got, err := db.EventIDs(ctx, ed, models.EventFilter{Search: []string{"q" + c + "z"}})
				if err != nil || !slices.Equal(got, ids) {
					t.Errorf("search %q: %v (%v), want %v: the events of %q", "q"+c+"z", got, err, ids, group)
				}
			}
			for _, id := range ids {
				if _, err := db.DeleteEvent(ctx, ed, models.ByID(id), "en"); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// TestSearchIndexKeepsAnyText: text that JSON cannot carry as it is
// (invalid UTF-8, NUL), written by raw SQL (SQLite stores it), is indexed
// byte for byte by a reindex, and found as LIKE finds it.
func TestSearchIndexKeepsAnyText(t *testing.T) {
	t.Parallel()
	// SQLite only: MySQL's utf8mb4 columns refuse such text, so no write
	// can store it there.
	db := modelstest.Open(t, models.SQLite)
	ctx := context.Background()
	ed := newUser(t, db, "ed", models.RoleEditor)
	e, err := db.CreateEvent(ctx, ed, baseInput("Plain title", "2031-03-01 10:00", "2031-03-01 11:00"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.IDB().NewRaw("UPDATE events SET title = CAST(X'4A617A7AFF2062617200717578' AS TEXT) WHERE id = ?", e.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	indexInStep(t, db, "reindexed")
	for _, q := range []string{"jazz", "bar", "plain"} {
		compareSearch(t, db, ed, q, "")
	}
	if n := compareSearch(t, db, ed, "jazz", ""); n != 1 {
		t.Errorf("jazz: %d events, want 1", n)
	}
}

// TestRecountSeesBrokenPostings: on MySQL the search reads posting lists
// and the vocabulary's suffixes, so CheckSearchIndex (kalends recount)
// compares them with the rows' text too: a posting lost, a posting of no
// row and a suffix lost are each reported, and Reindex mends them; rows
// without postings (as the migration that made them leaves every row) get
// theirs when their events are folded.
func TestRecountSeesBrokenPostings(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.MySQL)
	ctx := context.Background()
	editor := newUser(t, db, "editor", models.RoleEditor)
	if _, err := db.CreateEvent(ctx, editor, baseInput("<p>Café de Séoul</p> 音楽祭 재즈의 밤", "2027-05-01 10:00", "2027-05-01 11:00")); err != nil {
		t.Fatal(err)
	}
	indexInStep(t, db, "created")
	exec := func(q string) {
		t.Helper()
		if _, err := db.IDB().NewRaw(q).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, q string
		broken  func(models.SearchIndexState) bool
	}{
		{"a vocabulary posting lost", "DELETE FROM event_search_post WHERE tok > 0 ORDER BY tok LIMIT 1",
			func(st models.SearchIndexState) bool { return st.Stale == 1 }},
		{"a character posting lost", "DELETE FROM event_search_post WHERE tok < 0 ORDER BY tok LIMIT 1",
			func(st models.SearchIndexState) bool { return st.Stale == 1 }},
		{"a posting of no row", "INSERT INTO event_search_post (tok, event_id, lang) VALUES (1, 999999, 'ja')",
			func(st models.SearchIndexState) bool { return st.Extra == 1 }},
		{"a suffix lost", "DELETE FROM event_search_vocab_sfx ORDER BY sfx LIMIT 1",
			func(st models.SearchIndexState) bool { return st.FTSBroken }},
	} {
		exec(c.q)
		st, err := db.CheckSearchIndex(ctx)
		if err != nil || st.InStep() || !c.broken(st) {
			t.Errorf("%s: %+v (%v), want it reported", c.name, st, err)
		}
		if _, err := db.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		indexInStep(t, db, c.name+", reindexed")
	}
	// As migration 20261223000100 leaves it: rows, no postings, every
	// event marked. Folding the marks writes the postings of rows whose
	// text did not change.
	exec("DELETE FROM event_search_post")
	exec("INSERT IGNORE INTO event_search_dirty (conn, event_id) SELECT 0, id FROM events")
	if _, err := db.IndexBacklog(ctx); err != nil {
		t.Fatal(err)
	}
	indexInStep(t, db, "postings emptied, events marked and folded")
	// The query in NFD and another case: found as the stored NFC text.
	got, err := db.ListEvents(ctx, editor, models.EventFilter{Search: []string{"Se\u0301oul", "音楽"}, PerPage: 10})
	if err != nil || got.Total != 1 {
		t.Errorf("search after the fold: %d found (%v), want 1", got.Total, err)
	}
}

// searchSegments is the number of segments of each of the search's FTS5
// indexes that hold a term (SQLite).
func searchSegments(t *testing.T, db *models.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"event_search_fts", "event_search_runs", "event_search_short"} {
		modelstest.QueryRows(t, db, "SELECT count(DISTINCT segid) FROM "+table+"_idx",
			func(_ []string, vals []any) { out[table] = int(vals[0].(int64)) })
	}
	return out
}

// TestSearchIndexMergesOnlyWhenAsked: no write merges the segments of the
// search's FTS5 indexes (FTS5's own merging in the write took in the
// segment of a whole calendar: 11 s at 1,000,000 events, past the API's
// deadline, rolled back and done again by every write after); MergeSearch
// merges them, step by step, and a search finds the same events before and
// after. The settings hold after a bulk refold (a seed) too.
func TestSearchIndexMergesOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := modelstest.Open(t, models.SQLite)
	admin := newUser(t, db, "admin", models.RoleAdministrator)
	settings := func() string {
		var s string
		for _, table := range []string{"event_search_fts", "event_search_runs", "event_search_short", "event_search_vocab_fts"} {
			modelstest.QueryRows(t, db, "SELECT k, v FROM "+table+"_config WHERE k IN ('automerge', 'crisismerge') ORDER BY k",
				func(_ []string, vals []any) { s += fmt.Sprintf("%s %v=%v\n", table, vals[0], vals[1]) })
		}
		return s
	}
	const want = "event_search_fts automerge=0\nevent_search_fts crisismerge=256\nevent_search_runs automerge=0\nevent_search_runs crisismerge=256\n" +
		"event_search_short automerge=0\nevent_search_short crisismerge=256\nevent_search_vocab_fts automerge=0\nevent_search_vocab_fts crisismerge=256\n"
	if got := settings(); got != want {
		t.Errorf("settings after the migrations:\n%swant\n%s", got, want)
	}
	search := func(word string) int {
		p, err := db.ListEvents(ctx, admin, models.EventFilter{Search: []string{word}, PerPage: 1})
		if err != nil {
			t.Fatal(err)
		}
		return p.Total
	}
	// Twenty writes, each its own transaction: text of both kinds of
	// runs (spaced words, Chinese and Japanese) and short grams.
	const writes = 20
	before := searchSegments(t, db)
	for i := range writes {
		title := fmt.Sprintf("秋の音楽祭 %d Crème brûlée 가을", i)
		if i%2 == 1 { // decomposed (NFD), as some keyboards and files send it
			title = norm.NFD.String(title)
		}
		in := baseInput(title, "2026-10-01 18:00:00", "2026-10-01 21:00:00")
		if _, err := db.CreateEvent(ctx, admin, in); err != nil {
			t.Fatal(err)
		}
	}
	written := searchSegments(t, db)
	for table, n := range written {
		if n < before[table]+writes {
			t.Errorf("%s: %d segments after %d writes from %d: a write merged", table, n, writes, before[table])
		}
	}
	words := []string{"音楽", "秋の音楽祭", "brûlée", "crème", norm.NFD.String("Crème"), "가을", norm.NFD.String("가을"), "祭"}
	found := map[string]int{}
	for _, w := range words {
		if found[w] = search(w); found[w] != writes {
			t.Errorf("search %q before merging: %d events, want %d", w, found[w], writes)
		}
	}
	steps := 0
	for {
		worked, err := db.MergeSearch(ctx, 50)
		if err != nil {
			t.Fatal(err)
		}
		if !worked {
			break
		}
		if steps++; steps > 1000 {
			t.Fatal("MergeSearch still merging after 1,000 steps")
		}
	}
	for table, n := range searchSegments(t, db) {
		if n > 3 {
			t.Errorf("%s: %d segments after merging (%d before)", table, n, written[table])
		}
	}
	for _, w := range words {
		if got := search(w); got != found[w] {
			t.Errorf("search %q after merging: %d events, want %d", w, got, found[w])
		}
	}
	if st, err := db.CheckSearchIndex(ctx); err != nil || !st.InStep() {
		t.Errorf("index after merging: %+v, %v", st, err)
	}
	// A seed refolds in bulk, with its own settings, and sets these back.
	o := seedOptions(60, admin.ID)
	o.Force = true
	if _, err := db.Seed(ctx, o, nil); err != nil {
		t.Fatal(err)
	}
	if got := settings(); got != want {
		t.Errorf("settings after a seed:\n%swant\n%s", got, want)
	}
}
