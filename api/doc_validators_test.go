package api

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// Issue 15 item 12: /doc passes Redocly's and swagger-parser's OpenAPI 3.0
// validation with no errors in all four languages (the validators are the
// project's npm devDependencies, installed by make test).
func TestDocPassesRedoclyAndSwaggerParser(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		modelstest.MissingDependency(t, "node (apt-get install nodejs npm), for the OpenAPI validators")
	}
	if _, err := os.Stat(filepath.Join("..", "node_modules", "@redocly", "openapi-core")); err != nil {
		modelstest.MissingDependency(t, "the npm packages (npm ci), for the OpenAPI validators")
	}
	e := newTestEnv(t, modelstest.Open(t, models.SQLite))
	dir := t.TempDir()
	var files []string
	for _, lang := range i18n.Codes {
		r := e.do(t, "GET", "/"+lang+"/cal/events/v1/doc", nil, "")
		mustStatus(t, r, 200)
		f := filepath.Join(dir, "doc-"+lang+".json")
		if err := os.WriteFile(f, r.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("..", "scripts", "validate-openapi.mjs")}, files...)...) //nolint:gosec // G204: our script on our files.
	cmd.Dir = ".."
	for i, f := range files {
		cmd.Args[2+i], _ = filepath.Abs(f)
	}
	cmd.Args[1] = filepath.Join("scripts", "validate-openapi.mjs")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the OpenAPI validators refused /doc: %v\n%s", err, out)
	}
}
