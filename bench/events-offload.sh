#!/usr/bin/env bash
# bench/events-offload.sh: does decoding large event batches off the event loops help the small ones?
#
# Two wrk processes post to POST /v1/mobile/events at once, each paced (every connection waits after each answer)
# so that the server is busy but not saturated: LARGE_CONNECTIONS connections send gzip batches of 500 events near
# the 512 KiB limit (made beforehand by bench/events/large-batches.py, about 85 KiB each on the wire), and
# SMALL_CONNECTIONS connections send batches of SMALL_BATCH events (bench/events/post-paced.lua, plain JSON, about
# 250 bytes an event). The figure is the small batches' p99, with large batches gunzipped, parsed and validated on
# the event loop that read them (`off`, the reference) and on a pool of their own (`on`: `--events-offload-bytes
# THRESHOLD`). A small batch sharing a loop with a large one waits for it when it is decoded there.
#
# The two settings are measured in ROUNDS interleaved rounds (the order flips every round), each run on a fresh
# server and database; each round gives the ratio on/off of the small batches' p99, and the verdict takes the
# median, so that a burst of noise (another build on the machine) spoils one round rather than the figure.
#
# Run from anywhere:   bash bench/events-offload.sh
# Environment:         DURATION           seconds per measured run (default 10)
#                      WARMUP             seconds of load before it (default 2)
#                      ROUNDS             interleaved rounds (default 5)
#                      THRESHOLD          --events-offload-bytes of the `on` runs (default 65536)
#                      SMALL_BATCH        events per small batch (default 10)
#                      SMALL_CONNECTIONS  connections sending small batches (default 16)
#                      SMALL_PACE         ms each waits after an answer (default 20)
#                      LARGE_CONNECTIONS  connections sending large batches (default 2)
#                      LARGE_PACE         ms each waits after an answer (default 100)
#                      LARGE_BODIES       distinct large bodies, sent in turn (default 400)
#                      GRONA_BIN          measure this grona-mock binary instead of building one
#
# Exit status: 0 whenever the measurement ran (a benchmark reports, it does not gate); non-zero when something
# could not be installed, built or started. Traffic goes to 127.0.0.1 only; every run is bounded in time.

set -euo pipefail
REQUESTED_BIN="${GRONA_BIN:-}"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS="${ROUNDS:-5}"
THRESHOLD="${THRESHOLD:-65536}"
SMALL_BATCH="${SMALL_BATCH:-10}"
SMALL_CONNECTIONS="${SMALL_CONNECTIONS:-16}"
SMALL_PACE="${SMALL_PACE:-20}"
LARGE_CONNECTIONS="${LARGE_CONNECTIONS:-2}"
LARGE_PACE="${LARGE_PACE:-100}"
LARGE_BODIES="${LARGE_BODIES:-400}"
EVENTS_PATH="/v1/mobile/events"
LARGE_PID=""
# wrk's -t and -c of the small batches' runs, which lib.sh's wrk functions read.
THREADS=1
CONNECTIONS="$SMALL_CONNECTIONS"

declare -A SMALL_P50=() SMALL_P99=() SMALL_RPS=() LARGE_RPS=() LARGE_P99=() LOAD=() PROBLEM=()

cleanup_more() { stop_process "$LARGE_PID" "wrk (large batches)"; }

check_settings() {
    check_durations
    local name
    for name in ROUNDS THRESHOLD SMALL_BATCH SMALL_CONNECTIONS LARGE_CONNECTIONS LARGE_BODIES; do
        [[ "${!name}" =~ ^[1-9][0-9]*$ ]] || die "$name must be a positive whole number, got '${!name}'"
    done
    for name in SMALL_PACE LARGE_PACE; do
        [[ "${!name}" =~ ^[0-9]+$ ]] || die "$name must be a whole number of milliseconds, got '${!name}'"
    done
}

ensure_tools() {
    want_command wrk wrk
    want_command curl curl
    want_command python3 python3
    install_missing
    require_commands wrk curl python3 timeout
}

# The status of one POST of FILE (gzip when it ends in .gz) to the running server.
post_status() {
    local file="$1" encoding=()
    [[ "$file" == *.gz ]] && encoding=(-H "Content-Encoding: gzip")
    rm -f "$WORK/answer.json"
    curl -sS -o "$WORK/answer.json" -w '%{http_code}' --max-time 10 -H "Content-Type: application/json" \
        "${encoding[@]}" --data-binary "@$file" "http://127.0.0.1:$GRONA_PORT$EVENTS_PATH" 2>"$WORK/curl.err"
}

# One run: measure MODE ROUND, with MODE off (every batch on its loop) or on (--events-offload-bytes THRESHOLD).
measure() {
    local mode="$1" round="$2" key="$1,$2" options=() status tag
    [[ "$mode" == on ]] && options=(--events-offload-bytes "$THRESHOLD")
    launch_grona --db "$WORK/events.sqlite" "${options[@]}"
    # One large batch first: its 500 events must be accepted, or what follows measures refusals.
    await_status status post_status "$WORK/large/1.json.gz"
    if [[ "$status" != 200 ]] || ! grep -q '"accepted":500' "$WORK/answer.json" 2>/dev/null; then
        die "a large batch was not accepted ($status): $(head -c 300 "$WORK/answer.json" 2>/dev/null)" \
            "$(cat "$WORK/curl.err" 2>/dev/null)"
    fi
    tag="o${round}${mode}$$"
    timeout --kill-after=5 "$((WARMUP + DURATION + 30))" wrk -t1 -c"$LARGE_CONNECTIONS" \
        -d"$((WARMUP + DURATION + 1))s" --latency -s bench/events/post-large.lua "http://127.0.0.1:$GRONA_PORT" \
        -- "$WORK/large" "$LARGE_BODIES" "$LARGE_PACE" >"$WORK/large-$mode-$round.txt" 2>&1 &
    LARGE_PID=$!
    local small=(-s bench/events/post-paced.lua "http://127.0.0.1:$GRONA_PORT" -- "$SMALL_BATCH" "$tag" "$SMALL_PACE")
    wrk_warmup "$mode, round $round" "$WORK/warmup.txt" "${small[@]}"
    wrk_measure "$WORK/small-$mode-$round.txt" "${small[@]}"
    wait "$LARGE_PID" || true
    LARGE_PID=""
    stop_grona
    rm -f "$WORK"/events.sqlite*
    SMALL_P50[$key]="$(wrk_figure "$WORK/small-$mode-$round.txt" p50)"
    SMALL_P99[$key]="$(wrk_figure "$WORK/small-$mode-$round.txt" p99)"
    SMALL_RPS[$key]="$(wrk_figure "$WORK/small-$mode-$round.txt" rps)"
    LARGE_RPS[$key]="$(wrk_figure "$WORK/large-$mode-$round.txt" rps)"
    LARGE_P99[$key]="$(wrk_figure "$WORK/large-$mode-$round.txt" p99)"
    LOAD[$key]="$(cut -d' ' -f1 /proc/loadavg)"
    PROBLEM[$key]="$(
        printf '%s\n' "$(wrk_figure "$WORK/small-$mode-$round.txt" errors)" \
            "$(wrk_figure "$WORK/large-$mode-$round.txt" errors)" | { grep -v '^$' || true; } | paste -sd ';' -
    )"
    log "   $mode, round $round: small p50 ${SMALL_P50[$key]} p99 ${SMALL_P99[$key]} (${SMALL_RPS[$key]} req/s);" \
        "large ${LARGE_RPS[$key]} req/s p99 ${LARGE_P99[$key]}; load ${LOAD[$key]}${PROBLEM[$key]:+; ${PROBLEM[$key]}}"
}

# The median of the numbers given (the lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $0 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

report() {
    local round mode key ratios=() problems=()
    declare -A p99s=() p50s=() larges=()
    echo
    echo "== results: small batches of $SMALL_BATCH events ($SMALL_CONNECTIONS connections, ${SMALL_PACE} ms pace)" \
        "beside gzip batches of 500 events near 512 KiB ($LARGE_CONNECTIONS connections, ${LARGE_PACE} ms pace)," \
        "${DURATION} s runs, $ROUNDS interleaved rounds, $(nproc) cores; on = --events-offload-bytes $THRESHOLD"
    printf '%-6s %-4s %10s %10s %12s %12s %10s %6s\n' round mode "small p50" "small p99" "small req/s" \
        "large req/s" "large p99" load
    for ((round = 1; round <= ROUNDS; round++)); do
        for mode in off on; do
            key="$mode,$round"
            printf '%-6s %-4s %10s %10s %12s %12s %10s %6s\n' "$round" "$mode" "${SMALL_P50[$key]}" \
                "${SMALL_P99[$key]}" "${SMALL_RPS[$key]}" "${LARGE_RPS[$key]}" "${LARGE_P99[$key]}" "${LOAD[$key]}"
            p99s[$mode]+="${SMALL_P99[$key]%ms} "
            p50s[$mode]+="${SMALL_P50[$key]%ms} "
            larges[$mode]+="${LARGE_RPS[$key]} "
            [[ -z "${PROBLEM[$key]}" ]] || problems+=("$mode round $round: ${PROBLEM[$key]}")
        done
        ratios+=("$(awk -v a="${SMALL_P99[on,$round]%ms}" -v b="${SMALL_P99[off,$round]%ms}" \
            'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')")
    done
    for mode in off on; do
        # shellcheck disable=SC2086  # the lists are space-separated numbers
        echo "median ($mode): small p50 $(median ${p50s[$mode]})ms, small p99 $(median ${p99s[$mode]})ms," \
            "large $(median ${larges[$mode]}) req/s"
    done
    echo "small p99 on/off per round: ${ratios[*]}"
    echo "ratio on/off of the small batches' p99 (median of $ROUNDS rounds): $(median "${ratios[@]}")x" \
        "(below 1: large batches off the loops make the small ones' p99 lower)"
    ((${#problems[@]} == 0)) || echo "errors: ${problems[*]}"
}

prepare_grona() {
    if [[ -n "$REQUESTED_BIN" ]]; then
        GRONA_BIN="$REQUESTED_BIN"
        [[ -x "$GRONA_BIN" ]] || die "GRONA_BIN=$GRONA_BIN is not an executable"
    else
        build_grona
    fi
}

main() {
    install_traps
    enter_repo_root
    check_settings
    ensure_tools
    prepare_grona
    make_work_dir events-offload
    log "== making $LARGE_BODIES large batches"
    python3 bench/events/large-batches.py "$WORK/large" "$LARGE_BODIES" "x$$" || die "could not make the large batches"
    log "== commit $(commit_id), binary $GRONA_BIN, $(wrk_version), $(nproc) cores, load average $(load_average)"
    local round
    for ((round = 1; round <= ROUNDS; round++)); do
        if ((round % 2)); then
            measure off "$round"
            measure on "$round"
        else
            measure on "$round"
            measure off "$round"
        fi
    done
    report
}

load_average() { cut -d' ' -f1 /proc/loadavg; }

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
