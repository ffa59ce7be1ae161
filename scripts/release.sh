#!/usr/bin/env bash
# make release: static binaries (CGO_ENABLED=0) for linux/amd64,
# linux/arm64, darwin/arm64 and windows/amd64 into dist/, with SHA256SUMS,
# and a section for this version at the top of CHANGELOG.md.
#
# Reproducible: -trimpath, no build id, no VCS stamp; the version, commit and
# date linked in (kalends version) come from git, the date being the
# commit's, so two builds of one commit with one Go version are identical
# byte for byte. RELEASE_TARGETS="linux/amd64" builds fewer; VERSION=x.y.z
# overrides `git describe`.
set -euo pipefail
cd "$(dirname "$0")/.."

targets="${RELEASE_TARGETS:-linux/amd64 linux/arm64 darwin/arm64 windows/amd64}"
commit="$(git rev-parse HEAD)"
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
# The commit's time in UTC, RFC 3339: the same for every build of it.
date="$(TZ=UTC git show -s --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd HEAD)"
out="${RELEASE_DIR:-dist}"

if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
	echo "release: the tree has uncommitted changes; the binaries will say $version" >&2
fi

rm -rf "$out"
mkdir -p "$out"
ldflags="-s -w -buildid= -X main.version=$version -X main.commit=$commit -X main.date=$date"
for t in $targets; do
	os="${t%/*}" arch="${t#*/}"
	name="kalends-$version-$os-$arch"
	[[ "$os" == windows ]] && name+=".exe"
	echo "building $name"
	CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" GOFLAGS= \
		go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$out/$name" ./cmd/kalends
done
amd64="$out/kalends-$version-linux-amd64" arm64="$out/kalends-$version-linux-arm64"
if [[ -f "$amd64" && -f "$arm64" ]]; then
	echo "building kalends-$version-oci.tar"
	GOFLAGS= go run ./scripts/image -bin-amd64 "$amd64" -bin-arm64 "$arm64" \
		-version "$version" -commit "$commit" -date "$date" \
		${IMAGE_CA:+-ca "$IMAGE_CA"} -out "$out/kalends-$version-oci.tar"
fi
(cd "$out" && LC_ALL=C sha256sum -- kalends-* >SHA256SUMS)
cat "$out/SHA256SUMS"

# CHANGELOG.md: a section for this version (once), listing the changes
# merged since the previous tag (first-parent subjects), newest first.
if [[ "${RELEASE_CHANGELOG:-yes}" != no ]] && ! grep -q "^## $version " CHANGELOG.md 2>/dev/null; then
	prev="$(git describe --tags --abbrev=0 HEAD^ 2>/dev/null || true)"
	range="HEAD"
	[[ -n "$prev" ]] && range="$prev..HEAD"
	section="$(mktemp)"
	{
		echo "## $version (${date%%T*})"
		echo
		git log --first-parent -n 200 --format="- %s" "$range"
		echo
	} >"$section"
	if [[ -f CHANGELOG.md ]]; then
		# after the file's title and introduction (up to the first section)
		awk -v sec="$section" 'BEGIN{done=0} /^## / && !done {while ((getline l < sec) > 0) print l; done=1} {print} END{if(!done) while ((getline l < sec) > 0) print l}' CHANGELOG.md >"$section.new"
		mv "$section.new" CHANGELOG.md
	else
		{ echo "# Changelog"; echo; cat "$section"; } >CHANGELOG.md
	fi
	rm -f "$section"
	echo "CHANGELOG.md: section $version added (edit it before tagging)"
fi
