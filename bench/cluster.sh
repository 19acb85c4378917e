#!/usr/bin/env bash
# bench/cluster.sh: events ingested per second through POST /v1/mobile/events with one and with two grona-mock
# instances on one PostgreSQL, against PostgreSQL's own bulk load of the same rows (COPY, and one multi-row
# INSERT ... SELECT) measured in the same run, and against one instance on the SQLite backend (issues 15, 32).
#
# ROUNDS interleaved rounds, each in this order, each run against a fresh database, wrk with
# bench/events/post-batch.lua (unique event ids, batches of BATCH) for DURATION seconds after WARMUP seconds of
# unmeasured load:
#   1. one instance on SQLite (--db), the default backend (skipped with SQLITE=0);
#   2. one instance on PostgreSQL (--store), a throwaway cluster from Examples/cluster/pg-throwaway;
#   3. two instances on another database of the same cluster, each driven by its own wrk with half the
#      connections (no balancer in the way: nginx's CPU would be taken from the instances on a small machine;
#      Examples/cluster/run puts one in front for people);
#   4. with BASE_BIN set, steps 2 and 3 again with that binary (an earlier build, for a before and after in one
#      run);
#   5. the reference: the rows the one-instance run stored, copied out (COPY ... TO, binary) and loaded into an
#      empty table made LIKE events (its indexes included) with COPY ... FROM, then again with one
#      INSERT ... SELECT, each timed, synchronous_commit on as for grona-mock.
# Each figure is the median of its rounds, and each ratio the median of the rounds' ratios, so that a build
# elsewhere on the machine during one round moves one sample, not the comparison. Every run checks that what
# was acknowledged is stored (a 200 means committed). The p99 is wrk's, per request. For each PostgreSQL run
# the script also reports what the primary did per event: WAL bytes, transactions (group commits) and the CPU
# time of PostgreSQL's processes.
#
# Run from anywhere:   bash bench/cluster.sh
# Environment:         ROUNDS       interleaved rounds (default 3)
#                      DURATION     seconds per measured run (default 10)
#                      WARMUP       seconds of unmeasured load before each (default 2)
#                      CONNECTIONS  wrk connections in all (default 32)
#                      BATCH        events per request (default 50)
#                      SQLITE       0 to leave out the SQLite run (default 1)
#                      GRONA_BIN    measure this grona-mock binary instead of building one
#                      BASE_BIN     also measure this one (an earlier build), in the same rounds
#
# Exit status: 0 whenever the measurement ran (a benchmark reports, it does not gate). Traffic goes to 127.0.0.1
# only, and every wait and run is bounded in time.

set -euo pipefail
REQUESTED_BIN="${GRONA_BIN:-}"
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONNECTIONS="${CONNECTIONS:-32}"
BATCH="${BATCH:-50}"
ROUNDS="${ROUNDS:-3}"
SQLITE="${SQLITE:-1}"
BASE_BIN="${BASE_BIN:-}"
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

# Warm-up then the measured run: measure NAME COUNT-COMMAND DATABASE PORT... (DATABASE empty for SQLite). Sets RATE
# and P99, checks what is stored; on PostgreSQL also PG_LINE, the primary's work per event.
measure() {
    local name="$1" count="$2" database="$3"
    shift 3
    ((WARMUP == 0)) || load "$WARMUP" "w$name" "$@"
    sleep 0.5
    local before after
    before="$($count)"
    [[ -z "$database" ]] || primary_before "$database"
    load "$DURATION" "m$name" "$@"
    sleep 0.5
    after="$($count)"
    local acknowledged=$((REQUESTS * BATCH)) stored=$((after - before))
    ((stored >= acknowledged)) || log "warning: $name: $stored events stored of $acknowledged acknowledged"
    PG_LINE=""
    [[ -z "$database" ]] || primary_after "$database" "$stored"
    log "== $name: $RATE events/s, p99 ${P99} ms ($acknowledged acknowledged, $stored stored) $PG_LINE"
}

# Busy ticks of the cluster's processes so far (the postmaster and its children: backends, WAL writer,
# checkpointer), from /proc.
primary_ticks() {
    local postmaster total=0 pid ticks
    postmaster="$(head -n 1 "$PG_DIR/data/postmaster.pid")"
    for pid in "$postmaster" $(pgrep -P "$postmaster" || true); do
        ticks="$(process_ticks "$pid")"
        total=$((total + ${ticks:-0}))
    done
    printf '%s' "$total"
}

primary_before() {
    PG_WAL0="$(psql_on "$1" 'SELECT pg_current_wal_lsn()')"
    PG_XACT0="$(psql_on "$1" 'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')"
    PG_TICKS0="$(primary_ticks)"
}

# Sets PG_LINE from the readings since primary_before: primary_after DATABASE EVENTS.
primary_after() {
    local ticks wal xacts
    ticks=$(($(primary_ticks) - PG_TICKS0))
    wal="$(psql_on "$1" "SELECT pg_current_wal_lsn() - '$PG_WAL0'::pg_lsn")"
    sleep 1.1 # a backend flushes its counts to pg_stat_database at most once a second
    xacts=$(($(psql_on "$1" 'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()') - PG_XACT0))
    PG_LINE="$(awk -v t="$ticks" -v hz="$HZ" -v w="$wal" -v x="$xacts" -v n="$2" -v d="$DURATION" 'BEGIN {
        if (n <= 0) n = 1
        printf "[primary: %.0f WAL bytes/event, %d transactions (%.0f events each), %.2f cores, %.1f us CPU/event]",
            w / n, x, n / (x > 0 ? x : 1), t / hz / d, t / hz / n * 1e6 }')"
}

count_sqlite() { sqlite3 -cmd '.timeout 10000' "$WORK/sqlite-$ROUND.sqlite" 'SELECT coalesce(max(seq), 0) FROM events'; }
count_db() { psql_on "$COUNTED" 'SELECT count(*) FROM events'; }

# Loads the rows of database $1 into an empty copy of its events table, by COPY and by INSERT ... SELECT; sets
# COPY_RATE, INSERT_RATE (rows/s) and ROWS.
reference() {
    local database="$1"
    local columns="workspace_key, event_id, type, timestamp, received_at, corrected_timestamp, install_id,"
    columns+=" customer_id, session_id, visit_id, campaign_id, variant_id, arm, placement, demo, config_revision,"
    columns+=" total_minor, json"
    psql_on "$database" "\\copy (SELECT $columns FROM events ORDER BY seq) TO '$WORK/rows.bin' (FORMAT binary)"
    ROWS="$(psql_on "$database" 'SELECT count(*) FROM events')"
    psql_on "$database" "CREATE TABLE ref_events (LIKE events INCLUDING ALL)"
    local start end
    start="$(now)"
    psql_on "$database" "\\copy ref_events ($columns) FROM '$WORK/rows.bin' (FORMAT binary)"
    end="$(now)"
    COPY_RATE="$(awk -v n="$ROWS" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", n / (b - a) }')"
    psql_on "$database" "TRUNCATE ref_events"
    start="$(now)"
    psql_on "$database" "INSERT INTO ref_events ($columns) SELECT $columns FROM events ORDER BY seq"
    end="$(now)"
    INSERT_RATE="$(awk -v n="$ROWS" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", n / (b - a) }')"
    rm -f "$WORK/rows.bin"
    log "== PostgreSQL alone, the same $ROWS rows: COPY $COPY_RATE rows/s, INSERT ... SELECT $INSERT_RATE rows/s"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

# The median of the numbers given.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Results by run name, one value per round, space-separated: RESULT_RATE[name], RESULT_P99[name],
# RESULT_COPY[name] (ratio to that round's COPY), RESULT_INSERT[name] (to its INSERT ... SELECT).
declare -A RESULT_RATE=() RESULT_P99=() RESULT_COPY=() RESULT_INSERT=()
RUN_NAMES=()

# Records the last run under NAME: record NAME.
record() {
    [[ -n "${RESULT_RATE[$1]+set}" ]] || RUN_NAMES+=("$1")
    RESULT_RATE[$1]+=" $RATE"
    RESULT_P99[$1]+=" $P99"
}

# One instance, then two, of the binary in $1 on fresh databases; the first's rows stay for the reference:
# postgres_runs BINARY LABEL.
postgres_runs() {
    local binary="$1" label="$2" one="one_${3}_$ROUND" two="two_${3}_$ROUND"
    GRONA_BIN="$binary"
    psql_on postgres "CREATE DATABASE $one" && psql_on postgres "CREATE DATABASE $two"
    start_instance --store "$(db_url "$one")"
    COUNTED="$one"
    measure "$one" count_db "$one" "$GRONA_PORT"
    record "PostgreSQL, one instance$label"
    stop_instances
    start_instance --store "$(db_url "$two")"
    local first="$GRONA_PORT"
    start_instance --store "$(db_url "$two")"
    COUNTED="$two"
    measure "$two" count_db "$two" "$first" "$GRONA_PORT"
    record "PostgreSQL, two instances$label"
    stop_instances
    psql_on postgres "DROP DATABASE $two"
    RECORDED_ONE="$one"
}

main() {
    enter_repo_root
    install_traps
    check_durations
    for tool in wrk psql sqlite3 curl pgrep; do command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"; done
    [[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive whole number, got '$ROUNDS'"
    [[ -z "$BASE_BIN" || -x "$BASE_BIN" ]] || die "BASE_BIN=$BASE_BIN is not an executable"
    make_work_dir cluster
    if [[ -n "$REQUESTED_BIN" ]]; then GRONA_BIN="$REQUESTED_BIN"; else build_grona; fi
    local measured="$GRONA_BIN"
    log "== $(commit_id), $(nproc) cores, $(wrk_version), batches of $BATCH, $CONNECTIONS connections, ${DURATION}s, $ROUNDS rounds"
    [[ -z "$BASE_BIN" ]] || log "== also measuring BASE_BIN=$BASE_BIN (\"before\")"

    PG_URL="$(Examples/cluster/pg-throwaway start)"
    PG_DIR="$(printf '%s' "$PG_URL" | sed -n 's/.*host=\([^&]*\).*/\1/p')"
    log "== PostgreSQL $(psql_on postgres 'SHOW server_version'), synchronous_commit $(psql_on postgres 'SHOW synchronous_commit')"

    local copies=() inserts=()
    for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
        log "== round $ROUND of $ROUNDS"
        if [[ "$SQLITE" != 0 ]]; then
            GRONA_BIN="$measured"
            start_instance --db "$WORK/sqlite-$ROUND.sqlite"
            measure sqlite count_sqlite "" "$GRONA_PORT"
            record "SQLite, one instance"
            stop_instances
            rm -f "$WORK/sqlite-$ROUND.sqlite"*
        fi
        local before_one=""
        if [[ -n "$BASE_BIN" ]]; then
            postgres_runs "$BASE_BIN" " (before)" base
            before_one="$RECORDED_ONE"
        fi
        postgres_runs "$measured" "" new
        reference "$RECORDED_ONE"
        copies+=("$COPY_RATE")
        inserts+=("$INSERT_RATE")
        local name rates
        for name in "${RUN_NAMES[@]}"; do
            read -ra rates <<<"${RESULT_RATE[$name]}"
            RESULT_COPY[$name]+=" $(ratio "${rates[-1]}" "$COPY_RATE")"
            RESULT_INSERT[$name]+=" $(ratio "${rates[-1]}" "$INSERT_RATE")"
        done
        psql_on postgres "DROP DATABASE $RECORDED_ONE"
        [[ -z "$before_one" ]] || psql_on postgres "DROP DATABASE $before_one"
    done

    log
    log "Medians of $ROUNDS rounds (each round's figures after the slash):"
    log
    log "| run | events/s | p99 (ms) | vs COPY | vs INSERT ... SELECT |"
    log "| --- | ---: | ---: | ---: | ---: |"
    local name
    for name in "${RUN_NAMES[@]}"; do
        # shellcheck disable=SC2086  # the values are space-separated numbers
        log "| $name | $(median ${RESULT_RATE[$name]}) /${RESULT_RATE[$name]} | $(median ${RESULT_P99[$name]}) | $(median ${RESULT_COPY[$name]}) /${RESULT_COPY[$name]} | $(median ${RESULT_INSERT[$name]}) |"
    done
    log "| PostgreSQL COPY of the one instance's rows | $(median "${copies[@]}") / ${copies[*]} | | 1.00 | |"
    log "| PostgreSQL INSERT ... SELECT of them | $(median "${inserts[@]}") / ${inserts[*]} | | | 1.00 |"
    local one two
    read -ra one <<<"${RESULT_RATE["PostgreSQL, one instance"]}"
    read -ra two <<<"${RESULT_RATE["PostgreSQL, two instances"]}"
    local ratios=() index
    for index in "${!one[@]}"; do ratios+=("$(ratio "${two[$index]}" "${one[$index]}")"); done
    log
    log "Two instances against one: $(median "${ratios[@]}") (rounds: ${ratios[*]})"
}

main "$@"
