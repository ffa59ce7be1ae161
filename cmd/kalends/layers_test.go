package main

import (
	"os/exec"
	"strings"
	"testing"
)

// layerRules are the imports the layers may not make (ARCHITECTURE.md): the
// API and the browser pages never import each other, and of the browser
// packages the admin and the public site share only web/ui, which imports
// neither. A rule names packages by prefix: "web" is web and its subfolders.
var layerRules = []struct{ from, to string }{
	{"api", "web"},
	{"web", "api"},
	{"web/admin", "web/site"},
	{"web/site", "web/admin"},
	{"web/ui", "web/admin"},
	{"web/ui", "web/site"},
}

// TestLayerImports fails when a package of the module imports, directly or
// through others, a package its layer must not reach (go list -deps).
func TestLayerImports(t *testing.T) {
	const module = "github.com/kalends/kalends/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	under := func(pkg, prefix string) bool {
		p := strings.TrimPrefix(pkg, module)
		return p != pkg && (p == prefix || strings.HasPrefix(p, prefix+"/"))
	}
	checked := map[string]int{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg, deps := fields[0], fields[1:]
		for _, r := range layerRules {
			if !under(pkg, r.from) {
				continue
			}
			checked[r.from]++
			for _, d := range deps {
				if under(d, r.to) {
					t.Errorf("%s imports %s: %s must not reach %s", pkg, d, r.from, r.to)
				}
			}
		}
	}
	// Is the walk broken? The API and the browser pages are both there.
	for _, layer := range []string{"api", "web"} {
		if checked[layer] == 0 {
			t.Errorf("go list found no package under %s", layer)
		}
	}
}
