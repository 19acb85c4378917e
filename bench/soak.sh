#!/usr/bin/env bash
# bench/soak.sh: whether grona-mock ingests as fast after minutes of small commits as in its first seconds.
#
# wrk posts batches of BATCH events (default 1) on CONNECTIONS connections (default 4) for DURATION seconds
# (default 120): the most commits per second the writer makes, so that anything the server does per commit that
# grows with the commits before it shows within minutes rather than hours. Every INTERVAL seconds (default 20) the
# script reads the commits and the events stored (/_mock/metrics) and the resident memory (/proc), and prints them.
#
# The reference is the same run's first interval. Target: the last interval's commits at least 0.80x the first's.
# Found this way (2026-12-01): the live feed's listener, kept as a Mutex's function-typed value, was wrapped in two
# more thunks at every commit; commits per 20 s went 25,973, 5,654, 3,706.
#
# Usage:   bash bench/soak.sh
#          DURATION=600 bash bench/soak.sh             a longer run
#          GRONA_BIN=/path/to/grona-mock bash bench/soak.sh   measure another build
# Exit status: 0 whenever the measurement ran, met or not. Traffic to 127.0.0.1 only; wrk is bounded by timeout.
set -euo pipefail
# lib.sh sets its own DURATION and clears GRONA_BIN, so the caller's are kept first.
REQUESTED_BIN="${GRONA_BIN:-}"
REQUESTED_DURATION="${DURATION:-}"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DURATION="${REQUESTED_DURATION:-120}"
INTERVAL="${INTERVAL:-20}"
BATCH="${BATCH:-1}"
CONNECTIONS="${CONNECTIONS:-4}"
THREADS=1
readonly TARGET_RATIO="0.80"

[[ "$DURATION" =~ ^[1-9][0-9]{0,4}$ ]] || die "DURATION must be a whole number of seconds, got '$DURATION'"
[[ "$INTERVAL" =~ ^[1-9][0-9]{0,3}$ ]] || die "INTERVAL must be a whole number of seconds, got '$INTERVAL'"
((DURATION >= 2 * INTERVAL)) || die "DURATION ($DURATION) must hold at least two intervals of $INTERVAL s"
[[ "$BATCH" =~ ^[1-9][0-9]{0,3}$ ]] || die "BATCH must be a whole number from 1 to 9999, got '$BATCH'"
[[ "$CONNECTIONS" =~ ^[1-9][0-9]{0,3}$ ]] || die "CONNECTIONS must be a whole number from 1 to 9999, got '$CONNECTIONS'"

enter_repo_root
install_traps
want_command wrk wrk
want_command curl curl
install_missing
require_commands wrk curl awk timeout
make_work_dir soak
if [[ -n "$REQUESTED_BIN" ]]; then
    GRONA_BIN="$REQUESTED_BIN"
    [[ -x "$GRONA_BIN" ]] || die "GRONA_BIN=$GRONA_BIN is not an executable"
else
    build_grona
fi

launch_grona --db "$WORK/soak.sqlite"
BASE="http://127.0.0.1:$GRONA_PORT"

# The commits and the events stored so far, from the metrics: "COMMITS EVENTS".
counters() {
    curl -fsS --max-time 10 "$BASE/_mock/metrics" | awk '
        /^grona_event_commit_size_count / { commits = $2 }
        /^grona_events_accepted_total / { events = $2 }
        END { printf "%d %d\n", commits, events }'
}

rss_mib() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$GRONA_PID/status"; }

log "== $(commit_id): batches of $BATCH event(s) on $CONNECTIONS connections for ${DURATION}s, a sample every ${INTERVAL}s"
timeout --kill-after=5 "$((DURATION + 30))" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" \
    -s bench/events/post-batch.lua "$BASE/v1/mobile/events" -- "$BATCH" "soak$$" >"$WORK/wrk.txt" 2>&1 &
CHILD_PID=$!
CHILD_NAME=wrk

printf '%8s %12s %12s %12s %10s\n' seconds commits "commits/s" "events/s" VmRSS
read -r previous_commits previous_events < <(counters)
first_rate="" last_rate=""
for ((elapsed = INTERVAL; elapsed + INTERVAL <= DURATION; elapsed += INTERVAL)); do
    sleep "$INTERVAL"
    kill -0 "$GRONA_PID" 2>/dev/null || die "grona-mock died during the run"
    read -r commits events < <(counters) || die "could not read the metrics"
    rate=$(((commits - previous_commits) / INTERVAL))
    printf '%8d %12d %12d %12d %9sM\n' "$elapsed" "$commits" "$rate" \
        "$(((events - previous_events) / INTERVAL))" "$(rss_mib)"
    [[ -n "$first_rate" ]] || first_rate="$rate"
    last_rate="$rate"
    previous_commits="$commits" previous_events="$events"
done
wait "$CHILD_PID" || true
CHILD_PID=""

ratio="$(awk -v a="$last_rate" -v b="$first_rate" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
log "== results: $(commit_id), $(nproc) cores; the reference is the first interval of the same run"
log "commits/s in the last interval: $last_rate, in the first: $first_rate, ratio ${ratio}x"
log "target: the last interval at least ${TARGET_RATIO}x the first"
log "soak: $(verdict "$ratio")"
