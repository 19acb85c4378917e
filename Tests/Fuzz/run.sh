#!/usr/bin/env bash
# Builds grona-mock's libFuzzer + AddressSanitizer targets and runs one of them, or all in turn.
#
#   Tests/Fuzz/run.sh TARGET [SECONDS | --runs N] [libFuzzer flags...]   one target (default 600 s)
#   Tests/Fuzz/run.sh all SECONDS                                          every target, SECONDS each
#   Tests/Fuzz/run.sh SECONDS                                              http-parser, as before
#   Tests/Fuzz/run.sh build                                                only build
#
# Targets: http-parser, json, event-validator, control-bodies (see docs/fuzzing.md).
#
# Environment:
#   FUZZ_SOURCES  the Sources folder to build from (default: this repository's). Point it at a frozen copy
#                 to fuzz while Sources/ is being edited:
#                   mkdir -p /tmp/fuzz-src && git archive HEAD Sources | tar -x -C /tmp/fuzz-src
#                   FUZZ_SOURCES=/tmp/fuzz-src/Sources Tests/Fuzz/run.sh json 600
#   FUZZ_BUILD    where everything is written (default: Tests/Fuzz/build, which git ignores).
#
# Crashing inputs are written to $FUZZ_BUILD/artifacts/TARGET/ as crash-<sha1> (also leak-, timeout-, oom-);
# the working corpus is kept in $FUZZ_BUILD/corpus/TARGET/ between runs; libFuzzer's output goes to
# $FUZZ_BUILD/logs/TARGET.log. The last lines printed give each target's stat::number_of_executed_units.
set -euo pipefail

fuzz_dir="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$fuzz_dir/../.." && pwd)"
sources="$(cd "${FUZZ_SOURCES:-$root/Sources}" && pwd)"
build="${FUZZ_BUILD:-$fuzz_dir/build}"
targets=(http-parser json event-validator control-bodies)

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
target="$1"
shift
if [[ "$target" =~ ^[0-9]+$ ]]; then  # the old form: run.sh SECONDS fuzzes the request parser
    set -- "$target" "$@"
    target=http-parser
fi
if [ "$target" != all ] && [ "$target" != build ] && [[ ! " ${targets[*]} " =~ " $target " ]]; then
    echo "unknown target: $target" >&2
    usage
fi

limit=(-max_total_time=600)
if [ $# -ge 1 ]; then
    case "$1" in
        --runs) [ $# -ge 2 ] || usage; limit=(-runs="$2"); shift 2 ;;
        [0-9]*) limit=(-max_total_time="$1"); shift ;;
    esac
fi
extra=("$@")
if [ "$target" = all ] && [ ${#extra[@]} -gt 0 ]; then
    echo "all takes only SECONDS or --runs N" >&2
    usage
fi

# One executable for every target: the library modules of Sources/ (GronaMockJSON, GronaMockHTTP, GronaMock: every
# folder with Swift files but no main.swift) and this folder's Swift files, compiled together as one module,
# so the targets call internal functions directly, without @testable. For that the files are copied to
# $build/src with their imports of those modules blanked (the line stays, so line numbers in reports hold).
# The C modules are the folders with a module.modulemap. Rebuilt when a source file, this script or the
# sources' location changed.
binary="$build/grona-fuzz"
build_binary() {
    mkdir -p "$build"
    local modules=() includes=() dir
    for dir in "$sources"/*/; do
        dir="${dir%/}"
        if [ -f "$dir/module.modulemap" ]; then
            includes+=(-I "$dir")
        elif [ -f "$dir/include/module.modulemap" ]; then
            # A C target of the package (its header only: the functions are static inline).
            includes+=(-I "$dir/include")
        elif [ "$(basename "$dir")" = GronaMockTesting ]; then
            # The test kit needs SwiftPM's resource bundle (Bundle.module) and no target calls it.
            continue
        elif [ "$(basename "$dir")" = GronaMockDashboardPlugin ]; then
            # SwiftPM's build plugin (it imports PackagePlugin); what it generates is made below instead.
            continue
        elif [ "$(basename "$dir")" = GronaMockPostgres ]; then
            # No target fuzzes the PostgreSQL backend, which would need libpq linked and a server; its names
            # (its own `Schema`) would also clash with the SQLite backend's in one module.
            continue
        elif [ -n "$(find "$dir" -name '*.swift' -print -quit)" ] && [ -z "$(find "$dir" -name main.swift -print -quit)" ]
        then
            modules+=("$(basename "$dir")")
        fi
    done
    local files stamp
    files="$( (for module in "${modules[@]}"; do find "$sources/$module" -name '*.swift'; done
        find "$fuzz_dir" -maxdepth 1 -name '*.swift') | LC_ALL=C sort)"
    local assets="$sources/GronaMock/Dashboard/Assets"
    stamp="$( (echo "$sources ${modules[*]}"; echo "$files" | xargs stat -c '%n %s %Y'; stat -c '%s %Y' "$0"
        find "$assets" "$sources/GronaMockEmbedAssets" -type f | LC_ALL=C sort | xargs stat -c '%n %s %Y') |
        sha1sum | cut -d' ' -f1)"
    if [ -x "$binary" ] && [ "$(cat "$build/grona-fuzz.stamp" 2>/dev/null)" = "$stamp" ]; then
        return
    fi
    echo "building $binary from $sources (${modules[*]} and Tests/Fuzz)" >&2
    local merged copy file copies=()
    merged="$(IFS='|'; echo "${modules[*]}")"
    rm -rf "$build/src"
    while IFS= read -r file; do
        case "$file" in
            "$fuzz_dir"/*) copy="$build/src/Fuzz/${file#"$fuzz_dir"/}" ;;
            *) copy="$build/src/${file#"$sources"/}" ;;
        esac
        mkdir -p "$(dirname "$copy")"
        sed -E "s/^(@_exported +|@testable +)?import +($merged)[[:space:]]*\$//" "$file" >"$copy"
        copies+=("$copy")
    done <<<"$files"
    # The dashboard's files as one Swift file, as the package's build plugin embeds them in GronaMock.
    local embedded="$build/src/GronaMock/DashboardAssets+Files.swift"
    swiftc -O -swift-version 6 "$sources/GronaMockEmbedAssets/main.swift" -o "$build/embed-assets"
    (cd "$assets" && find . -maxdepth 1 -type f ! -name '.*' -printf '%f\n' | LC_ALL=C sort) |
        xargs "$build/embed-assets" "$embedded" "$assets"
    copies+=("$embedded")
    # -swift-version 6 as Package.swift; -package-name for the `package` declarations; lld because the
    # default gold prints a hundred harmless "Cannot export local symbol '__asan_...'" warnings.
    swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name GronaFuzz \
        -package-name grona_mock "${includes[@]}" "${copies[@]}" -lssl -lcrypto -lsqlite3 -lz -use-ld=lld \
        -o "$binary.new"
    mv "$binary.new" "$binary"
    for name in "${targets[@]}"; do ln -sf grona-fuzz "$build/fuzz-$name"; done
    echo "$stamp" >"$build/grona-fuzz.stamp"
}

options_for() {
    case "$1" in
        http-parser) echo "-max_len=4096 -dict=$fuzz_dir/http-parser.dict" ;;
        json) echo "-max_len=16384 -dict=$fuzz_dir/json.dict" ;;
        event-validator) echo "-max_len=16384 -dict=$fuzz_dir/event-validator.dict" ;;
        control-bodies) echo "-max_len=16384 -dict=$fuzz_dir/control-bodies.dict" ;;
    esac
}

run_target() {
    local name="$1"
    local corpus="$build/corpus/$name" artifacts="$build/artifacts/$name/" log="$build/logs/$name.log"
    mkdir -p "$corpus" "$artifacts" "$build/logs"
    cp -n "$fuzz_dir/seeds/$name"/* "$corpus/" 2>/dev/null || true
    local started=$SECONDS status=0
    # The Swift runtime's own crash backtracer would race AddressSanitizer and libFuzzer for the report.
    # Recording a stack for every malloc costs a tenth of the time; replaying a saved input without this
    # setting gives AddressSanitizer's full report.
    # shellcheck disable=SC2046
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}" "$build/fuzz-$name" "$corpus" $(options_for "$name") "${limit[@]}" \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts" \
        ${extra[@]+"${extra[@]}"} 2>&1 | tee "$log" || status=$?
    echo "$name: wall $((SECONDS - started)) s, exit $status" >>"$build/logs/$name.log"
    return 0
}

summary() {
    echo
    echo "== executed units per target =="
    for name in "$@"; do
        local log="$build/logs/$name.log" units crashes
        units="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" 2>/dev/null | tail -1 | grep -o '[0-9]*$' || true)"
        crashes="$(ls "$build/artifacts/$name" 2>/dev/null | wc -l)"
        printf '%-16s %12s executed   %s saved input(s) in %s\n' "$name" "${units:-?}" "$crashes" \
            "$build/artifacts/$name/"
    done
}

build_binary
if [ "$target" = build ]; then
    exit 0
elif [ "$target" = all ]; then
    for name in "${targets[@]}"; do run_target "$name"; done
    summary "${targets[@]}"
else
    run_target "$target"
    summary "$target"
fi
