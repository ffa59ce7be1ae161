# Kalends: common tasks. `make run` and `make test` need only Go (and, for
# the test's MariaDB, root to install it with apt when it is missing).

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: run test lint audit soak bench bench-writes bench-go assets generate apiclient build screenshots clean cluster cluster-down cluster-test release image upgrade-test

## run: serve on 127.0.0.1:8080 with the SQLite file kalends.db
run:
	$(GO) run ./cmd/kalends serve

## test: gofmt, vet, golangci-lint, regeneration checks, then every test on SQLite and MariaDB
test:
	./scripts/test.sh

## lint: golangci-lint on every package, tests included (.golangci.yml;
## the version is pinned in scripts/lint/go.mod and built on first use)
lint:
	$(GO) tool -modfile=scripts/lint/go.mod golangci-lint run ./...

## audit: govulncheck (symbol-level) and npm audit --omit=dev; needs their
## online databases, so it is not part of make test (scripts/audit.sh;
## findings that cannot be fixed yet are listed in scripts/audit-allow.txt)
audit:
	./scripts/audit.sh

## bench: seed 10,000 and 100,000 realistic events, load the real binary with
## wrk on loopback beside a static responder, print the table, write
## bench/results.json and compare with bench/baseline.json (BENCHMARKS.md);
## BENCH_DB=mysql://… for MariaDB; BENCH_EVENTS=1000000 for a million events
## (with 5,000 weekly series; not part of the default run: seeding alone
## takes minutes)
BENCH_EVENTS ?= 10000,100000
bench:
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; } || { echo "make bench needs wrk: sudo apt-get install wrk"; exit 1; }
	$(GO) run ./bench -events $(BENCH_EVENTS)

## soak: 10 minutes of mixed load (API lists, pages, feeds, admin pages,
## writes) on 10,000 seeded events; fails on any 5xx or on memory or
## goroutines that keep growing; writes bench/soak.json (SOAK=2m for less)
SOAK ?= 10m
soak:
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; } || { echo "make soak needs wrk: sudo apt-get install wrk"; exit 1; }
	$(GO) run ./bench -soak $(SOAK)

## bench-writes: POST and PATCH of this tree against an older commit
## (BENCH_AGAINST, by default 8a58be5: before the change log and webhooks),
## the two binaries loaded in turn, three rounds each, 10,000 events
BENCH_AGAINST ?= 8a58be5
bench-writes:
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; } || { echo "make bench-writes needs wrk: sudo apt-get install wrk"; exit 1; }
	$(GO) run ./bench -events 10000 -against $(BENCH_AGAINST) -only '^(POST /events|PATCH /events/\{id\})$$'

## bench-go: the Go benchmarks (go test -bench), no tests
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## assets: rebuild assets/vendor from package.json (commit the result)
assets:
	npm ci --no-audit --no-fund
	npm run build

## generate: regenerate the templ components (commit the *_templ.go files)
generate:
	$(GO) tool templ generate

## apiclient: refresh internal/apiclient (the typed client oapi-codegen
## generates from /doc) after the API's description changed
apiclient:
	KALENDS_UPDATE_APICLIENT=1 $(GO) test ./api -run TestGeneratedClientListsAndCreatesEvents -count=1
	cd internal/apiclient && $(GO) generate .

## screenshots: PNGs of the admin's main pages (English and Japanese, desktop
## and phone, light and dark) into docs/screenshots/; needs Chromium and a CJK
## font, which root gets with apt-get
screenshots:
	./scripts/screenshots.sh

## cluster: three MariaDB Galera nodes, HAProxy and three kalends on
## loopback under one temporary directory (scripts/cluster.sh; `make
## cluster-down` stops it, `scripts/cluster.sh status` tells its state)
cluster:
	./scripts/cluster.sh up

cluster-down:
	./scripts/cluster.sh down

## cluster-test: the cluster under mixed load through a database node and a
## kalends instance killed and restarted; checks that no acknowledged write
## is lost and the nodes agree (scripts/clustertest; at most 10 minutes; not
## part of make test, a CI step of its own); then the same load on one
## instance on one plain MariaDB (a throwaway server, as in make test), for
## the throughput beside the cluster's
cluster-test:
	./scripts/with-mariadb.sh $(GO) run ./scripts/clustertest -repo . -timeout 10m

## build: the kalends binary in ./kalends
build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o kalends ./cmd/kalends

clean:
	rm -f kalends

## release: static, reproducible binaries (-trimpath, CGO_ENABLED=0) for
## linux/amd64, linux/arm64, darwin/arm64 and windows/amd64 in dist/, with
## SHA256SUMS, a CHANGELOG.md section and the container image
## (kalends-VERSION-oci.tar; scripts/release.sh)
release:
	./scripts/release.sh

## image: the container image alone: the two static linux binaries and
## dist/kalends-VERSION-oci.tar, an OCI archive of linux/amd64 and
## linux/arm64 built without a daemon (scripts/image; `podman load -i` it)
image:
	RELEASE_TARGETS="linux/amd64 linux/arm64" RELEASE_CHANGELOG=no ./scripts/release.sh

## upgrade-test: build the pinned older release (deploy/upgrade_run_test.go)
## from git, fill a site with it on SQLite and MariaDB (a throwaway server, as
## in make test, unless KALENDS_TEST_MYSQL_DSN answers), then check that the
## current binary (three instances at once) migrates once and answers the
## same, and that the old binary still works on the new schema (rolling)
upgrade-test:
	@if [ "$$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then echo 'upgrade-test: fetching the history the pinned release needs'; git fetch --quiet --unshallow; fi
	./scripts/with-mariadb.sh $(GO) test -tags upgrade ./deploy -run TestUpgradeFromThePinnedRelease -count=1 -v -timeout 10m
