#!/usr/bin/env bash
# `make screenshots`: PNGs of the admin's main pages in English and Japanese,
# at 1440 × 900 and 390 × 844, light and dark, into docs/screenshots/ (the
# test TestScreenshots in web/e2e, through the browser-test harness). Needs
# Chromium and a CJK font (Noto Sans CJK, one of the stacks of
# ADMIN-UI.md): installed with apt-get when missing and we are root.
set -euo pipefail

cd "$(dirname "$0")/.."

die() { printf 'screenshots.sh: %s\n' "$*" >&2; exit 1; }

# need PACKAGE TEST...: installs PACKAGE with apt-get (as root) unless the
# command TEST succeeds.
need() {
	local pkg="$1"
	shift
	"$@" >/dev/null 2>&1 && return 0
	[[ "$(id -u)" == 0 ]] || die "missing $pkg: install it (sudo apt-get install -y $pkg) and run again"
	echo "installing $pkg with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null || die "apt-get install $pkg failed"
}

has_cjk_font() { fc-list :lang=ja | grep -q .; }

if [[ -z "${KALENDS_TEST_CHROMIUM:-}" ]]; then
	need chromium command -v chromium
	KALENDS_TEST_CHROMIUM="$(command -v chromium)"
	export KALENDS_TEST_CHROMIUM
fi
need fonts-noto-cjk has_cjk_font

out="$PWD/docs/screenshots"
mkdir -p "$out"
# CI=true: a missing browser fails here rather than skipping.
CI=true KALENDS_SCREENSHOTS="$out" go test -count=1 -run '^TestScreenshots$' ./web/e2e
ls -l "$out"
