// Package browsertest drives the real Kalends binary from headless Chromium
// (chromedp), for the admin's end-to-end tests: Main builds the binary and
// bounds the whole suite in time, StartServer runs it on a fresh SQLite file
// with users made through models, NewPage opens an isolated browser context
// that fails the test on any JavaScript error, CSP violation or dialog, and
// Audit checks a page's text against the locale files.
//
// Chromium comes from KALENDS_TEST_CHROMIUM or the PATH (chromium,
// chromium-browser); `make test` installs Debian's chromium when it is
// missing and runs as root. Without it the tests stop through
// modelstest.MissingDependency: skipped on a laptop, failed under CI.
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kalends/kalends/models/modelstest"
)

// EnvChromium names the variable holding the Chromium executable.
const EnvChromium = "KALENDS_TEST_CHROMIUM"

// EnvBudget names the variable that overrides Budget (a Go duration).
const EnvBudget = "KALENDS_TEST_BROWSER_BUDGET"

// Budget bounds a whole package of browser tests: once it is spent, every
// browser action fails, so `make test` cannot hang on a browser. The e2e
// package took 2–3 minutes on a 2-core machine, more when the machine is
// busy (it ran out of 3 minutes once the walk had the import page, and of 6
// once the public views, the settings, the embeds and the CSV import joined
// it on a machine shared with other builds). On 2026-11-27 it took 8.4
// minutes of 10 in `make test` beside the store's tests, and ran out of 10
// with three packages at a time (go test -p 3): 13 minutes leaves room on a
// slow day, and is still below the package's own timeout (scripts/test.sh).
const Budget = 13 * time.Minute

// ActionTimeout bounds one browser action (a navigation, a wait, a read).
const ActionTimeout = 15 * time.Second

// suite is the state Main sets up for the tests of one package.
var suite struct {
	ready     bool
	ctx       context.Context // ends when the budget is spent
	budget    time.Duration
	dir       string // temporary files of the suite
	binary    string // the kalends binary, built on first use
	buildErr  error
	buildOnce sync.Once
	chromium  string // "" when missing
	missing   string // why chromium is missing

	browserOnce sync.Once
	browser     context.Context // a chromedp context with a running browser
	browserErr  error
	stop        []func()
}

// Main runs the tests of a package that uses the browser; call it from
// TestMain: func TestMain(m *testing.M) { browsertest.Main(m) }.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	budget := Budget
	if v := os.Getenv(EnvBudget); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			fmt.Fprintf(os.Stderr, "browsertest: %s=%q is not a positive duration\n", EnvBudget, v)
			return 2
		}
		budget = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	dir, err := os.MkdirTemp("", "kalends-browsertest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	suite.ctx, suite.budget, suite.dir = ctx, budget, dir
	suite.chromium, suite.missing = findChromium()
	suite.ready = true
	code := m.Run()
	for i := len(suite.stop) - 1; i >= 0; i-- {
		suite.stop[i]()
	}
	return code
}

// binary returns the kalends binary, built once per package run.
func binary(t testing.TB) string {
	t.Helper()
	mustBeReady(t)
	suite.buildOnce.Do(func() {
		suite.binary = filepath.Join(suite.dir, "kalends")
		var out bytes.Buffer
		//nolint:gosec // G204: go build of this module's own command into the suite's temp dir.
		build := exec.CommandContext(suite.ctx, "go", "build", "-o", suite.binary, "github.com/kalends/kalends/cmd/kalends")
		build.Stdout, build.Stderr = &out, &out
		if err := build.Run(); err != nil {
			suite.buildErr = fmt.Errorf("build kalends: %w\n%s", budgetErr(err), out.String())
		}
	})
	if suite.buildErr != nil {
		t.Fatal(suite.buildErr)
	}
	return suite.binary
}

// findChromium returns the Chromium executable, or why there is none.
func findChromium() (path, missing string) {
	if p := os.Getenv(EnvChromium); p != "" {
		if _, err := os.Stat(p); err != nil { //nolint:gosec // G703: the tester names the browser to run.
			return "", fmt.Sprintf("chromium: %s=%s: %v", EnvChromium, p, err)
		}
		return p, ""
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", "chromium: not on the PATH and " + EnvChromium + " is not set (`make test` installs Debian's chromium when run as root)"
}

// mustBeReady stops a test run without Main.
func mustBeReady(t testing.TB) {
	t.Helper()
	if !suite.ready {
		t.Fatal("browsertest: call browsertest.Main(m) from the package's TestMain")
	}
}

// budgetErr explains an error caused by the spent budget.
func budgetErr(err error) error {
	if suite.ctx != nil && suite.ctx.Err() != nil {
		return fmt.Errorf("the browser suite's budget of %v is spent (%s): %w", suite.budget, EnvBudget, err)
	}
	return err
}

// browser returns the shared browser, started on first use with the flags
// this closed network needs (no background networking, QUIC, component
// updates or sync) and a fresh profile.
func browser(t testing.TB) context.Context {
	t.Helper()
	mustBeReady(t)
	if suite.chromium == "" {
		modelstest.MissingDependency(t, "%s", suite.missing)
	}
	suite.browserOnce.Do(func() {
		profile, err := os.MkdirTemp("", "kalends-chromium-")
		if err != nil {
			suite.browserErr = err
			return
		}
		suite.stop = append(suite.stop, func() { _ = os.RemoveAll(profile) })
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(suite.chromium),
			chromedp.UserDataDir(profile),
			chromedp.NoSandbox, // the tests run as root, where the sandbox cannot start
			chromedp.DisableGPU,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("no-first-run", true),
			chromedp.Flag("lang", "en-US"),
			chromedp.WindowSize(1280, 900),
		)
		actx, acancel := chromedp.NewExecAllocator(suite.ctx, opts...)
		bctx, bcancel := chromedp.NewContext(actx)
		suite.stop = append(suite.stop, acancel, bcancel)
		// The first Do starts the browser and binds its life to bctx
		// (which ends with the budget), so it gets no shorter deadline.
		if err := chromedp.Do(bctx); err != nil {
			suite.browserErr = fmt.Errorf("start %s: %w", suite.chromium, budgetErr(err))
			return
		}
		suite.browser = bctx
	})
	if suite.browserErr != nil {
		t.Fatalf("browsertest: %v", suite.browserErr)
	}
	if suite.ctx.Err() != nil {
		t.Fatalf("browsertest: %v", budgetErr(suite.ctx.Err()))
	}
	return suite.browser
}
