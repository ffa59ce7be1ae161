package api

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// Acceptance tests of issue 6, content side (SPEC §3): per-field
// translations of every kind, their reads, searches and deletion, and the
// event scenario with its embedded records and generated strings.

// translationCount counts the rows of a translation table for one record.
func translationCount(t *testing.T, e *testEnv, table, key string, id int64) int64 {
	t.Helper()
	n, err := e.DB.IDB().NewSelect().Table(table).Where("? = ?", bun.Ident(key), id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// str reads a string field of a record body.
func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func strList(v any) string {
	l, _ := v.([]any)
	s := make([]string, len(l))
	for i, x := range l {
		s[i], _ = x.(string)
	}
	return strings.Join(s, ",")
}

// translationCase describes one kind for the content translation scenario.
type translationCase struct {
	kind, table, key string
	nameField        string
	create           map[string]any // English fields at creation
	ja               map[string]any // the ja texts of translatable fields
	plain            map[string]any // untranslatable fields sent with the ja update (stored on the record)
	search           string         // a substring of the ja name
	listQuery        string         // extra list parameters
	bySlug           bool           // the kind has a by-slug route
}

var translationCases = []translationCase{
	{kind: "venues", table: "venue_translations", key: "venue_id", nameField: "venue", search: "夏祭", bySlug: true,
		create: map[string]any{"venue": "Riverside Park", "city": "Kyoto", "address": "1 River Road", "description": "A park by the river."},
		ja:     map[string]any{"venue": "夏祭り広場", "city": "京都市", "description": "川沿いの公園です。"},
		plain:  map[string]any{"phone": "075-000-0000"}},
	{kind: "organizers", table: "organizer_translations", key: "organizer_id", nameField: "organizer", search: "実行委", bySlug: true,
		create: map[string]any{"organizer": "Festival Committee", "description": "Runs the festival."},
		ja:     map[string]any{"organizer": "夏祭り実行委員会", "description": "祭りを運営しています。"},
		plain:  map[string]any{"email": "info@example.com"}},
	{kind: "categories", table: "term_translations", key: "term_id", nameField: "name", search: "伝統", listQuery: "&hide_empty=false",
		create: map[string]any{"name": "Traditional Festivals", "description": "Festivals with a long history."},
		ja:     map[string]any{"name": "伝統的な祭り", "description": "長い歴史のある祭りです。"}},
	{kind: "tags", table: "term_translations", key: "term_id", nameField: "name", search: "花火", listQuery: "&hide_empty=false",
		create: map[string]any{"name": "Fireworks"},
		ja:     map[string]any{"name": "花火大会"}},
}

func TestI18nContentTranslations(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, tc := range translationCases {
			t.Run(tc.kind, func(t *testing.T) { contentTranslationScenario(t, e, tc) })
		}
	})
}

// contentTranslationScenario: create in English, write the ja text fields
// with ml_language=ja, read in ja/ko/en, search in ja, delete for good.
func contentTranslationScenario(t *testing.T, e *testEnv, tc translationCase) {
	admin := models.RoleAdministrator
	r := e.do(t, "POST", nsURL+"/"+tc.kind, tc.create, admin)
	expect(t, "create "+tc.kind, r, 201, "")
	id := idOf(t, r)
	created := r.Map(t)
	if str(created, "lang") != "en" || strList(created["translations"]) != "" {
		t.Errorf("created: lang %v translations %v", created["lang"], created["translations"])
	}
	item := fmt.Sprintf("%s/%s/%d", nsURL, tc.kind, id)
	ja := map[string]any{"ml_language": "ja"}
	for _, m := range []map[string]any{tc.ja, tc.plain} {
		for k, v := range m {
			ja[k] = v
		}
	}
	r = e.do(t, "POST", item, ja, admin)
	expect(t, "update in ja", r, 200, "")
	if got := str(r.Map(t), tc.nameField); got != tc.ja[tc.nameField] {
		t.Errorf("the update in ja answers %s %q", tc.nameField, got)
	}

	read := func(lang string) map[string]any {
		r := e.do(t, "GET", item+"?ml_language="+lang, nil, "")
		expect(t, "read "+lang, r, 200, "")
		return r.Map(t)
	}
	jaRead, koRead, enRead := read("ja"), read("ko"), read("en")
	for k, v := range tc.ja {
		if jaRead[k] != v {
			t.Errorf("ja read: %s = %v, want %v", k, jaRead[k], v)
		}
	}
	for k, v := range tc.create {
		if _, translated := tc.ja[k]; !translated && jaRead[k] != v {
			t.Errorf("ja read: untranslated %s = %v, want the English %v", k, jaRead[k], v)
		}
		if koRead[k] != v {
			t.Errorf("ko read: %s = %v, want the English %v", k, koRead[k], v)
		}
		if enRead[k] != v {
			t.Errorf("en read: %s = %v, want the untouched English %v", k, enRead[k], v)
		}
	}
	for k, v := range tc.plain {
		if koRead[k] != v || enRead[k] != v {
			t.Errorf("%s = %v (ko) / %v (en), want %v stored on the record", k, koRead[k], enRead[k], v)
		}
	}
	for _, m := range []map[string]any{jaRead, koRead, enRead} {
		if str(m, "lang") != "en" || strList(m["translations"]) != "ja" {
			t.Errorf("lang %v translations %v, want en and [ja]", m["lang"], m["translations"])
		}
		if str(m, "slug") != str(created, "slug") {
			t.Errorf("slug changed from %q to %q", str(created, "slug"), str(m, "slug"))
		}
	}
	if tc.bySlug { // and the prefix instead of ml_language
		r = e.do(t, "GET", fmt.Sprintf("/ja%s/%s/by-slug/%s", nsURL, tc.kind, url.PathEscape(str(created, "slug"))), nil, "")
		if expect(t, "by-slug under /ja", r, 200, ""); str(r.Map(t), tc.nameField) != tc.ja[tc.nameField] {
			t.Errorf("by slug under /ja: %s = %q", tc.nameField, str(r.Map(t), tc.nameField))
		}
	}

	// Search: a substring of the Japanese name finds it in ja only; the
	// source text in any language.
	search := func(lang, q string) []int64 {
		r := e.do(t, "GET", nsURL+"/"+tc.kind+"?ml_language="+lang+"&search="+url.QueryEscape(q)+tc.listQuery, nil, "")
		ids, _ := listIDs(t, r, tc.kind)
		return ids
	}
	if ids := search("ja", tc.search); len(ids) != 1 || ids[0] != id {
		t.Errorf("search %q in ja: %v, want [%d]", tc.search, ids, id)
	}
	if ids := search("ko", tc.search); len(ids) != 0 {
		t.Errorf("search %q in ko found %v: the ja translation leaked", tc.search, ids)
	}
	enWord := strings.ToLower(strings.Fields(tc.create[tc.nameField].(string))[0])
	for _, lang := range []string{"ja", "en"} {
		if ids := search(lang, enWord); len(ids) != 1 || ids[0] != id {
			t.Errorf("search %q in %s: %v, want [%d]", enWord, lang, ids, id)
		}
	}
	// The list in ja shows the translation too.
	r = e.do(t, "GET", nsURL+"/"+tc.kind+"?ml_language=ja"+tc.listQuery, nil, "")
	if items, _ := r.Map(t)[tc.kind].([]any); len(items) != 1 || str(items[0].(map[string]any), tc.nameField) != tc.ja[tc.nameField] {
		t.Errorf("list in ja: %.300s", r.Body)
	}

	// Deleting for good deletes the translations (FK cascade).
	if n := translationCount(t, e, tc.table, tc.key, id); n != 1 {
		t.Errorf("%d translation rows before the delete, want 1", n)
	}
	expect(t, "delete", e.do(t, "DELETE", item+"?force=true", nil, admin), 200, "")
	if n := translationCount(t, e, tc.table, tc.key, id); n != 0 {
		t.Errorf("%d translation rows left after the delete", n)
	}
}

// TestI18nEventTranslationScenario is the acceptance scenario of issue 6:
// an event created in English gets its ja title and description through
// ml_language=ja; ja reads return them, ko reads the English ones, the
// English record is untouched, translations lists ja, and search=夏祭 in ja
// finds it. Its venue, organizer and terms follow the request language,
// and so do the generated strings (Free, the cost range, inLanguage).
func TestI18nEventTranslationScenario(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		admin := models.RoleAdministrator
		create := func(kind string, en, ja map[string]any) int64 {
			t.Helper()
			r := e.do(t, "POST", nsURL+"/"+kind, en, admin)
			expect(t, "create "+kind, r, 201, "")
			id := idOf(t, r)
			ja["ml_language"] = "ja"
			expect(t, "translate "+kind, e.do(t, "POST", fmt.Sprintf("%s/%s/%d", nsURL, kind, id), ja, admin), 200, "")
			return id
		}
		venue := create("venues", map[string]any{"venue": "Riverside Park"}, map[string]any{"venue": "河川敷公園"})
		organizer := create("organizers", map[string]any{"organizer": "Festival Committee"}, map[string]any{"organizer": "実行委員会"})
		body := map[string]any{"title": "Summer Festival", "description": "Fireworks by the river.",
			"start_date": "2027-08-01 18:00:00", "end_date": "2027-08-01 21:00:00", "cost": "0",
			"venue": venue, "organizer": []int64{organizer}}
		category := create("categories", map[string]any{"name": "Festivals"}, map[string]any{"name": "祭り"})
		tag := create("tags", map[string]any{"name": "Summer"}, map[string]any{"name": "夏"})
		body["categories"], body["tags"] = []int64{category}, []int64{tag}
		r := e.do(t, "POST", nsURL+"/events", body, admin)
		expect(t, "create event", r, 201, "")
		id := idOf(t, r)
		item := fmt.Sprintf("%s/events/%d", nsURL, id)

		r = e.do(t, "POST", item, map[string]any{"ml_language": "ja", "title": "夏祭り", "description": "川辺の花火大会です。"}, admin)
		expect(t, "update in ja", r, 200, "")

		read := func(lang string) map[string]any {
			r := e.do(t, "GET", item+"?ml_language="+lang, nil, "")
			expect(t, "read "+lang, r, 200, "")
			return r.Map(t)
		}
		want := map[string]struct{ title, description, venue, organizer, category, tag string }{
			"ja": {"夏祭り", "川辺の花火大会です。", "河川敷公園", "実行委員会", "祭り", "夏"},
			"ko": {"Summer Festival", "Fireworks by the river.", "Riverside Park", "Festival Committee", "Festivals", "Summer"},
			"en": {"Summer Festival", "Fireworks by the river.", "Riverside Park", "Festival Committee", "Festivals", "Summer"},
		}
		for _, lang := range []string{"ja", "ko", "en"} {
			m, w := read(lang), want[lang]
			if str(m, "title") != w.title || !strings.Contains(str(m, "description"), w.description) {
				t.Errorf("%s read: title %q description %q", lang, str(m, "title"), str(m, "description"))
			}
			if str(m, "lang") != "en" || strList(m["translations"]) != "ja" {
				t.Errorf("%s read: lang %v translations %v", lang, m["lang"], m["translations"])
			}
			if v, _ := m["venue"].(map[string]any); str(v, "venue") != w.venue {
				t.Errorf("%s read: embedded venue %v", lang, m["venue"])
			}
			if os, _ := m["organizer"].([]any); len(os) != 1 || str(os[0].(map[string]any), "organizer") != w.organizer {
				t.Errorf("%s read: embedded organizers %v", lang, m["organizer"])
			}
			for key, name := range map[string]string{"categories": w.category, "tags": w.tag} {
				if ts, _ := m[key].([]any); len(ts) != 1 || str(ts[0].(map[string]any), "name") != name {
					t.Errorf("%s read: embedded %s %v, want %q", lang, key, m[key], name)
				}
			}
			if free := e.Deps.I18n.T(lang, "cost.free", nil); str(m, "cost") != free {
				t.Errorf("%s read: cost %q, want %q", lang, str(m, "cost"), free)
			}
			ld, _ := m["json_ld"].(map[string]any)
			if got := str(ld, "inLanguage"); !strings.EqualFold(got, i18n.Tag(lang).String()) {
				t.Errorf("%s read: json_ld inLanguage %q", lang, got)
			}
			if lang == "ja" && str(ld, "name") != "夏祭り" {
				t.Errorf("ja read: json_ld name %q", str(ld, "name"))
			}
		}
		// The English record is untouched.
		var stored models.Event
		if err := e.DB.IDB().NewSelect().Model(&stored).Where("id = ?", id).Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		if stored.Title != "Summer Festival" || stored.Description != "Fireworks by the river." || stored.Lang != "en" {
			t.Errorf("stored record: title %q description %q lang %q", stored.Title, stored.Description, stored.Lang)
		}

		// Search a substring of the Japanese title.
		search := func(lang, q string) []int64 {
			ids, _ := listIDs(t, e.do(t, "GET", nsURL+"/events?ml_language="+lang+"&search="+url.QueryEscape(q), nil, ""), "events")
			return ids
		}
		if ids := search("ja", "夏祭"); len(ids) != 1 || ids[0] != id {
			t.Errorf("search=夏祭 in ja: %v, want [%d]", ids, id)
		}
		if ids := search("ko", "夏祭"); len(ids) != 0 {
			t.Errorf("search=夏祭 in ko: %v, want none", ids)
		}
		if ids := search("ja", "summer"); len(ids) != 1 {
			t.Errorf("search=summer in ja (source text): %v", ids)
		}
		// The list in ja carries the translation and the localized cost.
		r = e.do(t, "GET", nsURL+"/events?ml_language=ja", nil, "")
		if evs, _ := r.Map(t)["events"].([]any); len(evs) != 1 || str(evs[0].(map[string]any), "title") != "夏祭り" ||
			str(evs[0].(map[string]any), "cost") != e.Deps.I18n.T("ja", "cost.free", nil) {
			t.Errorf("list in ja: %.400s", r.Body)
		} else if v, _ := evs[0].(map[string]any)["venue"].(map[string]any); str(v, "venue") != "河川敷公園" {
			t.Errorf("list in ja: embedded venue %v", evs[0].(map[string]any)["venue"])
		}

		// The cost range in every language.
		r = e.do(t, "POST", item, map[string]any{"cost": "10 - 20"}, admin)
		expect(t, "cost range", r, 200, "")
		for _, lang := range i18n.Codes {
			m := read(lang)
			wantCost := e.Deps.I18n.T(lang, "cost.range", map[string]any{"Min": "$10", "Max": "$20"})
			if str(m, "cost") != wantCost {
				t.Errorf("%s: cost %q, want %q", lang, str(m, "cost"), wantCost)
			}
		}

		// Under a prefix, every URL keeps it.
		r = e.do(t, "GET", fmt.Sprintf("/ja%s/events/%d", nsURL, id), nil, "")
		expect(t, "read under /ja", r, 200, "")
		if str(r.Map(t), "title") != "夏祭り" || checkURLs(t, "event under /ja", r.JSON(t), e.Deps.Site.BaseURL, "/ja") == 0 {
			t.Errorf("event under /ja: %.300s", r.Body)
		}
		r = e.do(t, "GET", "/ja"+nsURL+"/events?per_page=1", nil, "")
		checkURLs(t, "event list under /ja", r.JSON(t), e.Deps.Site.BaseURL, "/ja")

		// Deleting for good deletes the translations.
		expect(t, "delete", e.do(t, "DELETE", item+"?force=true", nil, admin), 200, "")
		if n := translationCount(t, e, "event_translations", "event_id", id); n != 0 {
			t.Errorf("%d event translation rows left after the delete", n)
		}
	})
}

// TestI18nSourceLanguageOtherThanEnglish: a record created in ja has ja as
// its source; an English write then stores English translations, and each
// language reads its own text.
func TestI18nSourceLanguageOtherThanEnglish(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *testEnv) {
		admin := models.RoleAdministrator
		cases := []struct{ kind, field, ja, en string }{
			{"venues", "venue", "京都会館", "Kyoto Hall"},
			{"organizers", "organizer", "祇園祭実行委員会", "Gion Festival Committee"},
			{"categories", "name", "伝統行事", "Traditional events"},
			{"tags", "name", "提灯", "Lanterns"},
			{"events", "title", "祇園祭", "Gion Festival"},
		}
		for _, tc := range cases {
			body := map[string]any{"ml_language": "ja", tc.field: tc.ja}
			if tc.kind == "events" {
				body["start_date"], body["end_date"] = "2027-07-17 09:00:00", "2027-07-17 18:00:00"
			}
			r := e.do(t, "POST", nsURL+"/"+tc.kind, body, admin)
			expect(t, "create in ja", r, 201, "")
			id := idOf(t, r)
			if m := r.Map(t); str(m, "lang") != "ja" || str(m, tc.field) != tc.ja {
				t.Errorf("%s created in ja: lang %v %s %v", tc.kind, m["lang"], tc.field, m[tc.field])
			}
			item := fmt.Sprintf("%s/%s/%d", nsURL, tc.kind, id)
			expect(t, "write in en", e.do(t, "POST", item, map[string]any{"ml_language": "en", tc.field: tc.en}, admin), 200, "")
			for lang, want := range map[string]string{"ja": tc.ja, "en": tc.en, "ko": tc.ja, "zh-hans": tc.ja} {
				m := e.do(t, "GET", item+"?ml_language="+lang, nil, "").Map(t)
				if str(m, tc.field) != want || str(m, "lang") != "ja" || strList(m["translations"]) != "en" {
					t.Errorf("%s read in %s: %s %q lang %v translations %v, want %q, ja, [en]",
						tc.kind, lang, tc.field, str(m, tc.field), m["lang"], m["translations"], want)
				}
			}
		}
	})
}
