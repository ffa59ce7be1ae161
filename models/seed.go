package models

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// SeedOptions shapes the demo data of Seed. The defaults (DefaultSeedOptions)
// are a realistic calendar: every event linked to a venue, two organizers,
// two categories and two tags, with a description of about 500 characters,
// some of it translated.
type SeedOptions struct {
	Events, Venues, Organizers, Categories, Tags int
	// Links per event (capped by the number of records of the kind).
	VenuesPerEvent, OrganizersPerEvent, CategoriesPerEvent, TagsPerEvent int
	// Shares of the events, from 0 to 1.
	Drafts, AllDay, MultiDay, Hidden, Translated float64
	// From and To bound the start dates.
	From, To time.Time
	// Seed makes the data: the same options give the same records, on
	// either dialect.
	Seed int64
	// AuthorID is the author of every record.
	AuthorID int64
	// Force seeds into a database that already holds events.
	Force bool
	// Series of the events become weekly recurring series of
	// SeriesCount occurrences each (their occurrences are added to the
	// events), spread evenly over the seeded events.
	Series, SeriesCount int
	// Images is the share of events (by id, so the random draws stay
	// those of a seed without) that show one of a few library images.
	Images float64
	// rowByRow writes the events through the triggers on SQLite too, as
	// on MySQL (the tests compare it with the bulk path).
	rowByRow bool
	// batch is the number of events a transaction, when not 0.
	batch int
}

// DefaultSeedOptions is the realistic shape, with start dates from a year
// before day to a year after it.
func DefaultSeedOptions(day time.Time) SeedOptions {
	d := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	return SeedOptions{Events: 10000, Venues: 20, Organizers: 20, Categories: 10, Tags: 20,
		VenuesPerEvent: 1, OrganizersPerEvent: 2, CategoriesPerEvent: 2, TagsPerEvent: 2,
		Drafts: 0.05, AllDay: 0.1, MultiDay: 0.1, Hidden: 0.02, Translated: 0.3,
		From: d.AddDate(-1, 0, 0), To: d.AddDate(1, 0, 0), Seed: 1, Images: 0.3}
}

// SeedReport says what Seed wrote.
type SeedReport struct {
	Events, Venues, Organizers, Categories, Tags, Links, Translations int
	Series, Occurrences                                               int
}

// ErrNotEmpty is the error of Seed asked to write into a database that
// already holds events, without Force.
var ErrNotEmpty = errors.New("models: the database already holds events")

// seedBatch is the number of events written per transaction on MySQL;
// seedBatchSQLite on SQLite, where each commit writes the pages of the
// indexes it touched to the WAL: 5,000 rather than 500 took the events'
// part of a 100,000-event seed from about 80 to 43 s.
const (
	seedBatch       = 500
	seedBatchSQLite = 5000
)

// Seed writes deterministic demo data in batches, each batch in one
// transaction, calling progress(done, total) after each. The records are
// what the operations would have stored (ids from the shared id space,
// unique slugs, links, translations, term counts), written in bulk.
func (s *Store) Seed(ctx context.Context, o SeedOptions, progress func(done, total int)) (rep SeedReport, err error) {
	if err := o.check(); err != nil {
		return rep, err
	}
	had, err := s.db.NewSelect().TableExpr("events").Count(ctx)
	if err != nil {
		return rep, fmt.Errorf("models: seed: %w", mapErr(err))
	}
	if had > 0 && !o.Force {
		return rep, ErrNotEmpty
	}
	// A seeded PRNG on purpose: the same seed must give the same data.
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x6b616c656e6473)) //nolint:gosec // demo data, not secrets
	g := &seeder{rng: rng, o: o, now: Sec(s.site.Now())}
	if err := s.RunInTx(ctx, func(tx *Store) error { return g.writeDirectory(ctx, tx, &rep) }); err != nil {
		return rep, err
	}
	if o.Images > 0 {
		if g.images, err = s.seedImages(ctx, o.AuthorID); err != nil {
			return rep, err
		}
	}
	// On SQLite the search index is built once the events are written,
	// in big batches (IndexBacklog), not 500 events at a time: the marks
	// stay until then, and a search meanwhile reads those events by LIKE.
	if s.dialect == SQLite && s.searchMode != nil && s.searchMode.CompareAndSwap(searchOn, searchPaused) {
		defer s.searchMode.CompareAndSwap(searchPaused, searchOn)
	}
	batch := seedBatch
	if s.dialect == SQLite {
		batch = seedBatchSQLite
	}
	if o.batch > 0 {
		batch = o.batch
	}
	// The secondary indexes are built again from the events once they are
	// all written, when a seed at least doubles them (seed_aside.go).
	if s.dialect == SQLite && !o.rowByRow && had < int64(o.Events) {
		if _, err := s.setIndexesAside(ctx); err != nil {
			return rep, err
		}
		defer func() {
			if err != nil {
				_ = s.restoreIndexes(context.WithoutCancel(ctx))
			}
		}()
	}
	for done := 0; done < o.Events; done += batch {
		n := min(batch, o.Events-done)
		err := s.RunInTx(ctx, func(tx *Store) error {
			if tx.dialect == SQLite {
				if err := tx.bulkCache(ctx); err != nil {
					return err
				}
				defer tx.defaultCache(ctx)
			}
			if tx.dialect != SQLite || o.rowByRow {
				_, _, err := g.writeEvents(ctx, tx, n, &rep)
				return err
			}
			return tx.writeWithoutTriggers(ctx, func() (int64, int64, error) { return g.writeEvents(ctx, tx, n, &rep) })
		})
		if err != nil {
			return rep, err
		}
		if progress != nil {
			progress(done+n, o.Events)
		}
	}
	if err := s.restoreIndexes(ctx); err != nil {
		return rep, err
	}
	if err := s.seedSeries(ctx, o, &rep); err != nil {
		return rep, err
	}
	if _, err := s.RecountTerms(ctx); err != nil {
		return rep, err
	}
	if s.searchMode != nil && s.searchMode.CompareAndSwap(searchPaused, searchOn) {
		if _, err := s.IndexBacklog(ctx); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// bulkCache gives the connection of a bulk transaction (a seed's batch or
// series, a bulk refold of the search index, the rebuild of indexes set
// aside) a large page cache (SQLite) while its pages are written (about a
// third faster at 100,000 events); defaultCache sets SQLite's default back
// before the connection serves again.
func (s *Store) bulkCache(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, "PRAGMA cache_size = -262144"); err != nil {
		return fmt.Errorf("models: seed: %w", mapErr(err))
	}
	return nil
}

func (s *Store) defaultCache(ctx context.Context) {
	_, _ = s.db.ExecContext(context.WithoutCancel(ctx), "PRAGMA cache_size = -2000")
}

// seedSeries makes o.Series of the seeded published events weekly series
// through the store's own series code (rule, occurrences with copies of
// the links and translations), 50 series a transaction on MySQL and 500
// on SQLite (one writer: fewer commits of the same index pages).
func (s *Store) seedSeries(ctx context.Context, o SeedOptions, rep *SeedReport) error {
	if o.Series <= 0 {
		return nil
	}
	var ids []int64
	err := s.db.NewSelect().TableExpr("events").Column("id").Where("status = ? AND series_id IS NULL", StatusPublish).
		OrderExpr("id DESC").Limit(int64(o.Events)).Scan(ctx, &ids)
	if err != nil {
		return fmt.Errorf("models: seed series: %w", mapErr(err))
	}
	slices.Reverse(ids)
	step := max(len(ids)/o.Series, 1)
	rule := &Recurrence{RRules: []string{"FREQ=WEEKLY;COUNT=" + strconv.Itoa(max(o.SeriesCount, 2))}}
	perTx := 50
	if s.dialect == SQLite {
		perTx = 500
	}
	for i := 0; i < len(ids) && rep.Series < o.Series; {
		err := s.RunInTx(ctx, func(tx *Store) error {
			if tx.dialect == SQLite {
				if err := tx.bulkCache(ctx); err != nil {
					return err
				}
				defer tx.defaultCache(ctx)
			}
			for n := 0; n < perTx && i < len(ids) && rep.Series < o.Series; n, i = n+1, i+step {
				if err := tx.setRule(ctx, ids[i], rule); err != nil {
					return err
				}
				if err := tx.syncSeries(ctx, ids[i], false, tx.site.Horizon()); err != nil {
					return err
				}
				rep.Series++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	n, err := s.db.NewSelect().TableExpr("events").Where("series_id IS NOT NULL AND series_id <> id").Count(ctx)
	if err != nil {
		return fmt.Errorf("models: seed series: %w", mapErr(err))
	}
	rep.Occurrences = int(n)
	return nil
}

// check refuses options that make no calendar. Its errors name the
// options as the seed command's flags do.
func (o *SeedOptions) check() error {
	var errs []error
	for _, n := range []struct {
		name string
		v    int
	}{{"events", o.Events}, {"venues", o.Venues}, {"organizers", o.Organizers}, {"categories", o.Categories},
		{"tags", o.Tags}, {"venues-per-event", o.VenuesPerEvent}, {"organizers-per-event", o.OrganizersPerEvent},
		{"categories-per-event", o.CategoriesPerEvent}, {"tags-per-event", o.TagsPerEvent}} {
		if n.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative", n.name))
		}
	}
	for _, sh := range []struct {
		name string
		v    float64
	}{{"drafts", o.Drafts}, {"all-day", o.AllDay}, {"multi-day", o.MultiDay}, {"hidden", o.Hidden}, {"translations", o.Translated}} {
		if sh.v < 0 || sh.v > 1 {
			errs = append(errs, fmt.Errorf("%s is a share: from 0 to 1", sh.name))
		}
	}
	if !o.To.After(o.From) {
		errs = append(errs, errors.New("to must be after from"))
	}
	return errors.Join(errs...)
}

// seeder holds the state of one Seed run.
type seeder struct {
	rng                            *rand.Rand
	o                              SeedOptions
	now                            time.Time
	venues, organizers, cats, tags []int64
	venueZones                     map[int64]string
	nextID                         int64
	images                         []string // paths of the library images events show
}

// seedLangs are the source languages of seeded records, English most often.
var seedLangs = []string{"en", "en", "ja", "ko", "zh-hans"}

// seedPlaces are the cities of seeded venues: name per language, zone,
// country, coordinates.
var seedPlaces = []struct {
	city        map[string]string
	zone, cc    string
	lat, lng    float64
	phonePrefix string
}{
	{map[string]string{"en": "Tokyo", "ja": "東京", "ko": "도쿄", "zh-hans": "东京"}, "Asia/Tokyo", "Japan", 35.68, 139.76, "+81 3"},
	{map[string]string{"en": "Osaka", "ja": "大阪", "ko": "오사카", "zh-hans": "大阪"}, "Asia/Tokyo", "Japan", 34.69, 135.50, "+81 6"},
	{map[string]string{"en": "Seoul", "ja": "ソウル", "ko": "서울", "zh-hans": "首尔"}, "Asia/Seoul", "South Korea", 37.57, 126.98, "+82 2"},
	{map[string]string{"en": "Busan", "ja": "釜山", "ko": "부산", "zh-hans": "釜山"}, "Asia/Seoul", "South Korea", 35.18, 129.08, "+82 51"},
	{map[string]string{"en": "Shanghai", "ja": "上海", "ko": "상하이", "zh-hans": "上海"}, "Asia/Shanghai", "China", 31.23, 121.47, "+86 21"},
	{map[string]string{"en": "Beijing", "ja": "北京", "ko": "베이징", "zh-hans": "北京"}, "Asia/Shanghai", "China", 39.90, 116.40, "+86 10"},
	{map[string]string{"en": "New York", "ja": "ニューヨーク", "ko": "뉴욕", "zh-hans": "纽约"}, "America/New_York", "United States", 40.71, -74.01, "+1 212"},
	{map[string]string{"en": "London", "ja": "ロンドン", "ko": "런던", "zh-hans": "伦敦"}, "Europe/London", "United Kingdom", 51.51, -0.13, "+44 20"},
}

// seedWords are the vocabularies of titles and descriptions per language.
var seedWords = map[string][]string{
	"en": strings.Fields("spring autumn night open jazz piano string quartet film festival market workshop " +
		"lecture family garden harbor city river morning evening craft book poetry dance theatre science " +
		"design photo coffee tea wine street food community concert gallery talk walk run cycling"),
	"ja": strings.Fields("春の 秋の 夜の ジャズ ピアノ 弦楽四重奏 映画祭 マーケット ワークショップ 講演会 家族で 庭園 港 " +
		"朝の 夕べの 工芸 本 詩 ダンス 演劇 科学 デザイン 写真 珈琲 お茶 屋台 地域 コンサート 展示 散歩"),
	"ko": strings.Fields("봄 가을 밤의 재즈 피아노 현악사중주 영화제 장터 워크숍 강연 가족 정원 항구 아침 저녁 " +
		"공예 책 시 춤 연극 과학 디자인 사진 커피 차 거리음식 지역 음악회 전시 산책"),
	"zh-hans": strings.Fields("春季 秋季 夜间 爵士 钢琴 弦乐四重奏 电影节 市集 工作坊 讲座 亲子 花园 港口 清晨 傍晚 " +
		"手工 读书 诗歌 舞蹈 戏剧 科学 设计 摄影 咖啡 茶 街头美食 社区 音乐会 展览 徒步"),
}

// seedTermNames are category and tag names in the four languages.
var seedTermNames = []map[string]string{
	{"en": "Music", "ja": "音楽", "ko": "음악", "zh-hans": "音乐"},
	{"en": "Arts", "ja": "アート", "ko": "예술", "zh-hans": "艺术"},
	{"en": "Food", "ja": "グルメ", "ko": "음식", "zh-hans": "美食"},
	{"en": "Learning", "ja": "学び", "ko": "배움", "zh-hans": "学习"},
	{"en": "Jazz", "ja": "ジャズ", "ko": "재즈", "zh-hans": "爵士"},
	{"en": "Classical", "ja": "クラシック", "ko": "클래식", "zh-hans": "古典"},
	{"en": "Film", "ja": "映画", "ko": "영화", "zh-hans": "电影"},
	{"en": "Markets", "ja": "マーケット", "ko": "장터", "zh-hans": "市集"},
	{"en": "Talks", "ja": "トーク", "ko": "강연", "zh-hans": "讲座"},
	{"en": "Outdoors", "ja": "アウトドア", "ko": "야외", "zh-hans": "户外"},
	{"en": "Family", "ja": "家族", "ko": "가족", "zh-hans": "亲子"},
	{"en": "Free", "ja": "無料", "ko": "무료", "zh-hans": "免费"},
	{"en": "Live", "ja": "ライブ", "ko": "라이브", "zh-hans": "现场"},
	{"en": "Online", "ja": "オンライン", "ko": "온라인", "zh-hans": "线上"},
	{"en": "Weekend", "ja": "週末", "ko": "주말", "zh-hans": "周末"},
	{"en": "Evening", "ja": "夜", "ko": "저녁", "zh-hans": "晚间"},
}

// seedCosts are cost texts in several currencies (stored as sent).
var seedCosts = []string{"", "", "Free", "$20", "$15 - $40", "¥3,000", "¥1,000～¥3,000", "₩20,000", "100元", "£12", "€25"}

func (g *seeder) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *seeder) chance(p float64) bool { return g.rng.Float64() < p }

// words joins n words of lang.
func (g *seeder) words(lang string, n int) string {
	sep := " "
	if lang == "ja" || lang == "zh-hans" {
		sep = ""
	}
	w := make([]string, n)
	for i := range w {
		w[i] = g.pick(seedWords[lang])
	}
	return strings.Join(w, sep)
}

// text is a description of about size characters in lang, in paragraphs.
func (g *seeder) text(lang string, size int) string {
	var b strings.Builder
	for n := 0; n < size; {
		p := "<p>" + g.words(lang, 8+g.rng.IntN(8))
		if lang == "en" {
			p += ".</p>"
		} else {
			p += "。</p>"
		}
		b.WriteString(p)
		n += utf8.RuneCountInString(p)
	}
	return b.String()
}

// ids allocates n ids of kind k in the shared id space.
func (g *seeder) ids(ctx context.Context, tx *Store, k Kind, n int) ([]int64, error) {
	if g.nextID == 0 {
		var maxID int64
		if err := tx.db.NewSelect().TableExpr("post_ids").ColumnExpr("COALESCE(MAX(id), 0)").Scan(ctx, &maxID); err != nil {
			return nil, fmt.Errorf("models: seed ids: %w", mapErr(err))
		}
		g.nextID = maxID + 1
	}
	rows := make([]PostID, n)
	out := make([]int64, n)
	for i := range rows {
		rows[i] = PostID{ID: g.nextID, Kind: string(k)}
		out[i] = g.nextID
		g.nextID++
	}
	if n > 0 {
		if _, err := tx.db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			return nil, fmt.Errorf("models: seed ids: %w", mapErr(err))
		}
	}
	return out, nil
}

func (g *seeder) post(id int64, lang, slug string) Post {
	return Post{ID: id, AuthorID: g.o.AuthorID, ModifiedBy: g.o.AuthorID, Status: StatusPublish, Slug: slug, Lang: lang,
		PublishedAt: g.now, CreatedAt: g.now, UpdatedAt: g.now}
}

// writeDirectory writes the venues, organizers, categories and tags.
func (g *seeder) writeDirectory(ctx context.Context, tx *Store, rep *SeedReport) error {
	vids, err := g.ids(ctx, tx, KindVenue, g.o.Venues)
	if err != nil {
		return err
	}
	g.venueZones = map[int64]string{}
	venues := make([]Venue, len(vids))
	var vtr []map[string]any
	for i, id := range vids {
		pl := seedPlaces[i%len(seedPlaces)]
		lang := g.pick(seedLangs)
		name := fmt.Sprintf("%s %s %d", pl.city[lang], g.words(lang, 1), i+1)
		lat, lng := pl.lat+float64(g.rng.IntN(200)-100)/1000, pl.lng+float64(g.rng.IntN(200)-100)/1000
		venues[i] = Venue{Post: g.post(id, lang, fmt.Sprintf("venue-%d", id)), Venue: name, Description: g.text(lang, 200),
			Address: fmt.Sprintf("%d-%d", 1+g.rng.IntN(9), 1+g.rng.IntN(30)), City: pl.city[lang], Country: pl.cc,
			Phone:  fmt.Sprintf("%s %04d %04d", pl.phonePrefix, g.rng.IntN(10000), g.rng.IntN(10000)),
			GeoLat: &lat, GeoLng: &lng, ShowMap: true, ShowMapLink: true}
		g.venueZones[id] = pl.zone
		if g.chance(g.o.Translated) {
			other := g.otherLang(lang)
			vtr = append(vtr, map[string]any{"venue_id": id, "lang": other, "venue": fmt.Sprintf("%s %d", pl.city[other], i+1),
				"city": pl.city[other]})
		}
	}
	if err := insertAll(ctx, tx, venues); err != nil {
		return err
	}
	if err := g.translations(ctx, tx, "venue_translations", []string{"venue_id", "lang", "venue", "city"}, vtr, rep); err != nil {
		return err
	}
	g.venues = vids
	oids, err := g.ids(ctx, tx, KindOrganizer, g.o.Organizers)
	if err != nil {
		return err
	}
	orgs := make([]Organizer, len(oids))
	for i, id := range oids {
		lang := g.pick(seedLangs)
		orgs[i] = Organizer{Post: g.post(id, lang, fmt.Sprintf("organizer-%d", id)),
			Organizer: fmt.Sprintf("%s %d", g.words(lang, 2), i+1), Description: g.text(lang, 150),
			Email: fmt.Sprintf("team%d@example.org", i+1), Website: fmt.Sprintf("https://org%d.example.org", i+1),
			Phone: fmt.Sprintf("+1 555 %04d", g.rng.IntN(10000))}
	}
	if err := insertAll(ctx, tx, orgs); err != nil {
		return err
	}
	g.organizers = oids
	rep.Venues, rep.Organizers = len(vids), len(oids)
	if g.cats, err = g.terms(ctx, tx, TaxCategory, g.o.Categories, rep); err != nil {
		return err
	}
	g.tags, err = g.terms(ctx, tx, TaxTag, g.o.Tags, rep)
	rep.Categories, rep.Tags = len(g.cats), len(g.tags)
	return err
}

// terms writes n terms of the taxonomy; categories form a tree (a third are
// top-level parents of the others).
func (g *seeder) terms(ctx context.Context, tx *Store, taxonomy string, n int, rep *SeedReport) ([]int64, error) {
	ids := make([]int64, 0, n)
	roots := max(1, n/3)
	var tr []map[string]any
	for i := range n {
		names := seedTermNames[i%len(seedTermNames)]
		suffix := ""
		if i >= len(seedTermNames) {
			suffix = fmt.Sprintf(" %d", i/len(seedTermNames)+1)
		}
		name := names["en"] + suffix
		t := &Term{Taxonomy: taxonomy, Name: name, NameKey: NameKey(name), Slug: Slugify(name),
			Lang: "en", CreatedAt: g.now, UpdatedAt: g.now}
		if taxonomy == TaxCategory && i >= roots {
			t.ParentID = ids[i%roots]
		}
		// Seeding again (Force) reuses the terms of an earlier run.
		if id, err := tx.findTermByName(ctx, taxonomy, name, false); err == nil {
			ids = append(ids, id)
			continue
		} else if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		if err := tx.insertTerm(ctx, t); err != nil {
			return nil, err
		}
		ids = append(ids, t.ID)
		for _, l := range []string{"ja", "ko", "zh-hans"} {
			tr = append(tr, map[string]any{"term_id": t.ID, "lang": l, "name": names[l] + suffix})
		}
	}
	return ids, g.translations(ctx, tx, "term_translations", []string{"term_id", "lang", "name"}, tr, rep)
}

func (g *seeder) otherLang(lang string) string {
	for {
		if l := g.pick([]string{"en", "ja", "ko", "zh-hans"}); l != lang {
			return l
		}
	}
}

// sample picks k distinct ids of list, in a random order.
func (g *seeder) sample(list []int64, k int) []int64 {
	k = min(k, len(list))
	out := make([]int64, 0, k)
	for _, i := range g.rng.Perm(len(list))[:k] {
		out = append(out, list[i])
	}
	return out
}

var seedZones = []string{"Asia/Tokyo", "Asia/Seoul", "Asia/Shanghai", "America/New_York", "Europe/London"}

// writeEvents writes n events with their links and translations, and
// returns the first and last of their ids (ascending).
func (g *seeder) writeEvents(ctx context.Context, tx *Store, n int, rep *SeedReport) (lo, hi int64, err error) {
	ids, err := g.ids(ctx, tx, KindEvent, n)
	if err != nil {
		return 0, 0, err
	}
	events := make([]Event, n)
	var ev []seedEventVenue
	var eo []seedEventOrganizer
	var et []EventTerm
	var tr []map[string]any
	span := g.o.To.Sub(g.o.From)
	for i, id := range ids {
		lang := g.pick(seedLangs)
		vs := g.sample(g.venues, g.o.VenuesPerEvent)
		zone := seedZones[g.rng.IntN(len(seedZones))]
		if len(vs) > 0 {
			zone = g.venueZones[vs[0]]
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return 0, 0, fmt.Errorf("models: seed zone %s: %w", zone, err)
		}
		day := g.o.From.Add(time.Duration(g.rng.Int64N(int64(span)))).In(loc)
		start := time.Date(day.Year(), day.Month(), day.Day(), 9+g.rng.IntN(12), 30*g.rng.IntN(2), 0, 0, loc)
		end := start.Add(time.Duration(1+g.rng.IntN(3)) * time.Hour)
		allDay := g.chance(g.o.AllDay)
		if g.chance(g.o.MultiDay) {
			end = end.AddDate(0, 0, 1+g.rng.IntN(4))
		}
		if allDay {
			start, end = dayBounds(time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, loc),
				time.Date(end.Year(), end.Month(), end.Day(), 0, 0, 0, 0, loc))
		}
		status := StatusPublish
		if g.chance(g.o.Drafts) {
			status = StatusDraft
		}
		title := g.words(lang, 2+g.rng.IntN(3))
		cost := g.pick(seedCosts)
		e := Event{Post: g.post(id, lang, fmt.Sprintf("event-%d", id)), Title: title, Description: g.text(lang, 500),
			Excerpt: g.words(lang, 6), StartAt: Sec(start.UTC()), EndAt: Sec(end.UTC()), Timezone: zone, AllDay: allDay,
			ShowMap: true, ShowMapLink: true, HideFromListings: g.chance(g.o.Hidden), Featured: g.chance(0.05)}
		e.Status = status
		if len(g.images) > 0 && float64(id%100) < g.o.Images*100 {
			e.ImageURL = g.images[int(id/100)%len(g.images)]
		}
		if cost != "" {
			e.Cost = EncodeCost(cost)
			e.CurrencySymbol, e.CurrencyPosition = DetectCurrency(CostItems(e.Cost))
		}
		events[i] = e
		for p, v := range vs {
			ev = append(ev, seedEventVenue{EventVenue: EventVenue{EventID: id, VenueID: v, Position: p}, eventCopy: copyOf(&e)})
		}
		for p, o := range g.sample(g.organizers, g.o.OrganizersPerEvent) {
			eo = append(eo, seedEventOrganizer{EventOrganizer: EventOrganizer{EventID: id, OrganizerID: o, Position: p}, eventCopy: copyOf(&e)})
		}
		for _, t := range append(g.sample(g.cats, g.o.CategoriesPerEvent), g.sample(g.tags, g.o.TagsPerEvent)...) {
			et = append(et, EventTerm{EventID: id, TermID: t, Status: e.Status, StartAt: e.StartAt, EndAt: e.EndAt, Hidden: e.HideFromListings})
		}
		if g.chance(g.o.Translated) {
			other := g.otherLang(lang)
			tr = append(tr, map[string]any{"event_id": id, "lang": other, "title": g.words(other, 3),
				"description": g.text(other, 500)})
		}
	}
	if err := errors.Join(insertAll(ctx, tx, events), insertAll(ctx, tx, ev), insertAll(ctx, tx, eo), insertAll(ctx, tx, et)); err != nil {
		return 0, 0, err
	}
	// Filed under their categories batch by batch: one statement over the
	// whole calendar outlasted MariaDB's read timeout at 100,000 events.
	lo, hi = ids[0], ids[len(ids)-1]
	if err := tx.fileEventRange(ctx, lo, hi); err != nil {
		return 0, 0, err
	}
	rep.Events += n
	rep.Links += len(ev) + len(eo) + len(et)
	return lo, hi, g.translations(ctx, tx, "event_translations", []string{"event_id", "lang", "title", "description"}, tr, rep)
}

// eventCopy is the copy of its event's status, dates and hidden flag a
// link row keeps (written by the seed itself, so that no trigger or update
// has to copy it).
type eventCopy struct {
	Status  string    `bun:"status,notnull"`
	StartAt time.Time `bun:"start_at,nullzero"`
	EndAt   time.Time `bun:"end_at,nullzero"`
	Hidden  bool      `bun:"hidden,notnull"`
}

func copyOf(e *Event) eventCopy {
	return eventCopy{Status: e.Status, StartAt: e.StartAt, EndAt: e.EndAt, Hidden: e.HideFromListings}
}

// seedEventVenue and seedEventOrganizer are links as the seed writes them,
// with their copies of the event.
type seedEventVenue struct {
	bun.BaseModel `bun:"table:event_venues"`
	EventVenue
	eventCopy
}

type seedEventOrganizer struct {
	bun.BaseModel `bun:"table:event_organizers"`
	EventOrganizer
	eventCopy
}

// insertAll inserts rows in one statement (nothing when there are none).
func insertAll[T any](ctx context.Context, tx *Store, rows []T) error {
	if len(rows) == 0 {
		return nil
	}
	if _, err := tx.db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("models: seed: %w", mapErr(err))
	}
	return nil
}

// translations inserts translation rows (maps of cols) in one statement.
func (g *seeder) translations(ctx context.Context, tx *Store, table string, cols []string, rows []map[string]any, rep *SeedReport) error {
	if len(rows) == 0 {
		return nil
	}
	var b strings.Builder
	args := make([]any, 0, len(rows)*len(cols))
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", table, strings.Join(cols, ", "))
	ph := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ph)
		for _, c := range cols {
			args = append(args, r[c])
		}
	}
	if _, err := tx.db.ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("models: seed %s: %w", table, mapErr(err))
	}
	rep.Translations += len(rows)
	return nil
}
