package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// codeDirs are the folders whose messages reach users: the validation
// reasons and errors of the models and the API's argument pipeline, the
// admin's and the public site's, and the helpers under internal. Each is
// walked with its subfolders (web/admin, web/site, web/ui, internal/...).
var codeDirs = []string{"../models", "../api", "../web", "../internal", "../cmd/kalends"}

// codeFiles returns the non-test Go files under dir, subfolders included.
func codeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files under %s: is the walk broken?", dir)
	}
	return files
}

// messageIDsInCode returns every string literal of the non-test Go files of
// dirs that looks like a reason or error message id, with where it is.
func messageIDsInCode(t *testing.T) map[string][]string {
	t.Helper()
	ids := map[string][]string{}
	fset := token.NewFileSet()
	for _, dir := range codeDirs {
		for _, file := range codeFiles(t, dir) {
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
