package models_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func TestSlugify(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("夏", 100) // 300 bytes
	cases := []struct{ in, want string }{
		{"Summer Jazz Night", "summer-jazz-night"},
		{"  --Hello,   World!!  ", "hello-world"},
		{"夏祭り", "夏祭り"},
		{"서울 재즈 페스티벌", "서울-재즈-페스티벌"},
		{"Café Olé", "café-olé"},
		{"Cafe\u0301", "café"},                   // composed first: the slug of "Café"
		{"\u1109\u1165\u110b\u116e\u11af", "서울"}, // conjoining jamo make syllables
		{"a\u0301\u0308", "á\u0308"},             // a mark with no composed form is kept
		{"ÄÖÜ", "äöü"},
		{"Привет, мир", "привет-мир"},
		{"हिन्दी", "हिन्दी"},
		{"rock & roll / blues", "rock-roll-blues"},
		{"a_b.c", "a-b-c"},
		{"2027 年 3 月", "2027-年-3-月"},
		{"emoji 🎉 party", "emoji-party"},
		{"tab\tnew\nline", "tab-new-line"},
		{"bad \xff utf8", "bad-utf8"},
		{"!!!", ""},
		{"", ""},
		{"🎉", ""},
		{long, strings.Repeat("夏", 66)},
		{strings.Repeat("ab ", 100), strings.Repeat("ab-", 66) + "ab"},
	}
	for _, c := range cases {
		got := models.Slugify(c.in)
		if got != c.want {
			t.Errorf("Slugify(%q) = %q, want %q", c.in, got, c.want)
		}
		if len(got) > models.MaxSlugBytes || !utf8.ValidString(got) || strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") || strings.Contains(got, "--") {
			t.Errorf("Slugify(%q) = %q breaks an invariant", c.in, got)
		}
	}
}

func FuzzSlugify(f *testing.F) {
	for _, s := range []string{"Summer Jazz", "夏祭り", "서울", "\xff", "a--b", strings.Repeat("é", 150)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := models.Slugify(s)
		if len(got) > models.MaxSlugBytes || !utf8.ValidString(got) || strings.HasPrefix(got, "-") ||
			strings.HasSuffix(got, "-") || strings.Contains(got, "--") || models.Slugify(got) != got {
			t.Fatalf("Slugify(%q) = %q breaks an invariant", s, got)
		}
	})
}

// insertTerm writes a term with the given slug through the store's bun handle.
func insertTerm(ctx context.Context, tx *models.Store, taxonomy, name, slug string) error {
	now := models.Now()
	term := &models.Term{Taxonomy: taxonomy, Name: name, NameKey: strings.ToLower(name), Slug: slug, Lang: "en", CreatedAt: now, UpdatedAt: now}
	_, err := tx.IDB().NewInsert().Model(term).Exec(ctx)
	return err
}

// insertVenue writes a venue with the given slug (and its shared post id).
func insertVenue(ctx context.Context, tx *models.Store, title, slug string) error {
	id, err := tx.NewPostID(ctx, models.KindVenue)
	if err != nil {
		return err
	}
	now := models.Now()
	v := &models.Venue{Post: models.Post{ID: id, Status: models.StatusPublish, Slug: slug, Lang: "en", PublishedAt: now, CreatedAt: now, UpdatedAt: now}, Venue: title}
	_, err = tx.IDB().NewInsert().Model(v).Exec(ctx)
	return err
}

func TestInsertWithUniqueSlugPicksNextFreeSuffix(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		create := func(kind models.Kind, title string) string {
			t.Helper()
			slug, err := db.InsertWithUniqueSlug(ctx, kind, models.Slugify(title), 0, func(slug string) error {
				if kind == models.KindVenue {
					return insertVenue(ctx, db.Store, title, slug)
				}
				return insertTerm(ctx, db.Store, string(kind), title, slug)
			})
			if err != nil {
				t.Fatalf("create %s %q: %v", kind, title, err)
			}
			return slug
		}
		for i, want := range []string{"jazz", "jazz-2", "jazz-3"} {
			if got := create(models.KindVenue, "Jazz"+strings.Repeat("!", i)); got != want {
				t.Errorf("venue %d: slug %q, want %q", i, got, want)
			}
		}
		// Slugs are per kind, and per taxonomy for terms.
		if got := create(models.KindCategory, "Jazz"); got != "jazz" {
			t.Errorf("category: %q, want jazz", got)
		}
		if got := create(models.KindTag, "Jazz"); got != "jazz" {
			t.Errorf("tag: %q, want jazz", got)
		}
		if got := create(models.KindTag, "jazz?"); got != "jazz-2" {
			t.Errorf("second tag: %q, want jazz-2", got)
		}
		// A similar but different slug does not count; LIKE wildcards are literal.
		if got := create(models.KindVenue, "jazz_night"); got != "jazz-night" {
			t.Errorf("jazz night: %q", got)
		}
		if got := create(models.KindVenue, "jazz%"); got != "jazz-4" {
			t.Errorf("jazz%%: %q, want jazz-4", got)
		}
		if got := create(models.KindVenue, "!!!"); got != "venue" {
			t.Errorf("empty base: %q, want venue", got)
		}

		taken, err := db.SlugTaken(ctx, models.KindVenue, "jazz-2", 0)
		if err != nil || !taken {
			t.Errorf("SlugTaken(jazz-2) = %v, %v; want true", taken, err)
		}
		var id int64
		if err := db.IDB().NewSelect().TableExpr("venues").Column("id").Where("slug = ?", "jazz-2").Scan(ctx, &id); err != nil {
			t.Fatal(err)
		}
		if taken, _ := db.SlugTaken(ctx, models.KindVenue, "jazz-2", id); taken {
			t.Error("SlugTaken must ignore the excluded record")
		}
		if taken, _ := db.SlugTaken(ctx, models.KindOrganizer, "jazz", 0); taken {
			t.Error("organizers do not share venue slugs")
		}
		// Updating a record to its own slug keeps it.
		got, err := db.InsertWithUniqueSlug(ctx, models.KindVenue, "jazz-2", id, func(string) error { return nil })
		if err != nil || got != "jazz-2" {
			t.Errorf("update keeps own slug: %q, %v", got, err)
		}
		// A non-slug conflict is returned, not retried.
		_, err = db.InsertWithUniqueSlug(ctx, models.KindCategory, "other", 0, func(slug string) error {
			return insertTerm(ctx, db.Store, "category", "JAZZ", slug) // name_key "jazz" exists at this level
		})
		if err == nil || strings.Contains(err.Error(), "attempts") {
			t.Errorf("name conflict: got %v, want the insert's own conflict", err)
		}
		if _, err := db.SlugTaken(ctx, models.Kind("user"), "x", 0); err == nil {
			t.Error("unknown kind must fail")
		}
	})
}

// The lowest free number is taken whether the numbers taken leave a gap
// (read one by one) or not (told by one aggregate), with slugs that only
// look like numbers (a leading zero, ten digits, 1) beside them, under a
// Korean base as under an ASCII one.
func TestInsertWithUniqueSlugFillsGaps(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		for _, base := range []string{"gap", "재즈-밤"} {
			create := func() string {
				t.Helper()
				slug, err := db.InsertWithUniqueSlug(ctx, models.KindVenue, base, 0, func(slug string) error {
					return insertVenue(ctx, db.Store, "Gap", slug)
				})
				if err != nil {
					t.Fatalf("create %q: %v", base, err)
				}
				return slug
			}
			for _, odd := range []string{"-08", "-1", "-9999999999", "-7x", "-night"} {
				if err := insertVenue(ctx, db.Store, "Odd", base+odd); err != nil {
					t.Fatal(err)
				}
			}
			expect := func(want ...string) {
				t.Helper()
				for _, w := range want {
					if got := create(); got != base+w {
						t.Errorf("slug %q, want %q", got, base+w)
					}
				}
			}
			expect("", "-2", "-3", "-4", "-5", "-6")
			for _, gone := range []string{"", "-3", "-5"} {
				if _, err := db.IDB().NewDelete().TableExpr("venues").Where("slug = ?", base+gone).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			expect("", "-3", "-5", "-7", "-8")
		}
	})
}

// With base-256 taken, the next number is found by probing: after 2 to
// 600 it is 601, a gap below is left (the number after the highest taken
// stays free), base itself is taken again once free, and a gap at a
// probed number is a number free all the same.
func TestInsertWithUniqueSlugProbesManyNumbers(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		base := "요가-클래스"
		for n := 1; n <= 600; n++ {
			slug := base
			if n > 1 {
				slug = fmt.Sprintf("%s-%d", base, n)
			}
			if err := insertVenue(ctx, db.Store, "Yoga", slug); err != nil {
				t.Fatal(err)
			}
		}
		create := func() string {
			t.Helper()
			slug, err := db.InsertWithUniqueSlug(ctx, models.KindVenue, base, 0, func(slug string) error {
				return insertVenue(ctx, db.Store, "Yoga", slug)
			})
			if err != nil {
				t.Fatal(err)
			}
			return slug
		}
		del := func(slug string) {
			t.Helper()
			if _, err := db.IDB().NewDelete().TableExpr("venues").Where("slug = ?", slug).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got := create(); got != base+"-601" {
			t.Errorf("after 2 to 600: %q, want -601", got)
		}
		// The same title typed decomposed (Hangul as jamo) slugs to the
		// same base and takes the next number.
		if nfd := models.Slugify(norm.NFD.String("요가 클래스")); nfd != base {
			t.Fatalf("decomposed title slugs to %q, want %q", nfd, base)
		}
		del(base + "-100")
		if got := create(); got != base+"-602" {
			t.Errorf("with -100 free: %q, want -602", got)
		}
		del(base)
		if got := create(); got != base {
			t.Errorf("with the base free: %q, want it", got)
		}
		// A gap where the probes look: whatever they find is free.
		del(base + "-512")
		del(base + "-300")
		seen := map[string]bool{}
		for range 3 {
			got := create()
			if seen[got] {
				t.Errorf("%q given twice", got)
			}
			seen[got] = true
		}
	})
}

func TestInsertWithUniqueSlugLongBaseStaysInColumn(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		base := strings.Repeat("ü", 127) // 254 bytes, as a caller-sent slug could be
		for i := 0; i < 3; i++ {
			slug, err := db.InsertWithUniqueSlug(ctx, models.KindTag, base, 0, func(slug string) error {
				return insertTerm(ctx, db.Store, "tag", fmt.Sprint("t", i), slug)
			})
			if err != nil || utf8.RuneCountInString(slug) > 255 || len(slug) > 255 || !utf8.ValidString(slug) {
				t.Fatalf("slug %d: %q (%d bytes), %v", i, slug, len(slug), err)
			}
		}
	})
}

func TestInsertWithUniqueSlugUnderConcurrency(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		const n = 20
		for _, kind := range []models.Kind{models.KindVenue, models.KindTag} {
			var wg sync.WaitGroup
			slugs := make([]string, n)
			errs := make([]error, n)
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					title := "Open Air" + strings.Repeat("!", i) // distinct names, one slug base
					errs[i] = db.RunInTx(ctx, func(tx *models.Store) error {
						s, err := tx.InsertWithUniqueSlug(ctx, kind, models.Slugify(title), 0, func(slug string) error {
							if kind == models.KindVenue {
								return insertVenue(ctx, tx, title, slug)
							}
							return insertTerm(ctx, tx, "tag", title, slug)
						})
						slugs[i] = s
						return err
					})
				}(i)
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("%s %d: %v", kind, i, err)
				}
			}
			sort.Strings(slugs)
			seen := map[string]bool{}
			for _, s := range slugs {
				if seen[s] || !strings.HasPrefix(s, "open-air") {
					t.Errorf("%s: bad or duplicate slug %q in %v", kind, s, slugs)
				}
				seen[s] = true
			}
		}
	})
}

// TestSlugLookupUsesTheIndex: finding the taken slugs of a new record reads
// the slug index, not the whole table (it runs on every create).
func TestSlugLookupUsesTheIndex(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		log := &queryLog{}
		db.AddQueryHook(log)
		if _, err := db.CreateEvent(ctx, admin, baseInput("Slug lookup", "2027-01-01 10:00", "2027-01-01 11:00")); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, q := range log.reset() {
			if !strings.Contains(q, "slug >=") {
				continue
			}
			found = true
			plan := explain(t, db, q)
			if strings.Contains(plan, "SCAN events") || strings.Contains(plan, "type=ALL") {
				t.Errorf("the slug lookup reads the whole table:\n%s\n%s", q, plan)
			}
		}
		if !found {
			t.Fatal("no slug lookup recorded")
		}
	})
}

// Many whole event creates of one title at once (each a transaction of
// dozens of statements, with links and term counts) all succeed with
// distinct slugs on both dialects: on MySQL a retried slug look-up sees
// what others committed, and losers step past the numbers being taken.
func TestConcurrentEventCreatesOfOneTitle(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := addAccount(t, db, "ed", models.RoleEditor)
		str := func(s string) *string { return &s }
		// 200 creates, 16 at a time (a server's connections), the way a
		// busy API receives them.
		const n, parallel = 200, 16
		var wg sync.WaitGroup
		slugs := make([]string, n)
		errs := make([]error, n)
		sem := make(chan struct{}, parallel)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				e, err := db.CreateEvent(ctx, ed, models.EventInput{Title: str("Bench event"), StartDate: str("2031-06-01 10:00:00"),
					EndDate: str("2031-06-01 12:00:00"), Categories: &[]models.TermRef{{Name: "Music"}}, Tags: &[]models.TermRef{{Name: "live"}}})
				errs[i] = err
				if err == nil {
					slugs[i] = e.Slug
				}
			}()
		}
		wg.Wait()
		seen := map[string]bool{}
		for i, err := range errs {
			if err != nil {
				t.Errorf("create %d: %v", i, err)
				continue
			}
			if seen[slugs[i]] || !strings.HasPrefix(slugs[i], "bench-event") {
				t.Errorf("bad or duplicate slug %q", slugs[i])
			}
			seen[slugs[i]] = true
		}
	})
}
