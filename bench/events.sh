#!/usr/bin/env bash
# bench/events.sh: events ingested per second through POST /v1/mobile/events at full load, measured against a plain
# C program bulk-inserting the same rows into the same SQLite schema; and the latency at half that peak, measured
# with `grona-mock load` (an open model). Resident memory over millions of events is bench/memory.sh.
#
# A 200 from the events endpoint means the batch is committed to SQLite (WAL, synchronous=NORMAL, group commit on
# one writer thread), so the rate at which grona-mock acknowledges events is bounded by the rate at which SQLite
# can insert them. The reference is that bound: bench/events/plain_insert.c, compiled here against the system's
# libsqlite3 (the one grona-mock links), inserts the same columns and a JSON blob of the same size into a database
# made from grona-mock's own schema (dumped with `sqlite3 <db> .schema`), with the same INSERT, one prepared
# statement, WAL and synchronous=NORMAL. It runs twice per measurement: in transactions of BULK_ROWS rows (the bulk
# insert, the target's reference: where its rows/s curve has flattened, see SWEEP=1) and in transactions of one
# batch (a second column). Both run in the same run on the same machine, so the ratios are meaningful even where
# the absolute numbers are not comparable between machines.
#
# In order:
#   1. the peak: ROUNDS interleaved rounds; in each, for batches of 50, then of 100 events (each against a fresh
#      database), wrk drives grona-mock with bench/events/post-batch.lua (one thread, CONNECTIONS connections,
#      unique event ids) after a warm-up, the events stored are counted with sqlite3 and must match what was
#      acknowledged, then plain_insert inserts as many rows (after as many untimed rows as the warm-up left), in
#      bulk and per batch, with no server running. Each round gives a ratio; the verdict takes the median;
#   2. unless SKIP_HALF=1: half load. A fresh grona-mock takes a simulated SDK fleet from `grona-mock load`
#      (batches of 50, gzipped, HALF_INSTALLS installs) at half the median peak of batch 50, for DURATION seconds
#      after a two-second ramp;
#      the visit rate is calibrated first with a short run (events per visit). The figure is the events endpoint's
#      p99 from the load tool's HDR histogram, measured from each batch's intended start (so a stall of the server
#      is not hidden by the generator waiting for it: no coordinated omission). Target: under 10 ms;
#   3. a results table with the targets and PASS / BELOW TARGET lines.
# SWEEP=1 instead prints plain_insert's rows/s for transactions of 50 to 50,000 rows, to choose BULK_ROWS.
#
# Run from anywhere:   bash bench/events.sh
# Environment:         DURATION        seconds per measured wrk run (default 10)
#                      WARMUP          seconds of unmeasured load before each measured run (default 2)
#                      ROUNDS          interleaved rounds of the peak measurement (default 3)
#                      CONNECTIONS     wrk connections (default 32)
#                      BULK_ROWS       rows per transaction of the bulk reference (default 2000)
#                      HALF_INSTALLS   simulated installs in the half-load run (default 500)
#                      HALF_ROUNDS     runs at half the fleet's peak, each on a fresh server; the verdict takes
#                                      the median p99 (default 3: one run's p99 moves by a few ms on 2 cores)
#                      SKIP_HALF       1 skips the half-load run
#                      SWEEP           1 prints the bulk insert's rows/s by transaction size and stops
#                      GRONA_BIN       measure this grona-mock binary instead of building one (a before/after)
#
# Exit status: 0 whenever the measurement ran, whether or not the targets were met (a benchmark reports, it does
# not gate); non-zero when something could not be installed, built or started.
#
# Traffic goes to 127.0.0.1 only, and every wait and every load run is bounded in time.

set -euo pipefail
# lib.sh clears GRONA_BIN, so the caller's choice is kept first.
REQUESTED_BIN="${GRONA_BIN:-}"
# The plumbing the benchmarks share: cleanup, run_child, building and starting grona-mock, wrk, CPU accounting.
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Events per second at full load, as a fraction of the bulk insert of the same rows (issue 14).
readonly TARGET_RATIO="0.90"
readonly BATCH_SIZES=(50 100)
# The events endpoint's p99 at half the peak of batch 50, in milliseconds (issue 14).
readonly HALF_P99_TARGET_MS=10
# Enough requests in flight that the writer always finds the next group waiting when it finishes one (a group
# takes what arrived during the previous commit), without so many that the loops' queues only add latency.
CONNECTIONS="${CONNECTIONS:-32}"
# Average cores used by other processes during a measured run above which the output warns.
readonly OTHER_CPU_WARN="0.20"
readonly THREADS=1
readonly EVENTS_PATH="/v1/mobile/events"
ROUNDS="${ROUNDS:-3}"
# Where plain_insert's rows/s stop growing with the transaction size (SWEEP=1 shows the curve).
BULK_ROWS="${BULK_ROWS:-2000}"
readonly SWEEP_SIZES=(50 100 500 1000 2000 5000 10000 50000)
HALF_INSTALLS="${HALF_INSTALLS:-500}"
HALF_ROUNDS="${HALF_ROUNDS:-3}"
HALF_P99_ROUNDS=""
HALF_LAG_ROUNDS=""
HALF_ANSWER_LAG_ROUNDS=""
SKIP_HALF="${SKIP_HALF:-0}"
SWEEP="${SWEEP:-0}"

# Filled in by the peak measurement, per "batch,round".
declare -A RPS=() ELAPSED=() P50=() P99=() WRK_ERRORS=() ACKED=() STORED=() BEFORE=() REJECTED=() CHECKS=()
declare -A GRONA_CORES=() THREADS_CORES=() WRK_CORES=() OTHER_CORES=() GRONA_JSON=() LOAD=()
declare -A BULK_RPS=() PLAIN_RPS=() PLAIN_JSON=() EVENTS_S=() RATIO_BULK=() RATIO_BATCH=()
# The peak per batch size, medians of the rounds.
declare -A PEAK_EVENTS_S=() PEAK_RATIO=()
# Filled in by the half-load runs, per label (wrk, fleet).
declare -A HALF_TARGET=() HALF_RATE=() HALF_EVENTS_S=() HALF_P50=() HALF_P99=() HALF_P999=() HALF_MAX=() HALF_NOTE=()
# The generator's own start lag p99 (from each batch's intended start to its hand-over): its share of the p99.
declare -A HALF_LAG=() HALF_ANSWER_LAG=()
PER_VISIT=""
FLEET_PEAK=""
# Set by plain_insert_rate.
PLAIN_LAST_RATE=""
PLAIN_LAST_CPU=""
PLAIN_LAST_JSON=""

# ---------------------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------------------

check_settings() {
    check_durations
    BULK_ROWS="${BULK_ROWS//[,_]/}"
    [[ "$SKIP_HALF" =~ ^(0|1|)$ ]] || die "SKIP_HALF must be 1 or 0, got '$SKIP_HALF'"
    [[ "$HALF_INSTALLS" =~ ^[1-9][0-9]{0,5}$ ]] || die "HALF_INSTALLS must be a whole number from 1 to 999999, got '$HALF_INSTALLS'"
    [[ "$SWEEP" =~ ^(0|1|)$ ]] || die "SWEEP must be 1 or 0, got '$SWEEP'"
    [[ "$ROUNDS" =~ ^[1-9][0-9]?$ ]] || die "ROUNDS must be a whole number from 1 to 99, got '$ROUNDS'"
    [[ "$CONNECTIONS" =~ ^[1-9][0-9]{0,3}$ ]] || die "CONNECTIONS must be a whole number from 1 to 9999, got '$CONNECTIONS'"
    [[ "$BULK_ROWS" =~ ^[1-9][0-9]{0,6}$ ]] || die "BULK_ROWS must be a whole number from 1 to 9999999, got '$BULK_ROWS'"
}

ensure_tools() {
    want_command wrk wrk
    want_command curl curl
    want_command sqlite3 sqlite3
    want_command gcc gcc
    want_command python3 python3
    # The header and the unversioned libsqlite3.so that -lsqlite3 links against.
    [[ -f /usr/include/sqlite3.h ]] || MISSING_PACKAGES+=(libsqlite3-dev)
    install_missing
    require_commands wrk curl sqlite3 gcc timeout awk python3
    [[ -f /usr/include/sqlite3.h ]] || die "sqlite3.h is still missing (libsqlite3-dev)"
}

# -O2 as a distribution would build it; the SQLite is the system's, the one grona-mock links.
build_plain() {
    log "== compiling bench/events/plain_insert.c"
    gcc -O2 -Wall -o "$WORK/plain_insert" bench/events/plain_insert.c -lsqlite3 \
        || die "bench/events/plain_insert.c did not compile"
}

start_grona() {
    local db="$1"
    # The defaults serve ./workspaces and ./keys: the committed ones, since main() runs from the repository root.
    launch_grona --db "$db"
    GRONA_BASE="http://127.0.0.1:$GRONA_PORT"
    log "== grona-mock listening on 127.0.0.1:$GRONA_PORT (pid $GRONA_PID), database $db, $(nproc) cores, default event loops"
}

# One query against a database; a busy timeout, since the server may be writing (WAL lets the reader in).
sql() {
    timeout --kill-after=5 60 sqlite3 -cmd '.timeout 10000' "$1" "$2"
}

# Events stored so far. count(*) walks an index, which takes a while at millions of rows; `fast` reads
# max(seq) instead, which equals the count here (events are only ever appended: nothing is deleted, and an
# ignored duplicate takes no seq).
stored_events() {
    if [[ "${2:-}" == fast ]]; then
        sql "$1" 'SELECT coalesce(max(seq), 0) FROM events'
    else
        sql "$1" 'SELECT count(*) FROM events'
    fi
}

# One batch of BATCH events with curl, built here (not by the Lua script) so the endpoint is checked on its own.
# Prints the status code; the answer lands in FILE.
post_check_batch() {
    local batch="$1" file="$2" i events=""
    # A separate `local`: the words of one are all expanded before any of its assignments takes effect.
    local tag="check$batch-$RANDOM$RANDOM"
    for ((i = 1; i <= batch; i++)); do
        events+="${events:+,}{\"eventID\":\"$tag-$i\",\"type\":\"exposure\",\"timestamp\":1764478799001,"
        events+="\"sessionID\":\"s-1\",\"placement\":\"home_top\",\"screen\":{\"type\":\"home\"},\"visitID\":\"v-77\","
        events+="\"campaignID\":\"home-hero\",\"variantID\":\"spring\",\"arm\":\"treatment\"}"
    done
    local body="{\"workspaceKey\":\"acme-market\",\"installID\":\"bench-$tag\","
    body+="\"sdk\":{\"platform\":\"ios\",\"version\":\"1.4.0\"},\"app\":{\"id\":\"com.acme.market\",\"version\":\"5.2.0\"},"
    body+="\"sentAt\":1764478800123,\"events\":[$events]}"
    rm -f "$file"
    curl -sS --max-time 10 -o "$file" -w '%{http_code}' -X POST -H "Content-Type: application/json" \
        --data-binary "$body" "$GRONA_BASE$EVENTS_PATH" 2>>"$WORK/check-curl.err"
}

# Measuring an endpoint that refuses or rejects the events would be meaningless: a batch must be answered 200
# with every event accepted, and be in the database by then. The first request is retried for up to 10 s in
# case the socket is bound but not yet accepting.
verify_events() {
    local batch="$1" db="$2" status
    await_status status post_check_batch "$batch" "$WORK/check.json"
    local expected="{\"accepted\":$batch,\"duplicates\":0,\"rejected\":[]}"
    local answer
    answer="$(tr -d ' \n' <"$WORK/check.json" 2>/dev/null || true)"
    if [[ "$status" != 200 || "$answer" != "$expected" ]]; then
        log "POST $EVENTS_PATH with $batch events answered HTTP '${status:-nothing}'; curl said:"
        tail -n 5 "$WORK/check-curl.err" >&2 2>/dev/null || true
        head -c 2000 "$WORK/check.json" >&2 2>/dev/null || true
        echo >&2
        cat "$WORK/grona.err" >&2 || true
        die "the events endpoint does not accept the benchmark's events (expected 200 $expected)"
    fi
    local stored
    stored="$(stored_events "$db")" || die "could not read the events table of $db"
    [[ "$stored" == "$batch" ]] || die "after a 200 for $batch events, the database holds $stored"
    log "== POST $EVENTS_PATH with $batch events: HTTP 200 $answer; $stored rows in the events table"
}

# ---------------------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------------------

# A tag per wrk run, so that event ids never repeat across runs: "<kind><batch>-<epoch seconds>", as long as
# plain_insert's prefix so that both store ids (and JSON blobs) of the same length.
run_tag() { printf '%s%s-%s' "$1" "$2" "$(date +%s)"; }

# Removes a database (with its log and index) and waits for the disk to take it in: `sync` commits the delete,
# and with it, on a filesystem mounted with `discard` as this machine's root is, the discards of its blocks, which
# would otherwise go to the disk while the next measurement runs and slow that server's syncs (a half-load run
# after bench/memory.sh had deleted 7 GB saw its p99 triple).
remove_database() {
    rm -f -- "$1" "$1-wal" "$1-shm"
    sync
}

# ---- grona-mock, one batch size, one round -----------------------------------------------------------------

# Measures grona-mock at full load for batches of BATCH in round ROUND: measure_grona BATCH ROUND. Fills the arrays
# at "BATCH,ROUND".
measure_grona() {
    local batch="$1" round="$2"
    local key="$batch,$round"
    local db="$WORK/events-$batch.sqlite"
    local url script="bench/events/post-batch.lua"
    log
    log "== round $round: batches of $batch events (load average $(load_average))"
    start_grona "$db"
    url="$GRONA_BASE$EVENTS_PATH"
    verify_events "$batch" "$db"
    # The schema to give plain_insert: grona-mock's own, from the first database it made.
    if [[ ! -s "$WORK/schema.sql" ]]; then
        sql "$db" .schema >"$WORK/schema.sql" || die "could not dump the schema of $db"
        grep -q 'CREATE TABLE events' "$WORK/schema.sql" || die "the dumped schema has no events table"
    fi

    wrk_warmup grona-mock "$WORK/wrk-warmup.txt" -s "$script" "$url" -- "$batch" "$(run_tag w "$batch")" \
        || die "wrk warm-up failed"
    if ((WARMUP > 0)); then
        local warm_errors
        warm_errors="$(wrk_figure "$WORK/wrk-warmup.txt" errors)"
        if [[ -n "$warm_errors" ]]; then
            cat "$WORK/wrk-warmup.txt"
            tail -n 20 "$WORK/grona.err" >&2 || true
            die "grona-mock answered errors during the warm-up ($warm_errors); the Lua script's batches are refused"
        fi
    fi
    # Let the requests the warm-up left in flight be committed before counting.
    sleep 0.5
    BEFORE[$key]="$(stored_events "$db")"

    log "== measuring grona-mock (${DURATION}s, batches of $batch, $CONNECTIONS connections)"
    local report="$WORK/wrk-$batch-$round.txt"
    cpu_before
    wrk_measure "$report" -s "$script" "$url" -- "$batch" "$(run_tag m "$batch")" || die "wrk failed"
    cpu_after
    cat "$report"
    check_grona_lived
    cpu_split
    GRONA_CORES[$key]="$CPU_GRONA"
    WRK_CORES[$key]="$CPU_WRK"
    OTHER_CORES[$key]="$CPU_OTHER"
    THREADS_CORES[$key]="$CPU_THREADS"
    LOAD[$key]="$(load_average)"
    log_cpu_split
    if above "${OTHER_CORES[$key]}" "$OTHER_CPU_WARN"; then
        log "warning: other processes used ${OTHER_CORES[$key]} cores during the run; the machine was not idle," \
            "so grona-mock's figures are likely low"
    fi

    # Requests still in flight when wrk stopped are committed all the same; give them a moment, then count.
    sleep 0.5
    local after
    after="$(stored_events "$db")"
    RPS[$key]="$(wrk_figure "$report" rps)"
    ELAPSED[$key]="$(wrk_figure "$report" elapsed)"
    P50[$key]="$(wrk_figure "$report" p50)"
    P99[$key]="$(wrk_figure "$report" p99)"
    WRK_ERRORS[$key]="$(wrk_figure "$report" errors)"
    local requests
    requests="$(wrk_figure "$report" requests)"
    [[ -n "${RPS[$key]}" && -n "${ELAPSED[$key]}" && -n "$requests" ]] \
        || die "could not read Requests/sec from wrk's output"
    ACKED[$key]="$((requests * batch))"
    STORED[$key]="$((after - BEFORE[$key]))"
    REJECTED[$key]="$(sql "$db" 'SELECT count(*) FROM rejected_events')"
    GRONA_JSON[$key]="$(sql "$db" 'SELECT printf("%.1f", avg(length(json))) FROM events')"

    # What was acknowledged must be stored (200 means durable); a little more may be stored: requests in flight
    # when wrk stopped, at most one per connection.
    local problems=()
    ((STORED[$key] >= ACKED[$key])) \
        || problems+=("only ${STORED[$key]} events stored of ${ACKED[$key]} acknowledged")
    ((STORED[$key] <= ACKED[$key] + CONNECTIONS * batch)) \
        || problems+=("${STORED[$key]} events stored, more than the ${ACKED[$key]} acknowledged plus those in flight")
    ((REJECTED[$key] == 0)) || problems+=("${REJECTED[$key]} events rejected")
    [[ -z "${WRK_ERRORS[$key]}" ]] || problems+=("wrk: ${WRK_ERRORS[$key]}")
    CHECKS[$key]="$(IFS=';'; echo "${problems[*]:-}")"
    local non2xx
    non2xx="$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$report")"
    log "== stored: ${BEFORE[$key]} events before the run (check batch + warm-up), $after after:" \
        "${STORED[$key]} in the run; acknowledged by 200s: ${ACKED[$key]} ($requests requests x $batch);" \
        "rejected: ${REJECTED[$key]}; non-2xx responses: ${non2xx:-0}"
    [[ -z "${CHECKS[$key]}" ]] || log "warning: ${CHECKS[$key]}"

    stop_grona
    remove_database "$db"
}

# ---- the reference ---------------------------------------------------------------------------------------

# Runs plain_insert: WARM untimed rows, then TIMED timed ones, in transactions of ROWS; sets PLAIN_LAST_RATE to its
# rows per second, PLAIN_LAST_CPU to its rows per CPU second and PLAIN_LAST_JSON to its average JSON size:
# plain_insert_rate ROWS WARM TIMED NAME. (Not called in a $(...) subshell, where die would stop only the subshell.)
plain_insert_rate() {
    local rows="$1" warm="$2" timed="$3" name="$4"
    local db="$WORK/plain.sqlite" out="$WORK/plain-$4.txt"
    run_child plain_insert timeout --kill-after=5 600 \
        "$WORK/plain_insert" "$WORK/schema.sql" "$db" "$rows" "$warm" "$timed" >"$out" \
        || die "plain_insert failed"
    [[ "$name" == sweep ]] || cat "$out"
    PLAIN_LAST_JSON="$(grep -oE 'avg_json_bytes=[0-9.]+' "$out" | cut -d= -f2)"
    # Rows per second of wall clock: rows per CPU second would leave out the time SQLite sleeps in the kernel on
    # the WAL's page-cache writes (about 12 % here, voluntary context switches), which the server's writer waits
    # for too. The CPU figure is printed beside it, for a machine too busy to trust the wall clock.
    PLAIN_LAST_RATE="$(grep -oE 'rows_per_s=[0-9.]+' "$out" | cut -d= -f2)"
    PLAIN_LAST_CPU="$(grep -oE 'rows_per_cpu_s=[0-9.]+' "$out" | cut -d= -f2)"
    [[ -n "$PLAIN_LAST_RATE" && -n "$PLAIN_LAST_CPU" ]] || die "could not read rows_per_s from plain_insert's output"
    # Same tables and indexes as grona-mock's, and every row there.
    cmp -s <(sql "$db" .schema) "$WORK/schema.sql" || die "plain_insert's schema differs from grona-mock's"
    local stored
    stored="$(stored_events "$db")"
    [[ "$stored" == "$((warm + timed))" ]] || die "plain_insert's database holds $stored rows, not $((warm + timed))"
    remove_database "$db"
}

# The references for one grona-mock measurement: the same rows in bulk, and one transaction per batch:
# run_plain BATCH ROUND. Then the round's ratios.
run_plain() {
    local batch="$1" round="$2"
    local key="$batch,$round"
    log "== plain_insert: ${BEFORE[$key]} untimed rows, then ${STORED[$key]} timed, in transactions of $BULK_ROWS" \
        "(bulk) and of $batch (per batch)"
    plain_insert_rate "$BULK_ROWS" "${BEFORE[$key]}" "${STORED[$key]}" bulk
    BULK_RPS[$key]="$PLAIN_LAST_RATE"
    plain_insert_rate "$batch" "${BEFORE[$key]}" "${STORED[$key]}" batch
    PLAIN_RPS[$key]="$PLAIN_LAST_RATE"
    PLAIN_JSON[$key]="$PLAIN_LAST_JSON"
    local acked_s stored_s
    acked_s="$(awk -v a="${ACKED[$key]}" -v e="${ELAPSED[$key]}" 'BEGIN { printf "%.0f", a / e }')"
    stored_s="$(awk -v a="${STORED[$key]}" -v e="${ELAPSED[$key]}" 'BEGIN { printf "%.0f", a / e }')"
    # The lower of the two rates, so that neither in-flight leftovers nor a miscount can flatter the ratio.
    EVENTS_S[$key]="$(awk -v a="$acked_s" -v s="$stored_s" 'BEGIN { print (a < s ? a : s) }')"
    RATIO_BULK[$key]="$(awk -v m="${EVENTS_S[$key]}" -v p="${BULK_RPS[$key]}" 'BEGIN { printf "%.2f", m / p }')"
    RATIO_BATCH[$key]="$(awk -v m="${EVENTS_S[$key]}" -v p="${PLAIN_RPS[$key]}" 'BEGIN { printf "%.2f", m / p }')"
    log "== round $round, batches of $batch: ${EVENTS_S[$key]} events/s, ${RATIO_BULK[$key]}x bulk," \
        "${RATIO_BATCH[$key]}x per batch"
}

# ---- the peak ----------------------------------------------------------------------------------------------

# Full load, ROUNDS rounds interleaved: grona-mock then its references, batch size after batch size, so that a
# burst of noise spoils one round rather than one side of every comparison.
# Sets PEAK_EVENTS_S and PEAK_RATIO, per batch size: the medians of the rounds, which a later step can build on.
measure_peak() {
    local round batch
    for ((round = 1; round <= ROUNDS; round++)); do
        for batch in "${BATCH_SIZES[@]}"; do
            measure_grona "$batch" "$round"
            run_plain "$batch" "$round"
        done
    done
    for batch in "${BATCH_SIZES[@]}"; do
        local events=() ratios=()
        for ((round = 1; round <= ROUNDS; round++)); do
            events+=("${EVENTS_S[$batch,$round]}")
            ratios+=("${RATIO_BULK[$batch,$round]}")
        done
        PEAK_EVENTS_S[$batch]="$(median "${events[@]}")"
        PEAK_RATIO[$batch]="$(median "${ratios[@]}")"
        log "== peak, batches of $batch: ${PEAK_EVENTS_S[$batch]} events/s, ${PEAK_RATIO[$batch]}x bulk (medians of" \
            "$ROUNDS rounds)"
    done
}

# SWEEP=1: the bulk reference's rows/s by transaction size, in one database per size, to see where it flattens.
sweep_bulk() {
    local db="$WORK/sweep.sqlite" size
    start_grona "$db"
    sql "$db" .schema >"$WORK/schema.sql" || die "could not dump the schema of $db"
    stop_grona
    log
    log "== plain_insert rows/s by rows per transaction (100,000 untimed rows, then 500,000 timed; load average" \
        "$(load_average))"
    printf '%12s %12s %14s\n' "rows/txn" "rows/s" "rows/cpu-s"
    for size in "${SWEEP_SIZES[@]}"; do
        plain_insert_rate "$size" 100000 500000 sweep
        printf '%12s %12.0f %14.0f\n' "$size" "$PLAIN_LAST_RATE" "$PLAIN_LAST_CPU"
    done
    log "== load average $(load_average)"
}

# ---- half load ---------------------------------------------------------------------------------------------

# Runs `grona-mock load` against the running server: load_run RATE SECONDS JSON-FILE [OPTIONS...].
load_run() {
    local rate="$1" seconds="$2" json="$3"
    shift 3
    run_child "grona-mock load" timeout --kill-after=5 "$((seconds + 60))" "$GRONA_BIN" load --url "$GRONA_BASE" \
        --workspace acme-market --installs "$HALF_INSTALLS" --rate "$rate" --duration "${seconds}s" \
        --batch-size 50 --seed 14 --quiet --json "$json" "$@" >"$json.txt" 2>&1 || true
    [[ -s "$json" ]] || { cat "$json.txt" >&2; die "grona-mock load wrote no report"; }
}

# A figure of a load report: json_figure FILE PYTHON-EXPRESSION-ON-r.
json_figure() {
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); v = eval(sys.argv[2]); print(v if v is not None else "")' \
        "$1" "$2"
}

# One half-load run on a fresh server: half_run LABEL EVENTS-PER-SECOND. Fills HALF_*[LABEL].
half_run() {
    local label="$1" target="$2" report="$WORK/half-$1.json"
    HALF_TARGET[$label]="$target"
    HALF_RATE[$label]="$(awk -v t="$target" -v e="$PER_VISIT" 'BEGIN { printf "%.0f", t / e }')"
    start_grona "$WORK/events-half-$label.sqlite"
    # A two-second ramp spreads the installs' first configuration fetches (an app launch storm) over it.
    load_run "${HALF_RATE[$label]}" "$((DURATION + 2))" "$report" --ramp 2s
    stop_grona
    # Its hundreds of megabytes, still dirty in the page cache, would otherwise be written back during the next
    # run and compete with that server's own syncs (its checkpoints).
    remove_database "$WORK/events-half-$label.sqlite"
    HALF_EVENTS_S[$label]="$(json_figure "$report" 'round(r["events"]["perSecond"])')"
    HALF_P50[$label]="$(json_figure "$report" 'r["endpoints"]["events"]["latencyMs"]["p50"]')"
    HALF_P99[$label]="$(json_figure "$report" 'r["endpoints"]["events"]["latencyMs"]["p99"]')"
    HALF_P999[$label]="$(json_figure "$report" 'r["endpoints"]["events"]["latencyMs"]["p99_9"]')"
    HALF_MAX[$label]="$(json_figure "$report" 'r["endpoints"]["events"]["latencyMs"]["max"]')"
    # A report of a build from before the start lag (GRONA_BIN, for a before/after) has none: left empty.
    HALF_LAG[$label]="$(json_figure "$report" 'r["endpoints"]["events"].get("startLagMs", {}).get("p99")')"
    HALF_ANSWER_LAG[$label]="$(json_figure "$report" 'r["endpoints"]["events"].get("answerLagMs", {}).get("p99")')"
    local errors dropped
    errors="$(json_figure "$report" 'r["http"]["errors"]')"
    dropped="$(json_figure "$report" 'r["visits"]["dropped"]')"
    HALF_NOTE[$label]=""
    [[ "$errors" == 0 ]] || HALF_NOTE[$label]="$errors failed requests"
    [[ "$dropped" == 0 ]] || HALF_NOTE[$label]="${HALF_NOTE[$label]:+${HALF_NOTE[$label]}; }$dropped visits dropped"
    log "   $label: ${HALF_EVENTS_S[$label]} events/s acknowledged (asked $target); events p50 ${HALF_P50[$label]}ms" \
        "p99 ${HALF_P99[$label]}ms max ${HALF_MAX[$label]}ms (generator start lag p99 ${HALF_LAG[$label]}ms," \
        "answer lag p99 ${HALF_ANSWER_LAG[$label]}ms);" \
        "$errors failed requests, $dropped visits dropped;" \
        "load average $(load_average)"
}

# The events endpoint's latency at half the peak, with a simulated SDK fleet, two ways:
#   wrk:   half the median peak of batch 50 above (the issue's target), though wrk's events are all alike (one
#          install, one visit, one campaign) and so insert into the indexes in order, which real traffic does not;
#   fleet: half the peak of the fleet's own traffic (varied installs, visits, campaigns and event types, gzipped),
#          measured here by overloading a fresh server with the fleet and counting what it acknowledged.
measure_half_load() {
    local calibration="$WORK/half-calibration.json" peak="$WORK/half-peak.json"
    log
    log "== half load: a simulated fleet at half the peak of batch 50, then at half the fleet's own peak"
    # Events per visit depend on the workspace's campaigns and the fleet's funnel: measured, not assumed.
    start_grona "$WORK/events-calibration.sqlite"
    load_run 500 3 "$calibration"
    stop_grona
    PER_VISIT="$(json_figure "$calibration" 'r["events"]["logged"] / max(r["visits"]["started"], 1)')"
    remove_database "$WORK/events-calibration.sqlite"
    awk -v e="$PER_VISIT" 'BEGIN { exit !(e > 0) }' || die "the calibration run logged no events: $(cat "$calibration.txt")"
    log "   calibration: $PER_VISIT events per visit, $HALF_INSTALLS installs"
    half_run wrk "$(awk -v p="${PEAK_EVENTS_S[50]}" 'BEGIN { printf "%.0f", p / 2 }')"
    # The fleet's peak: asked for the wrk peak itself, which its traffic cannot reach; what is acknowledged is
    # the most this server takes of it (the open model drops the visits it cannot start).
    start_grona "$WORK/events-fleet-peak.sqlite"
    load_run "$(awk -v p="${PEAK_EVENTS_S[50]}" -v e="$PER_VISIT" 'BEGIN { printf "%.0f", p / e }')" \
        "$((DURATION + 2))" "$peak" --ramp 2s
    stop_grona
    FLEET_PEAK="$(json_figure "$peak" 'round(r["events"]["perSecond"])')"
    remove_database "$WORK/events-fleet-peak.sqlite"
    log "   the fleet's peak: $FLEET_PEAK events/s acknowledged"
    # Events per visit again, at the half rate itself and measured as the runs below report it: the short
    # calibration at 500 visits/s ends with visits cut short, and its figure asked for about 5 % less than the
    # runs then got (53 % of the peak, not half). An unmeasured run of the same shape, then the rate scaled.
    local target rehearsal="$WORK/half-rehearsal.json"
    target="$(awk -v p="$FLEET_PEAK" 'BEGIN { printf "%.0f", p / 2 }')"
    start_grona "$WORK/events-rehearsal.sqlite"
    load_run "$(awk -v t="$target" -v e="$PER_VISIT" 'BEGIN { printf "%.0f", t / e }')" "$((DURATION + 2))" \
        "$rehearsal" --ramp 2s
    stop_grona
    remove_database "$WORK/events-rehearsal.sqlite"
    PER_VISIT="$(json_figure "$rehearsal" 'r["events"]["perSecond"] / r["run"]["rate"]')"
    log "   rehearsal at half the fleet's peak: $PER_VISIT events per visit"
    local round p99s=() events=() lags=() answer_lags=()
    for ((round = 1; round <= HALF_ROUNDS; round++)); do
        half_run fleet "$(awk -v p="$FLEET_PEAK" 'BEGIN { printf "%.0f", p / 2 }')"
        p99s+=("${HALF_P99[fleet]}")
        events+=("${HALF_EVENTS_S[fleet]}")
        lags+=("${HALF_LAG[fleet]:--}")
        answer_lags+=("${HALF_ANSWER_LAG[fleet]:--}")
    done
    HALF_LAG_ROUNDS="${lags[*]}"
    HALF_ANSWER_LAG_ROUNDS="${answer_lags[*]}"
    # The start lag printed beside the median p99 is that same round's.
    for ((round = 0; round < HALF_ROUNDS; round++)); do
        if [[ "${p99s[$round]}" == "$(median "${p99s[@]}")" ]]; then
            HALF_LAG[fleet]="${lags[$round]}"
            HALF_ANSWER_LAG[fleet]="${answer_lags[$round]}"
        fi
    done
    # The round whose p99 is the median stands for all (its other figures are printed with it).
    HALF_P99_ROUNDS="${p99s[*]}"
    HALF_P99[fleet]="$(median "${p99s[@]}")"
    HALF_EVENTS_S[fleet]="$(median "${events[@]}")"
}

# ---------------------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------------------

# The one-minute load average, noted beside each figure: other work on the machine lowers grona-mock's side.
load_average() { cut -d' ' -f1 /proc/loadavg; }

# The median of the numbers given (the lower middle one of an even count); a figure may carry a unit ("4.2ms").
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $0 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# One line of the results table: report_line BATCH LABEL EVENTS/S P50 P99 BULK RATIO PER-BATCH RATIO LOAD JSON.
report_line() {
    printf '%-6s %-6s %11s %9s %9s %12.0f %6sx %12.0f %6sx %6s %12s\n' "$@"
}

report() {
    local batch round key
    echo
    echo "== results: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency, POST $EVENTS_PATH, $ROUNDS interleaved" \
        "rounds, $(nproc) cores, SQLite $(sqlite3 --version | cut -d' ' -f1); bulk = plain_insert in transactions of" \
        "$BULK_ROWS rows, per batch = one transaction per batch"
    printf '%-6s %-6s %11s %9s %9s %12s %7s %12s %7s %6s %12s\n' batch round "events/s" p50 p99 "bulk rows/s" ratio \
        "batch rows/s" ratio load "json B/row"
    declare -g -A PROBLEMS=()
    for batch in "${BATCH_SIZES[@]}"; do
        local p50s=() p99s=() bulks=() plains=() batch_ratios=() problems=()
        for ((round = 1; round <= ROUNDS; round++)); do
            key="$batch,$round"
            report_line "$batch" "$round" "${EVENTS_S[$key]}" "${P50[$key]}" "${P99[$key]}" "${BULK_RPS[$key]}" \
                "${RATIO_BULK[$key]}" "${PLAIN_RPS[$key]}" "${RATIO_BATCH[$key]}" "${LOAD[$key]}" \
                "${GRONA_JSON[$key]}/${PLAIN_JSON[$key]}"
            p50s+=("${P50[$key]%ms}")
            p99s+=("${P99[$key]%ms}")
            bulks+=("${BULK_RPS[$key]}")
            plains+=("${PLAIN_RPS[$key]}")
            batch_ratios+=("${RATIO_BATCH[$key]}")
            [[ -z "${CHECKS[$key]}" ]] || problems+=("round $round: ${CHECKS[$key]}")
        done
        PROBLEMS[$batch]="$(IFS=';'; echo "${problems[*]:-}")"
        report_line "$batch" median "${PEAK_EVENTS_S[$batch]}" "$(median "${p50s[@]}")ms" "$(median "${p99s[@]}")ms" \
            "$(median "${bulks[@]}")" "${PEAK_RATIO[$batch]}" "$(median "${plains[@]}")" \
            "$(median "${batch_ratios[@]}")" "" ""
    done
    echo "events/s = the lower of requests/s x batch (acknowledged) and the rows added during the run / wrk's"
    echo "duration; ratio = events/s / the reference's rows/s for the same rows, per round; medians per column;"
    echo "load = the one-minute load average after the run; json B/row = grona-mock / plain_insert"
    for batch in "${BATCH_SIZES[@]}"; do
        for ((round = 1; round <= ROUNDS; round++)); do
            key="$batch,$round"
            echo "cpu (batch $batch, round $round): grona-mock ${GRONA_CORES[$key]} cores" \
                "(${THREADS_CORES[$key]:-}), wrk ${WRK_CORES[$key]}, everything else ${OTHER_CORES[$key]}"
        done
    done
    echo
    echo "target: grona-mock events/s at full load / bulk insert rows/s ${TARGET_RATIO}x or better (median of the" \
        "rounds), for each batch size"
    for batch in "${BATCH_SIZES[@]}"; do
        echo "batch $batch: ${PEAK_RATIO[$batch]}x: $(verdict "${PEAK_RATIO[$batch]}" "${PROBLEMS[$batch]}")"
    done

    echo
    echo "target: the events endpoint's p99 at half the peak of batch 50 under $HALF_P99_TARGET_MS ms, measured by" \
        "grona-mock load (open model, from each batch's intended start)"
    if [[ "$SKIP_HALF" == 1 ]]; then
        echo "half load: skipped (SKIP_HALF=1)"
        return
    fi
    local label verdict
    for label in wrk fleet; do
        echo "half load ($label): ${HALF_EVENTS_S[$label]} events/s acknowledged (asked ${HALF_TARGET[$label]}," \
            "${HALF_RATE[$label]} visits/s); events p50 ${HALF_P50[$label]}ms, p99 ${HALF_P99[$label]}ms," \
            "p99.9 ${HALF_P999[$label]}ms, max ${HALF_MAX[$label]}ms; generator start lag p99 ${HALF_LAG[$label]}ms," \
            "answer lag p99 ${HALF_ANSWER_LAG[$label]:-}ms"
        verdict="PASS"
        awk -v p="${HALF_P99[$label]}" -v t="$HALF_P99_TARGET_MS" 'BEGIN { exit !(p + 0 < t) }' || verdict="BELOW TARGET"
        [[ -z "${HALF_NOTE[$label]}" ]] || verdict="BELOW TARGET (${HALF_NOTE[$label]})"
        echo "half load ($label): p99 ${HALF_P99[$label]}ms: $verdict"
    done
    echo "half load: wrk = half the peak of batch 50 above; fleet = half the fleet's own peak, $FLEET_PEAK events/s" \
        "(its varied events insert all over the indexes, where wrk's insert in order); fleet figures are the" \
        "medians of $HALF_ROUNDS runs, p99 per run: $HALF_P99_ROUNDS ms (p50, p99.9 and max from the last run);" \
        "the generator's start and answer lag p99 per run (the parts of each p99 before it handed requests over and" \
        "after answers arrived, on the same cores): $HALF_LAG_ROUNDS ms; $HALF_ANSWER_LAG_ROUNDS ms"
}

# The binary to measure: GRONA_BIN as given (another build, for a before/after), or the release build of this tree.
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
    make_work_dir events
    build_plain
    log "== commit $(commit_id), binary $GRONA_BIN, $(wrk_version)," \
        "sqlite3 $(sqlite3 --version | cut -d' ' -f1), $(nproc) cores, load average $(load_average)"
    if [[ "$SWEEP" == 1 ]]; then
        sweep_bulk
        return
    fi
    measure_peak
    [[ "$SKIP_HALF" == 1 ]] || measure_half_load
    report
}

# Sourcing the file (to try out single functions) only defines them.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
