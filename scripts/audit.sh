#!/bin/sh
# make audit: known vulnerabilities in what Kalends ships.
#
#   1. govulncheck (pinned below) on every package, symbol-level: a finding
#      counts only when our code can reach the vulnerable function. It reads
#      vuln.go.dev; where that cannot be reached, it builds the same database
#      offline from the golang.org/x/vulndb module (pinned snapshot, through
#      the Go module proxy) and says how old that snapshot is.
#   2. npm audit --omit=dev: the browser libraries copied into assets/vendor.
#
# A finding fails the run unless scripts/audit-allow.txt lists its id with
# the reason it cannot be fixed yet. Not part of `make test`: both need
# their online databases.
set -eu
cd "$(dirname "$0")/.."

GOVULNCHECK=golang.org/x/vuln/cmd/govulncheck@v1.9.0
VULNDB_VERSION=v0.0.0-20261105234957-e22db6528018 # the vulndb snapshot of 2026-11-05
GO=${GO:-go}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

db=https://vuln.go.dev
if ! curl -fsS -m 10 -o /dev/null "$db/index/db.json" 2>/dev/null; then
	echo "audit: vuln.go.dev cannot be reached; building the database from golang.org/x/vulndb@$VULNDB_VERSION"
	dir=$($GO mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$dir/data/osv" ] || { echo "audit: no OSV data in golang.org/x/vulndb@$VULNDB_VERSION" >&2; exit 1; }
	$GO run "golang.org/x/vulndb/cmd/indexdb@$VULNDB_VERSION" -vulns "$dir/data/osv" -out "$work/vulndb"
	db="file://$work/vulndb"
fi
echo "audit: govulncheck ($GOVULNCHECK, $($GO version | cut -d' ' -f3)) with $db"
# govulncheck exits 3 when it finds something: the allow-list decides.
$GO run "$GOVULNCHECK" -db "$db" -format json ./... >"$work/govulncheck.json" || [ $? -eq 3 ]
python3 scripts/audit-findings.py "$work/govulncheck.json" scripts/audit-allow.txt

echo "audit: npm audit --omit=dev"
npm audit --omit=dev
