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

is_ci() { [[ "${CI:-}" == "true" || "${CI:-}" == "1" ]]; }
step() { printf '\n== %s (at %ds)\n' "$*" "$SECONDS"; }
die() { printf 'test.sh: %s\n' "$*" >&2; exit 1; }

# apt_install PACKAGE... installs Debian packages when we are root; otherwise
# it fails with the command to run.
apt_install() {
	if [[ "$(id -u)" != 0 ]]; then
		die "missing $*: install it (sudo apt-get install -y $*) and run again"
	fi
	echo "installing $* with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null || die "apt-get install $* failed"
}

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
# dsn_reachable DSN: true when the host:port of a mysql:// URL accepts TCP.
dsn_reachable() {
	local hostport="${1#mysql://}"
	hostport="${hostport#*@}"
	hostport="${hostport%%/*}"
	local host="${hostport%:*}" port="${hostport##*:}"
	[[ "$hostport" == *:* ]] || port=3306
	timeout 3 bash -c ">/dev/tcp/$host/$port" 2>/dev/null
}

# free_port prints a TCP port nobody listens on (bounded tries).
free_port() {
	local port
	for _ in $(seq 1 50); do
		port=$((20000 + RANDOM % 40000))
		if ! timeout 1 bash -c ">/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	die "no free TCP port found for the throwaway MariaDB"
}

mariadb_dir=""
mariadb_pid=""
stop_mariadb() {
	if [[ -n "$mariadb_pid" ]] && kill -0 "$mariadb_pid" 2>/dev/null; then
		kill -TERM "$mariadb_pid" 2>/dev/null || true
		for _ in $(seq 1 100); do
			kill -0 "$mariadb_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$mariadb_pid" 2>/dev/null || true
		wait "$mariadb_pid" 2>/dev/null || true
	fi
	if [[ -n "$mariadb_dir" ]]; then
		rm -rf "$mariadb_dir"
	fi
}
trap stop_mariadb EXIT
trap 'exit 130' INT TERM

start_mariadb() {
	local mariadbd install_db
	mariadbd="$(command -v mariadbd || true)"
	[[ -z "$mariadbd" && -x /usr/sbin/mariadbd ]] && mariadbd=/usr/sbin/mariadbd
	install_db="$(command -v mariadb-install-db || true)"
	if [[ -z "$mariadbd" || -z "$install_db" ]]; then
		apt_install mariadb-server
		mariadbd="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
		install_db="$(command -v mariadb-install-db)"
	fi
	mariadb_dir="$(mktemp -d "${TMPDIR:-/tmp}/kalends-mariadb.XXXXXX")"
	local port user
	port="$(free_port)"
	user="$(id -un)"
	echo "starting a throwaway MariaDB on 127.0.0.1:$port (data in $mariadb_dir)"
	"$install_db" --no-defaults --datadir="$mariadb_dir/data" --user="$user" \
		--auth-root-authentication-method=normal --skip-test-db \
		>"$mariadb_dir/install.log" 2>&1 || {
		cat "$mariadb_dir/install.log" >&2
		die "mariadb-install-db failed"
	}
	# A throwaway server: no grant checks, no durability (nothing here
	# outlives the run), small buffers, nothing shared with a system server.
	"$mariadbd" --no-defaults --user="$user" --datadir="$mariadb_dir/data" \
		--socket="$mariadb_dir/mysqld.sock" --pid-file="$mariadb_dir/mysqld.pid" \
		--port="$port" --bind-address=127.0.0.1 --skip-grant-tables --skip-name-resolve \
		--tmpdir="$mariadb_dir" --log-error="$mariadb_dir/error.log" --skip-log-bin \
		--innodb-buffer-pool-size=128M --innodb-log-file-size=48M \
		--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --innodb-flush-method=nosync \
		--character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
		--max-connections=500 >"$mariadb_dir/stderr.log" 2>&1 &
	mariadb_pid=$!
	for _ in $(seq 1 600); do # up to 60 s
		if ! kill -0 "$mariadb_pid" 2>/dev/null; then
			cat "$mariadb_dir/stderr.log" "$mariadb_dir/error.log" >&2 || true
			die "the throwaway MariaDB exited during start-up (log above)"
		fi
		if [[ -S "$mariadb_dir/mysqld.sock" ]] && timeout 1 bash -c ">/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
			export KALENDS_TEST_MYSQL_DSN="mysql://root@127.0.0.1:$port/kalends_test"
			echo "MariaDB is up: $KALENDS_TEST_MYSQL_DSN"
			return 0
		fi
		sleep 0.1
	done
	cat "$mariadb_dir/error.log" >&2 || true
	die "the throwaway MariaDB did not answer within 60 s (log above)"
}

step "MariaDB"
if [[ -n "${KALENDS_TEST_MYSQL_DSN:-}" ]] && dsn_reachable "$KALENDS_TEST_MYSQL_DSN"; then
	echo "using the server of KALENDS_TEST_MYSQL_DSN"
else
	if [[ -n "${KALENDS_TEST_MYSQL_DSN:-}" ]]; then
		echo "KALENDS_TEST_MYSQL_DSN does not answer; starting a throwaway server instead"
	fi
	start_mariadb
fi

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
# in front of Kalends; systemd-analyze comes with systemd. Missing tools are
# installed by root, fail CI, and make the tests skip otherwise.
step "deploy tools"
missing=()
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
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
# 2-core machine); the browser package stops itself at 10 (browsertest.Budget).
go test -count=1 -timeout 15m $race ${KALENDS_TEST_FLAGS:-} ./...
echo "all checks and tests passed in ${SECONDS}s"
