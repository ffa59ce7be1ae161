#!/usr/bin/env bash
# with-mariadb.sh COMMAND...: runs COMMAND with KALENDS_TEST_MYSQL_DSN set,
# like `make test` does: the server it already names when that answers,
# otherwise a throwaway MariaDB (own data dir, port and socket under a temp
# dir, removed on exit). `make upgrade-test` runs through it.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
ensure_mariadb
status=0
"$@" || status=$?
exit "$status"
