#!/usr/bin/env bash
# bench/ui-viewers.sh: what ten dashboard viewers of the live stream (GET /_mock/events/live) cost ingestion.
#
# One grona-mock (release build, SQLite in $WORK) takes a simulated SDK fleet from `grona-mock load` (an open model,
# batches of 50, gzipped) at RATE visits per second for DURATION seconds, ROUNDS times with no viewer and ROUNDS
# times with VIEWERS viewers connected, interleaved (none, ten, ten, none, ...), so that drift of the machine falls
# on both sides alike. A viewer is `curl -sN` reading the whole unfiltered stream to /dev/null (its response head,
# kept with -D, says it is connected). The figures are the events acknowledged per second and the events endpoint's
# p99 from the load tool's HDR histogram (from each batch's intended start: no coordinated omission); the verdict
# is the median of each side and their ratio. The viewers run on the same machine and take CPU of their own, as a
# dashboard in a browser beside a mock would.
#
# Run from anywhere:   bash bench/ui-viewers.sh
# Environment:         DURATION   seconds per measured run (default 10)
#                      ROUNDS     runs per side (default 3)
#                      RATE       visits per second of the fleet (default 1000, about 2,500 events/s)
#                      INSTALLS   simulated installs (default 500)
#                      VIEWERS    live viewers on the "with" side (default 10)
#                      GRONA_BIN  measure this grona-mock binary instead of building one
#
# Exit status: 0 whenever the measurement ran (a benchmark reports, it does not gate); non-zero when something could
# not be built or started. Traffic goes to 127.0.0.1 only; every run and every wait is bounded in time.

set -euo pipefail
REQUESTED_BIN="${GRONA_BIN:-}"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS="${ROUNDS:-3}"
RATE="${RATE:-1000}"
INSTALLS="${INSTALLS:-500}"
VIEWERS="${VIEWERS:-10}"
VIEWER_PIDS=()
declare -a NONE_EPS=() NONE_P99=() WITH_EPS=() WITH_P99=()

cleanup_more() { stop_viewers; }

# Starts VIEWERS readers of the stream and waits (at most 10 s) until each has its response head.
start_viewers() {
    local i
    for ((i = 0; i < VIEWERS; i++)); do
        rm -f "$WORK/viewer-$i"
        # Its response head (-D, written as soon as it arrives) marks it connected; the stream goes to /dev/null.
        curl -sN --max-time "$((DURATION + 120))" -D "$WORK/viewer-$i" -o /dev/null "$GRONA_BASE/_mock/events/live" &
        VIEWER_PIDS+=("$!")
    done
    for ((i = 0; i < 100; i++)); do
        local ready=0 v
        for ((v = 0; v < VIEWERS; v++)); do
            grep -q '^HTTP/1.1 200' "$WORK/viewer-$v" 2>/dev/null && ready=$((ready + 1))
        done
        ((ready == VIEWERS)) && return 0
        sleep 0.1
    done
    die "the viewers did not connect within 10 s"
}

stop_viewers() {
    local pid
    for pid in "${VIEWER_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    VIEWER_PIDS=()
}

json_figure() {
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); v = eval(sys.argv[2]); print(v if v is not None else "")' \
        "$1" "$2"
}

# One measured run: measure LABEL ROUND. Appends to the LABEL side's arrays.
measure() {
    local label="$1" round="$2" report="$WORK/$1-$2.json"
    [[ "$label" == with ]] && start_viewers
    run_child "grona-mock load" timeout --kill-after=5 "$((DURATION + 90))" "$GRONA_BIN" load --url "$GRONA_BASE" \
        --workspace acme-market --installs "$INSTALLS" --rate "$RATE" --duration "${DURATION}s" --ramp 1s \
        --batch-size 50 --seed "$((16 + round))" --run-tag "r$round-$label" --quiet --json "$report" \
        >"$report.txt" 2>&1 || true
    [[ "$label" == with ]] && stop_viewers
    [[ -s "$report" ]] || { cat "$report.txt" >&2; die "grona-mock load wrote no report"; }
    local eps p99 errors
    eps="$(json_figure "$report" 'round(r["events"]["perSecond"])')"
    p99="$(json_figure "$report" 'r["endpoints"]["events"]["latencyMs"]["p99"]')"
    errors="$(json_figure "$report" 'r["http"]["errors"]')"
    if [[ "$label" == with ]]; then
        WITH_EPS+=("$eps")
        WITH_P99+=("$p99")
    else
        NONE_EPS+=("$eps")
        NONE_P99+=("$p99")
    fi
    log "   round $round, $([[ "$label" == with ]] && echo "$VIEWERS viewers" || echo "no viewer"):" \
        "$eps events/s, events p99 ${p99} ms, $errors failed requests, load average $(load_average)"
}

load_average() { cut -d' ' -f1 /proc/loadavg; }

median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $0 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

main() {
    enter_repo_root
    install_traps
    check_durations
    [[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a whole number of at least 1"
    [[ "$VIEWERS" =~ ^[1-9][0-9]*$ ]] || die "VIEWERS must be a whole number of at least 1"
    want_command curl curl
    want_command python3 python3
    install_missing
    if [[ -n "$REQUESTED_BIN" ]]; then GRONA_BIN="$REQUESTED_BIN"; else build_grona; fi
    make_work_dir ui-viewers
    launch_grona --db "$WORK/events.sqlite"
    GRONA_BASE="http://127.0.0.1:$GRONA_PORT"
    log "== grona-mock on 127.0.0.1:$GRONA_PORT (commit $(commit_id), $(nproc) cores); fleet: $INSTALLS installs," \
        "$RATE visits/s, ${DURATION}s per run, $ROUNDS rounds per side"
    local round
    for ((round = 1; round <= ROUNDS; round++)); do
        # Interleaved, and the order alternates, so neither side always runs on the warmer database.
        if ((round % 2)); then
            measure none "$round"
            measure with "$round"
        else
            measure with "$round"
            measure none "$round"
        fi
    done
    local none_eps with_eps none_p99 with_p99
    none_eps="$(median "${NONE_EPS[@]}")"
    with_eps="$(median "${WITH_EPS[@]}")"
    none_p99="$(median "${NONE_P99[@]}")"
    with_p99="$(median "${WITH_P99[@]}")"
    log
    log "== median of $ROUNDS runs per side"
    printf '%-12s %12s %14s\n' "" "events/s" "events p99 ms"
    printf '%-12s %12s %14s\n' "no viewer" "$none_eps" "$none_p99"
    printf '%-12s %12s %14s\n' "$VIEWERS viewers" "$with_eps" "$with_p99"
    awk -v a="$with_eps" -v b="$none_eps" -v c="$with_p99" -v d="$none_p99" 'BEGIN {
        printf "ratio (with / without): events/s %.3f, p99 %.3f\n", (b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
}

main "$@"
