package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// siteUnderTest is one database with its media settings.
type siteUnderTest struct {
	name, dsn, store, dir string
}

func (s siteUnderTest) args() []string {
	a := []string{"--db", s.dsn, "--media-store", s.store}
	if s.dir != "" {
		a = append(a, "--media-dir", s.dir)
	}
	return a
}

// app opens the site and assembles the real app on it, as serve does.
func (s siteUnderTest) app(t *testing.T) *fiber.App {
	t.Helper()
	db, err := models.Open(context.Background(), s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500,
		DB: s.dsn, MediaStore: s.store, MediaDir: s.dir, MediaMaxBytes: 10 << 20}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// TestSiteMovesBetweenDialects: a site exported as JSON from SQLite (images
// in a media directory), loaded into MariaDB (images in the database),
// exported again and loaded into a new SQLite file answers every API
// request, public page and image exactly as the original: ids, authors,
// dates, drafts, trash, translations, links, counts, images. The exports
// themselves are equal but for when they were made.
func TestSiteMovesBetweenDialects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := siteUnderTest{"sqlite", modelstest.NewDSN(t, models.SQLite), "dir", filepath.Join(dir, "media-a")}
	b := siteUnderTest{"mysql", modelstest.NewDSN(t, models.MySQL), "db", ""}
	c := siteUnderTest{"sqlite again", "sqlite:" + filepath.Join(dir, "c.db"), "dir", filepath.Join(dir, "media-c")}

	// 60 events, 3 of them weekly series of 5: 72 rows.
	if r := kalends(t, append([]string{"seed", "--events", "60", "--seed", "11", "--series", "3", "--series-count", "5"}, a.args()...)...); r.code != 0 {
		t.Fatalf("seed: %s", r.stderr)
	}
	pw, mediaID, ids := dumpFixture(t, a)

	files := map[string]string{}
	for i, step := range [][2]siteUnderTest{{a, b}, {b, c}} {
		from, to := step[0], step[1]
		file := filepath.Join(dir, fmt.Sprintf("site-%d.json", i))
		files[from.name] = file
		if r := kalends(t, append([]string{"export", "--to", file}, from.args()...)...); r.code != 0 {
			t.Fatalf("export %s: %s", from.name, r.stderr)
		}
		if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("export file: %v, mode %v (it holds password hashes: owner only)", err, st.Mode().Perm())
		}
		r := kalends(t, append(append([]string{"import"}, to.args()...), file)...)
		if r.code != 0 || !strings.Contains(r.stdout, "events: 72\n") || !strings.Contains(r.stdout, "media_files:") {
			t.Fatalf("import into %s: exit %d\n%s%s", to.name, r.code, r.stdout, r.stderr)
		}
	}
	files[c.name] = filepath.Join(dir, "site-2.json")
	if r := kalends(t, append([]string{"export", "--to", files[c.name]}, c.args()...)...); r.code != 0 {
		t.Fatalf("export %s: %s", c.name, r.stderr)
	}
	ref := exportBody(t, files[a.name])
	for _, s := range []siteUnderTest{b, c} {
		if got := exportBody(t, files[s.name]); got != ref {
			t.Errorf("the export of %s differs from the original's", s.name)
		}
	}

	// Every request, on the three sites (the trashed event is a 403 on each).
	auth := "Basic " + basic("boss", pw)
	ev := "/cal/events/v1/events"
	paths := []struct{ path, auth string }{
		{ev, ""}, {ev + "?per_page=20&page=2&start_date=2020-01-01", ""}, {ev + "?ml_language=ja", ""}, {ev + "?ml_language=zh-hans&per_page=20", ""},
		{ev + "?status=draft,pending,private,trash&per_page=50", auth}, {ev + "?start_date=2020-01-01&per_page=50", auth},
		{ev + "?search=a", ""}, {ev + "?featured=true", ""},
		{"/cal/events/v1/venues?per_page=50", ""}, {"/cal/events/v1/organizers?per_page=50&ml_language=ko", ""},
		{"/cal/events/v1/categories?per_page=50", ""}, {"/cal/events/v1/tags?per_page=50&ml_language=ja", ""},
		{"/cal/events/v1/media?per_page=50", auth}, {"/cal/events/v1/media/" + strconv.FormatInt(mediaID, 10), auth},
		{"/events/", ""}, {"/sitemap.xml", ""},
		{ev + "?recurrence=series&start_date=2020-01-01&per_page=50", ""},
		{ev + "?post_parent=" + strconv.FormatInt(ids[3], 10) + "&start_date=2020-01-01&ml_language=ko", ""},
		{"/events.ics?start_date=2020-01-01&end_date=2030-01-01", ""},
	}
	for _, id := range ids {
		paths = append(paths, struct{ path, auth string }{ev + "/" + strconv.FormatInt(id, 10) + "?ml_language=ja", auth})
	}
	apps := map[string]*fiber.App{}
	for _, s := range []siteUnderTest{a, b, c} {
		apps[s.name] = s.app(t)
	}
	var image string
	for _, p := range paths {
		want := fetch(t, apps[a.name], p.path, p.auth)
		if !strings.HasPrefix(want, "200 ") && !strings.Contains(p.path, "/"+strconv.FormatInt(ids[1], 10)+"?") {
			t.Errorf("%s on the original: %.300s", p.path, want)
		}
		if image == "" {
			if i := strings.Index(want, `/media/`+strconv.FormatInt(mediaID, 10)+`/full.png`); i >= 0 {
				image = "/media/" + strconv.FormatInt(mediaID, 10) + "/full.png"
			}
		}
		for _, s := range []siteUnderTest{b, c} {
			if got := fetch(t, apps[s.name], p.path, p.auth); got != want {
				t.Errorf("%s differs on %s:\n got %.400s\nwant %.400s", p.path, s.name, firstDiff(got, want), firstDiff(want, got))
			}
		}
	}
	if image == "" {
		t.Fatal("no event carries the library image")
	}
	want := fetch(t, apps[a.name], image, "")
	for _, s := range []siteUnderTest{b, c} {
		if got := fetch(t, apps[s.name], image, ""); got != want || !strings.HasPrefix(got, "200 ") {
			t.Errorf("image %s on %s: %.60q, want %.60q", image, s.name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(c.dir, strconv.FormatInt(mediaID, 10), "thumbnail.png")); err != nil {
		t.Errorf("the images of the last site are not in its media directory: %v", err)
	}
}

// dumpFixture adds to a seeded site what the seed does not make: an
// administrator with an application password, a library image used by an
// event, a trashed and a private event. It returns the password, the image
// id and a few event ids to read.
func dumpFixture(t *testing.T, s siteUnderTest) (string, int64, []int64) {
	t.Helper()
	ctx := context.Background()
	db, err := models.Open(ctx, s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	db.UseMedia(models.MediaStorage{Dir: s.dir, MaxBytes: 10 << 20})
	boss, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "boss", Password: "correct horse battery", Role: models.RoleAdministrator})
	if err != nil {
		t.Fatal(err)
	}
	pw, _, err := db.CreateAppPassword(ctx, boss.ID, "tests")
	if err != nil {
		t.Fatal(err)
	}
	m, err := db.CreateMedia(ctx, boss, models.MediaUpload{FileName: "hall.png", Title: "Hall", AltText: "The hall", Data: imagetest.PNG(900, 600)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.ListEvents(ctx, models.Console, models.EventFilter{PerPage: 5, Lang: "en", Statuses: []string{models.StatusPublish}})
	if err != nil || len(p.Items) < 3 {
		t.Fatalf("seeded events: %v (%d)", err, len(p.Items))
	}
	ids := []int64{p.Items[0].ID, p.Items[1].ID, p.Items[2].ID}
	img := strconv.FormatInt(m.ID, 10)
	if _, err := db.UpdateEvent(ctx, boss, models.ByID(ids[0]), models.EventInput{ImageURL: &img, Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TrashEvent(ctx, boss, models.ByID(ids[1]), "en"); err != nil {
		t.Fatal(err)
	}
	private := models.EventInput{Lang: "en"}
	private.Status = ptrOf(models.StatusPrivate)
	if _, err := db.UpdateEvent(ctx, boss, models.ByID(ids[2]), private); err != nil {
		t.Fatal(err)
	}
	// A series with an exception and an occurrence in the trash (an EXDATE).
	series, err := db.ListEvents(ctx, models.Console, models.EventFilter{PerPage: 500, Recurrence: models.RecurrenceFirst,
		Statuses: []string{models.StatusPublish}, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range series.Items {
		if !e.IsSeries() {
			continue
		}
		occ, err := db.ListEvents(ctx, models.Console, models.EventFilter{ParentID: &e.ID, PerPage: 10, Lang: "en"})
		if err != nil || len(occ.Items) != 5 {
			t.Fatalf("occurrences of the seeded series: %v", err)
		}
		if _, err := db.UpdateEvent(ctx, boss, models.ByID(occ.Items[1].ID), models.EventInput{Title: ptrOf("Moved inside"), Lang: "en"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TrashEvent(ctx, boss, models.ByID(occ.Items[2].ID), "en"); err != nil {
			t.Fatal(err)
		}
		return pw, m.ID, append(ids, e.ID, occ.Items[1].ID)
	}
	t.Fatal("the seed made no series")
	return "", 0, nil
}

// fetch is the status and body of a GET through app.
func fetch(t *testing.T, app *fiber.App, path, auth string) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(res.StatusCode) + " " + string(b)
}

// exportBody is a site export without the lines that say when and where
// it was made.
func exportBody(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file) //nolint:gosec // G304: a file of this test.
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s is not JSON: %v", file, err)
	}
	if string(doc["format"]) != `"kalends-site"` {
		t.Fatalf("%s: format %s", file, doc["format"])
	}
	return string(doc["tables"])
}

// firstDiff is s from a little before where it stops matching other.
func firstDiff(s, other string) string {
	i := 0
	for i < len(s) && i < len(other) && s[i] == other[i] {
		i++
	}
	return s[max(0, i-80):]
}
