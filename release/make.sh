#!/usr/bin/env bash
# release/make.sh: grona-mock's release artifacts for Linux, from one release build. See docs/release.md.
#
#   release/make.sh [--out DIR]     build, then write to DIR (default release/out):
#     grona-mock-<version>-linux-<arch>.tar.gz   the binary, the example workspaces/, the test keys/ (with
#                                                keys/README.md) and README.md; run ./grona-mock serve in it
#     grona-mock_<version>_<debian-arch>.deb     /usr/bin/grona-mock, /usr/share/grona-mock/{workspaces,keys}
#     SHA256SUMS
#   release/make.sh --binary        build only, and print the binary's path (what .ci/lib/containers.sh uses)
#
# The binary is `swift build -c release --product grona-mock --static-swift-stdlib`: the Swift runtime and
# Foundation are linked in, so no Swift toolchain is needed where it runs. It still loads the system's OpenSSL 3,
# SQLite 3, libpq, zlib and libstdc++ (with what they load): the .deb's Depends come from the binary itself
# (dpkg-shlibdeps), and the script fails if `ldd` finds any library from the toolchain. Build it on the oldest
# glibc it must run on (Debian bookworm here: glibc 2.36, and the binary asks for 2.35 at most).
#
# The build runs with a fixed, minimal environment (PATH, HOME, LANG): SwiftPM keys its manifest and plugin
# caches on the whole environment, so a variable that differs between two callers (a CI script's scratch path)
# rebuilds the release configuration, minutes on 2 cores. With one environment, every caller after the first
# (.ci/container-test, this script, .ci/release-test, Examples/testcontainers/run.sh) gets an up-to-date check.
#
# Archives are reproducible for one commit: files sorted, owned by root, dated by the commit (SOURCE_DATE_EPOCH).
# Needs: swift, dpkg-deb and dpkg-shlibdeps (dpkg-dev), tar, gzip, sha256sum. Environment:
#   GRONA_MOCK_MAINTAINER   the .deb's Maintainer (default: the author of the commit built)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

OUT="$REPO/release/out"
BINARY_ONLY=0
while (($#)); do
    case $1 in
    --out)
        [[ $# -ge 2 ]] || { echo "usage: release/make.sh [--out DIR] | --binary" >&2; exit 64; }
        OUT=$(realpath -m "$2")
        shift 2
        ;;
    --binary) BINARY_ONLY=1; shift ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "release/make.sh: unknown option $1 (usage: release/make.sh [--out DIR] | --binary)" >&2; exit 64 ;;
    esac
done

say() { printf '%s\n' "$*" >&2; }
die() { printf 'release/make.sh: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------------- build

BUILD=(swift build -c release --product grona-mock --static-swift-stdlib)
clean_env=(env -i "PATH=$PATH" "HOME=${HOME:-/root}" "LANG=C.UTF-8")
command -v swift >/dev/null 2>&1 || die "swift is not on PATH"
started=$SECONDS
say "building: ${BUILD[*]} (a fixed environment: PATH, HOME, LANG)"
log=$(mktemp)
if ! timeout 1800 "${clean_env[@]}" "${BUILD[@]}" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    rm -f "$log"
    die "the release build failed"
fi
say "$(tail -n 1 "$log") [$((SECONDS - started)) s]"
rm -f "$log"
binary="$(timeout 300 "${clean_env[@]}" "${BUILD[@]}" --show-bin-path)/grona-mock"
[[ -x $binary ]] || die "no binary at $binary"
if ((BINARY_ONLY)); then
    echo "$binary"
    exit 0
fi

# ---------------------------------------------------------------------------------------------------- checks

command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb is missing (apt-get install dpkg)"
command -v dpkg-shlibdeps >/dev/null 2>&1 || die "dpkg-shlibdeps is missing (apt-get install dpkg-dev)"
ldd_out=$(ldd "$binary") || die "ldd failed on $binary"
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
if grep -q 'not found' <<<"$ldd_out"; then die "the binary needs libraries that are not found: $ldd_out"; fi
if grep -Eq 'libswift|Foundation|libdispatch|BlocksRuntime|libicu' <<<"$ldd_out" || grep -Fq "$toolchain" <<<"$ldd_out"; then
    die "the binary loads the Swift runtime or the toolchain's libraries (--static-swift-stdlib?): $ldd_out"
fi

version=$("$binary" --version | awk '{ print $2; exit }')
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([.+~-][0-9A-Za-z.+~-]+)?$ ]] || die "'grona-mock --version' gave no version: $version"
arch=$(uname -m)
deb_arch=$(dpkg --print-architecture)
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH
maintainer=${GRONA_MOCK_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || true)}
[[ -n $maintainer ]] || die "no Maintainer for the .deb: set GRONA_MOCK_MAINTAINER='Name <address>'"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git status --porcelain -- Sources Package.swift workspaces keys 2>/dev/null) ]]; then
    say "note: Sources, Package.swift, workspaces or keys differ from commit $commit (uncommitted changes are built)"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$OUT"

# Sorted, root-owned, dated by the commit: the same commit gives the same bytes.
reproducible_tar() { # reproducible_tar ARCHIVE DIR NAME
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
        --mode='u+rwX,go+rX,go-w' -C "$2" -cf - "$3" | gzip -9n >"$1"
}

# ---------------------------------------------------------------------------------------------------- tarball

name="grona-mock-$version-linux-$arch"
root="$stage/$name"
mkdir -p "$root"
install -m 0755 "$binary" "$root/grona-mock"
cp -R workspaces "$root/workspaces"
cp -R keys "$root/keys"
# readme WHERE: how to run what was unpacked, from the directory of the tarball or from the package's paths.
readme() {
    local run help files keys
    if [[ $1 == tarball ]]; then
        help="./grona-mock --help"
        run="./grona-mock serve            # http://127.0.0.1:8080, serving ./workspaces signed with ./keys"
        files="From this directory, \`serve\` and \`exec\` find \`./workspaces\` and \`./keys\` by themselves; from elsewhere,
name them with \`--workspaces DIR --keys DIR\`."
        keys="keys/"
    else
        help="grona-mock --help"
        run="grona-mock serve --workspaces /usr/share/grona-mock/workspaces --keys /usr/share/grona-mock/keys"
        files="The example workspaces and the test keys are in /usr/share/grona-mock. \`serve\` and \`exec\` look for
./workspaces and ./keys unless told otherwise: pass \`--workspaces\` and \`--keys\` (or set GRONA_MOCK_WORKSPACES and
GRONA_MOCK_KEYS), or copy them to a directory of your own and edit them there."
        keys="/usr/share/grona-mock/keys/"
    fi
    cat <<EOF
# grona-mock $version for Linux ($arch)

Built from commit $commit with \`${BUILD[*]}\`: the Swift runtime is linked in, so no Swift toolchain is needed.

    $run
    $help

$files The database is \`./grona-mock.sqlite\` unless \`--db\` says otherwise.

The binary still loads these system libraries: OpenSSL 3, SQLite 3, libpq 5, zlib and libstdc++, with glibc 2.35
or newer. On Debian 12, Ubuntu 22.04 and later:

    sudo apt-get install libssl3 libsqlite3-0 libpq5 zlib1g libstdc++6

\`$keys\` holds TEST keys whose private halves are public: read its README.md, and never use them in production.
Documentation: docs/ in the grona-mock repository (docs/release.md for these artifacts).
EOF
}
readme tarball >"$root/README.md"
tarball="$OUT/$name.tar.gz"
reproducible_tar "$tarball" "$stage" "$name"
say "wrote $tarball ($(du -h "$tarball" | cut -f1))"

# ---------------------------------------------------------------------------------------------------- .deb

package="$stage/deb"
mkdir -p "$package/DEBIAN" "$package/usr/bin" "$package/usr/share/grona-mock" "$package/usr/share/doc/grona-mock"
install -m 0755 "$binary" "$package/usr/bin/grona-mock"
cp -R workspaces keys "$package/usr/share/grona-mock/"
readme package >"$package/usr/share/doc/grona-mock/README.md"
chmod -R u=rwX,go=rX "$package/usr"

# Depends: what the binary loads, as Debian names it, with the versions its symbols need.
shlibs="$stage/shlibs"
mkdir -p "$shlibs/debian"
printf 'Source: grona-mock\n\nPackage: grona-mock\nArchitecture: any\n' >"$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "$package/usr/bin/grona-mock" 2>"$stage/shlibdeps.err") \
    || { cat "$stage/shlibdeps.err" >&2; die "dpkg-shlibdeps failed"; }
depends=${depends#shlibs:Depends=}
[[ -n $depends ]] || die "dpkg-shlibdeps found no dependencies"

cat >"$package/DEBIAN/control" <<EOF
Package: grona-mock
Version: $version
Architecture: $deb_arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$package" | cut -f1)
Depends: $depends
Section: devel
Priority: optional
Description: mock of the Grona platform for SDK tests and CI fixtures
 grona-mock serves signed configuration, offer grants and events ingestion as
 the Grona platform does, for SDK end-to-end tests, CI fixture servers and
 load tests. The example workspaces and TEST signing keys (public, never for
 production) are in /usr/share/grona-mock.
EOF
find "$package" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
deb="$OUT/grona-mock_${version}_${deb_arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$package" "$deb" >/dev/null
say "wrote $deb ($(du -h "$deb" | cut -f1)); Depends: $depends"

(cd "$OUT" && sha256sum "$(basename "$tarball")" "$(basename "$deb")" >SHA256SUMS)
say "wrote $OUT/SHA256SUMS"
printf '%s\n' "$tarball" "$deb"
