#!/usr/bin/env bash
# bench/memory.sh: grona-mock's resident memory while it stores EVENTS events (default 10,000,000), with the
# inspection API used in between as a test suite or a dashboard would use it. Target (issue 14): VmRSS under
# 150 MiB throughout, and flat: the last sample under load at most 20 % above the first one past 1,000,000 events.
#
# In order:
#   1. grona-mock starts on a fresh database; acme-market is cloned as `bench-small`;
#   2. wrk stores batches of 100 events into acme-market (bench/events/post-batch.lua, 1 thread, 16 connections),
#      while `grona-mock load` drives a small simulated fleet (20 visits/s) at bench-small, so that bench-small
#      holds a realistic, growing stream;
#   3. every SAMPLE_EVERY seconds: VmRSS from /proc, the events stored (grona_events_accepted_total), then the
#      requests in between: the next page of GET /_mock/events?workspace=acme-market&limit=1000 (walking the
#      whole store page by page with its cursor), GET /_mock/events/violations?workspace=bench-small, and every
#      tenth sample GET /_mock/events/summary?workspace=acme-market (an aggregate over every stored row);
#   4. a line at each million events, then, once EVENTS are stored: load stopped, the same requests once more on
#      an idle server, VmRSS after them and the peak (VmHWM); the verdict.
#
# The violations requests check bench-small, not acme-market: a contract check over ten million events reads them
# all, and making that check linear and bounded in memory is its own issue (18). The listing and the summary do
# run over the whole store.
#
# Usage:   bash bench/memory.sh
#          EVENTS=2000000 bash bench/memory.sh          a shorter run (about 30 s of load)
#          GRONA_BIN=/path/to/grona-mock bash bench/memory.sh   measure another build
# Needs about 700 bytes of disk per event in $TMPDIR (7 GB for 10M), checked first. Traffic to 127.0.0.1 only;
# every wait is bounded (TIMEOUT seconds for the whole fill, default 1800).
set -euo pipefail
REQUESTED_BIN="${GRONA_BIN:-}"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

EVENTS="${EVENTS:-10000000}"
EVENTS="${EVENTS//[,_]/}"
TIMEOUT="${TIMEOUT:-1800}"
SAMPLE_EVERY="${SAMPLE_EVERY:-2}"
readonly RSS_LIMIT_MIB=150
readonly FLAT_TOLERANCE="0.20"
readonly BATCH=100
THREADS=1
CONNECTIONS=16
LOAD_PID=""

cleanup_more() {
    if [[ -n "$LOAD_PID" ]]; then stop_process "$LOAD_PID" "grona-mock load"; fi
}

# Resident memory of grona-mock in KiB (VmRSS, or VmHWM for the peak).
rss_kb() { awk -v f="${1:-VmRSS}:" '$1 == f { print $2 }' "/proc/$GRONA_PID/status" 2>/dev/null || true; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
thousands() { sed -E ':a; s/^([0-9]+)([0-9]{3})/\1,\2/; ta' <<<"$1"; }

stored_events() {
    curl -fsS --max-time 10 "$BASE/_mock/metrics" | awk '/^grona_events_accepted_total / { printf "%d", $2 }'
}

# GET PATH; prints "<status> <milliseconds> <bytes>" and leaves the body in $WORK/last.json.
timed_get() {
    curl -s --max-time 300 -o "$WORK/last.json" -w '%{http_code} %{time_total} %{size_download}' "$BASE$1" |
        awk '{ printf "%s %.1f %s", $1, $2 * 1000, $3 }'
}

NEXT_CURSOR=""
# The next page of acme-market's events, oldest first, following the cursor across samples; back to the first
# page once the walk reaches the newest event.
next_page() {
    local path="/_mock/events?workspace=acme-market&limit=1000" answer
    [[ -n "$NEXT_CURSOR" ]] && path+="&cursor=$NEXT_CURSOR"
    answer="$(timed_get "$path")"
    NEXT_CURSOR="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("nextCursor") or "")' \
        "$WORK/last.json" 2>/dev/null || true)"
    echo "$answer"
}

violations() {
    local answer checked
    answer="$(timed_get "/_mock/events/violations?workspace=bench-small")"
    checked="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["checkedEvents"])' \
        "$WORK/last.json" 2>/dev/null || echo "?")"
    echo "$answer $checked"
}

main() {
    enter_repo_root
    [[ "$EVENTS" =~ ^[1-9][0-9]*$ ]] && ((EVENTS >= 10 * BATCH)) || die "EVENTS must be a whole number, at least 1000"
    want_command wrk wrk
    want_command curl curl
    want_command python3 python3
    install_missing
    require_commands wrk curl python3
    install_traps
    if [[ -n "$REQUESTED_BIN" ]]; then GRONA_BIN="$REQUESTED_BIN"; else build_grona; fi
    make_work_dir memory
    local need avail
    need=$((EVENTS * 700))
    avail="$(df --output=avail -B1 "$WORK" | tail -n 1 | tr -d ' ')"
    if [[ "$avail" =~ ^[0-9]+$ ]] && ((avail < need)); then
        die "storing $(thousands "$EVENTS") events needs about $((need >> 20)) MiB in $WORK; $((avail >> 20)) MiB are free"
    fi

    launch_grona --db "$WORK/memory.sqlite" --event-loops 2
    BASE="http://127.0.0.1:$GRONA_PORT"
    local status
    await_status status curl -s -o /dev/null -w '%{http_code}' -X POST "$BASE/_mock/workspaces/acme-market/clone" \
        -d '{"workspaceKey": "bench-small"}'
    [[ "$status" == 201 ]] || die "cloning acme-market as bench-small answered $status"
    log "== $(commit_id): storing $(thousands "$EVENTS") events, with listings, summaries and violations in between"
    log "   rss at start: $(mib "$(rss_kb)") MiB"

    CHILD_NAME=wrk
    timeout --kill-after=5 "$((TIMEOUT + 30))" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${TIMEOUT}s" \
        -s bench/events/post-batch.lua "$BASE" -- "$BATCH" "mem$$" >"$WORK/wrk.txt" 2>&1 &
    CHILD_PID=$!
    "$GRONA_BIN" load --url "$BASE" --workspace bench-small --installs 200 --rate 20 --duration "${TIMEOUT}s" \
        --quiet >"$WORK/load.txt" 2>&1 </dev/null &
    LOAD_PID=$!

    local step=1000000 start now stored=0 rss next sample=0 page viol summary="" base_kb="" peak_kb last_kb
    ((EVENTS >= 2 * step)) || step=$((EVENTS / 5))
    next="$step"
    start="$(date +%s.%N)"
    printf '   %12s %6s %9s %9s %22s %26s %14s\n' events seconds events/s VmRSS "listing (ms, bytes)" \
        "violations (ms, checked)" "summary (ms)"
    while :; do
        sleep "$SAMPLE_EVERY"
        kill -0 "$GRONA_PID" 2>/dev/null || die "grona-mock died during the run"
        sample=$((sample + 1))
        page="$(next_page)"
        viol="$(violations)"
        if ((sample % 10 == 0)); then summary="$(timed_get "/_mock/events/summary?workspace=acme-market" | cut -d' ' -f1,2)"; fi
        rss="$(rss_kb)"
        stored="$(stored_events)" || die "could not read the metrics"
        now="$(date +%s.%N)"
        if ((stored >= next)); then
            [[ -n "$base_kb" ]] || base_kb="$rss"
            printf '   %12s %6.0f %9.0f %9s %22s %26s %14s\n' "$(thousands "$stored")" \
                "$(seconds_between "$start" "$now")" \
                "$(awk -v s="$stored" -v a="$start" -v b="$now" 'BEGIN { print s / (b - a) }')" \
                "$(mib "$rss")M" "$(cut -d' ' -f1-3 <<<"$page")" "$(cut -d' ' -f1,2,4 <<<"$viol")" "${summary:--}"
            while ((next <= stored)); do next=$((next + step)); done
        fi
        last_kb="$rss"
        ((stored >= EVENTS)) && break
        kill -0 "$CHILD_PID" 2>/dev/null || die "wrk stopped before $(thousands "$EVENTS") events were stored"
        awk -v a="$start" -v b="$now" -v t="$TIMEOUT" 'BEGIN { exit !(b - a > t) }' &&
            die "not $(thousands "$EVENTS") events within ${TIMEOUT}s"
    done
    stop_process "$CHILD_PID" wrk
    CHILD_PID=""
    stop_process "$LOAD_PID" "grona-mock load"
    LOAD_PID=""

    log "== idle: the same requests once more"
    log "   listing: $(next_page)"
    log "   violations (bench-small): $(violations)"
    log "   summary (acme-market): $(timed_get "/_mock/events/summary?workspace=acme-market")"
    local idle_kb
    idle_kb="$(rss_kb)"
    peak_kb="$(rss_kb VmHWM)"

    echo
    echo "== results: $(commit_id), $(nproc) cores, $(thousands "$(stored_events)") events stored in" \
        "$(seconds_between "$start" "$now" | cut -d. -f1)s"
    echo "VmRSS: $(mib "$base_kb") MiB past $(thousands "$step") events, $(mib "$last_kb") MiB at the last" \
        "sample under load, $(mib "$idle_kb") MiB idle after the requests, peak (VmHWM) $(mib "$peak_kb") MiB"
    echo "target: VmRSS under $RSS_LIMIT_MIB MiB throughout, the last sample within 20 % of the first past $(thousands "$step")"
    local problem=""
    above "$(mib "$peak_kb")" "$RSS_LIMIT_MIB" && problem="peak over $RSS_LIMIT_MIB MiB"
    above "$last_kb" "$(awk -v b="$base_kb" -v t="$FLAT_TOLERANCE" 'BEGIN { print b * (1 + t) }')" &&
        problem="${problem:+$problem; }grew more than 20 %"
    if [[ -z "$problem" ]]; then echo "memory: PASS"; else echo "memory: BELOW TARGET ($problem)"; fi
}

main "$@"
