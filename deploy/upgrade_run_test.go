//go:build upgrade

package deploy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// pinnedCommit is the older release the upgrade test starts from: main on
// 2026-11-26, the last commit before kalends_schema (the cluster work of
// issue 35 merged). Move it forward to the previous release when one is
// tagged.
const pinnedCommit = "3b5d2d8c5bfe6a47d1205c28deb422f0df7beaa9"

// upgradeURLs are the API answers compared before and after the upgrade.
var upgradeURLs = []string{
	"/cal/events/v1/events?per_page=50&start_date=2000-01-01",
	"/cal/events/v1/events?per_page=50&start_date=2000-01-01&page=2",
	"/cal/events/v1/venues?per_page=50",
	"/cal/events/v1/organizers?per_page=50",
	"/cal/events/v1/categories?per_page=50",
	"/cal/events/v1/tags?per_page=50",
}

// A site made by the pinned older release keeps its data when the current
// binary takes over: three instances start at once and the migrations
// apply once; every API answer is the old one, but for the additions
// listed in upgrade_additions.txt. Then, rolling: the old binary still
// serves the same answers on the migrated schema while new instances run,
// and an event it creates is read through a new instance.
//
// It builds the old binary from git (about a minute), so it is built only
// with the tag "upgrade" (make upgrade-test, a step of .ci/run), not by
// make test.
func TestUpgradeFromThePinnedRelease(t *testing.T) {
	old := buildOld(t)
	additions := readAdditions(t)
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			dsn := modelstest.NewDSN(t, d)
			run := func(bin string, args ...string) {
				t.Helper()
				cmd := exec.Command(bin, append(args, "--db", dsn)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
				}
			}
			run(old, "migrate")
			run(old, "seed", "--events", "80", "--seed", "35")

			before := answers(t, serveOn(t, old, dsn))

			// Three instances of the current binary at once.
			var bases []string
			for range 3 {
				bases = append(bases, serveOnAsync(t, binary, dsn))
			}
			for _, b := range bases {
				waitHealthy(t, http.DefaultClient, b+"/healthz")
			}
			checkMigratedOnce(t, dsn)
			after := answers(t, bases[0])
			compareAnswers(t, "new binary", before, after, additions)

			// Rolling: the old binary on the migrated schema, beside the new.
			oldBase := serveOn(t, old, dsn)
			again := answers(t, oldBase)
			compareAnswers(t, "old binary on the new schema", before, again, nil)
			rollingWrite(t, old, dsn, oldBase, bases[1])
		})
	}
}

// rollingWrite creates an event through the old binary on the migrated
// schema and reads it through a new instance.
func rollingWrite(t *testing.T, old, dsn, oldBase, newBase string) {
	t.Helper()
	const login = "편집자"
	if out, err := exec.Command(old, "user", "create", "--login", login, "--password", "a long secret 秘密",
		"--role", "editor", "--db", dsn).CombinedOutput(); err != nil {
		t.Fatalf("user create (old): %v\n%s", err, out)
	}
	pw, err := exec.Command(old, "app-password", "create", "--login", login, "--db", dsn).Output()
	if err != nil {
		t.Fatalf("app-password create (old): %v", err)
	}
	body := `{"title":"Fête d'hiver 冬祭り","start_date":"2030-01-02 10:00:00","end_date":"2030-01-02 11:00:00","status":"publish"}`
	req, _ := http.NewRequest(http.MethodPost, oldBase+"/cal/events/v1/events", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(login, strings.TrimSpace(string(pw)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID int64 `json:"id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&created)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || err != nil || created.ID == 0 {
		t.Fatalf("create through the old binary on the new schema: %s, %v", resp.Status, err)
	}
	var got struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(get(t, http.DefaultClient, fmt.Sprintf("%s/cal/events/v1/events/%d", newBase, created.ID))), &got); err != nil {
		t.Fatal(err)
	}
	if got.Title != "Fête d'hiver 冬祭り" {
		t.Errorf("the new instance reads title %q", got.Title)
	}
}

// buildOld builds the pinned commit's binary from this repository's history.
func buildOld(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o750); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("sh", "-c", "git archive --format=tar "+pinnedCommit+" | tar -x -C "+src)
	archive.Dir = ".." // the repository's root: git archive takes the tree below its directory
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s (a shallow clone lacks it: fetch the history): %v\n%s", pinnedCommit, err, out)
	}
	bin := filepath.Join(dir, "kalends-old")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/kalends")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pinnedCommit, err, out)
	}
	return bin
}

func serveOn(t *testing.T, bin, dsn string) string {
	t.Helper()
	base := serveOnAsync(t, bin, dsn)
	waitHealthy(t, http.DefaultClient, base+"/healthz")
	return base
}

func serveOnAsync(t *testing.T, bin, dsn string) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve", "--db", dsn, "--addr", addr, "--base-url", "https://events.example.org",
		"--cache-check", "50ms")
	start(t, cmd)
	return "http://" + addr
}

func answers(t *testing.T, base string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, u := range upgradeURLs {
		var v any
		if err := json.Unmarshal([]byte(get(t, http.DefaultClient, base+u)), &v); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		out[u] = v
	}
	// A site worth comparing: the first page of events is full.
	if m, ok := out[upgradeURLs[0]].(map[string]any); !ok {
		t.Fatalf("%s: not an object", upgradeURLs[0])
	} else if evs, _ := m["events"].([]any); len(evs) != 50 {
		t.Fatalf("%s: %d events, want 50 of the 80 seeded", upgradeURLs[0], len(evs))
	}
	return out
}

// checkMigratedOnce: every migration is recorded once.
func checkMigratedOnce(t *testing.T, dsn string) {
	t.Helper()
	db, err := models.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	var n, distinct int
	if err := db.Bun.QueryRowContext(t.Context(), "SELECT COUNT(*), COUNT(DISTINCT name) FROM bun_migrations").Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != distinct {
		t.Errorf("bun_migrations: %d rows for %d migrations", n, distinct)
	}
	if level, err := db.DatabaseSchema(t.Context()); err != nil || level != models.SchemaLevel() {
		t.Errorf("database schema %q (%v), want %q", level, err, models.SchemaLevel())
	}
}

// readAdditions reads upgrade_additions.txt: one JSON key a line that the
// new binary may add to an object of the old answers (# comments).
func readAdditions(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open("upgrade_additions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	return out
}

func compareAnswers(t *testing.T, what string, before, after map[string]any, additions map[string]bool) {
	t.Helper()
	var diffs []string
	for u, b := range before {
		diff(u, b, after[u], additions, &diffs)
	}
	sort.Strings(diffs)
	if len(diffs) > 10 {
		diffs = append(diffs[:10], fmt.Sprintf("… and %d more", len(diffs)-10))
	}
	for _, d := range diffs {
		t.Errorf("%s: %s", what, d)
	}
}
