#!/usr/bin/env bash
# bench/cluster.sh: events ingested per second through POST /v1/mobile/events with one and with two grona-mock
# instances on one PostgreSQL, against PostgreSQL's own bulk load of the same rows (COPY, and one multi-row
# INSERT ... SELECT) measured in the same run, and against one instance on the SQLite backend (issue 15).
#
# In order, each against a fresh database, wrk with bench/events/post-batch.lua (unique event ids, batches of
# BATCH) for DURATION seconds after WARMUP seconds of unmeasured load:
#   1. one instance on SQLite (--db), the default backend;
#   2. one instance on PostgreSQL (--store), a throwaway cluster from Examples/cluster/pg-throwaway;
#   3. two instances on another database of the same cluster, each driven by its own wrk with half the
#      connections (no balancer in the way: nginx's CPU would be taken from the instances on a small machine;
#      Examples/cluster/run puts one in front for people);
#   4. the reference: the rows the two instances stored, copied out (COPY ... TO, binary) and loaded into an
#      empty table made LIKE events (its unique index included) with COPY ... FROM, then again with one
#      INSERT ... SELECT, each timed, synchronous_commit on as for grona-mock.
# Every run checks that what was acknowledged is stored (a 200 means committed). The p99 is wrk's, per request.
#
# Run from anywhere:   bash bench/cluster.sh
# Environment:         DURATION     seconds per measured run (default 10)
#                      WARMUP       seconds of unmeasured load before each (default 2)
#                      CONNECTIONS  wrk connections in all (default 32)
#                      BATCH        events per request (default 50)
#                      GRONA_BIN    measure this grona-mock binary instead of building one
#
# Exit status: 0 whenever the measurement ran (a benchmark reports, it does not gate). Traffic goes to 127.0.0.1
# only, and every wait and run is bounded in time.

set -euo pipefail
REQUESTED_BIN="${GRONA_BIN:-}"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONNECTIONS="${CONNECTIONS:-32}"
BATCH="${BATCH:-50}"
readonly EVENTS_PATH="/v1/mobile/events"
readonly SCRIPT="bench/events/post-batch.lua"
PG_DIR=""
PG_URL=""
EXTRA_PIDS=()

cleanup_more() {
    local pid
    for pid in "${EXTRA_PIDS[@]}"; do stop_process "$pid" "a second process"; done
    if [[ -n "$PG_DIR" ]]; then Examples/cluster/pg-throwaway stop "$PG_DIR" >/dev/null 2>&1 || true; fi
}

# The cluster's URL for database $1.
db_url() { printf '%s' "$PG_URL" | sed "s#/postgres?#/$1?#"; }

# One psql command on database $1, unaligned, quiet, stopping at the first error: psql_on DB SQL.
psql_on() { timeout --kill-after=5 600 psql "$(db_url "$1")" -v ON_ERROR_STOP=1 -qtAc "$2"; }

now() { date +%s.%N; }

# Starts an instance with ARGS, keeping any earlier one running (for the two-instance run).
start_instance() {
    [[ -z "$GRONA_PID" ]] || EXTRA_PIDS+=("$GRONA_PID")
    launch_grona "$@"
    log "== grona-mock on 127.0.0.1:$GRONA_PORT (pid $GRONA_PID): $*"
}

stop_instances() {
    stop_grona
    local pid
    for pid in "${EXTRA_PIDS[@]}"; do stop_process "$pid" grona-mock; done
    EXTRA_PIDS=()
}

# wrk against each port at once, CONNECTIONS split between them; sets RATE (events/s, the sum) and P99 (the
# largest of the runs): load SECONDS NAME PORT...
load() {
    local seconds="$1" name="$2"
    shift 2
    local share=$((CONNECTIONS / $#)) port pids=() reports=() index=0
    for port in "$@"; do
        index=$((index + 1))
        local report="$WORK/wrk-$name-$index.txt"
        timeout --kill-after=5 "$((seconds + 30))" wrk -t1 -c"$share" -d"${seconds}s" --latency -s "$SCRIPT" \
            "http://127.0.0.1:$port$EVENTS_PATH" -- "$BATCH" "$name$index-$(date +%s)" >"$report" &
        pids+=($!)
        EXTRA_PIDS+=($!)
        reports+=("$report")
    done
    local pid
    for pid in "${pids[@]}"; do wait "$pid" || die "wrk failed ($name)"; done
    EXTRA_PIDS=("${EXTRA_PIDS[@]:0:${#EXTRA_PIDS[@]}-${#pids[@]}}")
    RATE=0
    P99=0
    REQUESTS=0
    for report in "${reports[@]}"; do
        local rps p99 errors
        rps="$(wrk_figure "$report" rps)"
        p99="$(wrk_figure "$report" p99)"
        errors="$(wrk_figure "$report" errors)"
        [[ -z "$errors" ]] || log "warning: $name: $errors"
        RATE="$(awk -v a="$RATE" -v r="$rps" -v b="$BATCH" 'BEGIN { printf "%.0f", a + r * b }')"
        P99="$(awk -v a="$P99" -v p="${p99%ms}" 'BEGIN { print (p + 0 > a + 0) ? p : a }')"
        REQUESTS=$((REQUESTS + $(wrk_figure "$report" requests)))
    done
}

# Warm-up then the measured run: measure NAME COUNT-COMMAND PORT... Sets RATE and P99, checks what is stored.
measure() {
    local name="$1" count="$2"
    shift 2
    ((WARMUP == 0)) || load "$WARMUP" "w$name" "$@"
    sleep 0.5
    local before after
    before="$($count)"
    load "$DURATION" "m$name" "$@"
    sleep 0.5
    after="$($count)"
    local acknowledged=$((REQUESTS * BATCH)) stored=$((after - before))
    ((stored >= acknowledged)) || log "warning: $name: $stored events stored of $acknowledged acknowledged"
    log "== $name: $RATE events/s, p99 ${P99} ms ($acknowledged acknowledged, $stored stored)"
}

count_sqlite() { sqlite3 -cmd '.timeout 10000' "$WORK/sqlite.sqlite" 'SELECT coalesce(max(seq), 0) FROM events'; }
count_one() { psql_on one 'SELECT count(*) FROM events'; }
count_two() { psql_on two 'SELECT count(*) FROM events'; }

# Loads the rows of database `two` into an empty copy of its events table, by COPY and by INSERT ... SELECT;
# sets COPY_RATE, INSERT_RATE (rows/s) and ROWS.
reference() {
    local columns="workspace_key, event_id, type, timestamp, received_at, corrected_timestamp, install_id,"
    columns+=" customer_id, session_id, visit_id, campaign_id, variant_id, arm, placement, demo, config_revision,"
    columns+=" total_minor, json"
    psql_on two "\\copy (SELECT $columns FROM events ORDER BY seq) TO '$WORK/rows.bin' (FORMAT binary)"
    ROWS="$(count_two)"
    psql_on two "CREATE TABLE ref_events (LIKE events INCLUDING ALL)"
    local start end
    start="$(now)"
    psql_on two "\\copy ref_events ($columns) FROM '$WORK/rows.bin' (FORMAT binary)"
    end="$(now)"
    COPY_RATE="$(awk -v n="$ROWS" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", n / (b - a) }')"
    psql_on two "TRUNCATE ref_events"
    start="$(now)"
    psql_on two "INSERT INTO ref_events ($columns) SELECT $columns FROM events ORDER BY seq"
    end="$(now)"
    INSERT_RATE="$(awk -v n="$ROWS" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", n / (b - a) }')"
    log "== PostgreSQL alone, the same $ROWS rows: COPY $COPY_RATE rows/s, INSERT ... SELECT $INSERT_RATE rows/s"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

main() {
    enter_repo_root
    install_traps
    for tool in wrk psql sqlite3 curl; do command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"; done
    make_work_dir cluster
    if [[ -n "$REQUESTED_BIN" ]]; then GRONA_BIN="$REQUESTED_BIN"; else build_grona; fi
    log "== $(commit_id), $(nproc) cores, $(wrk_version), batches of $BATCH, $CONNECTIONS connections, ${DURATION}s"

    start_instance --db "$WORK/sqlite.sqlite"
    measure sqlite count_sqlite "$GRONA_PORT"
    local sqlite_rate="$RATE" sqlite_p99="$P99"
    stop_instances

    PG_URL="$(Examples/cluster/pg-throwaway start)"
    PG_DIR="$(printf '%s' "$PG_URL" | sed -n 's/.*host=\([^&]*\).*/\1/p')"
    psql_on postgres "CREATE DATABASE one" && psql_on postgres "CREATE DATABASE two"
    log "== PostgreSQL $(psql_on postgres 'SHOW server_version'), synchronous_commit $(psql_on postgres 'SHOW synchronous_commit')"

    start_instance --store "$(db_url one)"
    measure one count_one "$GRONA_PORT"
    local one_rate="$RATE" one_p99="$P99"
    stop_instances

    start_instance --store "$(db_url two)"
    local first="$GRONA_PORT"
    start_instance --store "$(db_url two)"
    measure two count_two "$first" "$GRONA_PORT"
    local two_rate="$RATE" two_p99="$P99"
    stop_instances

    reference
    log
    log "| run | events/s | p99 (ms) | vs COPY | vs INSERT ... SELECT |"
    log "| --- | ---: | ---: | ---: | ---: |"
    log "| SQLite, one instance | $sqlite_rate | $sqlite_p99 | $(ratio "$sqlite_rate" "$COPY_RATE") | $(ratio "$sqlite_rate" "$INSERT_RATE") |"
    log "| PostgreSQL, one instance | $one_rate | $one_p99 | $(ratio "$one_rate" "$COPY_RATE") | $(ratio "$one_rate" "$INSERT_RATE") |"
    log "| PostgreSQL, two instances | $two_rate | $two_p99 | $(ratio "$two_rate" "$COPY_RATE") | $(ratio "$two_rate" "$INSERT_RATE") |"
    log "| PostgreSQL COPY of the same $ROWS rows | $COPY_RATE | | 1.00 | |"
    log "| PostgreSQL INSERT ... SELECT of them | $INSERT_RATE | | | 1.00 |"
}

main "$@"
