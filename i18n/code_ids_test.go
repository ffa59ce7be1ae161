package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// codeDirs are the packages whose messages reach users: the validation
// reasons and errors of the models and the API's argument pipeline, and
// the admin's.
var codeDirs = []string{"../models", "../api", "../web", "../cmd/kalends"}

// messageIDsInCode returns every string literal of the non-test Go files of
// dirs that looks like a reason or error message id, with where it is.
func messageIDsInCode(t *testing.T) map[string][]string {
	t.Helper()
	ids := map[string][]string{}
	fset := token.NewFileSet()
	for _, dir := range codeDirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, file, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || (!strings.HasPrefix(s, "reason.") && !strings.HasPrefix(s, "error.")) || strings.ContainsAny(s, " \n") {
					return true
				}
				ids[s] = append(ids[s], fset.Position(lit.Pos()).String())
				return true
			})
		}
	}
	return ids
}

// TestEveryMessageIDInCodeHasAMessage walks every validation reason and
// error message id the models, the argument pipeline, the API and the
// admin can produce and requires a message for it in each locale file (the
// parity test then checks the four files agree). An id is always written
// whole in the code, never assembled from pieces, so this walk sees them
// all.
func TestEveryMessageIDInCodeHasAMessage(t *testing.T) {
	ids := messageIDsInCode(t)
	if len(ids) < 60 {
		t.Fatalf("only %d message ids found in %v: is the walk broken?", len(ids), codeDirs)
	}
	files := map[string]map[string]any{}
	for code, name := range localeFileNames {
		files[code], _ = readLocale(t, name)
	}
	var names []string
	for id := range ids {
		names = append(names, id)
	}
	sort.Strings(names)
	for _, id := range names {
		if strings.HasSuffix(id, ".") || strings.HasSuffix(id, "_") || strings.HasSuffix(id, "-") {
			t.Errorf("%s: %q is a piece of a message id; write ids whole so they can be checked", ids[id][0], id)
			continue
		}
		for code, msgs := range files {
			if texts(msgs[id])["other"] == "" {
				t.Errorf("%s: %q has no %s message", ids[id][0], id, code)
			}
		}
	}
}
