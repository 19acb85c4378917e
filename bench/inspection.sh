#!/usr/bin/env bash
# bench/inspection.sh: the inspection reads at load-test scale (issue 18). For each size in SIZES (default 1, 2 and
# 5 million stored events) it times, on one running grona-mock:
#   - violations, full (one unpaged answer) and paged (limit 1000, every page), and the summary (counts per rule);
#   - funnels (GET /_mock/events/funnels);
#   - the NDJSON export (GET /_mock/events/export, streamed to a file);
# against the reference measured in the same run: the sqlite3 shell reading the same rows
# (SELECT json FROM events WHERE workspace_key=...) into a file. Each figure is printed with its ratio to the
# reference (target: within 3x), and the server's resident memory is sampled every 0.2 s throughout (target: under
# 150 MB).
#
# How the events are made: `grona-mock load` drives realistic visits (config fetch, grants, the funnel, purchases)
# into the server until BASE events are stored (default 1,000,000). Larger sizes are reached by INSERTING DIRECTLY
# INTO SQLITE copies of those visits (same installs and customers, so assignment and grants still hold; new visit
# and event ids), through the sqlite3 shell while the server runs. The load is kept running first so that the
# grants the visits fetched are in the server's memory (a restart would forget them and every offer would be a
# violation).
#
# MODE=dense (issue 32) measures the shape a broken SDK produces instead: every visit violating, its events all
# `served` (some five per visit). BASE events (default 300,000) are driven by `grona-mock load`, then every
# visit event is turned into a `served` in SQLite (the per-campaign counts recounted to match), and larger sizes
# copy those visits as above. Per size (default 300,000 and 1,000,000), in ROUNDS interleaved rounds (default 3;
# medians printed, so a burst of another build on the machine spoils one round rather than the figure): the raw
# read, following every violations page (limit 1000), the summary, funnels and the NDJSON export; the ratio of
# each to the raw read (target within 3x); the server's peak resident memory while following the pages, and
# after them (target under 150 MB); and the server's CPU seconds for following the pages (a shared machine moves
# the wall time with its neighbours, this far less). Then, once, the unpaged answer (every violation in one
# body) with its peak and after, for information: that answer is as large as it is.
#
# MODE=onevisit measures another broken SDK's shape, the hardest for a check that judges a visit whole: the dense
# events of BASE (default and only size 300,000) all given one install and one visit id (the columns the check
# groups by), so that every page ends inside that one visit. The same figures as the dense mode.
#
# MODE=actions and MODE=screens are the two one-visit shapes whose visit the check cannot hold in memory and
# judges from a sort on disk (`VisitSpill`): every visit event made an `action` (none has a served, each is a
# violation decided at the visit's end), or every visit event made a `served` on a screen of its own (each is a
# group of its own). The same figures as the one-visit mode; their target is the memory only.
#
# Usage:   bash bench/inspection.sh            SIZES="1000000 2000000" bash bench/inspection.sh
#          MODE=dense bash bench/inspection.sh MODE=dense SIZES="300000" ROUNDS=1 bash bench/inspection.sh
#          MODE=onevisit bash bench/inspection.sh   MODE=actions bash bench/inspection.sh
# Needs sqlite3, curl, python3; installs what is missing with apt-get (as root). Traffic to 127.0.0.1 only.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODE="${MODE:-realistic}"
[[ "$MODE" =~ ^(realistic|dense|onevisit|actions|screens)$ ]] ||
    die "MODE must be realistic, dense, onevisit, actions or screens, got '$MODE'"
# Whether every visit event is given one install and visit id (the one-visit shapes).
one_visit_mode() { [[ "$MODE" == onevisit || "$MODE" == actions || "$MODE" == screens ]]; }
if [[ "$MODE" == dense ]]; then
    SIZES="${SIZES:-300000 1000000}"
    BASE="${BASE:-300000}"
elif one_visit_mode; then
    BASE="${BASE:-300000}"
    SIZES="${SIZES:-$BASE}"
    for size in $SIZES; do
        ((size <= BASE)) || die "MODE=$MODE makes sizes up to BASE ($BASE) only, got $size"
    done
else
    SIZES="${SIZES:-1000000 2000000 5000000}"
    BASE="${BASE:-1000000}"
fi
ROUNDS="${ROUNDS:-3}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a whole number of at least 1, got '$ROUNDS'"
readonly TARGET_RATIO="3.0"
readonly TARGET_RSS_MB="150"
readonly WORKSPACE="acme-market"
SAMPLER_PID=""

stop_sampler() {
    [[ -n "$SAMPLER_PID" ]] || return 0
    kill "$SAMPLER_PID" 2>/dev/null || true
    wait "$SAMPLER_PID" 2>/dev/null || true
    SAMPLER_PID=""
}
cleanup_more() { stop_sampler; }

# Samples grona-mock's VmRSS (kB) every 0.2 s into $WORK/rss, one line a sample: "<label> <kB>".
start_sampler() {
    (
        while kill -0 "$GRONA_PID" 2>/dev/null; do
            printf '%s %s\n' "$(cat "$WORK/phase" 2>/dev/null || echo -)" \
                "$(awk '/^VmRSS:/ { print $2 }' "/proc/$GRONA_PID/status" 2>/dev/null || echo 0)" >>"$WORK/rss"
            sleep 0.2
        done
    ) &
    SAMPLER_PID=$!
}

phase() { printf '%s' "$1" >"$WORK/phase"; }

# The largest RSS sample (MB) of phases matching a prefix, or of all.
peak_rss_mb() { awk -v p="${1:-}" 'index($1, p) == 1 && $2 > m { m = $2 } END { printf "%.0f", m / 1024 }' "$WORK/rss"; }

# Seconds a command takes (wall clock), its output discarded.
timed() {
    local start end
    start="$(date +%s.%N)"
    "$@" >/dev/null
    end="$(date +%s.%N)"
    seconds_between "$start" "$end"
}

stored_events() { sqlite3 "$WORK/events.sqlite" "SELECT count(*) FROM events WHERE workspace_key='$WORKSPACE'"; }

raw_read() { sqlite3 "$WORK/events.sqlite" "SELECT json FROM events WHERE workspace_key='$WORKSPACE'" >"$WORK/raw.out"; }

violations_full() { curl -fsS --max-time 3600 -o "$WORK/violations.json" "$URL/_mock/events/violations?workspace=$WORKSPACE"; }
violations_summary() { curl -fsS --max-time 3600 -o "$WORK/summary.json" "$URL/_mock/events/violations?workspace=$WORKSPACE&summary=true"; }
funnels() { curl -fsS --max-time 3600 -o "$WORK/funnels.json" "$URL/_mock/events/funnels?workspace=$WORKSPACE"; }
export_ndjson() { curl -fsS --max-time 3600 -o "$WORK/export.ndjson" "$URL/_mock/events/export?workspace=$WORKSPACE&format=ndjson"; }

# Every page of the violations, limit 1000, following nextCursor over one kept-alive connection, as a client
# library does; prints the pages, the violations seen and the seconds from the first request to the last page
# parsed. Timed inside the client: Python's start and imports (some 0.1 s here, a tenth of a dense 300,000-event
# run) are not the server's paging.
violations_paged() {
    python3 - "$URL" "$WORKSPACE" <<'PY'
import http.client, json, sys, time, urllib.parse
url, workspace = sys.argv[1], sys.argv[2]
address = urllib.parse.urlsplit(url)
connection = http.client.HTTPConnection(address.hostname, address.port, timeout=3600)
cursor, pages, found = None, 0, 0
start = time.monotonic()
while True:
    target = "/_mock/events/violations?workspace=%s&limit=1000" % workspace
    if cursor: target += "&cursor=" + urllib.parse.quote(cursor, safe="")
    connection.request("GET", target)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200: sys.exit("violations page: HTTP %d %s" % (response.status, body[:300]))
    page = json.loads(body)
    pages += 1
    found += len(page["violations"])
    cursor = page.get("nextCursor")
    if not cursor: break
print(pages, found, "%.3f" % (time.monotonic() - start))
PY
}

# Drives realistic visits into grona-mock until at least BASE events are stored.
fill_with_load() {
    local target="$1" seed=1 stored
    stored="$(stored_events)"
    while ((stored < target)); do
        local visits=$(((target - stored) / 5 + 1000))
        local rate=5000
        local seconds=$((visits / rate + 1))
        log "   grona-mock load: about $((visits * 5)) events ($rate visits/s for ${seconds}s, seed $seed)"
        "$GRONA_BIN" load --url "$URL" --installs 5000 --rate "$rate" --duration "${seconds}s" --batch-size 50 \
            --batch-age 250ms --seed "$seed" --secret-key sk_test_acme_market_local --quiet >"$WORK/load-$seed.out" 2>&1 || true
        seed=$((seed + 1))
        stored="$(stored_events)"
    done
}

# Copies stored visits (new visit and event ids, same installs) until at least TARGET events are stored: a direct
# insert into SQLite, with the purchases' claimed treatments copied too.
fill_with_copies() {
    local target="$1" round stored
    stored="$(stored_events)"
    round=0
    while ((stored < target)); do
        round=$((round + 1))
        local need=$((target - stored))
        sqlite3 "$WORK/events.sqlite" <<SQL >/dev/null
PRAGMA busy_timeout = 60000;
BEGIN IMMEDIATE;
CREATE TEMP TABLE picked AS SELECT seq FROM events WHERE workspace_key = '$WORKSPACE' ORDER BY seq LIMIT $need;
INSERT INTO events (workspace_key, event_id, type, timestamp, received_at, corrected_timestamp, install_id,
    customer_id, session_id, visit_id, campaign_id, variant_id, arm, placement, demo, config_revision, total_minor, json)
SELECT workspace_key, event_id || '-c$round-$stored', type, timestamp, received_at, corrected_timestamp, install_id,
    customer_id, session_id, CASE WHEN visit_id IS NULL THEN NULL ELSE visit_id || '-c$round-$stored' END, campaign_id,
    variant_id, arm, placement, demo, config_revision, total_minor,
    CAST(CASE WHEN visit_id IS NULL THEN json_set(json, '\$.eventID', event_id || '-c$round-$stored')
         ELSE json_set(json, '\$.eventID', event_id || '-c$round-$stored', '\$.visitID', visit_id || '-c$round-$stored') END AS BLOB)
FROM events WHERE seq IN (SELECT seq FROM picked) ORDER BY seq;
INSERT INTO purchase_treatments (event_seq, workspace_key, campaign_id, variant_id, placement, type, value_milli)
SELECT n.seq, t.workspace_key, t.campaign_id, t.variant_id, t.placement, t.type, t.value_milli
FROM purchase_treatments t JOIN events o ON o.seq = t.event_seq
JOIN events n ON n.workspace_key = o.workspace_key AND n.event_id = o.event_id || '-c$round-$stored'
WHERE o.seq IN (SELECT seq FROM picked);
COMMIT;
SQL
        stored="$(stored_events)"
    done
}

measure_size() {
    local size="$1"
    phase "fill-$size"
    if ((size <= BASE)); then fill_with_load "$size"; else fill_with_copies "$size"; fi
    local stored
    stored="$(stored_events)"
    sqlite3 "$WORK/events.sqlite" "PRAGMA wal_checkpoint(PASSIVE)" >/dev/null || true
    # Warm the page cache for both sides alike.
    raw_read
    phase "raw-$size"
    local raw
    raw="$(timed raw_read)"
    phase "measure-$size"
    local full summary paged funnel exported pages_line
    full="$(timed violations_full)"
    summary="$(timed violations_summary)"
    pages_line="$(violations_paged)"
    paged="${pages_line##* }"
    pages_line="${pages_line% *}"
    funnel="$(timed funnels)"
    exported="$(timed export_ndjson)"
    local lines violations
    lines="$(wc -l <"$WORK/export.ndjson")"
    violations="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["violations"]))' "$WORK/violations.json")"
    ratio() { awk -v a="$1" -v b="$raw" 'BEGIN { printf "%.2f", a / b }'; }
    printf '%10s %9s %8.2fs %8.2fs %5sx %8.2fs %5sx %8.2fs %5sx %8.2fs %5sx %8.2fs %5sx %7sMB\n' \
        "$size" "$stored" "$raw" "$full" "$(ratio "$full")" "$summary" "$(ratio "$summary")" "$paged" "$(ratio "$paged")" \
        "$funnel" "$(ratio "$funnel")" "$exported" "$(ratio "$exported")" "$(peak_rss_mb "measure-$size")" | tee -a "$WORK/table"
    log "           (export lines $lines; violations $violations; pages and violations paged: $pages_line)"
    [[ "$lines" == "$stored" ]] || log "warning: the export has $lines lines for $stored events"
}

# Every visit event becomes a `served` (a purchase stays one): some five served events per visit, every visit
# with more than one event a repeat. The per-campaign counts up to the folded mark are recounted to match
# (the events past it are counted when read), so the funnels answer what is stored.
densify() { retype served; }

# Makes every visit event an `action` (MODE=actions): no visit has a served, so each is a violation that only
# the visit's end decides.
all_actions() { retype action; }

# Makes every visit event but a purchase a TYPE, and recounts the per-campaign counts up to the folded mark.
retype() {
    local type="$1"
    sqlite3 "$WORK/events.sqlite" <<SQL >/dev/null
PRAGMA busy_timeout = 60000;
BEGIN IMMEDIATE;
UPDATE events SET type = '$type', json = CAST(json_set(json, '\$.type', '$type') AS BLOB)
WHERE workspace_key = '$WORKSPACE' AND visit_id IS NOT NULL AND type NOT IN ('$type', 'purchase');
DELETE FROM campaign_event_counts WHERE workspace_key = '$WORKSPACE';
INSERT INTO campaign_event_counts
SELECT workspace_key, campaign_id, coalesce(variant_id, ''), coalesce(arm, ''), demo, type, count(*)
FROM events WHERE workspace_key = '$WORKSPACE' AND campaign_id IS NOT NULL
    AND seq <= (SELECT seq FROM campaign_counts_folded)
GROUP BY 1, 2, 3, 4, 5, 6;
COMMIT;
SQL
}

# Puts every visit event on a screen of its own (MODE=screens): each once-only event is a group of its own.
own_screens() {
    sqlite3 "$WORK/events.sqlite" <<SQL >/dev/null
PRAGMA busy_timeout = 60000;
UPDATE events SET json = CAST(json_set(json, '\$.screen.id', 'screen-' || seq) AS BLOB)
WHERE workspace_key = '$WORKSPACE' AND visit_id IS NOT NULL;
SQL
}

# Gives every visit event one install and one visit id (the one-visit modes): the columns the check groups and orders
# by, so that the whole workspace is one visit to it.
one_visit() {
    sqlite3 "$WORK/events.sqlite" <<SQL >/dev/null
PRAGMA busy_timeout = 60000;
UPDATE events SET install_id = 'install-one', visit_id = 'visit-one'
WHERE workspace_key = '$WORKSPACE' AND visit_id IS NOT NULL;
SQL
}

# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# grona-mock's resident memory now, in MB.
rss_now_mb() { awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$GRONA_PID/status"; }

# One size of the dense mode: ROUNDS interleaved rounds of each read, medians, peak and after memory.
measure_dense_size() {
    local size="$1" round
    phase "fill-$size"
    if ((size <= BASE)); then
        fill_with_load "$size"
        densify
        if [[ "$MODE" == actions ]]; then all_actions; fi
        if [[ "$MODE" == screens ]]; then own_screens; fi
        if one_visit_mode; then one_visit; fi
    else
        fill_with_copies "$size"
    fi
    local stored
    stored="$(stored_events)"
    sqlite3 "$WORK/events.sqlite" "PRAGMA wal_checkpoint(PASSIVE)" >/dev/null || true
    raw_read
    : >"$WORK/times"
    local pages_line=""
    for ((round = 1; round <= ROUNDS; round++)); do
        phase "raw-$size"
        printf 'raw %s\n' "$(timed raw_read)" >>"$WORK/times"
        phase "paged-$size"
        local ticks_before ticks_after
        ticks_before="$(process_ticks "$GRONA_PID")"
        pages_line="$(violations_paged)"
        ticks_after="$(process_ticks "$GRONA_PID")"
        printf 'paged %s\n' "${pages_line##* }" >>"$WORK/times"
        # The server's own CPU for the pages: on a shared machine the wall time moves with the neighbours, this
        # far less, so a change of code shows here when the ratio is in doubt.
        printf 'pagedcpu %s\n' "$(awk -v t="$((ticks_after - ticks_before))" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }')" \
            >>"$WORK/times"
        pages_line="${pages_line% *}"
        phase "others-$size"
        {
            printf 'summary %s\n' "$(timed violations_summary)"
            printf 'funnels %s\n' "$(timed funnels)"
            printf 'export %s\n' "$(timed export_ndjson)"
        } >>"$WORK/times"
    done
    # Memory after: what the server keeps once the pages are followed, a second later (two samples).
    phase "after-$size"
    sleep 1
    local after
    after="$(rss_now_mb)"
    local raw paged summary funnel exported
    figure() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/times" | median; }
    raw="$(figure raw)" paged="$(figure paged)" summary="$(figure summary)" funnel="$(figure funnels)"
    exported="$(figure export)"
    ratio() { awk -v a="$1" -v b="$raw" 'BEGIN { printf "%.2f", a / b }'; }
    printf '%10s %9s %8.2fs %8.2fs %5sx %8.2fs %5sx %8.2fs %5sx %8.2fs %5sx %7sMB %7sMB %7sMB\n' \
        "$size" "$stored" "$raw" "$paged" "$(ratio "$paged")" "$summary" "$(ratio "$summary")" \
        "$funnel" "$(ratio "$funnel")" "$exported" "$(ratio "$exported")" "$(peak_rss_mb "paged-$size")" \
        "$(peak_rss_mb "others-$size")" "$after" | tee -a "$WORK/table"
    log "           (pages and violations: $pages_line; the server's CPU for the pages $(figure pagedcpu) s; medians of $ROUNDS rounds)"
}

main_dense() {
    local shape="dense (every visit violating)"
    case "$MODE" in
        onevisit) shape="one visit (every visit event made served and given one install and visit id)" ;;
        actions) shape="one visit of actions (every visit event made an action, none served, one install and visit id)" ;;
        screens) shape="one visit of screens (every visit event made served on a screen of its own, one install and visit id)" ;;
    esac
    log "== $(commit_id): $shape, sizes $SIZES (the first $BASE events by grona-mock load, made all served, the rest copied in SQLite); $ROUNDS rounds"
    printf '%10s %9s %9s %15s %15s %15s %15s %9s %9s %9s\n' size stored "raw read" "paged (1000)" "summary" \
        "funnels" "ndjson export" "peak pgd" "peak rest" "after"
    local size
    for size in $SIZES; do measure_dense_size "$size"; done
    phase "unpaged"
    local unpaged
    unpaged="$(timed violations_full)"
    phase "unpaged-after"
    sleep 1
    echo
    echo "unpaged answer (every violation in one body, $(wc -c <"$WORK/violations.json") bytes): ${unpaged}s, peak $(peak_rss_mb unpaged) MB, after $(rss_now_mb) MB"
    phase "finished"
    stop_sampler
    local worst peak
    worst="$(awk '{ for (i = 5; i <= 11; i += 2) { r = $i; sub("x", "", r); if (r + 0 > m) m = r + 0 } } END { print m }' "$WORK/table")"
    peak="$(awk '{ for (i = 12; i <= 14; i++) { r = $i; sub("MB", "", r); if (r + 0 > m) m = r + 0 } } END { print m }' "$WORK/table")"
    if [[ "$MODE" == actions || "$MODE" == screens ]]; then
        # These shapes' target is memory: each answers more violations than it has events (actions) or groups
        # every event apart (screens), and their time is compared with the check in memory in bench/README.md.
        echo "ratio to the raw read: ${worst}x (for information); most resident memory while following the pages, the other reads or after: ${peak} MB (target < ${TARGET_RSS_MB} MB)"
        if at_least "$TARGET_RSS_MB" "$peak"; then echo "inspection ($MODE): PASS"; else echo "inspection ($MODE): BELOW TARGET"; fi
        return
    fi
    echo "worst ratio to the raw read: ${worst}x (target ${TARGET_RATIO}x); most resident memory while following the pages, the other reads or after: ${peak} MB (target < ${TARGET_RSS_MB} MB)"
    if at_least "$TARGET_RATIO" "$worst" && at_least "$TARGET_RSS_MB" "$peak"; then
        echo "inspection ($MODE): PASS"
    else
        echo "inspection ($MODE): BELOW TARGET"
    fi
}

main() {
    enter_repo_root
    want_command sqlite3 sqlite3
    want_command curl curl
    want_command python3 python3
    install_missing
    require_commands sqlite3 curl python3
    install_traps
    build_grona
    make_work_dir inspection
    launch_grona --db "$WORK/events.sqlite"
    URL="http://127.0.0.1:$GRONA_PORT"
    start_sampler
    if [[ "$MODE" != realistic ]]; then
        main_dense
        return
    fi
    log "== $(commit_id): sizes $SIZES (the first $BASE events by grona-mock load, the rest copied in SQLite)"
    printf '%10s %9s %9s %15s %15s %15s %15s %15s %9s\n' size stored "raw read" "violations" "summary" \
        "paged (1000)" "funnels" "ndjson export" "peak RSS"
    local size
    for size in $SIZES; do measure_size "$size"; done
    phase "finished"
    stop_sampler
    echo
    local peak
    peak="$(peak_rss_mb "")"
    echo "peak RSS over the whole run (loading included): ${peak} MB; while measuring: $(peak_rss_mb measure) MB (target < ${TARGET_RSS_MB} MB)"
    local worst
    worst="$(awk '{ for (i = 5; i <= 13; i += 2) { r = $i; sub("x", "", r); if (r + 0 > m) m = r + 0 } } END { print m }' "$WORK/table")"
    echo "worst ratio to the raw read: ${worst}x (target ${TARGET_RATIO}x)"
    if at_least "$TARGET_RATIO" "$worst" && at_least "$TARGET_RSS_MB" "$(peak_rss_mb measure)"; then
        echo "inspection: PASS"
    else
        echo "inspection: BELOW TARGET"
    fi
}

main "$@"
