#!/usr/bin/env bash
# scripts/cluster.sh up|down|status — Kalends as it runs in production, on
# loopback: a three-node MariaDB Galera cluster, HAProxy in front of it (one
# active node, two backups) and in front of three `kalends serve` instances
# (health-checked on /healthz). Everything lives under one directory,
# $KALENDS_CLUSTER_DIR (default ${TMPDIR:-/tmp}/kalends-cluster), and listens
# on 127.0.0.1 from port $KALENDS_CLUSTER_PORT (default 23300) up:
#
#   +0  HAProxy for the database     +1..3   the MariaDB nodes db1..db3
#   +11..13 Galera replication       +21..23 IST    +31..33 SST (rsync)
#   +80 HAProxy for HTTP             +81..83 kalends k1..k3
#   +91..93 kalends' /debug/vars     +99 HAProxy's statistics page
#
# It never touches another MariaDB (the test server on 3306 stays up).
# Debian's mariadb-server, galera-4, haproxy and rsync are installed with
# apt-get when missing and we are root.
#
# Commands the cluster test (make cluster-test) uses as well:
#   kill-db N | start-db N     SIGKILL a node / start it again (it rejoins by IST or SST)
#   kill-app N | start-app N   SIGKILL a kalends instance / start it again
#   active-db                  the node HAProxy sends database connections to
#   env                        the cluster's addresses, as shell variables
#
# The instances may send webhooks to loopback (--webhook-allow-private:
# the test's receiver listens there), publish every 5 s
# (KALENDS_CLUSTER_PUBLISH_INTERVAL; the publisher's lease lasts three
# intervals) and hold the webhook lease 10 s (KALENDS_CLUSTER_WEBHOOK_LEASE).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${KALENDS_CLUSTER_DIR:-${TMPDIR:-/tmp}/kalends-cluster}"
BASE="${KALENDS_CLUSTER_PORT:-23300}"
DB_PORT=$((BASE + 0))
HTTP_PORT=$((BASE + 80))
STATS_PORT=$((BASE + 99))
DB_USER=kalends
DB_PASS=kalends-cluster
DSN="mysql://$DB_USER:$DB_PASS@127.0.0.1:$DB_PORT/kalends"
GALERA_LIB=/usr/lib/galera/libgalera_smm.so

die() { printf 'cluster.sh: %s\n' "$*" >&2; exit 1; }
say() { printf 'cluster.sh: %s\n' "$*"; }

# The nodes run as mysql when we are root: the joiner's rsync daemon of
# an SST drops root for nobody, who could not write a root-owned datadir.
db_user() { if [[ "$(id -u)" == 0 ]]; then echo mysql; else id -un; fi; }

node_port() { echo $((BASE + $1)); }
app_port() { echo $((BASE + 80 + $1)); }
debug_port() { echo $((BASE + 90 + $1)); }

need() {
	local missing=()
	command -v mariadbd >/dev/null || [[ -x /usr/sbin/mariadbd ]] || missing+=(mariadb-server)
	command -v mariadb-install-db >/dev/null || missing+=(mariadb-server)
	[[ -f "$GALERA_LIB" ]] || missing+=(galera-4)
	command -v haproxy >/dev/null || [[ -x /usr/sbin/haproxy ]] || missing+=(haproxy)
	command -v rsync >/dev/null || missing+=(rsync)
	command -v socat >/dev/null || missing+=(socat)
	((${#missing[@]} == 0)) && return 0
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
	[[ "$(id -u)" == 0 ]] || die "missing ${missing[*]}: sudo apt-get install -y ${missing[*]}"
	say "installing ${missing[*]} with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-cache policy "${missing[@]}" | grep -q 'Candidate: (none)' && apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
}

mariadbd_bin() { command -v mariadbd || echo /usr/sbin/mariadbd; }
haproxy_bin() { command -v haproxy || echo /usr/sbin/haproxy; }

# sql N STATEMENT: run a statement on node N as root over its socket.
sql() { mariadb --no-defaults -S "$DIR/db$1/mysqld.sock" -uroot -N -B -e "$2"; }

# wsrep_state N: the node's wsrep_local_state (4: synced), empty when down.
wsrep_state() { sql "$1" "SHOW GLOBAL STATUS LIKE 'wsrep_local_state'" 2>/dev/null | cut -f2; }

alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

write_node_config() {
	local n=$1 peers=""
	for i in 1 2 3; do peers+="${peers:+,}127.0.0.1:$((BASE + 10 + i))"; done
	mkdir -p "$DIR/db$n"
	chown "$(db_user)" "$DIR/db$n"
	# evs: a node is suspected after 8 s of silence (default 5 s) and
	# evicted after 30 s (default 15 s): three nodes, three kalends and the
	# load on two shared cores must not look like a dead node. A node
	# really killed is seen at once (its connections close) and left out
	# after the suspect timeout, which bounds the writes' pause.
	cat >"$DIR/db$n/my.cnf" <<EOF
[mysqld]
user=$(db_user)
datadir=$DIR/db$n/data
socket=$DIR/db$n/mysqld.sock
pid-file=$DIR/db$n/mysqld.pid
log-error=$DIR/db$n/error.log
tmpdir=$DIR/db$n
port=$(node_port "$n")
bind-address=127.0.0.1
skip-name-resolve
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_ci
max-connections=300
innodb-buffer-pool-size=96M
innodb-log-file-size=48M
# Galera replicates the commit; each node need not flush it to disk.
innodb-flush-log-at-trx-commit=2
innodb-autoinc-lock-mode=2
innodb-force-primary-key=ON
default-storage-engine=InnoDB
binlog-format=ROW
wsrep-on=ON
wsrep-provider=$GALERA_LIB
wsrep-cluster-name=kalends
wsrep-cluster-address=gcomm://$peers
wsrep-node-name=db$n
wsrep-node-address=127.0.0.1:$((BASE + 10 + n))
wsrep-sst-method=rsync
wsrep-sst-receive-address=127.0.0.1:$((BASE + 30 + n))
wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:$((BASE + 10 + n));ist.recv_addr=127.0.0.1:$((BASE + 20 + n));evs.keepalive_period=PT1S;evs.suspect_timeout=PT8S;evs.inactive_timeout=PT30S;evs.install_timeout=PT20S;pc.wait_prim_timeout=PT60S;gcache.size=128M"
EOF
}

# start_node N [bootstrap]: start node N and wait until it is synced.
start_node() {
	local n=$1 boot=${2:-} extra=()
	alive "$DIR/db$n/pid" && { say "db$n is already running"; return 0; }
	# The first node starts from an empty database; the others take its
	# state by SST into an empty directory.
	if [[ ! -d "$DIR/db$n/data" ]]; then
		mkdir -p "$DIR/db$n/data"
		chown -R "$(db_user)" "$DIR/db$n"
		if [[ "$boot" == bootstrap ]]; then
			mariadb-install-db --no-defaults --datadir="$DIR/db$n/data" --user="$(db_user)" \
				--auth-root-authentication-method=normal --skip-test-db >"$DIR/db$n/install.log" 2>&1 ||
				{ cat "$DIR/db$n/install.log" >&2; die "mariadb-install-db db$n failed"; }
		fi
	fi
	[[ "$boot" == bootstrap ]] && extra+=(--wsrep-new-cluster)
	# A node that was killed left no position in grastate.dat (seqno -1):
	# recover it from InnoDB first, as galera_recovery does, so that the
	# node asks for the writes it missed (IST) instead of a full copy (SST).
	if [[ "$boot" != bootstrap ]] && grep -q '^seqno: *-1' "$DIR/db$n/data/grastate.dat" 2>/dev/null; then
		local pos
		"$(mariadbd_bin)" --defaults-file="$DIR/db$n/my.cnf" --wsrep-recover --log-error="$DIR/db$n/recover.log" >/dev/null 2>&1 || true
		pos="$(sed -n 's/.*WSREP: Recovered position: *//p' "$DIR/db$n/recover.log" 2>/dev/null | tail -1)"
		[[ -n "$pos" ]] && extra+=(--wsrep-start-position="$pos") && say "db$n recovered its position $pos"
	fi
	setsid "$(mariadbd_bin)" --defaults-file="$DIR/db$n/my.cnf" "${extra[@]}" >>"$DIR/db$n/stderr.log" 2>&1 </dev/null &
	echo $! >"$DIR/db$n/pid"
	local start=$SECONDS
	until [[ "$(wsrep_state "$n")" == 4 ]]; do
		alive "$DIR/db$n/pid" || { tail -30 "$DIR/db$n/error.log" >&2; die "db$n exited during start-up"; }
		((SECONDS - start < 300)) || die "db$n not synced after 300 s (see $DIR/db$n/error.log)"
		sleep 0.2
	done
	say "db$n synced after $((SECONDS - start)) s"
}

kill_node() {
	alive "$DIR/db$1/pid" || { say "db$1 is not running"; return 0; }
	kill -KILL "$(cat "$DIR/db$1/pid")"
	while alive "$DIR/db$1/pid"; do sleep 0.05; done
	say "db$1 killed"
}

write_haproxy_config() {
	printf 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nCache-Control: no-store\r\nRetry-After: 2\r\nConnection: close\r\n\r\nService unavailable: try again.\n' >"$DIR/503.http"
	cat >"$DIR/haproxy.cfg" <<EOF
global
	maxconn 4000
	pidfile $DIR/haproxy.pid
	stats socket $DIR/haproxy.sock mode 600 level admin

defaults
	timeout connect 2s
	timeout check 1s
	log global

# The database: one node takes every connection, the others are backups
# (writes touch a few shared rows, which several writer nodes would fight
# over). A node is out after two failed checks half a second apart; its
# sessions are closed then, so clients reconnect to the backup at once.
# When db1 is back, the backup's sessions are closed and db1 is used again.
listen galera
	bind 127.0.0.1:$DB_PORT
	mode tcp
	timeout client 1h
	timeout server 1h
	option mysql-check user haproxy_check post-41
	default-server inter 500ms fall 2 rise 4 on-marked-down shutdown-sessions
	server db1 127.0.0.1:$(node_port 1) check on-marked-up shutdown-backup-sessions
	server db2 127.0.0.1:$(node_port 2) check backup
	server db3 127.0.0.1:$(node_port 3) check backup

# The site: three instances, round robin, each checked on /healthz. A
# read cut off by an instance's death is sent again to another; a write is
# not (it may have been applied), and is answered 503 with Retry-After
# instead of HAProxy's 502, like a request the database failed under.
listen kalends
	bind 127.0.0.1:$HTTP_PORT
	mode http
	timeout client 60s
	timeout server 60s
	balance roundrobin
	option forwardfor
	option redispatch
	retries 2
	retry-on conn-failure empty-response response-timeout
	http-request disable-l7-retry if !METH_GET !METH_HEAD
	errorfile 502 $DIR/503.http
	errorfile 504 $DIR/503.http
	option httpchk GET /healthz
	http-check expect status 200
	default-server inter 1s fall 2 rise 2
	server k1 127.0.0.1:$(app_port 1) check
	server k2 127.0.0.1:$(app_port 2) check
	server k3 127.0.0.1:$(app_port 3) check

listen stats
	bind 127.0.0.1:$STATS_PORT
	mode http
	timeout client 10s
	stats enable
	stats uri /
EOF
}

kalends_bin() { echo "${KALENDS_BIN:-$DIR/kalends}"; }

start_app() {
	local n=$1
	alive "$DIR/k$n.pid" && { say "k$n is already running"; return 0; }
	setsid "$(kalends_bin)" serve --addr "127.0.0.1:$(app_port "$n")" --db "$DSN" \
		--base-url "http://127.0.0.1:$HTTP_PORT" --debug-addr "127.0.0.1:$(debug_port "$n")" \
		--trusted-proxies 127.0.0.1 --admin-login admin --admin-password "$(cat "$DIR/admin-password")" \
		--publish-interval "${KALENDS_CLUSTER_PUBLISH_INTERVAL:-5s}" --cache-check 250ms \
		--write-limit "${KALENDS_CLUSTER_WRITE_LIMIT:-0}" \
		--webhook-allow-private true --webhook-lease "${KALENDS_CLUSTER_WEBHOOK_LEASE:-10s}" \
		>>"$DIR/k$n.log" 2>&1 </dev/null &
	echo $! >"$DIR/k$n.pid"
}

wait_app() {
	local n=$1 start=$SECONDS
	until curl -fsS -o /dev/null "http://127.0.0.1:$(app_port "$n")/healthz" 2>/dev/null; do
		alive "$DIR/k$n.pid" || { tail -30 "$DIR/k$n.log" >&2; die "k$n exited during start-up"; }
		((SECONDS - start < 120)) || die "k$n did not answer /healthz within 120 s"
		sleep 0.1
	done
}

kill_app() {
	alive "$DIR/k$1.pid" || { say "k$1 is not running"; return 0; }
	kill -KILL "$(cat "$DIR/k$1.pid")"
	while alive "$DIR/k$1.pid"; do sleep 0.05; done
	say "k$1 killed"
}

# active_db: the node HAProxy sends new database connections to (the first
# of db1, db2, db3 it holds up, backups after db1).
active_db() {
	local line
	while IFS=, read -r px sv _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ status _; do
		[[ "$px" == galera && "$sv" == db* && "$status" == UP* ]] && { echo "$sv"; return 0; }
	done < <(echo "show stat" | socat - "UNIX-CONNECT:$DIR/haproxy.sock" 2>/dev/null)
	line=none
	echo "$line"
}

cmd_env() {
	cat <<EOF
KALENDS_CLUSTER_DIR=$DIR
KALENDS_CLUSTER_DSN=$DSN
KALENDS_CLUSTER_URL=http://127.0.0.1:$HTTP_PORT
KALENDS_CLUSTER_APPS=http://127.0.0.1:$(app_port 1),http://127.0.0.1:$(app_port 2),http://127.0.0.1:$(app_port 3)
KALENDS_CLUSTER_DEBUG=http://127.0.0.1:$(debug_port 1),http://127.0.0.1:$(debug_port 2),http://127.0.0.1:$(debug_port 3)
KALENDS_CLUSTER_NODES=127.0.0.1:$(node_port 1),127.0.0.1:$(node_port 2),127.0.0.1:$(node_port 3)
KALENDS_CLUSTER_ADMIN_PASSWORD=$(cat "$DIR/admin-password" 2>/dev/null)
KALENDS_CLUSTER_DB=127.0.0.1:$DB_PORT
EOF
}

cmd_up() {
	need
	if [[ -f "$DIR/up" ]]; then
		die "a cluster is already up in $DIR (scripts/cluster.sh down first)"
	fi
	mkdir -p "$DIR"
	local t0=$SECONDS
	if [[ -z "${KALENDS_BIN:-}" ]]; then
		say "building kalends"
		(cd "$ROOT" && go build -o "$DIR/kalends" ./cmd/kalends) || die "go build failed"
	fi
	head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$DIR/admin-password"
	for n in 1 2 3; do write_node_config "$n"; done
	start_node 1 bootstrap
	sql 1 "CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
		GRANT ALL ON *.* TO '$DB_USER'@'127.0.0.1';
		CREATE USER IF NOT EXISTS 'haproxy_check'@'127.0.0.1';" || die "creating the users failed"
	# The joiners take db1's state by SST, one after the other (db1 is
	# the donor of both).
	start_node 2
	start_node 3
	[[ "$(sql 1 "SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'" | cut -f2)" == 3 ]] || die "the cluster has not three nodes"
	write_haproxy_config
	"$(haproxy_bin)" -f "$DIR/haproxy.cfg" -D >"$DIR/haproxy.log" 2>&1 || { cat "$DIR/haproxy.log" >&2; die "haproxy did not start"; }
	# The three instances start at once on the empty database: one
	# applies the migrations, the others wait for its lock.
	for n in 1 2 3; do start_app "$n"; done
	for n in 1 2 3; do wait_app "$n"; done
	local start=$SECONDS
	until curl -fsS -o /dev/null "http://127.0.0.1:$HTTP_PORT/healthz" 2>/dev/null; do
		((SECONDS - start < 30)) || die "HAProxy does not answer /healthz"
		sleep 0.1
	done
	touch "$DIR/up"
	say "up in $((SECONDS - t0)) s: http://127.0.0.1:$HTTP_PORT (admin / $(cat "$DIR/admin-password")), database through 127.0.0.1:$DB_PORT, statistics on http://127.0.0.1:$STATS_PORT/"
}

cmd_down() {
	[[ -d "$DIR" ]] || { say "nothing in $DIR"; return 0; }
	for n in 1 2 3; do
		alive "$DIR/k$n.pid" && kill -TERM "$(cat "$DIR/k$n.pid")" 2>/dev/null || true
	done
	alive "$DIR/haproxy.pid" && kill -TERM "$(cat "$DIR/haproxy.pid")" 2>/dev/null || true
	for n in 1 2 3; do
		alive "$DIR/db$n/pid" && kill -TERM "$(cat "$DIR/db$n/pid")" 2>/dev/null || true
	done
	local start=$SECONDS
	for f in "$DIR"/k?.pid "$DIR/haproxy.pid" "$DIR"/db?/pid; do
		while alive "$f"; do
			if ((SECONDS - start > 30)); then kill -KILL "$(cat "$f")" 2>/dev/null || true; fi
			sleep 0.1
		done
	done
	if [[ -n "${KALENDS_CLUSTER_KEEP:-}" ]]; then
		rm -f "$DIR/up"
		say "down; files kept in $DIR"
	else
		rm -rf "$DIR"
		say "down; $DIR removed"
	fi
}

cmd_status() {
	[[ -d "$DIR" ]] || { say "down (no $DIR)"; return 3; }
	local bad=0
	for n in 1 2 3; do
		if alive "$DIR/db$n/pid"; then
			printf 'db%d  127.0.0.1:%d  wsrep_local_state=%s cluster_size=%s\n' "$n" "$(node_port "$n")" \
				"$(wsrep_state "$n")" "$(sql "$n" "SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'" 2>/dev/null | cut -f2)"
		else
			printf 'db%d  down\n' "$n"
			bad=1
		fi
	done
	if alive "$DIR/haproxy.pid"; then
		printf 'haproxy  db 127.0.0.1:%d (active: %s)  http 127.0.0.1:%d\n' "$DB_PORT" "$(active_db)" "$HTTP_PORT"
	else
		echo "haproxy  down"
		bad=1
	fi
	for n in 1 2 3; do
		if alive "$DIR/k$n.pid" && curl -fsS -o /dev/null "http://127.0.0.1:$(app_port "$n")/healthz" 2>/dev/null; then
			printf 'k%d  http://127.0.0.1:%d  healthy\n' "$n" "$(app_port "$n")"
		else
			printf 'k%d  down or unhealthy\n' "$n"
			bad=1
		fi
	done
	return "$bad"
}

case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
env) cmd_env ;;
active-db) active_db ;;
kill-db) kill_node "${2:?node number}" ;;
start-db) start_node "${2:?node number}" ;;
kill-app) kill_app "${2:?instance number}" ;;
start-app) start_app "${2:?instance number}" && wait_app "$2" ;;
*) die "usage: scripts/cluster.sh up|down|status|env|active-db|kill-db N|start-db N|kill-app N|start-app N" ;;
esac
