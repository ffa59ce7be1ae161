package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

// unfold joins folded iCalendar lines and drops the properties that say
// when a copy was made (DTSTAMP, CREATED, LAST-MODIFIED, SEQUENCE): what is
// left describes the events.
func unfold(s string) string {
	s = strings.ReplaceAll(s, "\r\n ", "")
	var keep []string
	for _, l := range strings.Split(s, "\r\n") {
		if !stampRE.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

var stampRE = regexp.MustCompile(`^(DTSTAMP|CREATED|LAST-MODIFIED|SEQUENCE)[:;]`)

// TestExportImportRoundTrip: the events exported from one site and imported
// into an empty one export the same again (UIDs, times and zones, text,
// venues, organizers, categories); importing the file a second time
// updates instead of copying; a bad file changes nothing.
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := "sqlite:"+filepath.Join(dir, "a.db"), "sqlite:"+filepath.Join(dir, "b.db")
	for _, db := range []string{a, b} {
		if r := kalends(t, "migrate", "--db", db); r.code != 0 {
			t.Fatalf("migrate: %s", r.stderr)
		}
	}
	ctx := context.Background()
	dbA, err := models.Open(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	events, _ := feedEvents(t, dbA)
	_ = dbA.Close()
	fileA, fileB := filepath.Join(dir, "a.ics"), filepath.Join(dir, "b.ics")
	if r := kalends(t, "export", "--db", a, "--to", fileA); r.code != 0 {
		t.Fatalf("export: %s", r.stderr)
	}
	if r := kalends(t, "user", "create", "--db", b, "--login", "boss", "--password", "correct horse battery", "--role", "administrator"); r.code != 0 {
		t.Fatalf("user create: %s", r.stderr)
	}
	r := kalends(t, "import", "--db", b, fileA)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "created 3, updated 0, skipped 0\n") {
		t.Fatalf("import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := kalends(t, "export", "--db", b, "--to", fileB); r.code != 0 {
		t.Fatalf("export b: %s", r.stderr)
	}
	ea, _ := os.ReadFile(fileA)
	eb, _ := os.ReadFile(fileB)
	if unfold(string(ea)) != unfold(string(eb)) {
		la, lb := strings.Split(unfold(string(ea)), "\n"), strings.Split(unfold(string(eb)), "\n")
		for i := range max(len(la), len(lb)) {
			if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
				t.Errorf("round trip differs from line %d:\n a: %q\n b: %q", i+1, at(la, i), at(lb, i))
				break
			}
		}
	}
	if strings.Count(string(ea), "BEGIN:VEVENT") != len(events) {
		t.Errorf("export holds %d events, want %d (no draft)", strings.Count(string(ea), "BEGIN:VEVENT"), len(events))
	}
	// Again: matched by UID, updated.
	if r := kalends(t, "import", "--db", b, fileA); r.code != 0 || !strings.HasPrefix(r.stdout, "created 0, updated 3, skipped 0\n") {
		t.Fatalf("second import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A bad file: a clear error, nothing written.
	bad := filepath.Join(dir, "bad.ics")
	for _, body := range []string{"not a calendar", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:A\r\nDTSTART:2027-01-01\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"} {
		if err := os.WriteFile(bad, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		r := kalends(t, "import", "--db", b, bad)
		if strings.Contains(body, "VEVENT") {
			// Read, but its one event cannot be: reported, not written.
			if r.code != 0 || !strings.Contains(r.stdout, "skipped 1") || !strings.Contains(r.stdout, "DTSTART") {
				t.Errorf("unreadable start: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			continue
		}
		if r.code == 0 || !strings.Contains(r.stderr, "not an iCalendar file") {
			t.Errorf("garbage: exit %d\n%s", r.code, r.stderr)
		}
	}
	if r := kalends(t, "export", "--db", b, "--to", fileB); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if eb2, _ := os.ReadFile(fileB); unfold(string(eb2)) != unfold(string(eb)) {
		t.Error("a refused import changed the site")
	}
	if r := kalends(t, "import", "--db", b, "--format", "xml", fileA); r.code != 2 || !strings.Contains(r.stderr, `format "xml" is not supported: use ics, json or csv`) {
		t.Errorf("xml: exit %d %s", r.code, r.stderr)
	}
	// An iCalendar file read as a site export is refused, and b is not
	// empty anyway: the first check to fail says so.
	if r := kalends(t, "import", "--db", b, "--format", "json", fileA); r.code != 1 || !strings.Contains(r.stderr, "nothing imported: the database is not empty") {
		t.Errorf("json into a site with records: exit %d %s", r.code, r.stderr)
	}
}

func at(l []string, i int) string {
	if i < len(l) {
		return l[i]
	}
	return "(end)"
}
