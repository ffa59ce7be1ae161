package deploy_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
)

// diff records where b (old) and a (new) differ: a key of b missing or
// changed in a, or a key of a not in b and not an allowed addition.
func diff(path string, b, a any, additions map[string]bool, out *[]string) {
	switch bv := b.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: was an object, now %T", path, a))
			return
		}
		for k, v := range bv {
			if _, ok := av[k]; !ok {
				*out = append(*out, fmt.Sprintf("%s.%s: gone", path, k))
				continue
			}
			diff(path+"."+k, v, av[k], additions, out)
		}
		for k := range av {
			if _, ok := bv[k]; !ok && !additions[k] {
				*out = append(*out, fmt.Sprintf("%s.%s: added, and not in upgrade_additions.txt", path, k))
			}
		}
	case []any:
		av, ok := a.([]any)
		if !ok || len(av) != len(bv) {
			*out = append(*out, fmt.Sprintf("%s: %d items, now %v", path, len(bv), a))
			return
		}
		for i := range bv {
			diff(fmt.Sprintf("%s[%d]", path, i), bv[i], av[i], additions, out)
		}
	default:
		if !reflect.DeepEqual(b, a) {
			*out = append(*out, fmt.Sprintf("%s: %v, now %v", path, b, a))
		}
	}
}

// A database from a newer Kalends that older binaries may no longer use
// (a future release moved kalends_schema.readable_from past this one) is
// refused by `kalends migrate` and `serve` with a message saying so, and
// left as it was.
func TestNewerDatabaseIsRefusedByTheBinary(t *testing.T) {
	t.Parallel()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "kalends.db")
	if out, err := exec.Command(binary, "migrate", "--db", dsn).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	db, err := models.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	const future = "29991231000100"
	for _, q := range []string{
		"INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES ('" + future + "', 999, CURRENT_TIMESTAMP)",
		"UPDATE kalends_schema SET readable_from = '" + future + "' WHERE id = 1",
	} {
		if _, err := db.Bun.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	for _, cmd := range []string{"migrate", "serve"} {
		c := exec.Command(binary, cmd, "--db", dsn, "--addr", freeAddr(t))
		out, err := c.CombinedOutput()
		if c.ProcessState == nil || c.ProcessState.ExitCode() != 1 {
			t.Errorf("%s on a newer database: %v, want exit 1\n%s", cmd, err, out)
		}
		for _, want := range []string{"upgraded by a newer Kalends", future, models.SchemaLevel(), "run the newer release"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%s: the message does not say %q:\n%s", cmd, want, out)
			}
		}
	}
}

// The comparison of the upgrade test finds what it must: a changed value, a
// key gone, a key added (unless listed), an item more or less.
func TestUpgradeComparisonFindsChanges(t *testing.T) {
	t.Parallel()
	parse := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	old := parse(`{"events":[{"id":1,"title":"東京の夜","venue":{"slug":"서울"}}],"total":1}`)
	for _, c := range []struct {
		new   string
		diffs int
	}{
		{`{"events":[{"id":1,"title":"東京の夜","venue":{"slug":"서울"}}],"total":1}`, 0},
		{`{"events":[{"id":1,"title":"東京の夜","venue":{"slug":"서울"},"listed":true}],"total":1}`, 0},
		{`{"events":[{"id":1,"title":"東京の夜 ","venue":{"slug":"서울"}}],"total":1}`, 1},
		{`{"events":[{"id":1,"title":"東京の夜","venue":{}}],"total":1}`, 1},
		{`{"events":[{"id":1,"title":"東京の夜","venue":{"slug":"서울"},"extra":1}],"total":1}`, 1},
		{`{"events":[],"total":1}`, 1},
	} {
		var diffs []string
		diff("", old, parse(c.new), map[string]bool{"listed": true}, &diffs)
		if len(diffs) != c.diffs {
			t.Errorf("%s: %d differences %v, want %d", c.new, len(diffs), diffs, c.diffs)
		}
	}
}
