package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/tecimport"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

func init() { tecImportBackoff = time.Millisecond } // retries in the tests wait 1 ms, 2 ms, ...

// runKalends runs the command in this process with env as its
// environment, and returns its exit status and output.
func runKalends(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code := cli(ctx, args, func(k string) string { return env[k] }, &out, &errb)
	return code, out.String(), errb.String()
}

// importTarget is an empty migrated SQLite site with an administrator
// (who imports) and an author whose e-mail matches one of the source's.
func importTarget(t *testing.T) (string, *models.DB, *models.User) {
	t.Helper()
	ctx := context.Background()
	dsn := modelstest.NewDSN(t, models.SQLite)
	db, err := models.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: "password-admin", Role: models.RoleAdministrator, Email: "root@here.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "kenji", Password: "password-kenji", Role: models.RoleAuthor, Email: "kenji@example.jp"}); err != nil {
		t.Fatal(err)
	}
	return dsn, db, admin
}

// summaryLine is the summary's line of kind: created, updated, unchanged,
// kept, failed.
func summaryLine(t *testing.T, out, kind string) [5]int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + kind + `: created (\d+), updated (\d+), unchanged (\d+), kept (\d+), failed (\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line for %s in:\n%s", kind, out)
	}
	var n [5]int
	for i := range n {
		_, _ = fmt.Sscan(m[i+1], &n[i])
	}
	return n
}

var draftLink = regexp.MustCompile(`p=\d+`)

// comparable drops from a record what may differ between two sites: ids,
// authors, the host in URLs (paths are compared, decoded), modification
// dates, counts, and what Kalends adds (lang, translations). An image is
// compared by its size; a category's parent by the parent's presence.
func comparable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			switch k {
			case "id", "global_id", "global_id_lineage", "author", "modified", "modified_utc", "rest_url", "json_ld",
				"custom_fields", "lang", "translations", "count", "term_taxonomy_id", "urls", "filter", "term_group",
				"meta", "timezone_abbr", "_links":
				continue
			case "website", "url":
				if s, ok := val.(string); ok && strings.Contains(s, "post_type=tribe_events&p=") {
					out[k] = draftLink.ReplaceAllString(s, "p=ID") // a draft's address names its id
					continue
				}
				if s, ok := val.(string); ok && k == "url" {
					if u, err := url.Parse(s); err == nil {
						p, _ := url.PathUnescape(u.EscapedPath())
						out[k] = p
						continue
					}
				}
			case "image":
				if img, ok := val.(map[string]any); ok {
					out[k] = fmt.Sprint(img["width"], "x", img["height"])
					continue
				}
			case "parent":
				out[k] = val != float64(0)
				continue
			case "slug":
				if s, ok := val.(string); ok {
					out[k] = tecimport.DecodeSlug(s) // WordPress's percent-encoding, decoded here
					continue
				}
			case "taxonomy":
				continue // TEC says tribe_events_cat and post_tag, Kalends the same ids of its own
			}
			out[k] = comparable(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = comparable(e)
		}
		sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
		return out
	}
	return v
}

// sameAs reports the keys of the source's record whose values ours does
// not equal (keys only the source has are differences too).
func sameAs(src, ours map[string]any) []string {
	a, b := comparable(src).(map[string]any), comparable(ours).(map[string]any)
	var diff []string
	for k, v := range a {
		if !reflect.DeepEqual(v, b[k]) {
			diff = append(diff, fmt.Sprintf("%s: source %v, here %v", k, v, b[k]))
		}
	}
	sort.Strings(diff)
	return diff
}

// apiGet reads a route of app's API as login with an application
// password.
func apiGet(t *testing.T, app interface {
	Test(*http.Request, ...int) (*http.Response, error)
}, auth, path string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res.StatusCode, m
}

// TestImportTECGuardIsOnByDefault: without --allow-private-addresses the
// import refuses the fake site, which listens on loopback, before
// anything is read from it; nothing is written.
func TestImportTECGuardIsOnByDefault(t *testing.T) {
	t.Parallel()
	fake := newFakeTEC(t, 3)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	dsn, db, _ := importTarget(t)
	code, out, errb := runKalends(t, nil, "--db", dsn, "import", "tec", srv.URL+"/wp-json")
	if code == 0 || !strings.Contains(errb, "destination address refused") {
		t.Fatalf("import from loopback without --allow-private-addresses: exit %d\n%s%s", code, out, errb)
	}
	if n := fake.total(); n != 0 {
		t.Errorf("the guard let %d requests through", n)
	}
	p, err := db.ListEvents(context.Background(), models.Console, models.EventFilter{PerPage: 1, IncludeHidden: true})
	if err != nil || p.Total != 0 {
		t.Errorf("events after a refused import: %v %v", p, err)
	}
	// Credentials over plain http are refused too, unless --insecure-http.
	code, _, errb = runKalends(t, map[string]string{"KALENDS_IMPORT_AUTH": fakeTECUser + ":" + fakeTECPassword},
		"--db", dsn, "import", "tec", "--allow-private-addresses", srv.URL+"/wp-json")
	if code != 2 || !strings.Contains(errb, "https") {
		t.Errorf("credentials over http without --insecure-http: exit %d %s", code, errb)
	}
}

func (f *fakeTEC) total() int64 {
	var n int64
	f.hits.Range(func(_, v any) bool { n += v.(interface{ Load() int64 }).Load(); return true })
	return n
}

// TestImportTECFromAFakeSite imports a whole fake TEC calendar with
// credentials and compares every event, as our API answers it by slug,
// with the source's answer; then imports again (nothing created), keeps
// a record edited here, and lists one deleted at the source.
func TestImportTECFromAFakeSite(t *testing.T) {
	t.Parallel()
	start := time.Now()
	fake := newFakeTEC(t, 130)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	dsn, db, admin := importTarget(t)
	ctx := context.Background()
	env := map[string]string{"KALENDS_IMPORT_AUTH": fakeTECUser + ":" + fakeTECPassword}
	args := []string{"--db", dsn, "import", "tec", "--allow-private-addresses", "--insecure-http", "--concurrency", "3", srv.URL + "/wp-json/"}
	code, out, errb := runKalends(t, env, args...)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errb)
	}
	t.Logf("first import (%v):\n%s", time.Since(start), out)
	for kind, n := range map[string]int{"category": 60, "tag": 55, "venue": 55, "organizer": 55, "event": 130} {
		if got := summaryLine(t, out, kind); got != [5]int{n, 0, 0, 0, 0} {
			t.Errorf("%s: %v, want %d created", kind, got, n)
		}
	}
	if got := summaryLine(t, out, "media"); got[0] != 13 || got[4] != 0 {
		t.Errorf("media: %v, want 13 created", got)
	}
	if !strings.Contains(out, "records have an author with no account here") || !strings.Contains(out, "hidden from listings") {
		t.Errorf("the summary does not say who owns the records of unknown authors, or how the hidden events were found:\n%s", out)
	}

	app := testApp(t, db, io.Discard)
	pw, _, err := db.CreateAppPassword(ctx, admin.ID, "compare")
	if err != nil {
		t.Fatal(err)
	}
	auth := basicHeader("admin", pw)
	kenji, err := db.GetUserByLogin(ctx, "kenji")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range fake.events {
		slug := tecimport.DecodeSlug(src["slug"].(string))
		status, ours := apiGet(t, app, auth, "/cal/events/v1/events/by-slug/"+url.PathEscape(slug))
		if status != 200 {
			t.Errorf("event %q: %d %v", slug, status, ours)
			continue
		}
		if src["status"] != "publish" {
			// A draft has no public address (TEC's is ?p=ID, ours too).
			src, ours = maps.Clone(src), maps.Clone(ours)
			delete(src, "url")
			delete(ours, "url")
		}
		if d := sameAs(src, ours); len(d) > 0 {
			t.Errorf("event %q differs:\n  %s", slug, strings.Join(d, "\n  "))
		}
		// Author 2 has an account here (matched by e-mail), 1 and 3 not.
		wantAuthor := admin.ID
		if src["author"] == "2" {
			wantAuthor = kenji.ID
		}
		if ours["author"] != fmt.Sprint(wantAuthor) {
			t.Errorf("event %q: author %v, want %d", slug, ours["author"], wantAuthor)
		}
	}
	for _, c := range fake.cats {
		slug := tecimport.DecodeSlug(c["slug"].(string))
		status, ours := apiGet(t, app, auth, "/cal/events/v1/categories?per_page=100&hide_empty=false&slug="+url.QueryEscape(slug))
		_ = status
		list, _ := ours["categories"].([]any)
		if len(list) != 1 {
			t.Errorf("category %q: %d found", slug, len(list))
			continue
		}
		got := list[0].(map[string]any)
		if d := sameAs(c, got); len(d) > 0 {
			t.Errorf("category %q differs:\n  %s", slug, strings.Join(d, "\n  "))
		}
		if c["parent"] != float64(0) {
			parentSlug := ""
			for _, p := range fake.cats {
				if p["id"] == c["parent"] {
					parentSlug = tecimport.DecodeSlug(p["slug"].(string))
				}
			}
			_, parent := apiGet(t, app, auth, fmt.Sprintf("/cal/events/v1/categories/%v", got["parent"]))
			if parent["slug"] != parentSlug {
				t.Errorf("category %q: parent %v, want %q", slug, parent["slug"], parentSlug)
			}
		}
	}

	// Again: nothing created, everything unchanged.
	code, out, errb = runKalends(t, env, args...)
	if code != 0 {
		t.Fatalf("second import: exit %d\n%s%s", code, out, errb)
	}
	for kind, n := range map[string]int{"category": 60, "tag": 55, "venue": 55, "organizer": 55, "event": 130} {
		if got := summaryLine(t, out, kind); got != [5]int{0, 0, n, 0, 0} {
			t.Errorf("second import, %s: %v, want %d unchanged", kind, got, n)
		}
	}

	// An event edited here and at the source is kept (and listed); one
	// changed only at the source is updated; one gone from the source is
	// listed and left.
	edited, changed, gone := fake.events[4], fake.events[5], fake.events[6]
	editedSlug := tecimport.DecodeSlug(edited["slug"].(string))
	_, ours := apiGet(t, app, auth, "/cal/events/v1/events/by-slug/"+url.PathEscape(editedSlug))
	oursID := int64(ours["id"].(float64))
	// Modification times have whole seconds: the edit here must fall in a
	// later second than the import's own write, or the two cannot be told
	// apart.
	imported, err := db.ImportedModified(ctx, models.KindEvent, oursID)
	if err != nil {
		t.Fatal(err)
	}
	modelstest.WaitFor(t, 3*time.Second, func() error {
		if !time.Now().After(imported.Add(time.Second)) {
			return fmt.Errorf("still within the import's second %s", imported)
		}
		return nil
	})
	title := "ここで直した題"
	if _, err := db.UpdateEvent(ctx, admin, models.ByID(oursID), models.EventInput{Title: &title}); err != nil {
		t.Fatal(err)
	}
	edited["title"], changed["title"] = "源で直した題", "Changed at the source"
	fake.events = append(fake.events[:6], fake.events[7:]...)
	code, out, errb = runKalends(t, env, args...)
	if code != 0 {
		t.Fatalf("third import: exit %d\n%s%s", code, out, errb)
	}
	if got := summaryLine(t, out, "event"); got != [5]int{0, 1, 127, 1, 0} {
		t.Errorf("third import: %v, want 1 updated, 127 unchanged, 1 kept\n%s", got, out)
	}
	if !strings.Contains(out, fmt.Sprintf("(id %v at the source)", gone["id"])) || !strings.Contains(out, fmt.Sprintf("kept event %s/wp-json/tribe/events/v1/events/%v", srv.URL, edited["id"])) {
		t.Errorf("the summary does not list the kept and the deleted event:\n%s", out)
	}
	_, ours = apiGet(t, app, auth, "/cal/events/v1/events/by-slug/"+url.PathEscape(editedSlug))
	if ours["title"] != title {
		t.Errorf("the event edited here became %v", ours["title"])
	}
	_, ours = apiGet(t, app, auth, "/cal/events/v1/events/by-slug/"+url.PathEscape(tecimport.DecodeSlug(changed["slug"].(string))))
	if ours["title"] != "Changed at the source" {
		t.Errorf("the event changed at the source is %v", ours["title"])
	}
	// --overwrite replaces the local edit.
	code, out, _ = runKalends(t, env, append([]string{"--db", dsn, "import", "tec", "--overwrite"}, args[4:]...)...)
	if got := summaryLine(t, out, "event"); code != 0 || got != [5]int{0, 1, 128, 0, 0} {
		t.Errorf("--overwrite: exit %d, %v\n%s", code, got, out)
	}
	t.Logf("TestImportTECFromAFakeSite: %d events, %v", len(fake.events)+1, time.Since(start))
}

// TestImportTECSlugTakenAndDryRun: --dry-run reads the site and counts
// what it would do, writing nothing; a slug already used here by an event
// the import did not bring is reported with the source's URL, that event
// is left out (no "-2"), the others arrive, and the exit status is 1.
func TestImportTECSlugTakenAndDryRun(t *testing.T) {
	t.Parallel()
	fake := newFakeTEC(t, 4)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	dsn, db, admin := importTarget(t)
	ctx := context.Background()
	args := []string{"--db", dsn, "import", "tec", "--allow-private-addresses", srv.URL + "/wp-json"}
	code, out, errb := runKalends(t, nil, append(args[:4:4], append([]string{"--dry-run"}, args[4:]...)...)...)
	if code != 0 || !strings.HasPrefix(out, "dry run") || summaryLine(t, out, "event")[0] != 4 { // the hidden one too, through /wp/v2
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errb)
	}
	p, err := db.ListEvents(ctx, models.Console, models.EventFilter{PerPage: 10, IncludeHidden: true})
	if err != nil || p.Total != 0 {
		t.Fatalf("the dry run wrote %v %v", p, err)
	}
	taken := tecimport.DecodeSlug(fake.events[1]["slug"].(string))
	s := func(v string) *string { return &v }
	mine := models.EventInput{Title: s("ここの催し"), Slug: s(taken), StartDate: s("2026-05-01 10:00"), EndDate: s("2026-05-01 12:00"), Lang: "ja"}
	if _, err := db.CreateEvent(ctx, admin, mine); err != nil {
		t.Fatal(err)
	}
	code, out, errb = runKalends(t, nil, args...)
	if code != 1 || summaryLine(t, out, "event") != [5]int{3, 0, 0, 0, 1} ||
		!strings.Contains(out, fmt.Sprintf("failed event %s/wp-json/tribe/events/v1/events/%v: the slug %q is taken here", srv.URL, fake.events[1]["id"], taken)) {
		t.Errorf("a taken slug: exit %d\n%s%s", code, out, errb)
	}
	p, err = db.ListEvents(ctx, models.Console, models.EventFilter{PerPage: 10, IncludeHidden: true, Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Items {
		if strings.HasPrefix(e.Slug, taken+"-") {
			t.Errorf("the import added a suffix: %q", e.Slug)
		}
	}
}
