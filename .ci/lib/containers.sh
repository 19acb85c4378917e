# .ci/lib/containers.sh: what the scripts that run containers share (.ci/container-test, .ci/release-test,
# Examples/testcontainers/run.sh). Sourced, never run. It gives them:
#
#   - one output style: `step`, `ok`, `note`, `fail`, `logged`, and `cannot_run`, which FAILS the script when
#     containers cannot run here unless the developer opted out with GRONA_MOCK_CI_ALLOW_NO_CONTAINERS=1;
#   - the tools (podman, debootstrap, curl, openssl, python3, iproute2), installed with apt when missing;
#   - the Debian mirror, read from this machine's own apt sources (GRONA_MOCK_CI_MIRROR overrides it);
#   - the runtime base: Debian bookworm with the runtime libraries, made once by debootstrap and cached;
#   - an OCI runtime and a build isolation that work here: podman's default first, then runc (installed when
#     missing), and chroot isolation for builds when the runtime cannot run a build's RUN steps. Hosts exist whose
#     crun refuses every container ("cgroups in hybrid mode not supported") while runc runs them.
#
# The caller sets REPO (the repository), WORK (its scratch directory) and RUN_ID (a name for this run's objects)
# first, traps EXIT for its own cleanup, and reads CONTAINERS_CONF (set once podman is configured) to know
# whether podman is in use.
# Environment, for all three scripts:
#   GRONA_MOCK_CI_CACHE                   cache directory (default /var/cache/grona-mock-ci)
#   GRONA_MOCK_CI_MIRROR                  Debian mirror for debootstrap (default: from /etc/apt/sources*)
#   GRONA_MOCK_CI_BASE_MAX_AGE_DAYS       remake the base when older (default 30)
#   GRONA_MOCK_CI_RUNTIME                 an OCI runtime (name or path) to try before podman's default
#   GRONA_MOCK_CI_ALLOW_NO_CONTAINERS=1   where containers cannot run, say "skipped" and exit 0 (never in CI)
# shellcheck shell=bash disable=SC2034 # the scripts that source this file read its variables

CACHE=${GRONA_MOCK_CI_CACHE:-/var/cache/grona-mock-ci}
BASE_MAX_AGE_DAYS=${GRONA_MOCK_CI_BASE_MAX_AGE_DAYS:-30}
SUITE=bookworm
# Exactly what `ldd grona-mock` lists beyond libc and what those bring (libssl3 brings libcrypto, libpq5 its
# Kerberos and LDAP libraries), plus what the health check and the TLS of curl need; the Dockerfile's runtime
# stage names the same list, and release/make.sh derives the .deb's Depends from the binary itself.
RUNTIME_PACKAGES=(libssl3 libsqlite3-0 libpq5 zlib1g libstdc++6 ca-certificates curl)
# Bump when the way the base is made changes, so that the cache is remade. The mirror is not part of it: every
# mirror serves the same bookworm.
BASE_RECIPE=3

CHECKS=${CHECKS:-0}
SKIPPED=0
TIMINGS=()
STARTED=$SECONDS
STEP_NAME=""
STEP_START=$SECONDS
CONTAINER_RUNTIME=""     # what podman runs containers with here, once chosen
BUILD_ISOLATION=""       # what `podman build` runs RUN steps with here, once chosen

# ---------------------------------------------------------------------------------------------------- output

step() {
    end_step
    STEP_NAME=$1
    STEP_START=$SECONDS
    printf '\n== %s\n' "$1"
}
end_step() {
    if [[ -n $STEP_NAME ]]; then TIMINGS+=("$(printf '%4ss  %s' "$((SECONDS - STEP_START))" "$STEP_NAME")"); fi
    STEP_NAME=""
}
print_timings() {
    end_step
    if ((${#TIMINGS[@]})); then
        printf '\ntimings:\n'
        printf '  %s\n' "${TIMINGS[@]}"
        printf '  %4ss  total\n' "$((SECONDS - STARTED))"
    fi
}
ok() {
    CHECKS=$((CHECKS + 1))
    printf 'ok %2d  %s\n' "$CHECKS" "$*"
}
note() { printf '       %s\n' "$*"; }
fail() {
    printf '\nFAILED: %s\n' "$*" >&2
    exit 1
}
# Containers cannot run on this machine: a failure, since CI must not pass without running them. A developer
# without podman opts out explicitly, and is told what did not run.
cannot_run() {
    if [[ ${GRONA_MOCK_CI_ALLOW_NO_CONTAINERS:-0} == 1 ]]; then
        printf '\nskipped, NOT tested (GRONA_MOCK_CI_ALLOW_NO_CONTAINERS=1): %s\n' "$*"
        SKIPPED=1
        exit 0
    fi
    fail "containers cannot run here: $*. (A developer without podman may set GRONA_MOCK_CI_ALLOW_NO_CONTAINERS=1 to skip; CI never does.)"
}
# Runs a command with its output in $WORK/<name>.log; on failure prints the log's tail and returns the status.
logged() {
    local name=$1
    shift
    local status=0
    "$@" >"$WORK/$name.log" 2>&1 || status=$?
    if ((status != 0)); then
        local shown="$*"
        printf -- '--- %s (exit %s), last lines of its output:\n' "${shown/#pm /podman }" "$status" >&2
        tail -n 30 "$WORK/$name.log" | sed 's/^/    /' >&2
    fi
    return "$status"
}
# The same, silent: for probes whose failure is expected on some hosts and reported in one line (log_reason).
silently() {
    local name=$1
    shift
    "$@" >"$WORK/$name.log" 2>&1
}
# The first line of a log that says what went wrong, for a one-line reason.
log_reason() {
    grep -m1 -iE 'error|denied|not supported|failed' "$WORK/$1.log" 2>/dev/null || tail -n 1 "$WORK/$1.log" 2>/dev/null
}
pm() { timeout 180 podman "$@"; }

# ---------------------------------------------------------------------------------------------------- tools

# apt_install PACKAGE...: installs what is missing, or calls cannot_run.
apt_install() {
    command -v apt-get >/dev/null 2>&1 || cannot_run "missing $* and no apt-get to install them"
    echo "installing: $*"
    logged apt-update timeout 300 apt-get update -qq || cannot_run "apt-get update failed, so $* cannot be installed"
    logged apt-install timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" \
        || cannot_run "apt-get install $* failed"
}

# containers_tools: root on Linux, podman and what the scripts use; podman configured by our own containers.conf.
containers_tools() {
    [[ $(uname -s) == Linux ]] || cannot_run "containers are tested on Linux only (this is $(uname -s))"
    ((EUID == 0)) || cannot_run "needs root (podman as root and debootstrap); run as root or in CI"
    mkdir -p "$CACHE"
    local missing=()
    command -v podman >/dev/null 2>&1 || missing+=(podman)
    command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
    command -v curl >/dev/null 2>&1 || missing+=(curl)
    command -v openssl >/dev/null 2>&1 || missing+=(openssl)
    command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-venv)
    command -v ip >/dev/null 2>&1 || missing+=(iproute2)
    if ((${#missing[@]})); then apt_install "${missing[@]}"; fi
    write_containers_conf ""
    logged podman-info pm info || cannot_run "podman is installed but 'podman info' fails: $(log_reason podman-info)"
    echo "$(podman --version); debootstrap $(dpkg-query -W -f '${Version}' debootstrap 2>/dev/null || echo '?')"
}

# write_containers_conf RUNTIME: podman's settings for this run, in $WORK (podman-compose and `podman system
# service` inherit CONTAINERS_CONF). Nothing under /etc is changed. podman as root raises RLIMIT_NOFILE to its
# maximum by default; where the hard limit is lower, runc fails with "error setting rlimits", so an empty
# default_ulimits keeps podman's own limits. An empty RUNTIME leaves podman's default.
write_containers_conf() {
    {
        printf '# written by .ci/lib/containers.sh for run %s\n[containers]\ndefault_ulimits = []\n' "$RUN_ID"
        if [[ -n $1 ]]; then printf '[engine]\nruntime = "%s"\n' "$1"; fi
    } >"$WORK/containers.conf"
    export CONTAINERS_CONF="$WORK/containers.conf"
}

# ---------------------------------------------------------------------------------------------------- mirror

# debian_mirror: the first http(s) mirror in this machine's apt sources that serves Debian $SUITE: one-line
# entries in /etc/apt/sources.list and sources.list.d/*.list, deb822 stanzas in sources.list.d/*.sources, in
# apt's order. An entry for $SUITE itself comes first; then main-archive entries of other suites (a trixie
# machine's mirror serves bookworm too). Each candidate must answer for dists/$SUITE/Release. GRONA_MOCK_CI_MIRROR
# overrides all of this. (APT_DIR, default /etc/apt, lets the parsing be tried on other files.)
debian_mirror() {
    if [[ -n ${GRONA_MOCK_CI_MIRROR:-} ]]; then
        echo "$GRONA_MOCK_CI_MIRROR"
        return 0
    fi
    local candidates=() candidate
    mapfile -t candidates < <(python3 - "$SUITE" "${APT_DIR:-/etc/apt}" <<'EOF'
import glob, re, sys
suite, apt = sys.argv[1:3]
entries = []  # (types, uris, suites, components) in apt's order

def one_line(path):
    for line in open(path, errors="replace"):
        line = line.split("#", 1)[0].strip()
        m = re.match(r"(deb|deb-src)\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s*(.*)", line)
        if m:
            entries.append(({m[1]}, [m[2]], [m[3]], m[4].split()))

def deb822(path):
    for stanza in re.split(r"\n[ \t]*\n", open(path, errors="replace").read()):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line.startswith("#"):
                continue
            if line[:1] in (" ", "\t") and key:
                fields[key] += " " + line.strip()
                continue
            name, colon, value = line.partition(":")
            if colon:
                key = name.strip().lower()
                fields[key] = value.strip()
        if fields.get("enabled", "yes").lower() != "no" and "uris" in fields:
            entries.append((set(fields.get("types", "").split()), fields["uris"].split(),
                            fields.get("suites", "").split(), fields.get("components", "").split()))

for path in [f"{apt}/sources.list"] + sorted(glob.glob(f"{apt}/sources.list.d/*.list")):
    try: one_line(path)
    except OSError: pass
for path in sorted(glob.glob(f"{apt}/sources.list.d/*.sources")):
    try: deb822(path)
    except OSError: pass

usable = [(uris, suites) for types, uris, suites, components in entries if "deb" in types and "main" in components]
seen = []
for exact in (True, False):
    for uris, suites in usable:
        if exact and suite not in suites: continue
        if not exact and not any(s.isalpha() for s in suites): continue  # no -security, -updates, or paths
        for uri in uris:
            if re.match(r"https?://", uri) and uri not in seen:
                seen.append(uri)
print("\n".join(seen))
EOF
    )
    for candidate in "${candidates[@]}"; do
        [[ -n $candidate ]] || continue
        if curl -fsS --max-time 15 -o /dev/null "${candidate%/}/dists/$SUITE/Release" 2>/dev/null; then
            echo "${candidate%/}"
            return 0
        fi
    done
    return 1
}

# ---------------------------------------------------------------------------------------------------- base

# debian_base: sets BASE_IMAGE, Debian $SUITE minbase with RUNTIME_PACKAGES, made by debootstrap once and kept as
# a tarball in $CACHE (remade after BASE_MAX_AGE_DAYS or when the recipe changes; a lock keeps two runs from
# making it at once), imported into podman when the image is missing. Needs no container runtime.
debian_base() {
    local base_key
    base_key=$(printf '%s\n' "$BASE_RECIPE" "$SUITE" "${RUNTIME_PACKAGES[*]}" | sha256sum | cut -c1-12)
    BASE_TAR="$CACHE/debian-$SUITE-$base_key.tar"
    BASE_IMAGE="localhost/grona-mock-ci/debian:$SUITE-$base_key"
    exec 9>"$CACHE/base.lock"
    flock -w 900 9 || fail "waited 15 minutes for another run's lock on $CACHE/base.lock"
    if [[ -f $BASE_TAR && -z $(find "$BASE_TAR" -mtime "+$BASE_MAX_AGE_DAYS" 2>/dev/null) ]]; then
        echo "cached: $BASE_TAR (made $(date -u -r "$BASE_TAR" '+%Y-%m-%d %H:%M UTC'), remade after $BASE_MAX_AGE_DAYS days)"
    else
        local mirror rootfs packages
        mirror=$(debian_mirror) \
            || cannot_run "no mirror in /etc/apt/sources.list or sources.list.d/ serves Debian $SUITE (set GRONA_MOCK_CI_MIRROR)"
        rootfs="$CACHE/rootfs.$RUN_ID"
        rm -rf "$rootfs"
        echo "debootstrap --variant=minbase $SUITE from $mirror (this machine's apt sources; once, then cached in $BASE_TAR)"
        packages=$(IFS=,; echo "${RUNTIME_PACKAGES[*]}")
        if ! logged debootstrap timeout 900 debootstrap --variant=minbase --include="$packages" "$SUITE" "$rootfs" "$mirror"; then
            rm -rf "$rootfs"
            cannot_run "cannot make the Debian base: debootstrap from $mirror failed (see above)"
        fi
        trim_rootfs "$rootfs"
        tar --numeric-owner -C "$rootfs" -cf "$BASE_TAR.tmp" .
        mv -f "$BASE_TAR.tmp" "$BASE_TAR"
        rm -rf "$rootfs"
        if pm image exists "$BASE_IMAGE"; then pm rmi -f "$BASE_IMAGE" >/dev/null 2>&1 || true; fi
        echo "made $BASE_TAR ($(du -h "$BASE_TAR" | cut -f1))"
    fi
    # Older bases (another recipe) are this cache's too.
    local old
    for old in "$CACHE"/debian-*.tar; do
        [[ $old == "$BASE_TAR" || ! -f $old ]] && continue
        echo "removing an older base: $old"
        rm -f "$old"
    done
    while read -r old; do
        if [[ -n $old && $old != "$BASE_IMAGE" ]] && pm rmi "$old" >/dev/null 2>&1; then
            echo "removed an older base image: $old"
        fi
    done < <(pm images --format '{{.Repository}}:{{.Tag}}' --filter "reference=localhost/grona-mock-ci/debian" 2>/dev/null || true)
    if pm image exists "$BASE_IMAGE"; then
        echo "cached: image $BASE_IMAGE"
    else
        logged import pm import --change 'CMD ["/bin/bash"]' "$BASE_TAR" "$BASE_IMAGE" || fail "podman import $BASE_TAR failed"
        echo "imported $BASE_TAR as $BASE_IMAGE"
    fi
    flock -u 9
}

# trim_rootfs DIR: what debian:bookworm-slim also leaves out: package caches and lists, documentation (but the
# copyright files), manuals, translations, logs. docs/containers.md gives the same commands.
trim_rootfs() {
    local rootfs=$1
    rm -rf "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log \
        "$rootfs"/var/log/apt/* "$rootfs"/debootstrap
    find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
    : >"$rootfs/etc/resolv.conf"
}

# ---------------------------------------------------------------------------------------------------- runtime

# choose_runtime: the first OCI runtime that runs a container and publishes a port here (GRONA_MOCK_CI_RUNTIME
# if set, podman's default, then runc), then the first build isolation that runs a RUN step (podman's default,
# then chroot, which needs no OCI runtime). Sets CONTAINER_RUNTIME and BUILD_ISOLATION, writes containers.conf
# and exports BUILDAH_ISOLATION, so that every later podman, podman-compose and `podman system service` uses
# them. Needs BASE_IMAGE. Calls cannot_run when nothing works.
choose_runtime() {
    local candidates=() labels=() tried=() default_runtime i
    default_runtime=$(pm info --format '{{.Host.OCIRuntime.Name}}' 2>/dev/null || echo unknown)
    if [[ -n ${GRONA_MOCK_CI_RUNTIME:-} ]]; then
        candidates+=("$GRONA_MOCK_CI_RUNTIME")
        labels+=("GRONA_MOCK_CI_RUNTIME")
    fi
    candidates+=("")
    labels+=("podman's default")
    if [[ $default_runtime != runc ]]; then
        candidates+=(runc)
        labels+=("fallback: podman's default refused")
    fi
    for i in "${!candidates[@]}"; do
        local candidate=${candidates[i]} shown=${candidates[i]:-$default_runtime}
        if [[ $candidate == runc ]] && ! command -v runc >/dev/null 2>&1; then
            echo "runc is not installed: installing it to try it"
            apt_install runc
        fi
        write_containers_conf "$candidate"
        if ! silently probe-run pm run --rm --network none --label "grona-mock-ci.run=${RUN_ID}" "$BASE_IMAGE" true; then
            tried+=("$shown: $(log_reason probe-run)")
            continue
        fi
        if ! silently probe-port pm run --rm -p 127.0.0.1::8080 --label "grona-mock-ci.run=${RUN_ID}" "$BASE_IMAGE" true; then
            tried+=("$shown, publishing a port: $(log_reason probe-port)")
            continue
        fi
        CONTAINER_RUNTIME="$(pm info --format '{{.Host.OCIRuntime.Name}}' 2>/dev/null) ($(runtime_version), ${labels[i]})"
        break
    done
    local attempt
    for attempt in "${tried[@]}"; do note "refused: $attempt"; done
    [[ -n $CONTAINER_RUNTIME ]] || cannot_run "no OCI runtime runs a container here (tried: ${tried[*]})"

    # podman build runs the Dockerfile's RUN steps with the runtime (isolation oci) unless told chroot.
    mkdir -p "$WORK/probe-build"
    printf 'FROM %s\nRUN true\n' "$BASE_IMAGE" >"$WORK/probe-build/Containerfile"
    local isolation probe_image="localhost/grona-mock-ci/probe:${RUN_ID}"
    for isolation in "" chroot; do
        if [[ -n $isolation ]]; then export BUILDAH_ISOLATION=$isolation; else unset BUILDAH_ISOLATION; fi
        if silently probe-build pm build --pull=never --no-cache --layers=false -t "$probe_image" "$WORK/probe-build"; then
            if [[ -n $isolation ]]; then BUILD_ISOLATION="$isolation (fallback)"; else BUILD_ISOLATION="oci (podman's default)"; fi
            break
        fi
        local shown_isolation=${isolation:-oci}
        note "refused: build isolation $shown_isolation: $(log_reason probe-build)"
    done
    pm rmi -f "$probe_image" >/dev/null 2>&1 || true
    [[ -n $BUILD_ISOLATION ]] || cannot_run "podman build cannot run a RUN step here, with the runtime or with chroot isolation"
}

# build_image IMAGE BINDIR: the repository's Dockerfile, `--target prebuilt` on BASE_IMAGE, with the grona-mock
# binary found alone in BINDIR; `--format docker` keeps the HEALTHCHECK. Labelled with this run.
build_image() {
    logged podman-build timeout 600 podman build --format docker --layers=false --pull=never \
        --target prebuilt --build-arg "RUN_IMAGE=$BASE_IMAGE" --build-context "grona-mock-bin=$2" \
        --label "grona-mock-ci.run=${RUN_ID}" -t "$1" -f "$REPO/Dockerfile" "$REPO"
}

# runtime_version: the first line the chosen runtime prints of its version ("runc version 1.1.5").
runtime_version() {
    local path
    path=$(pm info --format '{{.Host.OCIRuntime.Path}}' 2>/dev/null)
    "${path:-false}" --version 2>/dev/null | head -n 1 || echo "version unknown"
}

# ---------------------------------------------------------------------------------------------------- binary

# release_binary: the release binary, by release/make.sh --binary (so that this build and the artifacts' are
# one: an up-to-date check for whichever comes second); sets RELEASE_BINARY to its path.
release_binary() {
    command -v swift >/dev/null 2>&1 || fail "swift is not on PATH (the binary is built here: no Swift image can be pulled)"
    RELEASE_BINARY=$(timeout 2100 "$REPO/release/make.sh" --binary 2>"$WORK/swift-build.log") \
        || { tail -n 40 "$WORK/swift-build.log" >&2; fail "the release build failed"; }
    tail -n 1 "$WORK/swift-build.log"
    [[ -x $RELEASE_BINARY ]] || fail "no binary at $RELEASE_BINARY"
}
