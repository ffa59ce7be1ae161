#!/usr/bin/env bash
# Runs every check and test of Kalends, as `make test` and CI do:
#   1. gofmt, go vet and golangci-lint pass; templ regeneration and the
#      vendored assets leave the tree unchanged;
#   2. a MariaDB server for the store tests: the one named by
#      KALENDS_TEST_MYSQL_DSN when it answers, otherwise a throwaway server
#      (own data dir, port and socket under a temp dir, removed on exit);
#   3. Chromium for the admin's browser tests (Debian's chromium, installed
#      with apt when missing and we are root);
#   4. go test on every package (SQLite and MariaDB, and the browser).
# With CI=true a missing tool is a failure, never a skip.
set -euo pipefail

cd "$(dirname "$0")/.."

step() { printf '\n== %s (at %ds)\n' "$*" "$SECONDS"; }
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# snapshot PATTERN... prints a checksum line per file matching the find
# expression, so a step that must not change files can be compared.
snapshot() {
	find . -path ./node_modules -prune -o -type f \( "$@" \) -print | LC_ALL=C sort | xargs -r sha256sum
}

# ---------------------------------------------------------------- checks
step "gofmt"
unformatted="$(gofmt -l .)"
if [[ -n "$unformatted" ]]; then
	printf '%s\n' "$unformatted" >&2
	die "gofmt would change the files above: run gofmt -w on them"
fi

step "go vet"
go vet ./...

step "golangci-lint"
# Pinned in scripts/lint/go.mod (its own module, so the main go.mod stays
# clean) and configured in .golangci.yml. The first use downloads and builds
# it (about 4 minutes on a new machine, with the first analysis); later runs
# use the Go build cache and take seconds. If it cannot be had (no module
# proxy), a local run skips it; CI fails.
lint=(go tool -modfile=scripts/lint/go.mod golangci-lint)
if "${lint[@]}" version >/dev/null; then
	"${lint[@]}" run ./...
elif is_ci; then
	die "golangci-lint could not be built from scripts/lint/go.mod"
else
	echo "golangci-lint could not be built (error above): not run (CI runs it)"
fi

step "templ generate"
before="$(snapshot -name '*_templ.go')"
go tool templ generate >/dev/null
after="$(snapshot -name '*_templ.go')"
if [[ "$before" != "$after" ]]; then
	diff <(echo "$before") <(echo "$after") >&2 || true
	die "go tool templ generate changed the generated files above: commit the regenerated *_templ.go"
fi

step "vendored assets"
if ! command -v npm >/dev/null 2>&1; then
	if is_ci || [[ "$(id -u)" == 0 ]]; then
		apt_install nodejs npm
	fi
fi
if command -v npm >/dev/null 2>&1; then
	# assets/vendor/ and the test-only copies (axe-core for the browser
	# tests) in internal/browsertest/testdata/.
	vendored=(-path './assets/vendor/*' -o -path './internal/browsertest/testdata/*')
	before="$(snapshot "${vendored[@]}")"
	npm ci --no-audit --no-fund --loglevel=error >/dev/null
	npm run --silent build >/dev/null
	after="$(snapshot "${vendored[@]}")"
	if [[ "$before" != "$after" ]]; then
		diff <(echo "$before") <(echo "$after") >&2 || true
		die "npm run build changed assets/vendor/ or internal/browsertest/testdata/: commit the rebuilt files"
	fi
	echo "assets/vendor and internal/browsertest/testdata match npm run build"
else
	echo "npm not found and not root: assets/vendor not checked (CI checks it)"
fi

# ---------------------------------------------------------------- MariaDB
step "MariaDB"
ensure_mariadb

# ---------------------------------------------------------------- Chromium
# The admin's browser tests (internal/browsertest) drive Debian's Chromium
# headless. KALENDS_TEST_CHROMIUM names it for them; when it is missing, root
# installs it, CI fails, and anyone else is told how (the browser tests then
# skip through modelstest.MissingDependency, naming chromium).
step "Chromium"
chromium="${KALENDS_TEST_CHROMIUM:-}"
if [[ -z "$chromium" ]]; then
	chromium="$(command -v chromium || command -v chromium-browser || true)"
fi
if [[ -z "$chromium" ]]; then
	if [[ "$(id -u)" == 0 ]]; then
		apt_install chromium
		chromium="$(command -v chromium)" || die "chromium installed but not on the PATH"
	elif is_ci; then
		die "chromium is missing and we are not root: install it (sudo apt-get install -y chromium) and run again"
	else
		echo "chromium not found and not root: the browser tests skip (sudo apt-get install -y chromium; CI fails without it)"
	fi
fi
if [[ -n "$chromium" ]]; then
	export KALENDS_TEST_CHROMIUM="$chromium"
	echo "browser tests use $chromium ($("$chromium" --version 2>/dev/null || echo "version unknown"))"
fi

# ---------------------------------------------------------------- tests
# ---------------------------------------------------------------- deploy tools
# The deploy files' checks (deploy/) run caddy validate, nginx -t and Caddy
# in front of Kalends, and build the container image with the system's CA
# bundle; systemd-analyze comes with systemd. Missing tools are
# installed by root, fail CI, and make the tests skip otherwise.
step "deploy tools"
missing=()
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# the container image's CA bundle (deploy/image_test.go)
[[ -f /etc/ssl/certs/ca-certificates.crt ]] || missing+=(ca-certificates)
if ((${#missing[@]})); then
	if [[ "$(id -u)" == 0 ]]; then
		apt_install "${missing[@]}"
	elif is_ci; then
		die "missing ${missing[*]} and not root: sudo apt-get install -y ${missing[*]}"
	else
		echo "missing ${missing[*]}: the deploy tests that need them skip (CI fails)"
	fi
fi

step "go test"
# Without -race by default: measured on 2 cores with a warm build cache, the
# suite takes about 50 s without the race detector and about 3 min with it
# (the API and store packages slow down five-fold), and it grows with every
# resource. KALENDS_TEST_RACE=1 turns it on; KALENDS_TEST_FLAGS adds flags
# (e.g. -run or -v).
race=""
[[ "${KALENDS_TEST_RACE:-0}" == 1 ]] && race="-race"
# -timeout: no package may pass 15 minutes (Go's default of 10 was reached
# by the store package, which runs every test on both dialects, on a busy
# 2-core machine); the browser package stops itself at 13 (browsertest.Budget).
go test -count=1 -timeout 15m $race ${KALENDS_TEST_FLAGS:-} ./...
echo "all checks and tests passed in ${SECONDS}s"
