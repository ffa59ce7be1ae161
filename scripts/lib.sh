# Shared by scripts/test.sh and scripts/with-mariadb.sh (sourced, not run):
# the helpers that install Debian packages and start a throwaway MariaDB.
# The caller sets `set -euo pipefail`.

is_ci() { [[ "${CI:-}" == "true" || "${CI:-}" == "1" ]]; }
die() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }

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

# mariadb_base prints where the throwaway server keeps its data: in memory
# (/dev/shm, a tmpfs) when that has 2 GB free, else $TMPDIR or /tmp.
# Measured on a 2-core machine: the store's tests took 184 s with the data
# on ext4 (the server spent 61 s in the kernel creating, truncating and
# deleting the files of the ~1,300 test databases, durability off or not)
# and 100 s on tmpfs (13 s in the kernel). Each test drops its database,
# so the server holds a few hundred MB at most. KALENDS_MARIADB_TMP names
# another place.
mariadb_base() {
	if [[ -n "${KALENDS_MARIADB_TMP:-}" ]]; then
		echo "$KALENDS_MARIADB_TMP"
		return
	fi
	local avail
	if [[ -d /dev/shm && -w /dev/shm ]] && avail="$(df --output=avail -k /dev/shm 2>/dev/null | tail -n 1)" &&
		[[ "$avail" =~ ^[0-9]+$ ]] && ((avail >= 2 * 1024 * 1024)); then
		echo /dev/shm
		return
	fi
	echo "${TMPDIR:-/tmp}"
}

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
	mariadb_dir="$(mktemp -d "$(mariadb_base)/kalends-mariadb.XXXXXX")"
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
	# The port was free when picked, but the install takes seconds and
	# another process may bind it meanwhile (a CI run lost one so): a
	# start that fails to bind tries again on another port, three times.
	local attempt
	for attempt in 1 2 3; do
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
				if ((attempt < 3)) && grep -q "Address already in use" "$mariadb_dir/error.log" 2>/dev/null; then
					port="$(free_port)"
					echo "the port was taken meanwhile; starting the throwaway MariaDB again on 127.0.0.1:$port"
					: >"$mariadb_dir/error.log"
					continue 2
				fi
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
		break
	done
	cat "$mariadb_dir/error.log" >&2 || true
	die "the throwaway MariaDB did not answer within 60 s (log above)"
}

# ensure_mariadb exports KALENDS_TEST_MYSQL_DSN: the server it names when it
# answers, otherwise a throwaway one (stopped and removed when the shell exits).
ensure_mariadb() {
	if [[ -n "${KALENDS_TEST_MYSQL_DSN:-}" ]] && dsn_reachable "$KALENDS_TEST_MYSQL_DSN"; then
		echo "using the server of KALENDS_TEST_MYSQL_DSN"
	else
		if [[ -n "${KALENDS_TEST_MYSQL_DSN:-}" ]]; then
			echo "KALENDS_TEST_MYSQL_DSN does not answer; starting a throwaway server instead"
		fi
		start_mariadb
	fi
}
